//! The host backend: the same operations as the GPU kernels, multi-threaded over output
//! rows, f32 accumulation, results rounded to the element type once. The im2col and
//! weight transforms are also what `verify_host` compares the GPU's buffers with.

use super::options::{Algorithm, Layout, Options};
use super::shape::{Shape, UpdateShape};
use crate::element::Element;
use crate::parallel::for_each_row;

/// x[b, c, tau] in `layout`, for any tau ≥ −(width−1): before t = 0 the initial states
/// `[batch, dim, width−1]`, or 0 without them.
struct Inputs<'a, T> {
    x: &'a [T],
    initial: Option<&'a [T]>,
    strides: [usize; 3],
    dim: usize,
    history: usize,
}

impl<'a, T: Element> Inputs<'a, T> {
    fn new(s: &Shape, layout: Layout, x: &'a [T], initial: Option<&'a [T]>) -> Self {
        Inputs { x, initial, strides: s.strides(layout), dim: s.dim, history: s.width - 1 }
    }

    fn at(&self, b: usize, c: usize, tau: isize) -> f32 {
        let [batch_stride, dim_stride, seq_stride] = self.strides;
        match usize::try_from(tau) {
            Ok(tau) => self.x[b * batch_stride + c * dim_stride + tau * seq_stride].to_f32(),
            Err(_) => self.initial.map_or(0.0, |s| {
                s[(b * self.dim + c) * self.history + (self.history as isize + tau) as usize].to_f32()
            }),
        }
    }
}

/// The inputs of a forward on the host: x and y in the options' layout, w `[dim, width]`,
/// optional bias `[dim]` and initial states `[batch, dim, width−1]`.
#[derive(Clone, Copy)]
pub(crate) struct Operands<'a, T> {
    pub(crate) x: &'a [T],
    pub(crate) w: &'a [T],
    pub(crate) bias: Option<&'a [T]>,
    pub(crate) initial: Option<&'a [T]>,
}

/// The forward of `options.algorithm` (resolved; `FusedGemm` sums in its own order, every
/// other algorithm as `Direct`).
pub(crate) fn forward<T: Element>(s: &Shape, options: &Options, operands: Operands<'_, T>, y: &mut [T]) {
    match options.algorithm {
        Algorithm::FusedGemm => forward_fused_gemm(s, options, operands, y),
        _ => forward_direct(s, options, operands, y),
    }
}

/// The direct forward in either layout:
/// y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)]), the history
/// before t = 0 from `initial` (zeros without it).
fn forward_direct<T: Element>(s: &Shape, options: &Options, operands: Operands<'_, T>, y: &mut [T]) {
    let Operands { x, w, bias, initial } = operands;
    let inputs = Inputs::new(s, options.layout, x, initial);
    let history = (s.width - 1) as isize;
    fill_forward(s, options, bias, y, |b, c, t| {
        let start = if initial.is_some() { 0 } else { (s.width - 1).saturating_sub(t) };
        (start..s.width).map(|tap| w[c * s.width + tap].to_f32() * inputs.at(b, c, (t + tap) as isize - history)).sum()
    });
}

/// The forward as `FusedGemm` computes it (hip/conv1d/fused_gemm.hip): output t of a channel
/// is entry (i, j = t % 16) of `A · B`, `A[i, m] = x[t − j − H + m]` (`m < K = 16 + H`,
/// `H = 16·⌈(width−1)/16⌉`), `B[m, j] = w[m − H − j + width − 1]` (0 outside the taps).
fn forward_fused_gemm<T: Element>(s: &Shape, options: &Options, operands: Operands<'_, T>, y: &mut [T]) {
    let Operands { x, w, bias, initial } = operands;
    let inputs = Inputs::new(s, options.layout, x, initial);
    let history = s.fused_gemm_history();
    fill_forward(s, options, bias, y, |b, c, t| {
        let j = t % 16;
        let mut acc = 0f32;
        for m in 0..16 + history {
            // Signed positions: the window starts up to H before t = 0, the band past the taps.
            let tau = t as isize - (j + history) as isize + m as isize;
            let tap = m as isize - (history + j) as isize + s.width as isize - 1;
            if tau >= 1 - s.width as isize && (0..s.width as isize).contains(&tap) {
                acc += inputs.at(b, c, tau) * w[c * s.width + tap as usize].to_f32();
            }
        }
        acc
    });
}

