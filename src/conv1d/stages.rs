//! The explicit pipeline's three stages as separate calls, on any backend: for callers
//! who want the intermediate buffers, and for the exact tests of each stage.
//!
//! | stage               | in                           | out                            |
//! |---------------------|------------------------------|--------------------------------|
//! | `preprocess_input`  | x `[batch, dim, seqlen]`     | A `[batch·seqlen, width·dim]`  |
//! | `preprocess_weight` | w `[dim, width]`             | B `[dim, width·dim]`           |
//! | `gemm_abt`          | A, B                         | y `[batch, dim, seqlen]`       |

use super::{check, host, Algorithm, ConvOptions, ConvShape, Layout, StateCache, UpdateShape};
use crate::buffer::Buffer;
use crate::device::DeviceId;
use crate::element::{Element, Scalar};
use crate::error::Result;
use crate::stream::Stream;

/// Input preprocessing: `A[b·seqlen + t, tap·dim + c] = x[b, c, t + tap − (width−1)]`, 0 before t = 0.
pub fn preprocess_input<T: Element>(stream: &Stream, s: &ConvShape, x: &Buffer<T>, a: &mut Buffer<T>) -> Result<()> {
    let device = checked_stage(stream, s)?;
    check::buffer("x", x, device, s.x_len(), || check::describe_x(s, Layout::ChannelFirst))?;
    check::buffer("a", a, device, s.a_len(), || a_layout(s))?;
    run_preprocess_input(stream, s, x, a)
}

/// Weight preprocessing: `B[co, tap·dim + ci] = (ci == co) ? w[co, tap] : 0`.
pub fn preprocess_weight<T: Element>(stream: &Stream, s: &ConvShape, w: &Buffer<T>, b: &mut Buffer<T>) -> Result<()> {
    let device = checked_stage(stream, s)?;
    check::buffer("w", w, device, s.w_len(), || format!("[dim {}, width {}]", s.dim, s.width))?;
    check::buffer("b", b, device, s.b_len(), || b_layout(s))?;
    run_preprocess_weight(stream, s, w, b)
}

/// `y[batch, n, t] = Σ_k A[batch·seqlen + t, k] · B[n, k]` (matrix cores on a GPU).
pub fn gemm_abt<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    a: &Buffer<T>,
    b: &Buffer<T>,
    y: &mut Buffer<T>,
) -> Result<()> {
    let device = checked_stage(stream, s)?;
    check::buffer("a", a, device, s.a_len(), || a_layout(s))?;
    check::buffer("b", b, device, s.b_len(), || b_layout(s))?;
    check::buffer("y", y, device, s.x_len(), || check::describe_x(s, Layout::ChannelFirst))?;
    run_gemm_abt(stream, s, a, b, y)
}

fn checked_stage(stream: &Stream, s: &ConvShape) -> Result<DeviceId> {
    check::shape(s)?;
    check::im2col_workspace(s)?;
    Ok(stream.device().id())
}

fn a_layout(s: &ConvShape) -> String {
    format!("[batch*seqlen {}, width*dim {}]", s.batch * s.seqlen, s.width * s.dim)
}

fn b_layout(s: &ConvShape) -> String {
    format!("[dim {}, width*dim {}]", s.dim, s.width * s.dim)
}

/// A host buffer's data; callers have checked that the buffer lives on the host.
pub(crate) fn host_data<T: Scalar>(buffer: &Buffer<T>) -> &[T] {
    buffer.host_slice().expect("checked before: buffer on the host")
}

pub(crate) fn host_data_mut<T: Scalar>(buffer: &mut Buffer<T>) -> &mut [T] {
    buffer.host_slice_mut().expect("checked before: buffer on the host")
}

/// On the host backend evaluates `$host`; on a GPU makes the stream's device current and
/// evaluates `$gpu` (a `Result`), which is compiled only when a GPU backend is.
macro_rules! on_backend {
    ($stream:expr, host: $host:expr, gpu: $gpu:expr) => {{
        if !$stream.device().is_gpu() {
            $host;
            return Ok(());
        }
        #[cfg(hipconv_gpu)]
        {
            $stream.device().activate()?;
            $gpu
        }
        #[cfg(not(hipconv_gpu))]
        unreachable!("no GPU buffer can exist without a GPU backend")
    }};
}

// The run_* functions take checked arguments (shape, devices, lengths, dtype).

pub(crate) fn run_preprocess_input<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    x: &Buffer<T>,
    a: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
        host: host::im2col(s, host_data(x), host_data_mut(a)),
        // SAFETY: x and a live on the stream's device with the lengths the shape needs.
        gpu: unsafe { super::gpu::preprocess_input::<T>(stream, s, x.as_raw(), a.as_raw_mut()) })
}

pub(crate) fn run_preprocess_weight<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    w: &Buffer<T>,
    b: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
        host: host::dense_weight(s, host_data(w), host_data_mut(b)),
        // SAFETY: w and b live on the stream's device with the lengths the shape needs.
        gpu: unsafe { super::gpu::preprocess_weight::<T>(stream, s, w.as_raw(), b.as_raw_mut()) })
}

pub(crate) fn run_gemm_abt<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    a: &Buffer<T>,
    b: &Buffer<T>,
    y: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
        host: host::gemm_abt(s, host_data(a), host_data(b), host_data_mut(y)),
        // SAFETY: a, b and y live on the stream's device with the lengths the shape needs.
        gpu: unsafe { super::gpu::gemm_abt::<T>(stream, s, a.as_raw(), b.as_raw(), y.as_raw_mut()) })
}

