//! An f64 host reference of the conv, for `verify_host` and the examples (the error
//! statistics that judge an output against it are the core's, crate::testing). The test
//! suite keeps its own, separately written reference, so that the library is not checked
//! against itself.

use super::options::Options;
use super::shape::Shape;
use crate::element::Element;

/// `y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)])` in f64, zero
/// history, with x and y in `options.layout`. `x`, `w` and `bias` must hold `shape.x_len()`,
/// `shape.w_len()` and `shape.dim` elements.
pub fn causal_conv1d_f64<T: Element>(
    shape: &Shape,
    options: &Options,
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
                y[b * batch_stride + c * dim_stride + t * seq_stride] = options.activation.apply_f64(acc);
            }
        }
    }
    y
}
