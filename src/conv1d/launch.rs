//! conv1d's launch layer: each function runs one kernel (or pass) on the stream's backend
//! (crate::backend's dispatch: the host backend's code in host.rs, or the GPU launcher in
//! gpu.rs). Every function is `unsafe`: the kernels index memory by the shape, so it is sound
//! only with arguments that passed the checks of check.rs, which each `# Safety` names. The
//! public operations (forward.rs, stages.rs, update.rs, varlen.rs) are the only callers.

use super::host;
use super::options::Options;
use super::shape::{Shape, UpdateShape};
use crate::backend::{host_data, host_data_mut, on_backend};
use crate::element::Element;
use crate::error::Result;
use crate::runtime::{Buffer, Stream};

/// Input preprocessing (im2col), x → A.
///
/// # Safety
/// `s` passed `check::shape` and `check::im2col_workspace`; `x` (`s.x_len()`, channel-first)
/// and `a` (`pipeline::a_len(s)`) passed `check::buffer` for the stream's device.
pub(crate) unsafe fn run_preprocess_input<T: Element>(
    stream: &Stream,
    s: &Shape,
    x: &Buffer<T>,
    a: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
        host: host::im2col(s, host_data(x), host_data_mut(a)),
        // SAFETY: x and a live on the stream's device with the lengths the shape needs (contract).
        gpu: unsafe { super::gpu::preprocess_input::<T>(stream, s, x.as_raw(), a.as_raw_mut()) })
}

/// Weight preprocessing (depthwise → dense), w → B.
///
/// # Safety
/// As [`run_preprocess_input`], for `w` (`s.w_len()`) and `b` (`pipeline::b_len(s)`).
pub(crate) unsafe fn run_preprocess_weight<T: Element>(
    stream: &Stream,
    s: &Shape,
    w: &Buffer<T>,
    b: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
        host: host::dense_weight(s, host_data(w), host_data_mut(b)),
        // SAFETY: w and b live on the stream's device with the lengths the shape needs (contract).
        gpu: unsafe { super::gpu::preprocess_weight::<T>(stream, s, w.as_raw(), b.as_raw_mut()) })
}

/// The pipeline's GEMM, A·Bᵀ written as y.
///
/// # Safety
/// As [`run_preprocess_input`], for `a`, `b` and `y` (`s.x_len()`, channel-first).
pub(crate) unsafe fn run_gemm_abt<T: Element>(
    stream: &Stream,
    s: &Shape,
    a: &Buffer<T>,
    b: &Buffer<T>,
    y: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
        host: host::gemm_abt(s, host_data(a), host_data(b), host_data_mut(y)),
        // SAFETY: a, b and y live on the stream's device with the lengths the shape needs (contract).
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
/// before its first time from `initial` (zeros without it), and the last width−1 inputs of
/// each sequence (from `initial` before its first time) into `final_states`. The sequences
/// are the batch rows, or those of `packed`.
///
/// # Safety
/// `s` passed `check::shape` and `options` `check::resolve_algorithm` (not `Im2colGemm`);
/// x, w, bias and y passed `check::forward_buffers`, `initial` and `final_states`
/// `check::states`, for the stream's device; `packed`'s `cu_seqlens` holds `n_seqs + 1`
/// offsets on that device, with `s.batch` 1 (on the host backend: offsets checked by
/// `status::check_cu_seqlens`), and its status word `STATUS_WORDS` int32.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn run_forward<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    x: &Buffer<T>,
    w: &Buffer<T>,
    bias: Option<&Buffer<T>>,
    (initial, final_states): (Option<&Buffer<T>>, Option<&mut Buffer<T>>),
    packed: Option<Packed<'_>>,
    y: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
    host: {
        let (x, w, bias) = (host_data(x), host_data(w), bias.map(host_data));
        // A packed batch runs as one sequence first, as on the GPU; its heads are redone.
        let row_initial = if packed.is_some() { None } else { initial.map(host_data) };
        host::forward(s, options, host::Operands { x, w, bias, initial: row_initial }, host_data_mut(y));
        let cu_seqlens = packed.map(|p| host_data(p.cu_seqlens));
        if let Some(cu_seqlens) = cu_seqlens {
            host::sequence_heads(s, options, (x, w, bias), initial.map(host_data), cu_seqlens, host_data_mut(y));
        }
        if let (Some(final_states), true) = (final_states, s.width > 1) {
            host::final_states(s, options.layout, x, initial.map(host_data), cu_seqlens, host_data_mut(final_states));
        }
    },
    // SAFETY: x, w, bias, initial, final_states, y and packed's buffers live on the stream's
    // device with the lengths the shape and layout need (this function's contract); missing
    // ones are null; `final_states` is borrowed mutably, so it overlaps none of the others.
    gpu: unsafe {
        let bias = bias.map_or(std::ptr::null(), Buffer::as_raw);
        let initial = initial.map_or(std::ptr::null(), Buffer::as_raw);
        let final_states = final_states.map_or(std::ptr::null_mut(), Buffer::as_raw_mut);
        let (x, w, packed) = (x.as_raw(), w.as_raw(), packed_on_device(packed));
        super::gpu::conv1d_forward::<T>(stream, s, options, x, w, bias, (initial, final_states), packed, y.as_raw_mut())
    })
}

/// The state cache of one decode step: `[n_slots, dim, state_len]` states, slot indices and
/// write positions (`update::StateCache`'s buffers).
pub(crate) struct CacheBuffers<'a, T: Element> {
    pub(crate) conv_state: &'a mut Buffer<T>,
    pub(crate) state_indices: Option<&'a Buffer<i32>>,
    pub(crate) cache_seqlens: Option<&'a Buffer<i32>>,
}

/// One decode step: y of the new tokens, and the states of `cache` advanced in place. On a
/// GPU the kernel checks the indices and reports into `status`; on the host the caller has
/// checked them.
///
/// # Safety
/// `u` passed `check::shape` (as `u.conv_shape()`) and `check::update_shape`; x, w, bias
/// and y passed `check::forward_buffers` and the cache `check::update_cache` for the
/// stream's device; on the host backend the indices passed `status::check_update_indices`;
/// on a GPU `status` is a live status word of `STATUS_WORDS` int32 on that device.
#[cfg_attr(not(hipconv_gpu), allow(unused_variables))] // `status` is the GPU's
pub(crate) unsafe fn run_update<T: Element>(
    stream: &Stream,
    u: &UpdateShape,
    options: &Options,
    (x, w, bias): (&Buffer<T>, &Buffer<T>, Option<&Buffer<T>>),
    cache: CacheBuffers<'_, T>,
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
    // (this function's contract), `status` is the caller's status word, and the shape passed
    // check::shape and check::update_shape (this function's contract).
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