/// final_states[seq, c, k] = x at time length − (width−1) + k of the sequence, from
/// `initial` (or 0) before its first time. The sequences are the batch rows, or those of
/// `cu_seqlens` (checked) in a packed batch.
pub(crate) fn final_states<T: Element>(
    s: &Shape,
    layout: Layout,
    x: &[T],
    initial: Option<&[T]>,
    cu_seqlens: Option<&[i32]>,
    final_states: &mut [T],
) {
    let [batch_stride, dim_stride, seq_stride] = s.strides(layout);
    let history = s.width - 1;
    for (i, out) in final_states.iter_mut().enumerate() {
        let (row, k) = (i / history, i % history);
        let (seq, c) = (row / s.dim, row % s.dim);
        let (start, length) = match cu_seqlens {
            Some(cu) => (cu[seq] as usize * seq_stride, (cu[seq + 1] - cu[seq]) as usize),
            None => (seq * batch_stride, s.seqlen),
        };
        *out = match (length + k).checked_sub(history) {
            Some(tau) => x[start + c * dim_stride + tau * seq_stride],
            None => initial.map_or(T::from_f32(0.0), |init| init[row * history + length + k]),
        };
    }
}

/// The first min(width−1, length) outputs of each sequence of a packed batch
/// (`cu_seqlens`, checked), recomputed with the sequence's own history: `initial`
/// `[n_seqs, dim, width−1]`, or zeros. As hip/conv1d/states.hip does after the forward
/// over the packed tokens.
pub(crate) fn sequence_heads<T: Element>(
    s: &Shape,
    options: &Options,
    (x, w, bias): (&[T], &[T], Option<&[T]>),
    initial: Option<&[T]>,
    cu_seqlens: &[i32],
    y: &mut [T],
) {
    let [_, dim_stride, seq_stride] = s.strides(options.layout);
    let history = s.width - 1;
    for seq in 0..cu_seqlens.len() - 1 {
        let (start, end) = (cu_seqlens[seq] as usize, cu_seqlens[seq + 1] as usize);
        for c in 0..s.dim {
            let row = seq * s.dim + c;
            for t in 0..history.min(end - start) {
                let mut acc = bias.map_or(0f32, |bias| bias[c].to_f32());
                for tap in 0..s.width {
                    let v = match (t + tap).checked_sub(history) {
                        Some(tau) => x[(start + tau) * seq_stride + c * dim_stride].to_f32(),
                        None => initial.map_or(0.0, |init| init[row * history + t + tap].to_f32()),
                    };
                    acc += w[c * s.width + tap].to_f32() * v;
                }
                y[(start + t) * seq_stride + c * dim_stride] = T::from_f32(options.activation.apply(acc));
            }
        }
    }
}

/// y[b, c, t] = act(bias[c] + conv(b, c, t)), rounded once, in `options.layout`; parallel over
/// the output's contiguous rows: (b, c) rows of seqlen, or (b, t) rows of dim.
fn fill_forward<T: Element>(
    s: &Shape,
    options: &Options,
    bias: Option<&[T]>,
    y: &mut [T],
    conv: impl Fn(usize, usize, usize) -> f32 + Sync + Send,
) {
    let output = |b: usize, c: usize, t: usize| {
        let acc = bias.map_or(0f32, |bias| bias[c].to_f32()) + conv(b, c, t);
        T::from_f32(options.activation.apply(acc))
    };
    match options.layout {
        Layout::ChannelFirst => for_each_row(y, s.seqlen, |row, y_row| {
            let (b, c) = (row / s.dim, row % s.dim);
            y_row.iter_mut().enumerate().for_each(|(t, out)| *out = output(b, c, t));
        }),
        Layout::ChannelLast => for_each_row(y, s.dim, |row, y_row| {
            let (b, t) = (row / s.seqlen, row % s.seqlen);
            y_row.iter_mut().enumerate().for_each(|(c, out)| *out = output(b, c, t));
        }),
    }
}

