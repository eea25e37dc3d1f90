//! The backward on the host backend: the kernels' arithmetic (fp32, z recomputed, dweight
//! and dbias summed in a fixed order), parallel over channels, each channel's results
//! scattered into the outputs afterwards, so the result does not depend on the threads.

use super::args::{Call, ParamGrad};
use crate::backend::{host_data, host_data_mut};
use crate::conv1d::options::Options;
use crate::conv1d::shape::Shape;
use crate::element::Element;
use rayon::prelude::*;

/// Times per partial sum of dweight and dbias.
const TILE: usize = 64;

/// One sequence: its states row, where its times start in x (element offset of time 0,
/// channel 0) and its length.
#[derive(Clone, Copy)]
struct Sequence {
    row: usize,
    start: usize,
    length: usize,
}

/// One channel's gradients: dx of every sequence in order (each `length` times), dweight
/// and dbias, and dinitial_states of every sequence (width−1 each).
struct ChannelGrads {
    dx: Vec<f32>,
    dweight: Vec<f32>,
    dbias: f32,
    dinitial: Vec<f32>,
}

fn write_param<T: Element>(grad: &mut ParamGrad<'_, T>, index: usize, value: f32) {
    match grad {
        ParamGrad::F32(b) => host_data_mut(b)[index] = value,
        ParamGrad::Native(b) => host_data_mut(b)[index] = T::from_f32(value),
    }
}

/// The backward of one call on the host (conv1d.h's formulas).
pub(crate) fn backward<T: Element>(s: &Shape, options: &Options, call: Call<'_, '_, T>) {
    let Call { inputs, mut grads, packed } = call;
    let [batch_stride, dim_stride, seq_stride] = s.strides(options.layout);
    let sequences: Vec<Sequence> = match packed {
        None => (0..s.batch).map(|b| Sequence { row: b, start: b * batch_stride, length: s.seqlen }).collect(),
        Some(p) => {
            let cu = host_data(p.cu_seqlens);
            (0..cu.len() - 1)
                .map(|i| Sequence { row: i, start: cu[i] as usize * seq_stride, length: (cu[i + 1] - cu[i]) as usize })
                .collect()
        }
    };
    let (x, w, dy) = (host_data(inputs.x), host_data(inputs.w), host_data(inputs.dy));
    let bias = inputs.bias.map(host_data);
    let initial = inputs.initial_states.map(host_data);
    let dfinal = inputs.dfinal_states.map(host_data);
    let (width, history) = (s.width, s.width - 1);

    let channel = |c: usize| -> ChannelGrads {
        let taps: Vec<f32> = (0..width).map(|k| w[c * width + k].to_f32()).collect();
        let bias_c = bias.map_or(0.0, |b| b[c].to_f32());
        let mut grads = ChannelGrads {
            dx: Vec::new(),
            dweight: vec![0.0; width],
            dbias: 0.0,
            dinitial: Vec::with_capacity(sequences.len() * history),
        };
        for seq in &sequences {
            let state = |j: usize| (seq.row * s.dim + c) * history + j;
            // x at time tau of the sequence (tau ≥ −(width−1)).
            let x_at = |tau: isize| -> f32 {
                match usize::try_from(tau) {
                    Ok(tau) => x[seq.start + c * dim_stride + tau * seq_stride].to_f32(),
                    Err(_) => initial.map_or(0.0, |init| init[state((history as isize + tau) as usize)].to_f32()),
                }
            };
            let dz: Vec<f32> = (0..seq.length)
                .map(|t| {
                    let z =
                        bias_c + (0..width).map(|k| taps[k] * x_at((t + k) as isize - history as isize)).sum::<f32>();
                    dy[seq.start + c * dim_stride + t * seq_stride].to_f32() * options.activation.derivative(z)
                })
                .collect();
            // Partial sums over tiles of TILE times, added in order: a sum of thousands of
            // terms in fp32 is then ~4× closer to the exact one than one running sum.
            for (tile, dz) in dz.chunks(TILE).enumerate() {
                let (mut dbias, mut dweight) = (0f32, vec![0f32; width]);
                for (t, &g) in (tile * TILE..).zip(dz) {
                    dbias += g;
                    for (k, dw) in dweight.iter_mut().enumerate() {
                        *dw += g * x_at((t + k) as isize - history as isize);
                    }
                }
                grads.dbias += dbias;
                grads.dweight.iter_mut().zip(&dweight).for_each(|(sum, partial)| *sum += partial);
            }
            // dx (tau ≥ 0) and dinitial (tau < 0) at tau = j − (width−1), j in 0 .. length + width−1.
            for j in 0..seq.length + history {
                let tau = j as isize - history as isize;
                let mut acc = 0f32;
                for (k, &tap) in taps.iter().enumerate() {
                    if let Some(t) = j.checked_sub(k).filter(|&t| t < seq.length) {
                        acc += tap * dz[t];
                    }
                }
                // final_states[k'] is x at tau = length − (width−1) + k'.
                if let Some(dfinal) = dfinal {
                    if let Some(kf) = (tau + history as isize).checked_sub(seq.length as isize).filter(|&k| k >= 0) {
                        acc += dfinal[state(kf as usize)].to_f32();
                    }
                }
                if tau < 0 {
                    grads.dinitial.push(acc);
                } else {
                    grads.dx.push(acc);
                }
            }
        }
        grads
    };
    let per_channel: Vec<ChannelGrads> = (0..s.dim).into_par_iter().map(channel).collect();

    let dx = host_data_mut(grads.dx);
    for (c, g) in per_channel.iter().enumerate() {
        let mut values = g.dx.iter();
        for seq in &sequences {
            for t in 0..seq.length {
                dx[seq.start + c * dim_stride + t * seq_stride] = T::from_f32(*values.next().expect("one per time"));
            }
        }
        for (k, &v) in g.dweight.iter().enumerate() {
            write_param(&mut grads.dweight, c * width + k, v);
        }
        if let Some(dbias) = grads.dbias.as_mut() {
            write_param(dbias, c, g.dbias);
        }
        if let Some(dinitial) = grads.dinitial_states.as_deref_mut() {
            let dinitial = host_data_mut(dinitial);
            for (i, seq) in sequences.iter().enumerate() {
                for j in 0..history {
                    dinitial[(seq.row * s.dim + c) * history + j] = T::from_f32(g.dinitial[i * history + j]);
                }
            }
        }
    }
}
