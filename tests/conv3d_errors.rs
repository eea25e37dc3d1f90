//! conv3d's bad input: a typed error naming the argument before any launch, and the
//! caller's output left untouched. Every backend present.

mod common;

use common::{devices, gpu_device, Rng};
use hipconv::conv3d::{Algorithm, Conv3d, Frames, Layout, Options, Padding, Shape};
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

fn random_buffer(device: &Device, len: usize, rng: &mut Rng) -> Buffer<f16> {
    device.upload(&device.stream().unwrap(), &rng.vec::<f16>(len)).unwrap()
}

#[test]
fn zero_sizes_are_rejected_with_the_argument_name() {
    let base = Shape::new(1, 4, 4, [4, 4, 4], [3, 3, 3]);
    for device in devices("zero_sizes_are_rejected_with_the_argument_name") {
        for (shape, arg) in [
            (Shape { batch: 0, ..base }, "batch"),
            (Shape { cin: 0, ..base }, "cin"),
            (Shape { cout: 0, ..base }, "cout"),
            (Shape { groups: 0, ..base }, "groups"),
            (Shape { input: [4, 0, 4], ..base }, "input height"),
            (Shape { kernel: [0, 3, 3], ..base }, "kernel depth"),
            (Shape { stride: [1, 1, 0], ..base }, "stride width"),
            (Shape { dilation: [1, 0, 1], ..base }, "dilation height"),
        ] {
            match Conv3d::<f16>::new(&device, shape, Options::default()) {
                Err(Error::InvalidDimension { arg: got, value: 0, .. }) => assert_eq!(got, arg),
                other => panic!("{shape:?} on {}: expected InvalidDimension for {arg}, got {other:?}", device.id()),
            }
        }
    }
}

#[test]
fn groups_that_do_not_divide_the_channels_are_rejected() {
    for device in devices("groups_that_do_not_divide_the_channels_are_rejected") {
        for shape in
            [Shape::new(1, 6, 8, [4, 4, 4], [3, 3, 3]).groups(4), Shape::new(1, 8, 6, [4, 4, 4], [3, 3, 3]).groups(4)]
        {
            match Conv3d::<f16>::new(&device, shape, Options::default()) {
                Err(err @ Error::InvalidDimension { arg: "groups", value: 4, .. }) => {
                    assert!(err.to_string().contains("divisor of both cin and cout"), "{err}")
                }
                other => panic!("{shape:?}: expected InvalidDimension for groups, got {other:?}"),
            }
        }
    }
}

#[test]
fn kernels_larger_than_the_padded_input_are_rejected() {
    for device in devices("kernels_larger_than_the_padded_input_are_rejected") {
        for (shape, axis) in [
            (Shape::new(1, 2, 2, [2, 8, 8], [3, 3, 3]), "depth"),
            (Shape::new(1, 2, 2, [8, 8, 4], [3, 3, 3]).dilation([1, 1, 2]), "width"),
            (Shape::new(1, 2, 2, [8, 1, 8], [1, 5, 1]).padding(Padding::Symmetric([0, 1, 0])), "height"),
        ] {
            match Conv3d::<f16>::new(&device, shape, Options::default()) {
                Err(err @ Error::KernelLargerThanInput { axis: got, .. }) => {
                    assert_eq!(got, axis);
                    assert!(err.to_string().contains("output would be empty"), "{err}");
                }
                other => panic!("{shape:?}: expected KernelLargerThanInput on {axis}, got {other:?}"),
            }
        }
    }
}