/// A packed variable-length batch (`s.batch` 1, `s.seqlen` the total tokens): its
/// `n_seqs + 1` offsets, checked on the host backend, and on a GPU the status word its
/// kernels report bad ones into.
#[derive(Clone, Copy)]
pub(crate) struct Packed<'a> {
    pub(crate) cu_seqlens: &'a Buffer<i32>,
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    pub(crate) status: *mut i32,
}

#[cfg(hipconv_gpu)]
fn packed_on_device(packed: Option<Packed<'_>>) -> Option<super::gpu::PackedSequences> {
    packed.map(|p| super::gpu::PackedSequences {
        cu_seqlens: p.cu_seqlens.as_raw().cast(),
        n_seqs: p.cu_seqlens.len() - 1,
        status: p.status,
    })
}

/// `Direct` or `FusedGemm` (`options.algorithm`, resolved), with each sequence's history
/// before its first time from `initial` (zeros without it). The sequences are the batch
/// rows, or those of `packed`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_forward<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    options: &ConvOptions,
    x: &Buffer<T>,
    w: &Buffer<T>,
    bias: Option<&Buffer<T>>,
    initial: Option<&Buffer<T>>,
    packed: Option<Packed<'_>>,
    y: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
    host: {
        let (x, w, y) = (host_data(x), host_data(w), host_data_mut(y));
        let (bias, initial) = (bias.map(host_data), initial.map(host_data));
        // A packed batch runs as one sequence first, as on the GPU; its heads are redone.
        let row_initial = if packed.is_some() { None } else { initial };
        match options.algorithm {
            Algorithm::FusedGemm => host::forward_fused_gemm(s, options, x, w, bias, row_initial, y),
            _ => host::forward_direct(s, options, x, w, bias, row_initial, y),
        }
        if let Some(packed) = packed {
            host::sequence_heads(s, options, (x, w, bias), initial, host_data(packed.cu_seqlens), y);
        }
    },
    // SAFETY: x, w, bias, initial, y and packed's buffers live on the stream's device with
    // the lengths the shape and layout need (checked by the caller); missing ones are null.
    gpu: unsafe {
        let bias = bias.map_or(std::ptr::null(), Buffer::as_raw);
        let initial = initial.map_or(std::ptr::null(), Buffer::as_raw);
        let (x, w, packed) = (x.as_raw(), w.as_raw(), packed_on_device(packed));
        super::gpu::conv1d_forward::<T>(stream, s, options, x, w, bias, initial, packed, y.as_raw_mut())
    })
}

/// The last width−1 inputs of each sequence (from `initial` before its first time) into
/// `final_states`.
pub(crate) fn run_final_states<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    layout: Layout,
    x: &Buffer<T>,
    initial: Option<&Buffer<T>>,
    packed: Option<Packed<'_>>,
    final_states: &mut Buffer<T>,
) -> Result<()> {
    if s.width == 1 {
        return Ok(()); // no state
    }
    on_backend!(stream,
    host: {
        let cu_seqlens = packed.map(|p| host_data(p.cu_seqlens));
        host::final_states(s, layout, host_data(x), initial.map(host_data), cu_seqlens, host_data_mut(final_states))
    },
    // SAFETY: x, initial, final_states and packed's buffers live on the stream's device with
    // the lengths the shape and layout need (checked by the caller); `final_states` is
    // borrowed mutably, so it cannot be `initial`.
    gpu: unsafe {
        let initial = initial.map_or(std::ptr::null(), Buffer::as_raw);
        let options = ConvOptions::default().layout(layout);
        let (x, packed) = (x.as_raw(), packed_on_device(packed));
        super::gpu::conv1d_final_states::<T>(stream, s, &options, x, initial, packed, final_states.as_raw_mut())
    })
}

/// One decode step: y of the new tokens, and the states of `cache` advanced in place. On a
/// GPU the kernel checks the indices and reports into `status`; the host backend's caller
/// has checked them.
#[cfg_attr(not(hipconv_gpu), allow(unused_variables))] // `status` is the GPU's
pub(crate) fn run_update<T: Element>(
    stream: &Stream,
    u: &UpdateShape,
    options: &ConvOptions,
    (x, w, bias): (&Buffer<T>, &Buffer<T>, Option<&Buffer<T>>),
    cache: StateCache<'_, T>,
    status: *mut i32,
    y: &mut Buffer<T>,
) -> Result<()> {
    let (indices, cache_seqlens) = (cache.state_indices, cache.cache_seqlens);
    on_backend!(stream,
    host: host::update(
        u,
        options,
        (host_data(x), host_data(w), bias.map(host_data)),
        (host_data_mut(cache.conv_state), indices.map(host_data), cache_seqlens.map(host_data)),
        host_data_mut(y),
    ),
    // SAFETY: every buffer lives on the stream's device with the length the shape needs
    // (checked by the caller), `status` is the caller's status word, and the shape passed
    // check::shape and check::update_shape.
    gpu: unsafe {
        let raw = |b: Option<&Buffer<i32>>| b.map_or(std::ptr::null(), |b| b.as_raw().cast::<i32>());
        let pointers = super::gpu::UpdatePointers {
            x: x.as_raw(),
            w: w.as_raw(),
            bias: bias.map_or(std::ptr::null(), Buffer::as_raw),
            y: y.as_raw_mut(),
            conv_state: cache.conv_state.as_raw_mut(),
            state_indices: raw(indices),
            cache_seqlens: raw(cache_seqlens),
            status,
        };
        super::gpu::conv1d_update::<T>(stream, u, options, &pointers)
    })
}
