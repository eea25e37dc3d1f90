//! f64 host references of the conv and of its backward, for `verify_host`, the examples
//! and the benches (the error statistics that judge an output against them are the core's,
//! crate::testing). The test suite keeps its own, separately written references, so that
//! the library is not checked against itself.

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

/// The f64 gradients of [`causal_conv1d_backward_f64`]: `dx` laid out as x, `dweight`
/// `[dim, width]`, `dbias` `[dim]` and `dinitial_states` `[batch, dim, width−1]` (that of
/// zero initial states where the forward had none).
#[derive(Clone, Debug, PartialEq)]
pub struct BackwardReference {
    pub dx: Vec<f64>,
    pub dweight: Vec<f64>,
    pub dbias: Vec<f64>,
    pub dinitial_states: Vec<f64>,
}

/// The backward of the forward `y = act(z)`, `z[b, c, t] = bias[c] + Σ_k w[c, k] ·
/// u[b, c, t + k]`, in f64, where `u[b, c, ·]` is the row's history then its inputs:
/// `u[j] = initial_states[b, c, j]` for `j < width−1` (zeros without them) and
/// `u[j] = x[b, c, j − (width−1)]` after. The forward's final states are `u[seqlen + j]`,
/// `j < width−1`. From `dy` (laid out as x) and `dfinal_states` (zeros if `None`):
///
/// - `dz[t] = dy[t] · act'(z[t])`, with `silu'(z) = σ(z) · (1 + z · (1 − σ(z)))`;
/// - `du[j] = Σ_k w[c, k] · dz[j − k]` over `0 ≤ j − k < seqlen`, plus
///   `dfinal_states[b, c, j − seqlen]` where `j ≥ seqlen`;
/// - `dx[b, c, τ] = du[τ + width−1]` and `dinitial_states[b, c, j] = du[j]`, `j < width−1`;
/// - `dweight[c, k] = Σ_{b, t} dz[t] · u[t + k]` (history included), `dbias[c] = Σ_{b, t} dz[t]`.
///
/// `x`, `dy` hold `shape.x_len()` elements in `options.layout`, `w` `shape.w_len()`,
/// `bias` `shape.dim`, and the states `[batch, dim, width−1]`.
#[allow(clippy::too_many_arguments)]
pub fn causal_conv1d_backward_f64<T: Element>(
    shape: &Shape,
    options: &Options,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    dy: &[T],
    initial_states: Option<&[T]>,
    dfinal_states: Option<&[T]>,
) -> BackwardReference {
    let s = shape;
    let (width, history) = (s.width, s.width - 1);
    let states_len = s.batch * s.dim * history;
    assert_eq!((x.len(), w.len(), dy.len()), (s.x_len(), s.w_len(), s.x_len()), "x, w, dy lengths for {s:?}");
    assert!(bias.is_none_or(|b| b.len() == s.dim), "bias length for {s:?}");
    for states in [initial_states, dfinal_states].into_iter().flatten() {
        assert_eq!(states.len(), states_len, "states length for {s:?}");
    }
    let [batch_stride, dim_stride, seq_stride] = s.strides(options.layout);
    let mut grads = BackwardReference {
        dx: vec![0.0; s.x_len()],
        dweight: vec![0.0; s.w_len()],
        dbias: vec![0.0; s.dim],
        dinitial_states: vec![0.0; states_len],
    };
    for b in 0..s.batch {
        for c in 0..s.dim {
            let row = (b * s.dim + c) * history;
            let at = |t: usize| b * batch_stride + c * dim_stride + t * seq_stride;
            let u: Vec<f64> = (0..history)
                .map(|j| initial_states.map_or(0.0, |init| init[row + j].to_f64()))
                .chain((0..s.seqlen).map(|t| x[at(t)].to_f64()))
                .collect();
            let taps: Vec<f64> = (0..width).map(|k| w[c * width + k].to_f64()).collect();
            let bias_c = bias.map_or(0.0, |bias| bias[c].to_f64());
            let dz: Vec<f64> = (0..s.seqlen)
                .map(|t| {
                    let z = bias_c + (0..width).map(|k| taps[k] * u[t + k]).sum::<f64>();
                    dy[at(t)].to_f64() * options.activation.derivative_f64(z)
                })
                .collect();
            for k in 0..width {
                grads.dweight[c * width + k] += (0..s.seqlen).map(|t| dz[t] * u[t + k]).sum::<f64>();
            }
            grads.dbias[c] += dz.iter().sum::<f64>();
            for j in 0..history + s.seqlen {
                let mut du: f64 = (0..width).filter(|&k| k <= j && j - k < s.seqlen).map(|k| taps[k] * dz[j - k]).sum();
                if let (Some(dfinal), Some(k)) = (dfinal_states, j.checked_sub(s.seqlen)) {
                    du += dfinal[row + k].to_f64();
                }
                match j.checked_sub(history) {
                    Some(tau) => grads.dx[at(tau)] = du,
                    None => grads.dinitial_states[row + j] = du,
                }
            }
        }
    }
    grads
}
