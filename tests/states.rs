//! Initial and final states of the forward: a sequence cut into two chunks, the second
//! continuing from the first's final states, gives the outputs of the whole sequence, and
//! the final states are exactly the last width−1 inputs. Every backend present, both fast
//! paths, layouts and dtypes, widths around the kernels' history steps, awkward cut points.

mod common;

use common::{devices, fresh_seed, index, nan, reference_conv, rel_norm_error, tolerance, Rng};
use hipconv::half::{bf16, f16};
use hipconv::{
    Activation, Algorithm, Buffer, CausalConv1d, ConvOptions, ConvShape, ConvStates, Device, Element, Error, Layout,
    Stream,
};

/// Elements of a `[batch, dim, width−1]` state.
fn state_len(s: &ConvShape) -> usize {
    s.batch * s.dim * (s.width - 1)
}

// Every copy and forward of a test goes through one stream, so they are ordered.
fn upload<T: Element>(device: &Device, stream: &Stream, values: &[T]) -> Buffer<T> {
    if values.is_empty() {
        return device.alloc(0).unwrap();
    }
    device.upload(stream, values).unwrap()
}

fn download<T: Element>(stream: &Stream, buffer: &Buffer<T>) -> Vec<T> {
    if buffer.is_empty() {
        return Vec::new();
    }
    buffer.to_vec(stream).unwrap()
}

/// Times [from, to) of `x` (shape `s`, `layout`) as a sequence of its own.
fn slice_time<T: Element>(s: &ConvShape, layout: Layout, x: &[T], from: usize, to: usize) -> Vec<T> {
    let part = ConvShape::new(s.batch, s.dim, to - from, s.width);
    let mut out = vec![T::from_f32(0.0); part.x_len()];
    for b in 0..s.batch {
        for c in 0..s.dim {
            for t in from..to {
                out[index(&part, layout, b, c, t - from)] = x[index(s, layout, b, c, t)];
            }
        }
    }
    out
}

/// One forward of `x` (shape `s`) from `initial`, returning y and the final states.
#[allow(clippy::too_many_arguments)]
fn run_chunk<T: Element>(
    device: &Device,
    stream: &Stream,
    s: ConvShape,
    options: ConvOptions,
    x: &[T],
    w: &Buffer<T>,
    bias: &Buffer<T>,
    initial: &[T],
) -> (Vec<T>, Vec<T>) {
    let x = upload(device, stream, x);
    let initial = upload(device, stream, initial);
    let mut y = upload(device, stream, &vec![nan::<T>(); s.x_len()]);
    let mut final_states = upload(device, stream, &vec![nan::<T>(); state_len(&s)]);
    let mut conv = CausalConv1d::<T>::with_options(device, s, options).unwrap();
    let states = ConvStates { initial: Some(&initial), final_states: Some(&mut final_states) };
    conv.forward_with_states(stream, &x, w, Some(bias), states, &mut y).unwrap();
    (download(stream, &y), download(stream, &final_states))
}

/// Cuts a random sequence at `cut`, runs both chunks with states, and compares with the
/// reference of the whole sequence preceded by the initial state.
fn check_chunked<T: Element>(device: &Device, s: ConvShape, options: ConvOptions, cut: usize, rng: &mut Rng) {
    let (layout, history) = (options.layout, s.width - 1);
    let (x, w, bias, s0): (Vec<T>, Vec<T>, Vec<T>, Vec<T>) =
        (rng.vec(s.x_len()), rng.vec(s.w_len()), rng.vec(s.dim), rng.vec(state_len(&s)));
    // The whole input as the reference sees it: the initial state, then x.
    let whole = ConvShape::new(s.batch, s.dim, history + s.seqlen, s.width);
    let mut x_whole = vec![T::from_f32(0.0); whole.x_len()];
    for b in 0..s.batch {
        for c in 0..s.dim {
            for k in 0..history {
                x_whole[index(&whole, layout, b, c, k)] = s0[(b * s.dim + c) * history + k];
            }
            for t in 0..s.seqlen {
                x_whole[index(&whole, layout, b, c, history + t)] = x[index(&s, layout, b, c, t)];
            }
        }
    }
    let silu = options.activation == Activation::Silu;
    let reference_whole = reference_conv(&whole, layout, &x_whole, &w, Some(&bias), silu);
    let state_at = |t_whole: usize| -> Vec<T> {
        // The width−1 inputs of x_whole ending just before t_whole, as [batch, dim, width−1].
        let mut out = Vec::with_capacity(state_len(&s));
        for b in 0..s.batch {
            for c in 0..s.dim {
                out.extend((t_whole - history..t_whole).map(|t| x_whole[index(&whole, layout, b, c, t)]));
            }
        }
        out
    };

    let stream = device.stream().unwrap();
    let (w_buf, bias_buf) = (upload(device, &stream, &w), upload(device, &stream, &bias));
    let shape_a = ConvShape::new(s.batch, s.dim, cut, s.width);
    let shape_b = ConvShape::new(s.batch, s.dim, s.seqlen - cut, s.width);
    let (y_a, final_a) =
        run_chunk(device, &stream, shape_a, options, &slice_time(&s, layout, &x, 0, cut), &w_buf, &bias_buf, &s0);
    let x_b = slice_time(&s, layout, &x, cut, s.seqlen);
    let (y_b, final_b) = run_chunk(device, &stream, shape_b, options, &x_b, &w_buf, &bias_buf, &final_a);

    let what = format!("{} {:?} {options:?} cut {cut} on {}", T::DTYPE, s, device.id());
    let bits = |v: &[T]| v.iter().map(|e| e.to_f32().to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&final_a), bits(&state_at(history + cut)), "final states of the first chunk, {what}");
    assert_eq!(bits(&final_b), bits(&state_at(whole.seqlen)), "final states of the second chunk, {what}");

    // Both chunks' outputs against the whole reference (its first width−1 times are the state's).
    let mut y = vec![T::from_f32(0.0); s.x_len()];
    let mut reference = vec![0f64; s.x_len()];
    for b in 0..s.batch {
        for c in 0..s.dim {
            for t in 0..s.seqlen {
                let (part, chunk, tc) = if t < cut { (&y_a, &shape_a, t) } else { (&y_b, &shape_b, t - cut) };
                y[index(&s, layout, b, c, t)] = part[index(chunk, layout, b, c, tc)];
                reference[index(&s, layout, b, c, t)] = reference_whole[index(&whole, layout, b, c, history + t)];
            }
        }
    }
    let err = rel_norm_error(&y, &reference);
    assert!(err <= tolerance(T::DTYPE), "rel error {err:.3e}, {what}");
}

