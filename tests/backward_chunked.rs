//! The chunked-training identity: a sequence cut into chunks, run forward chunk by chunk
//! (each continuing from the previous one's final states), then backward chunk by chunk in
//! reverse (each chunk's dinitial_states becoming the previous chunk's dfinal_states), has
//! the gradients of the whole sequence: dx concatenated, dweight and dbias summed over the
//! chunks, and the first chunk's dinitial_states. Cuts at 1, width−2, width−1, width and tile
//! edges, chunks shorter than width−1, both layouts, SiLU with bias, every backend.

mod common;

use common::backward::{self, assert_close, run, Case, Got, Grads, Inputs, Rows, With, LAYOUTS};
use common::sequences::{run_chunk, slice_time, upload};
use common::{devices, fresh_seed, index, nan, Rng};
use hipconv::conv1d::{Algorithm, Layout, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element};

/// Runs `s` (layout, SiLU, bias, random initial states and dfinal_states) cut at `cuts`
/// chunk by chunk and checks it against the whole sequence's backward and the reference.
fn check_chunked_backward<T: Element>(device: &Device, s: Shape, layout: Layout, cuts: &[usize], rng: &mut Rng) {
    let whole = Case { rows: Rows::batch(s), layout, silu: true, with: With::ALL };
    let inputs = Inputs::<T>::random(rng, &whole.rows, With::ALL);
    let what = format!("{} {s:?} {layout:?} cuts {cuts:?} on {}", T::DTYPE, device.id());
    let bounds: Vec<usize> = [0].iter().chain(cuts).chain([s.seqlen].iter()).copied().collect();
    let chunks: Vec<(usize, usize)> = bounds.windows(2).map(|p| (p[0], p[1])).collect();
    let chunk_shape = |(from, to): (usize, usize)| Shape::new(s.batch, s.dim, to - from, s.width);

    // Forward, chunk by chunk: each chunk's initial states.
    let stream = device.stream().unwrap();
    let (bias, w) = (inputs.bias.as_ref().unwrap(), upload(device, &stream, &inputs.w));
    let bias_buf = upload(device, &stream, bias);
    let options = whole.options().algorithm(Algorithm::Direct);
    let mut initial = vec![inputs.initial.clone().unwrap()];
    for &chunk in &chunks[..chunks.len() - 1] {
        let x = slice_time(&s, layout, &inputs.x, chunk.0, chunk.1);
        let last = initial.last().unwrap();
        let (_, final_states) = run_chunk(device, &stream, chunk_shape(chunk), options, &x, &w, &bias_buf, last);
        initial.push(final_states);
    }

    // Backward, chunk by chunk in reverse.
    let mut chunked = Got {
        dx: vec![nan::<T>(); s.x_len()],
        dweight: vec![0.0; s.w_len()],
        dbias: Some(vec![0.0; s.dim]),
        dinitial: inputs.dfinal.clone(),
    };
    let (mut dweight, mut dbias) = (vec![0f64; s.w_len()], vec![0f64; s.dim]);
    for (k, &chunk) in chunks.iter().enumerate().rev() {
        let part = chunk_shape(chunk);
        let case = Case { rows: Rows::batch(part), ..whole.clone() };
        let part_inputs = Inputs {
            x: slice_time(&s, layout, &inputs.x, chunk.0, chunk.1),
            dy: slice_time(&s, layout, &inputs.dy, chunk.0, chunk.1),
            initial: Some(initial[k].clone()),
            dfinal: chunked.dinitial.take(),
            ..inputs.clone()
        };
        let got = run(device, &case, &part_inputs);
        for b in 0..s.batch {
            for c in 0..s.dim {
                for t in chunk.0..chunk.1 {
                    chunked.dx[index(&s, layout, b, c, t)] = got.dx[index(&part, layout, b, c, t - chunk.0)];
                }
            }
        }
        dweight.iter_mut().zip(&got.dweight).for_each(|(sum, &v)| *sum += f64::from(v));
        dbias.iter_mut().zip(got.dbias.as_ref().unwrap()).for_each(|(sum, &v)| *sum += f64::from(v));
        chunked.dinitial = got.dinitial;
    }
    chunked.dweight = dweight.iter().map(|&v| v as f32).collect();
    chunked.dbias = Some(dbias.iter().map(|&v| v as f32).collect());

    let reference = backward::backward(&whole.rows, layout, true, &inputs.to_f64());
    assert_close(&chunked, &reference, &format!("chunked against the reference, {what}"));
    let one_call = run(device, &whole, &inputs);
    assert_close(&one_call, &reference, &format!("whole sequence against the reference, {what}"));
    let f64s = |v: &[T]| v.iter().map(|e| e.to_f64()).collect::<Vec<_>>();
    let widen = |v: &[f32]| v.iter().map(|&e| f64::from(e)).collect::<Vec<_>>();
    let whole_grads = Grads {
        dx: f64s(&one_call.dx),
        dweight: widen(&one_call.dweight),
        dbias: widen(one_call.dbias.as_ref().unwrap()),
        dinitial: f64s(one_call.dinitial.as_ref().unwrap()),
        ..reference
    };
    assert_close(&chunked, &whole_grads, &format!("chunked against the whole sequence's backward, {what}"));
}

/// Cuts at 1, width−2, width−1, width (chunks shorter than width−1 between them), and at
/// tile edges, below `seqlen`.
fn awkward_cuts(width: usize, seqlen: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = [1, width.saturating_sub(2), width - 1, width, 255, 256, 1024, 2048]
        .into_iter()
        .filter(|&c| 0 < c && c < seqlen)
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn chunked_backward_in_reverse_equals_the_whole_sequence_backward() {
    let mut rng = Rng::new(fresh_seed("chunked_backward_in_reverse_equals_the_whole_sequence_backward"));
    for device in devices("chunked_backward_in_reverse_equals_the_whole_sequence_backward") {
        for layout in LAYOUTS {
            for width in [2, 4, 5, 9] {
                let s = Shape::new(2, 24, 2100, width);
                check_chunked_backward::<f32>(&device, s, layout, &awkward_cuts(width, s.seqlen), &mut rng);
                // Two chunks, the first just the history long; one whole sequence shorter
                // than the history cut into single tokens and the rest.
                check_chunked_backward::<f32>(&device, Shape::new(1, 9, 1030, width), layout, &[width - 1], &mut rng);
                let short = Shape::new(2, 5, 7, width);
                check_chunked_backward::<f32>(&device, short, layout, &awkward_cuts(width, 7), &mut rng);
            }
            let s = Shape::new(2, 16, 1300, 4);
            check_chunked_backward::<f16>(&device, s, layout, &awkward_cuts(4, s.seqlen), &mut rng);
            let s = Shape::new(1, 17, 600, 9);
            check_chunked_backward::<bf16>(&device, s, layout, &awkward_cuts(9, s.seqlen), &mut rng);
        }
    }
}
