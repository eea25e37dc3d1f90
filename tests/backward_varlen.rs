//! The backward of packed variable-length batches: sequences of length 0, 1, width−2,
//! width−1, width and thousands packed together, per-sequence initial states, dfinal_states
//! and dinitial_states, both layouts, every dtype, against the f64 reference and against
//! the batch backward run on each sequence alone; bad cu_seqlens as typed errors before
//! launch (host) or reported by the device, never a fault.

mod common;

use common::backward::{check_dtype, run, Case, Got, Inputs, Rows, With, DTYPES, LAYOUTS};
use common::sequences::{assert_bad_cu_seqlens, download, slice_time, upload, BAD_CU_SEQLENS};
use common::{devices, fresh_seed, rel_norm_error, tolerance, Rng};
use hipconv::conv1d::{
    Algorithm, BackwardInputs, CausalConv1dVarlenBackward, Gradients, Layout, Options, Shape, VarlenShape,
};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element, Error};

/// Lengths around the history of `width` and the kernels' tiles, with an empty one.
fn lengths(width: usize) -> Vec<usize> {
    vec![1, width.saturating_sub(2), 0, 1025, width - 1, width, 2, 300, 2049, 1]
}

#[test]
fn packed_sequences_match_the_reference() {
    let mut rng = Rng::new(fresh_seed("packed_sequences_match_the_reference"));
    for device in devices("packed_sequences_match_the_reference") {
        for layout in LAYOUTS {
            for (i, width) in [1, 2, 4, 5, 9, 33].into_iter().enumerate() {
                for dtype in DTYPES {
                    // The optional parts drawn, with the states always there for the widest.
                    let bits = rng.range(0, 63) as u32 | if i % 2 == 0 { 0b1_0110 } else { 0 };
                    let rows = Rows::packed(&lengths(width), 20, width);
                    let case = Case { rows, layout, silu: rng.range(0, 1) == 1, with: With::from_bits(bits) };
                    check_dtype(dtype, &device, &case, &mut rng);
                }
            }
            let case = Case { rows: Rows::packed(&[5, 1, 515, 8], 64, 4), layout, silu: false, with: With::ALL };
            check_dtype(DTYPES[0], &device, &case, &mut rng);
        }
    }
}

#[test]
fn packed_backward_equals_the_backward_of_each_sequence_alone() {
    let mut rng = Rng::new(fresh_seed("packed_backward_equals_the_backward_of_each_sequence_alone"));
    for device in devices("packed_backward_equals_the_backward_of_each_sequence_alone") {
        for layout in LAYOUTS {
            for width in [2, 4, 9] {
                equals_each_sequence_alone::<f32>(&device, layout, width, &mut rng);
            }
            equals_each_sequence_alone::<f16>(&device, layout, 4, &mut rng);
            equals_each_sequence_alone::<bf16>(&device, layout, 5, &mut rng);
        }
    }
}