#[test]
fn chunked_prefill_continues_exactly_from_the_final_states() {
    let mut rng = Rng::new(fresh_seed("chunked_prefill_continues_exactly_from_the_final_states"));
    for device in devices("chunked_prefill_continues_exactly_from_the_final_states") {
        for algorithm in [Algorithm::Direct, Algorithm::FusedGemm] {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let options = ConvOptions { algorithm, layout, activation: Activation::Silu };
                // Widths around the compiled ones and FusedGemm's history steps of 16.
                for width in [1, 2, 4, 5, 17, 18, 33] {
                    let s = ConvShape::new(2, 37, 300, width);
                    // Cuts shorter than the state, at it, and at FusedGemm's 256-time tiles.
                    for cut in [1, width.saturating_sub(2).max(1), width, 255, 256, 299] {
                        check_chunked::<f16>(&device, s, options, cut, &mut rng);
                    }
                }
                let s = ConvShape::new(3, 16, 520, 4); // vector paths (dim, seqlen % 8 == 0)
                check_chunked::<bf16>(&device, s, options, 256, &mut rng);
                check_chunked::<f32>(&device, s, options, 3, &mut rng);
                check_chunked::<f32>(&device, ConvShape::new(1, 9, 40, 65), options, 20, &mut rng);
            }
        }
    }
}

#[test]
fn final_states_without_initial_states_see_zeros_before_the_start() {
    // seqlen 2 < width−1 = 4: the final state is two zeros, then the two inputs.
    let s = ConvShape::new(1, 2, 2, 5);
    let x = vec![1.0f32, 2.0, 3.0, 4.0];
    let w = vec![1.0f32; s.w_len()];
    for device in devices("final_states_without_initial_states_see_zeros_before_the_start") {
        let stream = device.stream().unwrap();
        let (x, w) = (upload(&device, &stream, &x), upload(&device, &stream, &w));
        let mut y = upload(&device, &stream, &vec![f32::NAN; s.x_len()]);
        let mut final_states = upload(&device, &stream, &vec![f32::NAN; state_len(&s)]);
        let mut conv = CausalConv1d::<f32>::new(&device, s).unwrap();
        let states = ConvStates { initial: None, final_states: Some(&mut final_states) };
        conv.forward_with_states(&stream, &x, &w, None, states, &mut y).unwrap();
        assert_eq!(download(&stream, &final_states), [0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0], "on {}", device.id());
        assert_eq!(download(&stream, &y), [1.0, 3.0, 3.0, 7.0], "on {}", device.id());
    }
}

#[test]
fn wrong_states_are_rejected_before_launch() {
    let s = ConvShape::new(2, 8, 64, 4);
    for device in devices("wrong_states_are_rejected_before_launch") {
        let stream = device.stream().unwrap();
        let x = upload(&device, &stream, &vec![f16::from_f32(1.0); s.x_len()]);
        let w = upload(&device, &stream, &vec![f16::from_f32(1.0); s.w_len()]);
        let short = upload(&device, &stream, &vec![f16::from_f32(1.0); state_len(&s) - 1]);
        let mut y = upload(&device, &stream, &vec![f16::from_f32(-7.25); s.x_len()]);
        let mut conv = CausalConv1d::<f16>::new(&device, s).unwrap();
        let states = ConvStates { initial: Some(&short), final_states: None };
        match conv.forward_with_states(&stream, &x, &w, None, states, &mut y) {
            Err(Error::BufferLength { arg: "initial_states", expected, found, .. }) => {
                assert_eq!((expected, found), (state_len(&s), state_len(&s) - 1));
            }
            other => panic!("expected BufferLength for initial_states, got {other:?}"),
        }
        let mut im2col =
            CausalConv1d::<f16>::with_options(&device, s, ConvOptions::default().algorithm(Algorithm::Im2colGemm))
                .unwrap();
        let mut final_states = upload(&device, &stream, &vec![f16::from_f32(0.0); state_len(&s)]);
        let states = ConvStates { initial: None, final_states: Some(&mut final_states) };
        let err = im2col.forward_with_states(&stream, &x, &w, None, states, &mut y).unwrap_err();
        assert!(matches!(err, Error::Unsupported { op: "Im2colGemm", .. }), "{err:?}");
        assert!(download(&stream, &y).iter().all(|v| v.to_f32() == -7.25), "y was written on {}", device.id());
    }
}
