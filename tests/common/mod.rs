//! Shared by the integration tests: the f64 references of conv1d (written here, apart from
//! the library's, so that it is not checked against itself), and the core's test support
//! (hipconv::testing: RNG, seeds, error metric, tolerances, NaN poisoning, backends).
#![allow(dead_code)]

pub mod backward;
pub mod conv3d;
pub mod forward;
pub mod sequences;

#[allow(unused_imports)] // each test binary uses its own subset
pub use hipconv::testing::{
    announce, assert_accurate, devices, fresh_seed, gpu_device, nan, rel_norm_error, tolerance, Rng,
};

use hipconv::conv1d::{stages, Layout, Shape};
use hipconv::half::{bf16, f16};
use hipconv::Element;

/// Shapes with one size zero, and the size's name.
pub const ZERO_SIZED: [(Shape, &str); 4] = [
    (Shape { batch: 0, dim: 4, seqlen: 4, width: 4 }, "batch"),
    (Shape { batch: 1, dim: 0, seqlen: 4, width: 4 }, "dim"),
    (Shape { batch: 1, dim: 4, seqlen: 0, width: 4 }, "seqlen"),
    (Shape { batch: 1, dim: 4, seqlen: 4, width: 0 }, "width"),
];

/// Index of element (b, c, t) of x or y in `layout`.
pub fn index(s: &Shape, layout: Layout, b: usize, c: usize, t: usize) -> usize {
    match layout {
        Layout::ChannelFirst => (b * s.dim + c) * s.seqlen + t,
        Layout::ChannelLast => (b * s.seqlen + t) * s.dim + c,
    }
}

/// y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)]) in f64, zero
/// history, x and y in `layout`.
pub fn reference_conv<T: Element>(
    s: &Shape,
    layout: Layout,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    silu: bool,
) -> Vec<f64> {
    let mut y = vec![0f64; s.x_len()];
    for b in 0..s.batch {
        for c in 0..s.dim {
            for t in 0..s.seqlen {
                let mut acc = bias.map_or(0.0, |bias| bias[c].to_f64());
                for tap in 0..s.width {
                    let tau = t as i64 + tap as i64 - (s.width as i64 - 1);
                    if tau >= 0 {
                        acc += w[c * s.width + tap].to_f64() * x[index(s, layout, b, c, tau as usize)].to_f64();
                    }
                }
                if silu {
                    acc *= 1.0 / (1.0 + (-acc).exp());
                }
                y[index(s, layout, b, c, t)] = acc;
            }
        }
    }
    y
}

/// A[b·seqlen + t, tap·dim + c] = x[b, c, t + tap − (width−1)], zero before the sequence.
pub fn reference_im2col<T: Element>(s: &Shape, x: &[T]) -> Vec<T> {
    let k = s.width * s.dim;
    let mut a = vec![T::from_f32(0.0); stages::a_len(s)];
    for b in 0..s.batch {
        for t in 0..s.seqlen {
            for tap in 0..s.width {
                for c in 0..s.dim {
                    let tau = t as i64 + tap as i64 - (s.width as i64 - 1);
                    if tau >= 0 {
                        a[(b * s.seqlen + t) * k + tap * s.dim + c] = x[(b * s.dim + c) * s.seqlen + tau as usize];
                    }
                }
            }
        }
    }
    a
}

/// B[co, tap·dim + ci] = (ci == co) ? w[co, tap] : 0
pub fn reference_dense_weight<T: Element>(s: &Shape, w: &[T]) -> Vec<T> {
    let k = s.width * s.dim;
    let mut b = vec![T::from_f32(0.0); stages::b_len(s)];
    for co in 0..s.dim {
        for tap in 0..s.width {
            b[co * k + tap * s.dim + co] = w[co * s.width + tap];
        }
    }
    b
}

pub fn f16s(values: &[f32]) -> Vec<f16> {
    values.iter().map(|&v| f16::from_f32(v)).collect()
}

pub fn bf16s(values: &[f32]) -> Vec<bf16> {
    values.iter().map(|&v| bf16::from_f32(v)).collect()
}
