//! The explicit pipeline's three stages as separate calls, on any backend: for callers
//! who want the intermediate buffers, and for the exact tests of each stage.
//!
//! | stage               | in                           | out                                       |
//! |---------------------|------------------------------|-------------------------------------------|
//! | `preprocess_input`  | x `[batch, dim, seqlen]`     | A `[batch·seqlen, width·dim]` ([`a_len`]) |
//! | `preprocess_weight` | w `[dim, width]`             | B `[dim, width·dim]` ([`b_len`])          |
//! | `gemm_abt`          | A, B                         | y `[batch, dim, seqlen]`                  |

pub use super::pipeline::{a_len, b_len, gemm_shape, GemmShape};

use super::check;
use super::launch;
use super::options::Layout;
use super::shape::Shape;
use crate::element::Element;
use crate::error::Result;
use crate::runtime::{Buffer, DeviceId, Stream};

/// Input preprocessing: `A[b·seqlen + t, tap·dim + c] = x[b, c, t + tap − (width−1)]`, 0 before t = 0.
pub fn preprocess_input<T: Element>(stream: &Stream, s: &Shape, x: &Buffer<T>, a: &mut Buffer<T>) -> Result<()> {
    let device = checked_stage(stream, s)?;
    crate::check::buffer("x", x, device, s.x_len(), || check::describe_x(s, Layout::ChannelFirst))?;
    check::pipeline_a(s, device, a)?;
    // SAFETY: shape and both buffers checked above.
    unsafe { launch::run_preprocess_input(stream, s, x, a) }
}

/// Weight preprocessing: `B[co, tap·dim + ci] = (ci == co) ? w[co, tap] : 0`.
pub fn preprocess_weight<T: Element>(stream: &Stream, s: &Shape, w: &Buffer<T>, b: &mut Buffer<T>) -> Result<()> {
    let device = checked_stage(stream, s)?;
    check::weight(s, device, w)?;
    check::pipeline_b(s, device, b)?;
    // SAFETY: shape and both buffers checked above.
    unsafe { launch::run_preprocess_weight(stream, s, w, b) }
}

/// `y[batch, n, t] = Σ_k A[batch·seqlen + t, k] · B[n, k]` (matrix cores on a GPU).
pub fn gemm_abt<T: Element>(stream: &Stream, s: &Shape, a: &Buffer<T>, b: &Buffer<T>, y: &mut Buffer<T>) -> Result<()> {
    let device = checked_stage(stream, s)?;
    check::pipeline_a(s, device, a)?;
    check::pipeline_b(s, device, b)?;
    crate::check::buffer("y", y, device, s.x_len(), || check::describe_x(s, Layout::ChannelFirst))?;
    // SAFETY: shape and the three buffers checked above.
    unsafe { launch::run_gemm_abt(stream, s, a, b, y) }
}

fn checked_stage(stream: &Stream, s: &Shape) -> Result<DeviceId> {
    check::shape(s)?;
    check::im2col_workspace(s)?;
    Ok(stream.device().id())
}