#[test]
fn depthwise_needs_groups_equal_to_the_channels() {
    let shape = Shape::new(1, 8, 8, [4, 4, 4], [3, 3, 3]).groups(2);
    for device in devices("depthwise_needs_groups_equal_to_the_channels") {
        match Conv3d::<f16>::new(&device, shape, Options::default().algorithm(Algorithm::Depthwise)) {
            Err(Error::Unsupported { op: "conv3d Depthwise", .. }) => {}
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }
}

#[test]
fn wrong_buffer_lengths_leave_the_output_untouched() {
    let mut rng = Rng::new(7);
    // Weights shaped for groups 1 given to a groups-2 conv are the wrong length.
    let shape = Shape::new(2, 4, 6, [3, 5, 7], [3, 3, 3]).groups(2).padding(Padding::Causal);
    let dense = Shape { groups: 1, ..shape };
    for device in devices("wrong_buffer_lengths_leave_the_output_untouched") {
        for algorithm in Algorithm::ALL.into_iter().filter(|a| *a != Algorithm::Depthwise) {
            for layout in [Layout::Ncdhw, Layout::Ndhwc] {
                let stream = device.stream().unwrap();
                let mut conv =
                    Conv3d::<f16>::new(&device, shape, Options::default().algorithm(algorithm).layout(layout)).unwrap();
                let x = random_buffer(&device, shape.x_len(), &mut rng);
                let w = random_buffer(&device, shape.w_len(), &mut rng);
                let bias = random_buffer(&device, shape.cout, &mut rng);
                let mut y = sentinel_buffer(&device, shape.y_len());
                let short_x = random_buffer(&device, shape.x_len() - 1, &mut rng);
                let dense_w = random_buffer(&device, dense.w_len(), &mut rng);
                let short_bias = random_buffer(&device, shape.cout - 1, &mut rng);
                let cases: [(&str, Result<(), Error>); 3] = [
                    ("x", conv.forward(&stream, &short_x, &w, None, &mut y)),
                    ("w", conv.forward(&stream, &x, &dense_w, None, &mut y)),
                    ("bias", conv.forward(&stream, &x, &w, Some(&short_bias), &mut y)),
                ];
                for (arg, result) in cases {
                    match result {
                        Err(err @ Error::BufferLength { arg: got, .. }) => {
                            assert_eq!(got, arg);
                            if arg == "w" {
                                assert!(err.to_string().contains("groups 2"), "{err}");
                            }
                        }
                        other => panic!("{algorithm} {layout}: expected BufferLength for {arg}, got {other:?}"),
                    }
                }
                let mut long_y = sentinel_buffer(&device, shape.y_len() + 1);
                match conv.forward(&stream, &x, &w, Some(&bias), &mut long_y) {
                    Err(Error::BufferLength { arg: "y", .. }) => {}
                    other => panic!("expected BufferLength for y, got {other:?}"),
                }
                // Frames of the wrong length, and frames without causal padding.
                let short = random_buffer(&device, shape.frames_len() - 1, &mut rng);
                let frames = Frames { initial: Some(&short), final_frames: None };
                match conv.forward_chunk(&stream, &x, &w, None, frames, &mut y) {
                    Err(Error::BufferLength { arg: "initial_frames", .. }) => {}
                    other => panic!("expected BufferLength for initial_frames, got {other:?}"),
                }
                assert_untouched(&y, &device);
                assert_untouched(&long_y, &device);
            }
        }
        let plain = Shape::new(1, 2, 2, [4, 4, 4], [3, 3, 3]).padding(Padding::Symmetric([1, 1, 1]));
        let mut conv = Conv3d::<f16>::new(&device, plain, Options::default()).unwrap();
        let stream = device.stream().unwrap();
        let (x, w) = (random_buffer(&device, plain.x_len(), &mut rng), random_buffer(&device, plain.w_len(), &mut rng));
        let frames_buffer = random_buffer(&device, 16, &mut rng);
        let mut y = sentinel_buffer(&device, plain.y_len());
        let frames = Frames { initial: Some(&frames_buffer), final_frames: None };
        match conv.forward_chunk(&stream, &x, &w, None, frames, &mut y) {
            Err(Error::Unsupported { op: "conv3d streaming", .. }) => {}
            other => panic!("expected Unsupported streaming, got {other:?}"),
        }
        assert_untouched(&y, &device);
    }
}

#[test]
fn buffers_on_another_device_are_rejected() {
    let Some(gpu) = gpu_device("buffers_on_another_device_are_rejected") else { return };
    let host = Device::host();
    let shape = Shape::new(1, 2, 3, [3, 4, 5], [3, 3, 3]).padding(Padding::Symmetric([1, 1, 1]));
    let mut rng = Rng::new(3);
    let mut conv = Conv3d::<f16>::new(&gpu, shape, Options::default()).unwrap();
    let stream = gpu.stream().unwrap();
    let x_host = random_buffer(&host, shape.x_len(), &mut rng);
    let w = random_buffer(&gpu, shape.w_len(), &mut rng);
    let mut y = sentinel_buffer(&gpu, shape.y_len());
    match conv.forward(&stream, &x_host, &w, None, &mut y) {
        Err(Error::WrongDevice { arg: "x", .. }) => {}
        other => panic!("expected WrongDevice for x, got {other:?}"),
    }
    match conv.forward(&host.stream().unwrap(), &x_host, &w, None, &mut y) {
        Err(Error::WrongDevice { arg: "stream", .. }) => {}
        other => panic!("expected WrongDevice for the stream, got {other:?}"),
    }
    assert_untouched(&y, &gpu);
}

#[test]
fn an_im3col_workspace_past_device_memory_is_an_error_not_a_crash() {
    let Some(gpu) = gpu_device("an_im3col_workspace_past_device_memory_is_an_error_not_a_crash") else { return };
    // 1 × 256 × 64 × 512 × 512 input, 3³ kernel: the patch matrix is 2²⁴ rows × 6912
    // columns of f16 = 232 GB, past any GPU's memory; the conv's own tensors are not allocated.
    let shape = Shape::new(1, 256, 256, [64, 512, 512], [3, 3, 3]).padding(Padding::Symmetric([1, 1, 1]));
    match Conv3d::<f16>::new(&gpu, shape, Options::default().algorithm(Algorithm::Im3colGemm)) {
        Err(err @ Error::WorkspaceTooLarge { .. }) => assert!(err.to_string().contains("ImplicitGemm"), "{err}"),
        other => panic!("expected WorkspaceTooLarge, got {other:?}"),
    }
    // The implicit GEMM needs no workspace for the same shape in NDHWC (in NCDHW it keeps
    // channels-last copies of x and w: their size, not 27 times x).
    let implicit = Options::default().algorithm(Algorithm::ImplicitGemm);
    let conv = Conv3d::<f16>::new(&gpu, shape, implicit.layout(Layout::Ndhwc)).unwrap();
    assert_eq!(conv.workspace_bytes(), 0);
    let conv = Conv3d::<f16>::new(&gpu, shape, implicit.layout(Layout::Ncdhw)).unwrap();
    assert_eq!(conv.workspace_bytes(), (shape.x_len() + shape.w_len()) * 2);
}

#[test]
fn sizes_past_the_kernels_index_type_are_rejected() {
    for device in devices("sizes_past_the_kernels_index_type_are_rejected") {
        // 2^31 output positions.
        let shape = Shape::new(2, 1, 1, [1024, 1024, 1024], [1, 1, 1]);
        match Conv3d::<f16>::new(&device, shape, Options::default()) {
            Err(Error::IndexOverflow { quantity, .. }) => assert!(quantity.contains("output positions"), "{quantity}"),
            other => panic!("expected IndexOverflow, got {other:?}"),
        }
    }
}
