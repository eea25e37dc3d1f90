//! An f64 host reference of the conv and the error statistics used to judge an output,
//! shared by `verify_host` and the examples. (The test suite keeps its own, separately
//! written reference, so that the library is not checked against itself.)

use super::{Activation, ConvOptions, ConvShape};
use crate::element::{DType, Element};

/// `y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)])` in f64, zero
/// history, with x and y in `options.layout`. `x`, `w` and `bias` must hold `shape.x_len()`,
/// `shape.w_len()` and `shape.dim` elements.
pub fn causal_conv1d_f64<T: Element>(
    shape: &ConvShape,
    options: &ConvOptions,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
) -> Vec<f64> {
    let s = shape;
    assert_eq!((x.len(), w.len()), (s.x_len(), s.w_len()), "x, w lengths for {s:?}");
    let [batch_stride, dim_stride, seq_stride] = s.strides(options.layout);
    let mut y = vec![0f64; s.x_len()];
    for b in 0..s.batch {
        for c in 0..s.dim {
            for t in 0..s.seqlen {
                let mut acc = bias.map_or(0.0, |bias| bias[c].to_f64());
                for tap in (s.width - 1).saturating_sub(t)..s.width {
                    let tau = t + tap + 1 - s.width;
                    acc += w[c * s.width + tap].to_f64()
                        * x[b * batch_stride + c * dim_stride + tau * seq_stride].to_f64();
                }
                if options.activation == Activation::Silu {
                    acc /= 1.0 + (-acc).exp();
                }
                y[b * batch_stride + c * dim_stride + t * seq_stride] = acc;
            }
        }
    }
    y
}

/// How far an output is from a reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorStats {
    pub max_abs_error: f64,
    /// Largest absolute error over the largest reference magnitude.
    pub max_rel_error: f64,
    /// ‖out − ref‖₂ / ‖ref‖₂.
    pub rel_norm_error: f64,
}

/// Error statistics of `out` against `reference`; a NaN in `out` makes them infinite.
pub fn error_stats<T: Element>(out: &[T], reference: &[f64]) -> ErrorStats {
    let (mut diff2, mut ref2, mut max_abs, mut max_ref) = (0f64, 0f64, 0f64, 0f64);
    for (&o, &r) in out.iter().zip(reference) {
        let d = (o.to_f64() - r).abs();
        let d = if d.is_nan() { f64::INFINITY } else { d };
        diff2 += d * d;
        ref2 += r * r;
        max_abs = max_abs.max(d);
        max_ref = max_ref.max(r.abs());
    }
    let rel = |num: f64, den: f64| {
        if den > 0.0 {
            num / den
        } else if num > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    };
    ErrorStats {
        max_abs_error: max_abs,
        max_rel_error: rel(max_abs, max_ref),
        rel_norm_error: rel(diff2.sqrt(), ref2.sqrt()),
    }
}

/// The relative-norm error an output of this dtype must stay within.
pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 1e-3,
        DType::BF16 => 1e-2,
        DType::F32 => 1e-5,
    }
}