fn equals_each_sequence_alone<T: Element>(device: &Device, layout: Layout, width: usize, rng: &mut Rng) {
    let (dim, history) = (12, width - 1);
    let lengths = lengths(width);
    let case = Case { rows: Rows::packed(&lengths, dim, width), layout, silu: true, with: With::ALL };
    let inputs = Inputs::<T>::random(rng, &case.rows, With::ALL);
    let packed = run(device, &case, &inputs);
    let what = format!("{} {layout:?} width {width} lengths {lengths:?} on {}", T::DTYPE, device.id());

    let (mut alone_dx, mut alone_dinitial) = (Vec::new(), Vec::new());
    let (mut dweight, mut dbias) = (vec![0f64; dim * width], vec![0f64; dim]);
    let rows_of =
        |v: &Option<Vec<T>>, seq: usize| Some(v.as_ref().unwrap()[seq * dim * history..][..dim * history].to_vec());
    for (seq, &(_, start, len)) in case.rows.seqs.iter().enumerate() {
        if len == 0 {
            // Nothing to run alone: the state's gradient passes straight through.
            let bits = |v: &[T]| v.iter().map(|e| e.to_f32().to_bits()).collect::<Vec<_>>();
            let got = &packed.dinitial.as_ref().unwrap()[seq * dim * history..][..dim * history];
            assert_eq!(bits(got), bits(&rows_of(&inputs.dfinal, seq).unwrap()), "empty sequence {seq}, {what}");
            alone_dinitial.extend_from_slice(got);
            continue;
        }
        let s = case.rows.shape;
        let alone_inputs = Inputs {
            x: slice_time(&s, layout, &inputs.x, start, start + len),
            dy: slice_time(&s, layout, &inputs.dy, start, start + len),
            initial: rows_of(&inputs.initial, seq),
            dfinal: rows_of(&inputs.dfinal, seq),
            ..inputs.clone()
        };
        let alone = Case { rows: Rows::batch(Shape::new(1, dim, len, width)), ..case.clone() };
        let got = run(device, &alone, &alone_inputs);
        // The packed layout of one sequence is that of a batch of one.
        alone_dx.extend(got.dx);
        alone_dinitial.extend(got.dinitial.unwrap());
        dweight.iter_mut().zip(&got.dweight).for_each(|(sum, &v)| *sum += f64::from(v));
        dbias.iter_mut().zip(got.dbias.as_ref().unwrap()).for_each(|(sum, &v)| *sum += f64::from(v));
    }
    // Packed dx in sequence order, as the sequences run alone wrote it.
    let s = case.rows.shape;
    let packed_dx: Vec<T> = case
        .rows
        .seqs
        .iter()
        .flat_map(|&(_, start, len)| slice_time(&s, layout, &packed.dx, start, start + len))
        .collect();
    let tol = tolerance(T::DTYPE);
    let f64s = |v: &[T]| v.iter().map(|e| e.to_f64()).collect::<Vec<_>>();
    for (name, err) in [
        ("dx", rel_norm_error(&packed_dx, &f64s(&alone_dx))),
        ("dinitial_states", rel_norm_error(packed.dinitial.as_ref().unwrap(), &f64s(&alone_dinitial))),
        ("dweight", rel_norm_error(&packed.dweight, &dweight)),
        ("dbias", rel_norm_error(packed.dbias.as_ref().unwrap(), &dbias)),
    ] {
        assert!(err <= tol, "{name}: packed against each sequence alone, rel error {err:.3e}, {what}");
    }
}

#[test]
fn bad_cu_seqlens_in_the_backward_are_errors_never_faults() {
    let v = VarlenShape::new(3, 8, 20, 4);
    let mut rng = Rng::new(fresh_seed("bad_cu_seqlens_in_the_backward_are_errors_never_faults"));
    for device in devices("bad_cu_seqlens_in_the_backward_are_errors_never_faults") {
        let stream = device.stream().unwrap();
        let (x, w, dy) = (rng.vec::<f32>(v.x_len()), rng.vec::<f32>(8 * 4), rng.vec::<f32>(v.x_len()));
        let (x, w, dy) = (upload(&device, &stream, &x), upload(&device, &stream, &w), upload(&device, &stream, &dy));
        let mut op = CausalConv1dVarlenBackward::<f32>::new(&device, v, Options::default()).unwrap();
        for &bad in BAD_CU_SEQLENS {
            let cu = upload(&device, &stream, bad.0);
            let before = Got {
                dx: vec![-7.25f32; v.x_len()],
                dweight: vec![-7.25; 8 * 4],
                dbias: Some(vec![-7.25; 8]),
                dinitial: Some(vec![-7.25; v.state_elems()]),
            };
            let mut dx = upload(&device, &stream, &before.dx);
            let mut dweight = upload(&device, &stream, &before.dweight);
            let mut dbias = upload(&device, &stream, before.dbias.as_ref().unwrap());
            let mut dinitial = upload(&device, &stream, before.dinitial.as_ref().unwrap());
            let grads = Gradients::new(&mut dx, &mut dweight).dbias(&mut dbias).dinitial_states(&mut dinitial);
            let call = op.backward(&stream, BackwardInputs::new(&x, &w, &dy), &cu, grads);
            let untouched = || {
                let after = Got {
                    dx: download(&stream, &dx),
                    dweight: download(&stream, &dweight),
                    dbias: Some(download(&stream, &dbias)),
                    dinitial: Some(download(&stream, &dinitial)),
                };
                after == before
            };
            assert_bad_cu_seqlens(&device, bad, call, untouched, || op.wait_and_check(&stream));
        }
        op.wait_and_check(&stream).expect("the status is cleared once reported");
        let short = upload(&device, &stream, &[0i32, 20]);
        let (mut dx, mut dweight) = (upload(&device, &stream, &[0.0f32; 160]), upload(&device, &stream, &[0.0f32; 32]));
        let grads = Gradients::new(&mut dx, &mut dweight);
        let err = op.backward(&stream, BackwardInputs::new(&x, &w, &dy), &short, grads).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "cu_seqlens", expected: 4, found: 2, .. }), "{err:?}");
        let fused = Options::default().algorithm(Algorithm::FusedGemm);
        let err = CausalConv1dVarlenBackward::<f16>::new(&device, v, fused).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    }
}
