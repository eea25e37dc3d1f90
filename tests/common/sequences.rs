//! Runners shared by the state tests and the fuzz test: a prefill cut into two chunks, a
//! decode loop against rolling state slots and a packed variable-length forward, each
//! checked against an f64 reference of every sequence written out whole (its history,
//! then its tokens).

use super::{assert_accurate, index, nan, reference_conv, Rng};
use hipconv::conv1d::{
    Activation, Algorithm, CausalConv1d, CausalConv1dUpdate, CausalConv1dVarlen, Layout, Options, Shape, StateCache,
    States, UpdateShape, VarlenShape,
};
use hipconv::{Buffer, Device, Element, Stream};

pub fn upload<T: hipconv::Scalar>(device: &Device, stream: &Stream, values: &[T]) -> Buffer<T> {
    if values.is_empty() {
        return device.alloc(0).unwrap();
    }
    device.upload(stream, values).unwrap()
}

pub fn download<T: hipconv::Scalar>(stream: &Stream, buffer: &Buffer<T>) -> Vec<T> {
    if buffer.is_empty() {
        return Vec::new();
    }
    buffer.to_vec(stream).unwrap()
}

/// Elements of a `[batch, dim, width−1]` state.
pub fn state_len(s: &Shape) -> usize {
    s.batch * s.dim * (s.width - 1)
}

