//! Bad input gives a typed error before any launch, and the output is left untouched.

mod common;

use common::{devices, gpu_device, Rng};
use hipconv::conv1d::stages;
use hipconv::conv1d::{Activation, Algorithm, CausalConv1d, Layout, Options, Shape};
use hipconv::half::f16;
use hipconv::{Buffer, Device, Error};

// Exactly representable in f16.
const SENTINEL: f32 = -7.25;

fn sentinel_buffer(device: &Device, len: usize) -> Buffer<f16> {
    device.upload(&device.stream().unwrap(), &vec![f16::from_f32(SENTINEL); len]).unwrap()
}

fn assert_untouched(y: &Buffer<f16>, device: &Device) {
    let values = y.to_vec(&device.stream().unwrap()).unwrap();
    assert!(values.iter().all(|v| v.to_f32() == SENTINEL), "output was written on {}", device.id());
}

#[test]
fn zero_sizes_are_rejected_with_the_argument_name() {
    for device in devices("zero_sizes_are_rejected_with_the_argument_name") {
        for (shape, arg) in common::ZERO_SIZED {
            match CausalConv1d::<f16>::new(&device, shape) {
                Err(Error::InvalidDimension { arg: got, value: 0, .. }) => assert_eq!(got, arg),
                other => panic!("{shape:?} on {}: expected InvalidDimension for {arg}, got {other:?}", device.id()),
            }
        }
    }
}

#[test]
fn sizes_past_the_kernels_index_type_are_rejected() {
    for device in devices("sizes_past_the_kernels_index_type_are_rejected") {
        for (shape, quantity) in [
            (Shape::new(1, 1 << 20, 1, 1 << 12), "width*dim (GEMM k)"),
            (Shape::new(1 << 16, 1, 1 << 16, 1), "batch*seqlen (GEMM m)"),
        ] {
            match CausalConv1d::<f16>::new(&device, shape) {
                Err(err @ Error::IndexOverflow { quantity: q, .. }) => {
                    assert_eq!(q, quantity);
                    assert!(err.to_string().contains("2147483647"), "{err}");
                }
                other => panic!("{shape:?}: expected IndexOverflow, got {other:?}"),
            }
        }
    }
}

#[test]
fn wrong_buffer_lengths_leave_the_output_untouched() {
    let shape = Shape::new(2, 5, 7, 3);
    let mut rng = Rng::new(7);
    for device in devices("wrong_buffer_lengths_leave_the_output_untouched") {
        let stream = device.stream().unwrap();
        let mut conv = CausalConv1d::<f16>::new(&device, shape).unwrap();
        let x = device.upload(&stream, &rng.vec::<f16>(shape.x_len())).unwrap();
        let w = device.upload(&stream, &rng.vec::<f16>(shape.w_len())).unwrap();
        let short_x = device.upload(&stream, &rng.vec::<f16>(shape.x_len() - 1)).unwrap();
        let long_w = device.upload(&stream, &rng.vec::<f16>(shape.w_len() + 1)).unwrap();

        let mut y = sentinel_buffer(&device, shape.x_len());
        let err = conv.forward(&stream, &short_x, &w, &mut y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "x", expected: 70, found: 69, .. }), "{err:?}");
        assert!(err.to_string().contains("channel-first [batch 2, dim 5, seqlen 7]"), "{err}");
        let err = conv.forward(&stream, &x, &long_w, &mut y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "w", expected: 15, found: 16, .. }), "{err:?}");
        assert_untouched(&y, &device);

        let mut short_y = sentinel_buffer(&device, shape.x_len() - 2);
        let err = conv.forward(&stream, &x, &w, &mut short_y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "y", expected: 70, found: 68, .. }), "{err:?}");
        assert_untouched(&short_y, &device);

        let mut a = device.alloc::<f16>(stages::a_len(&shape) + 3).unwrap();
        let err = stages::preprocess_input(&stream, &shape, &x, &mut a).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "a", .. }), "{err:?}");
    }
}

#[test]
fn asking_for_a_missing_gpu_is_an_error_not_a_fallback() {
    match Device::gpu(4096) {
        Err(Error::NoGpu { reason }) => assert!(!reason.is_empty()),
        other => panic!("expected NoGpu, got {other:?}"),
    }
    if Device::compiled_gpu_backend().is_none() {
        assert!(matches!(Device::gpu(0), Err(Error::NoGpu { .. })));
    }
}

