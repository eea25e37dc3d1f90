//! An f64 host reference of the conv and the error statistics used to judge an output,
//! shared by `verify_host` and the examples. (The test suite keeps its own, separately
//! written reference, so that the library is not checked against itself.)

use super::ConvShape;
use crate::element::{DType, Element};

/// `y[b, c, t] = Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)]` in f64, zero history.
/// `x` and `w` must hold `shape.x_len()` and `shape.w_len()` elements.
pub fn causal_conv1d_f64<T: Element>(shape: &ConvShape, x: &[T], w: &[T]) -> Vec<f64> {
    let s = shape;
    assert_eq!((x.len(), w.len()), (s.x_len(), s.w_len()), "x, w lengths for {s:?}");
    let mut y = vec![0f64; s.x_len()];
    for (row, y_row) in y.chunks_mut(s.seqlen).enumerate() {
        let c = row % s.dim;
        for (t, out) in y_row.iter_mut().enumerate() {
            *out = (0..s.width)
                .filter(|tap| t + tap + 1 >= s.width)
                .map(|tap| w[c * s.width + tap].to_f64() * x[row * s.seqlen + t + tap + 1 - s.width].to_f64())
                .sum();
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
