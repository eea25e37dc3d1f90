//! Bad arguments of the backward give typed errors naming the argument, the value and what
//! was expected, before any launch, and leave every gradient buffer as it was.

mod common;

use common::sequences::{download, upload};
use common::{devices, gpu_device, Rng};
use hipconv::conv1d::{
    Algorithm, BackwardInputs, CausalConv1dBackward, CausalConv1dVarlenBackward, Gradients, Layout, Options, ParamGrad,
    Shape, VarlenShape,
};
use hipconv::half::f16;
use hipconv::{Device, Error};

#[test]
fn zero_sizes_in_the_backward_are_rejected_with_the_argument_name() {
    for device in devices("zero_sizes_in_the_backward_are_rejected_with_the_argument_name") {
        for (shape, arg) in common::ZERO_SIZED {
            match CausalConv1dBackward::<f16>::new(&device, shape, Options::default()) {
                Err(Error::InvalidDimension { arg: got, value: 0, .. }) => assert_eq!(got, arg),
                other => panic!("{shape:?} on {}: expected InvalidDimension for {arg}, got {other:?}", device.id()),
            }
        }
        for (shape, arg) in [(VarlenShape::new(0, 4, 8, 4), "n_seqs"), (VarlenShape::new(2, 4, 0, 4), "seqlen")] {
            match CausalConv1dVarlenBackward::<f16>::new(&device, shape, Options::default()) {
                Err(Error::InvalidDimension { arg: got, value: 0, .. }) => assert_eq!(got, arg),
                other => panic!("{shape:?} on {}: expected InvalidDimension for {arg}, got {other:?}", device.id()),
            }
        }
    }
}

#[test]
fn the_backward_takes_only_the_streaming_algorithm() {
    let shape = Shape::new(1, 6, 9, 3);
    for device in devices("the_backward_takes_only_the_streaming_algorithm") {
        for algorithm in [Algorithm::FusedGemm, Algorithm::Im2colGemm] {
            let options = Options::default().algorithm(algorithm);
            let errors = [
                CausalConv1dBackward::<f16>::new(&device, shape, options).unwrap_err(),
                CausalConv1dVarlenBackward::<f16>::new(&device, VarlenShape::new(2, 6, 9, 3), options).unwrap_err(),
            ];
            for err in errors {
                match &err {
                    Error::Unsupported { op: "the backward", what, .. } => {
                        assert_eq!(what, &format!("algorithm {algorithm}"));
                        assert!(err.to_string().contains("Algorithm::Auto or Direct"), "{err}");
                    }
                    other => panic!("{algorithm:?}: expected Unsupported from the backward, got {other:?}"),
                }
            }
        }
        for algorithm in [Algorithm::Auto, Algorithm::Direct] {
            let op = CausalConv1dBackward::<f16>::new(&device, shape, Options::default().algorithm(algorithm)).unwrap();
            assert_eq!(op.options().algorithm, Algorithm::Direct);
        }
    }
}

/// Every buffer a backward call takes, with their contents for comparing afterwards.
const ARGS: [&str; 11] = [
    "x",
    "w",
    "bias",
    "dy",
    "initial_states",
    "dfinal_states",
    "dx",
    "dweight",
    "native dweight",
    "dbias",
    "dinitial_states",
];

/// Runs the backward of `shape` (batch rows, or `n_seqs` packed sequences of it) with every
/// buffer right but `wrong`, one element short (inputs) or long (outputs); checks that the
/// gradients were left as they were and returns the error and the length `wrong` needed.
fn call_with_one_wrong(
    device: &Device,
    shape: Shape,
    n_seqs: Option<usize>,
    wrong: &str,
    rng: &mut Rng,
) -> (Error, usize) {
    let stream = device.stream().unwrap();
    let history = shape.width - 1;
    let rows = n_seqs.unwrap_or(shape.batch);
    let expected = |arg: &str| match arg {
        "x" | "dy" | "dx" => shape.x_len(),
        "w" | "dweight" | "native dweight" => shape.w_len(),
        "bias" | "dbias" => shape.dim,
        _ => rows * shape.dim * history,
    };
    let index = ARGS.iter().position(|&a| a == wrong).unwrap();
    let len = |arg: &str| match (arg == wrong, index < 6) {
        (false, _) => expected(arg),
        (true, true) => expected(arg) - 1,
        (true, false) => expected(arg) + 1,
    };
    let input = |arg: &str, rng: &mut Rng| upload(device, &stream, &rng.vec::<f16>(len(arg)));
    let (x, w, bias, dy) = (input("x", rng), input("w", rng), input("bias", rng), input("dy", rng));
    let (initial, dfinal) = (input("initial_states", rng), input("dfinal_states", rng));
    // Random contents in the gradients, NaN in the rest.
    let (dx0, dweight0, dbias0, dinitial0) = (
        rng.vec::<f16>(len("dx")),
        rng.vec::<f32>(len("dweight")),
        rng.vec::<f32>(len("dbias")),
        vec![f16::NAN; len("dinitial_states")],
    );
    let native0 = rng.vec::<f16>(len("native dweight"));
    let (mut dx, mut dweight, mut dbias) =
        (upload(device, &stream, &dx0), upload(device, &stream, &dweight0), upload(device, &stream, &dbias0));
    let (mut native, mut dinitial) = (upload(device, &stream, &native0), upload(device, &stream, &dinitial0));
    let dweight_grad = match wrong {
        "native dweight" => ParamGrad::Native(&mut native),
        _ => ParamGrad::F32(&mut dweight),
    };
    let grads = Gradients {
        dx: &mut dx,
        dweight: dweight_grad,
        dbias: Some(ParamGrad::F32(&mut dbias)),
        dinitial_states: Some(&mut dinitial),
    };
    let inputs = BackwardInputs::new(&x, &w, &dy).bias(&bias).states(Some(&initial), Some(&dfinal));
    let options = Options::default().layout(Layout::ChannelLast);
    let result = match n_seqs {
        None => CausalConv1dBackward::<f16>::new(device, shape, options).unwrap().backward(&stream, inputs, grads),
        Some(n) => {
            let cu: Vec<i32> = (0..=n).map(|i| (i * shape.seqlen / n) as i32).collect();
            let cu = upload(device, &stream, &cu);
            let v = VarlenShape::new(n, shape.dim, shape.seqlen, shape.width);
            let mut op = CausalConv1dVarlenBackward::<f16>::new(device, v, options).unwrap();
            op.backward(&stream, inputs, &cu, grads)
        }
    };
    let err = result.expect_err(wrong);
    let bits16 = |v: &[f16]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
    let bits32 = |v: &[f32]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
    let what = format!("{wrong} wrong on {}", device.id());
    assert_eq!(bits16(&download(&stream, &dx)), bits16(&dx0), "dx written, {what}");
    assert_eq!(bits32(&download(&stream, &dweight)), bits32(&dweight0), "dweight written, {what}");
    assert_eq!(bits16(&download(&stream, &native)), bits16(&native0), "native dweight written, {what}");
    assert_eq!(bits32(&download(&stream, &dbias)), bits32(&dbias0), "dbias written, {what}");
    assert_eq!(bits16(&download(&stream, &dinitial)), bits16(&dinitial0), "dinitial_states written, {what}");
    (err, expected(wrong))
}