#[test]
fn buffers_and_streams_of_another_device_are_rejected() {
    let Some(gpu) = gpu_device("buffers_and_streams_of_another_device_are_rejected") else { return };
    let host = Device::host();
    let shape = Shape::new(1, 4, 8, 2);
    let (gpu_stream, host_stream) = (gpu.stream().unwrap(), host.stream().unwrap());
    let mut conv = CausalConv1d::<f16>::new(&gpu, shape).unwrap();
    let x_gpu = gpu.alloc::<f16>(shape.x_len()).unwrap();
    let x_host = host.alloc::<f16>(shape.x_len()).unwrap();
    let w_gpu = gpu.alloc::<f16>(shape.w_len()).unwrap();
    let mut y = sentinel_buffer(&gpu, shape.x_len());

    let err = conv.forward(&gpu_stream, &x_host, &w_gpu, &mut y).unwrap_err();
    assert!(matches!(&err, Error::WrongDevice { arg: "x", .. }), "{err:?}");
    assert!(err.to_string().contains("lives on host, expected gpu:0"), "{err}");
    let err = conv.forward(&host_stream, &x_gpu, &w_gpu, &mut y).unwrap_err();
    assert!(matches!(err, Error::WrongDevice { arg: "stream", .. }), "{err:?}");
    assert_untouched(&y, &gpu);
}

#[test]
fn im2col_pipeline_names_what_it_does_not_support() {
    let shape = Shape::new(1, 6, 9, 3);
    let im2col = Options::default().algorithm(Algorithm::Im2colGemm);
    for device in devices("im2col_pipeline_names_what_it_does_not_support") {
        for (options, what) in
            [(im2col.layout(Layout::ChannelLast), "layout channel_last"), (im2col.activation(Activation::Silu), "Silu")]
        {
            match CausalConv1d::<f16>::with_options(&device, shape, options) {
                Err(err @ Error::Unsupported { op: "Im2colGemm", .. }) => {
                    assert!(err.to_string().contains(what), "{err}");
                    assert!(err.to_string().contains("Algorithm::Direct"), "{err}");
                }
                other => panic!("{options:?}: expected Unsupported, got {other:?}"),
            }
        }
        let stream = device.stream().unwrap();
        let mut conv = CausalConv1d::<f16>::with_options(&device, shape, im2col).unwrap();
        let x = device.alloc::<f16>(shape.x_len()).unwrap();
        let w = device.alloc::<f16>(shape.w_len()).unwrap();
        let bias = device.alloc::<f16>(shape.dim).unwrap();
        let mut y = sentinel_buffer(&device, shape.x_len());
        let err = conv.forward_with_bias(&stream, &x, &w, &bias, &mut y).unwrap_err();
        assert!(matches!(&err, Error::Unsupported { op: "Im2colGemm", what, .. } if what == "bias"), "{err:?}");
        assert_untouched(&y, &device);
    }
}

#[test]
fn fused_gemm_names_the_widest_kernel_it_takes() {
    let max = hipconv::conv1d::FUSED_GEMM_MAX_WIDTH;
    for device in devices("fused_gemm_names_the_widest_kernel_it_takes") {
        let options = Options::default().algorithm(Algorithm::FusedGemm);
        let err = CausalConv1d::<f16>::with_options(&device, Shape::new(1, 8, 64, max + 1), options).unwrap_err();
        match &err {
            Error::Unsupported { op: "FusedGemm", what, .. } => {
                assert_eq!(what, &format!("width {} (at most {max})", max + 1));
                assert!(err.to_string().contains("Direct"), "{err}");
            }
            other => panic!("expected Unsupported from FusedGemm, got {other:?}"),
        }
        assert!(CausalConv1d::<f16>::with_options(&device, Shape::new(1, 8, 64, max), options).is_ok());
    }
}

#[test]
fn wrong_bias_length_is_rejected() {
    let shape = Shape::new(1, 6, 9, 3);
    for device in devices("wrong_bias_length_is_rejected") {
        let stream = device.stream().unwrap();
        let mut conv = CausalConv1d::<f32>::new(&device, shape).unwrap();
        let x = device.alloc::<f32>(shape.x_len()).unwrap();
        let w = device.alloc::<f32>(shape.w_len()).unwrap();
        let bias = device.alloc::<f32>(shape.dim + 1).unwrap();
        let mut y = device.alloc::<f32>(shape.x_len()).unwrap();
        let err = conv.forward_with_bias(&stream, &x, &w, &bias, &mut y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "bias", expected: 6, found: 7, .. }), "{err:?}");
    }
}