/// Times [from, to) of `x` (shape `s`, `layout`) as a sequence of its own.
pub fn slice_time<T: Element>(s: &Shape, layout: Layout, x: &[T], from: usize, to: usize) -> Vec<T> {
    let part = Shape::new(s.batch, s.dim, to - from, s.width);
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
pub fn run_chunk<T: Element>(
    device: &Device,
    stream: &Stream,
    s: Shape,
    options: Options,
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
    let states = States { initial: Some(&initial), final_states: Some(&mut final_states) };
    conv.forward_with_states(stream, &x, w, Some(bias), states, &mut y).unwrap();
    (download(stream, &y), download(stream, &final_states))
}

/// Cuts a random sequence at `cut`, runs both chunks with states, and compares with the
/// reference of the whole sequence preceded by the initial state.
pub fn check_chunked<T: Element>(device: &Device, s: Shape, options: Options, cut: usize, rng: &mut Rng) {
    let (layout, history) = (options.layout, s.width - 1);
    let (x, w, bias, s0): (Vec<T>, Vec<T>, Vec<T>, Vec<T>) =
        (rng.vec(s.x_len()), rng.vec(s.w_len()), rng.vec(s.dim), rng.vec(state_len(&s)));
    // The whole input as the reference sees it: the initial state, then x.
    let whole = Shape::new(s.batch, s.dim, history + s.seqlen, s.width);
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
    let shape_a = Shape::new(s.batch, s.dim, cut, s.width);
    let shape_b = Shape::new(s.batch, s.dim, s.seqlen - cut, s.width);
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
    assert_accurate(&y, &reference, &what);
}

/// Outputs of one channel continuing from `history` (oldest first; at least width−1
/// values) over `tokens`: act(bias + Σ_tap w[tap] · seq[h + t + tap − (width−1)]), in f64.
pub fn reference_row(history: &[f64], tokens: &[f64], w: &[f64], bias: f64, silu: bool) -> Vec<f64> {
    let seq: Vec<f64> = history.iter().chain(tokens).copied().collect();
    let (h, width) = (history.len(), w.len());
    (0..tokens.len())
        .map(|t| {
            let acc = bias + (0..width).map(|tap| w[tap] * seq[h + t + tap + 1 - width]).sum::<f64>();
            if silu {
                acc / (1.0 + (-acc).exp())
            } else {
                acc
            }
        })
        .collect()
}

fn f64s<T: Element>(values: &[T]) -> Vec<f64> {
    values.iter().map(|v| v.to_f64()).collect()
}

/// One decode loop: `steps` updates of `tokens` new tokens per row.
#[derive(Clone, Copy, Debug)]
pub struct DecodeCase {
    pub shape: UpdateShape,
    pub steps: usize,
    pub circular: bool,
    /// Row 1 (if any) is a padding row (slot −1).
    pub padding: bool,
    pub layout: Layout,
    pub silu: bool,
}

/// Runs `case` from random states (slots in random order, circular write positions
/// anywhere) and checks every output against the reference of each row's whole sequence,
/// padding rows' outputs exactly zero, and the slots afterwards: the last state_len inputs
/// of their rows bit for bit, unused slots untouched.
pub fn check_decode<T: Element>(device: &Device, case: DecodeCase, rng: &mut Rng) {
    let u = case.shape;
    let (history, l) = (u.width - 1, u.state_len);
    let stream = device.stream().unwrap();
    let what = format!("{} {case:?} on {}", T::DTYPE, device.id());
    // Distinct slots for the rows, in random order; row 1 maybe padding.
    let mut slots: Vec<i32> = (0..u.n_slots as i32).collect();
    for i in (1..slots.len()).rev() {
        slots.swap(i, rng.range(0, i));
    }
    let mut slots = slots[..u.batch].to_vec();
    if case.padding && u.batch > 1 {
        slots[1] = -1;
    }
    let mut positions: Vec<i32> = (0..u.batch).map(|_| rng.range(0, 3 * l.max(1)) as i32).collect();
    let (w, bias, state0): (Vec<T>, Vec<T>, Vec<T>) = (rng.vec(u.w_len()), rng.vec(u.dim), rng.vec(u.state_elems()));
    let options = Options::default().layout(case.layout).activation(if case.silu {
        Activation::Silu
    } else {
        Activation::Identity
    });
    let mut op = CausalConv1dUpdate::<T>::new(device, u, options).unwrap();
    let (w_buf, bias_buf) = (upload(device, &stream, &w), upload(device, &stream, &bias));
    let mut conv_state = upload(device, &stream, &state0);
    let indices = upload(device, &stream, &slots);
    let s = u.conv_shape();
    let [bs, ds, ts] = s.strides(case.layout);
    // tokens[b][c]: every input the row has seen, oldest first (its history, then x).
    let mut seen: Vec<Vec<Vec<f64>>> = (0..u.batch)
        .map(|b| {
            (0..u.dim)
                .map(|c| match usize::try_from(slots[b]) {
                    Ok(slot) => {
                        let row = &state0[(slot * u.dim + c) * l..][..l];
                        let p = positions[b] as usize;
                        (0..l).map(|k| if case.circular { row[(p + k) % l] } else { row[k] }.to_f64()).collect()
                    }
                    Err(_) => Vec::new(),
                })
                .collect()
        })
        .collect();
    // Every step's inputs go up first; the steps then run back to back with no host wait
    // between them, each reading the state the one before wrote (on sm_90 and newer their
    // launches overlap: hip/common/dependent_launch.h); then every output comes back.
    let xs: Vec<Vec<T>> = (0..case.steps).map(|_| rng.vec(s.x_len())).collect();
    let step_positions: Vec<Buffer<i32>> = (0..case.steps)
        .map(|k| {
            let at: Vec<i32> = positions.iter().map(|p| p + (k * u.seqlen) as i32).collect();
            upload(device, &stream, &at)
        })
        .collect();
    let x_bufs: Vec<Buffer<T>> = xs.iter().map(|x| upload(device, &stream, x)).collect();
    let mut y_bufs: Vec<Buffer<T>> = xs.iter().map(|_| upload(device, &stream, &vec![nan::<T>(); s.x_len()])).collect();
    for k in 0..case.steps {
        let cache = StateCache {
            conv_state: &mut conv_state,
            state_indices: Some(&indices),
            cache_seqlens: case.circular.then_some(&step_positions[k]),
        };
        op.update(&stream, &x_bufs[k], &w_buf, Some(&bias_buf), cache, &mut y_bufs[k]).unwrap();
    }
    let (mut out, mut reference) = (Vec::new(), Vec::new());
    for (x, y_buf) in xs.iter().zip(&y_bufs) {
        let y = download(&stream, y_buf);
        for b in 0..u.batch {
            for c in 0..u.dim {
                let tokens: Vec<f64> = (0..u.seqlen).map(|t| x[b * bs + c * ds + t * ts].to_f64()).collect();
                let got: Vec<T> = (0..u.seqlen).map(|t| y[b * bs + c * ds + t * ts]).collect();
                if slots[b] < 0 {
                    assert!(got.iter().all(|v| v.to_f32().to_bits() == 0), "padding row {b} not zero, {what}");
                    continue;
                }
                let row = &mut seen[b][c];
                let taps = f64s(&w[c * u.width..(c + 1) * u.width]);
                reference.extend(reference_row(
                    &row[row.len() - history..],
                    &tokens,
                    &taps,
                    bias[c].to_f64(),
                    case.silu,
                ));
                out.extend(got);
                row.extend(tokens);
            }
        }
    }
    // Where each row's circular buffer stands after every step.
    positions.iter_mut().for_each(|p| *p += (case.steps * u.seqlen) as i32);
    assert_accurate(&out, &reference, &what);

    let state = download(&stream, &conv_state);
    let mut used = vec![false; u.n_slots];
    for b in 0..u.batch {
        let Ok(slot) = usize::try_from(slots[b]) else { continue };
        used[slot] = true;
        for c in 0..u.dim {
            let row = &state[(slot * u.dim + c) * l..][..l];
            let p = positions[b] as usize;
            let logical: Vec<f64> =
                (0..l).map(|k| if case.circular { row[(p + k) % l] } else { row[k] }.to_f64()).collect();
            let want = &seen[b][c][seen[b][c].len() - l..];
            assert_eq!(logical, want, "state of row {b} (slot {slot}), channel {c}, {what}");
        }
    }
    for (slot, _) in used.iter().enumerate().filter(|(_, &u)| !u) {
        let range = slot * u.dim * l..(slot + 1) * u.dim * l;
        assert!(state[range.clone()] == state0[range], "unused slot {slot} was written, {what}");
    }
}

/// Bad `cu_seqlens` of 3 sequences over 20 tokens, one bad entry each (with several, the
/// device reports one of them): the offsets, the error's `expected`, position and value.
pub const BAD_CU_SEQLENS: &[BadCuSeqlens] = &[
    (&[0, 12, 5, 20], "offsets that do not decrease", 2, 5),
    (&[0, 5, 12, 19], "the last offset to be the total tokens, 20", 3, 19),
    (&[2, 5, 12, 20], "0: the first sequence starts at token 0", 0, 2),
    (&[0, 5, 12, 25], "an offset in 0..=20 (the total tokens)", 3, 25),
    (&[0, -4, 12, 20], "an offset in 0..=20 (the total tokens)", 1, -4),
];

/// An entry of [`BAD_CU_SEQLENS`].
pub type BadCuSeqlens = (&'static [i32], &'static str, usize, i64);

/// Checks what a call with `bad` cu_seqlens gave: on the host its own `BadIndex`, with
/// nothing written (`untouched`); on a GPU success, then the `BadIndex` that
/// `wait_and_check` reports.
pub fn assert_bad_cu_seqlens(
    device: &Device,
    bad: BadCuSeqlens,
    call: hipconv::Result<()>,
    untouched: impl FnOnce() -> bool,
    wait_and_check: impl FnOnce() -> hipconv::Result<()>,
) {
    let (_, expected, position, value) = bad;
    let err = match call {
        Err(err) => {
            assert!(!device.is_gpu(), "the GPU path checks cu_seqlens on the device");
            assert!(untouched(), "an output was written before the error {err}");
            err
        }
        Ok(()) => wait_and_check().unwrap_err(),
    };
    match &err {
        hipconv::Error::BadIndex { arg: "cu_seqlens", position: p, value: val, expected: e, .. } => {
            assert_eq!((*p, *val, e.as_str()), (position, value, expected), "{err}");
        }
        other => panic!("expected BadIndex for cu_seqlens, got {other:?}"),
    }
}

/// One packed variable-length forward.
#[derive(Clone, Debug)]
pub struct VarlenCase {
    pub lengths: Vec<usize>,
    pub dim: usize,
    pub width: usize,
    pub algorithm: Algorithm,
    pub layout: Layout,
    pub initial: bool,
    pub silu: bool,
}

/// Runs `case` with NaN-poisoned outputs and states, and checks every sequence against
/// the reference of its history followed by its tokens, and its final state bit for bit.
pub fn check_varlen<T: Element>(device: &Device, case: &VarlenCase, rng: &mut Rng) {
    let total: usize = case.lengths.iter().sum();
    let v = VarlenShape::new(case.lengths.len(), case.dim, total, case.width);
    let history = case.width - 1;
    let what = format!("{} {case:?} on {}", T::DTYPE, device.id());
    let stream = device.stream().unwrap();
    let mut cu = vec![0i32];
    case.lengths.iter().for_each(|&n| cu.push(cu.last().unwrap() + n as i32));
    let (x, w, bias, initial): (Vec<T>, Vec<T>, Vec<T>, Vec<T>) =
        (rng.vec(v.x_len()), rng.vec(case.dim * case.width), rng.vec(case.dim), rng.vec(v.state_elems()));
    let activation = if case.silu { Activation::Silu } else { Activation::Identity };
    let options = Options { algorithm: case.algorithm, layout: case.layout, activation };
    let mut op = CausalConv1dVarlen::<T>::new(device, v, options).unwrap();
    let (x_buf, w_buf, bias_buf) =
        (upload(device, &stream, &x), upload(device, &stream, &w), upload(device, &stream, &bias));
    let (cu_buf, initial_buf) = (upload(device, &stream, &cu), upload(device, &stream, &initial));
    let mut y = upload(device, &stream, &vec![nan::<T>(); v.x_len()]);
    let mut final_states = upload(device, &stream, &vec![nan::<T>(); v.state_elems()]);
    let states = States { initial: case.initial.then_some(&initial_buf), final_states: Some(&mut final_states) };
    op.forward(&stream, &x_buf, &cu_buf, &w_buf, Some(&bias_buf), states, &mut y).unwrap();
    op.wait_and_check(&stream).unwrap();
    let (y, final_states) = (download(&stream, &y), download(&stream, &final_states));

    let [_, ds, ts] = v.packed().strides(case.layout);
    let (mut out, mut reference) = (Vec::new(), Vec::new());
    for (seq, &len) in case.lengths.iter().enumerate() {
        let start = cu[seq] as usize;
        for c in 0..case.dim {
            let row = seq * case.dim + c;
            let mut whole: Vec<f64> = match case.initial {
                true => f64s(&initial[row * history..(row + 1) * history]),
                false => vec![0.0; history],
            };
            let tokens: Vec<f64> = (0..len).map(|t| x[(start + t) * ts + c * ds].to_f64()).collect();
            let taps = f64s(&w[c * case.width..(c + 1) * case.width]);
            reference.extend(reference_row(&whole, &tokens, &taps, bias[c].to_f64(), case.silu));
            out.extend((0..len).map(|t| y[(start + t) * ts + c * ds]));
            whole.extend(tokens);
            let got = f64s(&final_states[row * history..(row + 1) * history]);
            assert_eq!(got, &whole[whole.len() - history..], "final state of sequence {seq}, channel {c}, {what}");
        }
    }
    assert_accurate(&out, &reference, &what);
}