#[test]
fn wrong_buffer_lengths_name_the_argument_and_leave_the_gradients_untouched() {
    let mut rng = Rng::new(11);
    let shape = Shape::new(2, 5, 7, 3);
    for device in devices("wrong_buffer_lengths_name_the_argument_and_leave_the_gradients_untouched") {
        for n_seqs in [None, Some(3)] {
            let s = match n_seqs {
                None => shape,
                Some(_) => Shape::new(1, shape.dim, shape.seqlen, shape.width),
            };
            for (i, wrong) in ARGS.into_iter().enumerate() {
                let (err, expected) = call_with_one_wrong(&device, s, n_seqs, wrong, &mut rng);
                let found = if i < 6 { expected - 1 } else { expected + 1 };
                let arg = wrong.trim_start_matches("native ");
                match &err {
                    Error::BufferLength { arg: a, expected: e, found: f, .. } => {
                        assert_eq!((*a, *e, *f), (arg, expected, found), "{err}");
                    }
                    other => panic!("{wrong} with {n_seqs:?} sequences: expected BufferLength, got {other:?}"),
                }
                let layout = match wrong {
                    "x" | "dy" | "dx" => format!("channel-last [batch {}, seqlen 7, dim 5]", s.batch),
                    "w" | "dweight" | "native dweight" => String::from("[dim 5, width 3]"),
                    "bias" | "dbias" => String::from("[dim 5]"),
                    _ => match n_seqs {
                        None => String::from("[batch 2, dim 5, width-1 2]"),
                        Some(n) => format!("[n_seqs {n}, dim 5, width-1 2]"),
                    },
                };
                assert!(err.to_string().contains(&layout), "{err} should describe {layout}");
            }
        }
    }
}

#[test]
fn backward_buffers_and_streams_of_another_device_are_rejected() {
    let Some(gpu) = gpu_device("backward_buffers_and_streams_of_another_device_are_rejected") else { return };
    let host = Device::host();
    let shape = Shape::new(1, 4, 8, 2);
    let (gpu_stream, host_stream) = (gpu.stream().unwrap(), host.stream().unwrap());
    let mut op = CausalConv1dBackward::<f16>::new(&gpu, shape, Options::default()).unwrap();
    let on_gpu = |len| gpu.alloc::<f16>(len).unwrap();
    let (x, w, dy) = (on_gpu(shape.x_len()), on_gpu(shape.w_len()), on_gpu(shape.x_len()));
    let x_host = host.alloc::<f16>(shape.x_len()).unwrap();
    let dx0 = vec![f16::from_f32(-7.25); shape.x_len()];
    let mut dx = upload(&gpu, &gpu_stream, &dx0);
    let mut dweight = gpu.alloc::<f32>(shape.w_len()).unwrap();
    let mut dweight_host = host.alloc::<f32>(shape.w_len()).unwrap();

    let err = op.backward(&gpu_stream, BackwardInputs::new(&x_host, &w, &dy), Gradients::new(&mut dx, &mut dweight));
    let err = err.unwrap_err();
    assert!(matches!(&err, Error::WrongDevice { arg: "x", .. }), "{err:?}");
    assert!(err.to_string().contains("lives on host, expected gpu:0"), "{err}");
    let grads = Gradients::new(&mut dx, &mut dweight_host);
    let err = op.backward(&gpu_stream, BackwardInputs::new(&x, &w, &dy), grads).unwrap_err();
    assert!(matches!(&err, Error::WrongDevice { arg: "dweight", .. }), "{err:?}");
    let grads = Gradients::new(&mut dx, &mut dweight);
    let err = op.backward(&host_stream, BackwardInputs::new(&x, &w, &dy), grads).unwrap_err();
    assert!(matches!(err, Error::WrongDevice { arg: "stream", .. }), "{err:?}");
    assert_eq!(download(&gpu_stream, &dx), dx0, "dx was written");
}