/// a[b*seqlen + t, tap*dim + c] = x[b, c, t + tap - (width-1)], 0 before the sequence.
pub(crate) fn im2col<T: Element>(s: &Shape, x: &[T], a: &mut [T]) {
    for_each_row(a, s.width * s.dim, |row, a_row| {
        let (b, t) = (row / s.seqlen, row % s.seqlen);
        for tap in 0..s.width {
            for c in 0..s.dim {
                let source = (t + tap).checked_sub(s.width - 1);
                a_row[tap * s.dim + c] = match source {
                    Some(tau) => x[(b * s.dim + c) * s.seqlen + tau],
                    None => T::from_f32(0.0),
                };
            }
        }
    });
}

/// b[co, tap*dim + ci] = (ci == co) ? w[co, tap] : 0
pub(crate) fn dense_weight<T: Element>(s: &Shape, w: &[T], b: &mut [T]) {
    for_each_row(b, s.width * s.dim, |co, b_row| {
        b_row.fill(T::from_f32(0.0));
        for tap in 0..s.width {
            b_row[tap * s.dim + co] = w[co * s.width + tap];
        }
    });
}

/// y[batch, n, t] = sum_k a[batch*seqlen + t, k] * b[n, k]  (the GEMM with its conv epilogue)
pub(crate) fn gemm_abt<T: Element>(s: &Shape, a: &[T], b: &[T], y: &mut [T]) {
    let k = s.width * s.dim;
    // Convert each operand once (M·K + N·K conversions) rather than per multiply-add.
    let (a, b): (Vec<f32>, Vec<f32>) = (a.iter().map(|v| v.to_f32()).collect(), b.iter().map(|v| v.to_f32()).collect());
    for_each_row(y, s.seqlen, |row, y_row| {
        let (batch, n) = (row / s.dim, row % s.dim);
        let b_row = &b[n * k..(n + 1) * k];
        for (t, out) in y_row.iter_mut().enumerate() {
            let a_row = &a[(batch * s.seqlen + t) * k..(batch * s.seqlen + t + 1) * k];
            *out = T::from_f32(a_row.iter().zip(b_row).map(|(av, bv)| av * bv).sum());
        }
    });
}

/// One decode step (hip/conv1d/update.hip): y of the new tokens, and the states advanced in
/// place; indices checked before.
pub(crate) fn update<T: Element>(
    u: &UpdateShape,
    options: &Options,
    (x, w, bias): (&[T], &[T], Option<&[T]>),
    (conv_state, state_indices, cache_seqlens): (&mut [T], Option<&[i32]>, Option<&[i32]>),
    y: &mut [T],
) {
    let s = u.conv_shape();
    let [batch_stride, dim_stride, seq_stride] = s.strides(options.layout);
    let history = u.width - 1;
    let mut xx = Vec::with_capacity(history + u.seqlen);
    for b in 0..u.batch {
        let slot = state_indices.map_or(b as i64, |s| i64::from(s[b]));
        for c in 0..u.dim {
            let at = |t: usize| b * batch_stride + c * dim_stride + t * seq_stride;
            if slot < 0 {
                (0..u.seqlen).for_each(|t| y[at(t)] = T::from_f32(0.0));
                continue;
            }
            let row = (slot as usize * u.dim + c) * u.state_len;
            let state = &mut conv_state[row..row + u.state_len];
            let cache = cache_seqlens.map(|cs| cs[b] as usize);
            // The history (oldest first), then the new inputs.
            xx.clear();
            xx.extend((0..history).map(|k| match cache {
                Some(pos) => state[(pos + u.state_len - history + k) % u.state_len],
                None => state[u.state_len - history + k],
            }));
            xx.extend((0..u.seqlen).map(|t| x[at(t)]));
            for t in 0..u.seqlen {
                let mut acc = bias.map_or(0f32, |bias| bias[c].to_f32());
                for tap in 0..u.width {
                    acc += w[c * u.width + tap].to_f32() * xx[t + tap].to_f32();
                }
                y[at(t)] = T::from_f32(options.activation.apply(acc));
            }
            let new_inputs = &xx[history..];
            match cache {
                Some(pos) => {
                    for t in u.seqlen.saturating_sub(u.state_len)..u.seqlen {
                        state[(pos + t) % u.state_len] = new_inputs[t];
                    }
                }
                None => {
                    for k in 0..u.state_len {
                        let source = k + u.seqlen;
                        state[k] = if source < u.state_len { state[source] } else { new_inputs[source - u.state_len] };
                    }
                }
            }
        }
    }
}
