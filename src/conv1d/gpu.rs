//! conv1d's GPU launchers: each fills a params struct of hip/include/hipconv/conv1d.h, finds
//! the dtype's entry point in the one dtype table below, and maps the status through the
//! result layer. Unsafe: callers (launch.rs) pass checked arguments (check.rs).

use super::heuristics::{FUSED_GEMM_MAX_WIDTH, STREAM_MAX_WIDTH};
use super::options::{Algorithm, Options};
use super::pipeline;
use super::shape::{Shape, UpdateShape};
use crate::element::{DType, Element};
use crate::error::Result;
use crate::runtime::entry::{entry, Entry};
use crate::runtime::{sys, Stream};
use std::ffi::c_void;

// Rust checks FusedGemm's width limit before launch; it must be the kernels' limit.
const _: () = assert!(FUSED_GEMM_MAX_WIDTH == sys::HIPCONV_FUSED_GEMM_MAX_WIDTH as usize);
// Auto's policy sends widths up to STREAM_MAX_WIDTH to the streaming kernels: it must be theirs.
const _: () = assert!(STREAM_MAX_WIDTH == sys::HIPCONV_STREAM_MAX_WIDTH as usize);
// The host backend raises the kernels' index errors by the same codes.
const _: () = {
    use super::status;
    assert!(status::SLOT_OUT_OF_RANGE == sys::HIPCONV_STATUS_SLOT_OUT_OF_RANGE as i32);
    assert!(status::NEGATIVE_CACHE_SEQLEN == sys::HIPCONV_STATUS_NEGATIVE_CACHE_SEQLEN as i32);
    assert!(status::CU_SEQLENS_START == sys::HIPCONV_STATUS_CU_SEQLENS_START as i32);
    assert!(status::CU_SEQLENS_DECREASING == sys::HIPCONV_STATUS_CU_SEQLENS_DECREASING as i32);
    assert!(status::CU_SEQLENS_RANGE == sys::HIPCONV_STATUS_CU_SEQLENS_RANGE as i32);
    assert!(status::CU_SEQLENS_END == sys::HIPCONV_STATUS_CU_SEQLENS_END as i32);
    assert!(crate::status::STATUS_WORDS == sys::HIPCONV_STATUS_WORDS as usize);
};

/// conv1d's entry points of one dtype (`HIPCONV_DECLARE_PER_DTYPE` in conv1d.h).
struct Kernels {
    direct: Entry<sys::hipconv_conv1d_params>,
    fused_gemm: Entry<sys::hipconv_conv1d_params>,
    sequence_boundaries: Entry<sys::hipconv_conv1d_sequences_params>,
    update: Entry<sys::hipconv_conv1d_update_params>,
    preprocess_input: Entry<sys::hipconv_conv1d_preprocess_input_params>,
    preprocess_weight: Entry<sys::hipconv_conv1d_preprocess_weight_params>,
    gemm_abt: Entry<sys::hipconv_conv1d_gemm_abt_params>,
}

/// The one dtype table: every entry point of every dtype.
const F16: Kernels = Kernels {
    direct: entry!(hipconv_conv1d_direct_f16),
    fused_gemm: entry!(hipconv_conv1d_fused_gemm_f16),
    sequence_boundaries: entry!(hipconv_conv1d_sequence_boundaries_f16),
    update: entry!(hipconv_conv1d_update_f16),
    preprocess_input: entry!(hipconv_conv1d_preprocess_input_f16),
    preprocess_weight: entry!(hipconv_conv1d_preprocess_weight_f16),
    gemm_abt: entry!(hipconv_conv1d_gemm_abt_f16),
};
const BF16: Kernels = Kernels {
    direct: entry!(hipconv_conv1d_direct_bf16),
    fused_gemm: entry!(hipconv_conv1d_fused_gemm_bf16),
    sequence_boundaries: entry!(hipconv_conv1d_sequence_boundaries_bf16),
    update: entry!(hipconv_conv1d_update_bf16),
    preprocess_input: entry!(hipconv_conv1d_preprocess_input_bf16),
    preprocess_weight: entry!(hipconv_conv1d_preprocess_weight_bf16),
    gemm_abt: entry!(hipconv_conv1d_gemm_abt_bf16),
};
const F32: Kernels = Kernels {
    direct: entry!(hipconv_conv1d_direct_f32),
    fused_gemm: entry!(hipconv_conv1d_fused_gemm_f32),
    sequence_boundaries: entry!(hipconv_conv1d_sequence_boundaries_f32),
    update: entry!(hipconv_conv1d_update_f32),
    preprocess_input: entry!(hipconv_conv1d_preprocess_input_f32),
    preprocess_weight: entry!(hipconv_conv1d_preprocess_weight_f32),
    gemm_abt: entry!(hipconv_conv1d_gemm_abt_f32),
};

/// `T`'s row of the table.
fn kernels<T: Element>() -> &'static Kernels {
    match T::DTYPE {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
    }
}

/// # Safety
/// `x` must hold `s.x_len()` and `a` `pipeline::a_len(s)` elements of `T` on the stream's
/// device, live until the launch completes; `s` must have passed `check::shape`.
pub(crate) unsafe fn preprocess_input<T: Element>(
    stream: &Stream,
    s: &Shape,
    x: *const c_void,
    a: *mut c_void,
) -> Result<()> {
    let params = sys::hipconv_conv1d_preprocess_input_params {
        x,
        a,
        batch: s.batch as i32,
        dim: s.dim as i32,
        seqlen: s.seqlen as i32,
        width: s.width as i32,
    };
    kernels::<T>().preprocess_input.run(&params, stream)
}

/// # Safety
/// `w` must hold `s.w_len()` and `b` `pipeline::b_len(s)` elements of `T` on the stream's
/// device, live until the launch completes; `s` must have passed `check::shape`.
pub(crate) unsafe fn preprocess_weight<T: Element>(
    stream: &Stream,
    s: &Shape,
    w: *const c_void,
    b: *mut c_void,
) -> Result<()> {
    let params = sys::hipconv_conv1d_preprocess_weight_params { w, b, dim: s.dim as i32, width: s.width as i32 };
    kernels::<T>().preprocess_weight.run(&params, stream)
}

/// # Safety
/// `a` must hold `pipeline::a_len(s)`, `b` `pipeline::b_len(s)` and `y` `s.x_len()` elements
/// of `T` on the stream's device, live until the launch completes; `s` must have passed
/// `check::shape`.
pub(crate) unsafe fn gemm_abt<T: Element>(
    stream: &Stream,
    s: &Shape,
    a: *const c_void,
    b: *const c_void,
    y: *mut c_void,
) -> Result<()> {
    let g = pipeline::gemm_shape(s);
    let params = sys::hipconv_conv1d_gemm_abt_params {
        a,
        b,
        y,
        m: g.m as i32,
        n: g.n as i32,
        k: g.k as i32,
        lda: g.lda as i64,
        ldb: g.ldb as i64,
        seqlen: s.seqlen as i32,
    };
    kernels::<T>().gemm_abt.run(&params, stream)
}

/// A packed variable-length batch on the device: `n_seqs + 1` offsets, and the status word
/// where the kernels report bad ones.
#[derive(Clone, Copy)]
pub(crate) struct PackedSequences {
    pub(crate) cu_seqlens: *const i32,
    pub(crate) n_seqs: usize,
    pub(crate) status: *mut i32,
}

/// The params struct of the forward-family kernels for one call (the backward's `conv`
/// too).
pub(super) fn conv1d_params(
    s: &Shape,
    options: &Options,
    x: *const c_void,
    w: *const c_void,
    bias: *const c_void,
    y: *mut c_void,
    states: (*const c_void, *mut c_void),
) -> sys::hipconv_conv1d_params {
    let [batch_stride, dim_stride, seq_stride] = s.strides(options.layout).map(|v| v as i64);
    sys::hipconv_conv1d_params {
        x,
        w,
        bias,
        y,
        batch: s.batch as i32,
        dim: s.dim as i32,
        seqlen: s.seqlen as i32,
        width: s.width as i32,
        x_batch_stride: batch_stride,
        x_dim_stride: dim_stride,
        x_seq_stride: seq_stride,
        y_batch_stride: batch_stride,
        y_dim_stride: dim_stride,
        y_seq_stride: seq_stride,
        silu: options.activation.silu_flag(),
        initial_states: states.0,
        final_states: states.1,
    }
}

/// The params of the passes at sequence boundaries: the forward's, and where the sequences are.
fn sequences_params(
    conv: sys::hipconv_conv1d_params,
    packed: Option<PackedSequences>,
) -> sys::hipconv_conv1d_sequences_params {
    let (cu_seqlens, n_seqs, status) =
        packed.map_or((std::ptr::null(), 0, std::ptr::null_mut()), |p| (p.cu_seqlens, p.n_seqs as i32, p.status));
    sys::hipconv_conv1d_sequences_params { conv, cu_seqlens, n_seqs, status }
}

/// Enqueues the `Direct` or `FusedGemm` forward (`options.algorithm`, resolved), then, with
/// `initial` not null, a packed batch or `final_states` not null, the pass at the sequence
/// boundaries: it rewrites the outputs that see each sequence's own history and writes
/// `final_states[seq, c, k] = x[seq, c, length−(width−1)+k]` (from `initial`, or 0, before
/// t = 0), in one launch.
///
/// # Safety
/// `x` and `y` must hold `s.x_len()` elements of `T` laid out as `options.layout`, `w`
/// `s.w_len()`, `bias` (if not null) `s.dim`, `initial` and `final_states` (if not null)
/// `sequences·s.dim·(s.width−1)` (sequences: `s.batch`, or `packed.n_seqs` with `s.batch`
/// 1), `packed`'s offsets `n_seqs + 1` and its status word `HIPCONV_STATUS_WORDS` int32,
/// all on the stream's device and live until the launches complete, `final_states` not
/// overlapping `initial`, `x` or `y`; `s` must have passed `check::shape`, and `options`
/// the checks of `check::resolve_algorithm`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn conv1d_forward<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    x: *const c_void,
    w: *const c_void,
    bias: *const c_void,
    states: (*const c_void, *mut c_void),
    packed: Option<PackedSequences>,
    y: *mut c_void,
) -> Result<()> {
    let params = conv1d_params(s, options, x, w, bias, y, states);
    let kernels = kernels::<T>();
    let forward = match options.algorithm {
        Algorithm::FusedGemm => &kernels.fused_gemm,
        _ => &kernels.direct,
    };
    forward.run(&params, stream)?;
    let (initial, final_states) = states;
    if (initial.is_null() && packed.is_none() && final_states.is_null()) || s.width == 1 {
        return Ok(());
    }
    kernels.sequence_boundaries.run(&sequences_params(params, packed), stream)
}

/// Pointers of one decode update (`hipconv_conv1d_update_params`).
pub(crate) struct UpdatePointers {
    pub(crate) x: *const c_void,
    pub(crate) w: *const c_void,
    pub(crate) bias: *const c_void,
    pub(crate) y: *mut c_void,
    pub(crate) conv_state: *mut c_void,
    pub(crate) state_indices: *const i32,
    pub(crate) cache_seqlens: *const i32,
    pub(crate) status: *mut i32,
}

/// Enqueues one decode step: y of the new tokens, and the states advanced in place.
///
/// # Safety
/// `p.x` and `p.y` must hold `u.x_len()` elements of `T` laid out as `options.layout`,
/// `p.w` `u.w_len()`, `p.bias` (if not null) `u.dim`, `p.conv_state` `u.state_elems()`,
/// `p.state_indices` and `p.cache_seqlens` (if not null) `u.batch` int32, `p.status`
/// `HIPCONV_STATUS_WORDS` int32, all on the stream's device and live until the launch
/// completes; `u` must have passed `check::shape` (as `u.conv_shape()`) and
/// `check::update_shape`, and without `state_indices` `u.n_slots ≥ u.batch`.
pub(crate) unsafe fn conv1d_update<T: Element>(
    stream: &Stream,
    u: &UpdateShape,
    options: &Options,
    p: &UpdatePointers,
) -> Result<()> {
    let s = u.conv_shape();
    let null = (std::ptr::null(), std::ptr::null_mut());
    let params = sys::hipconv_conv1d_update_params {
        conv: conv1d_params(&s, options, p.x, p.w, p.bias, p.y, null),
        conv_state: p.conv_state,
        state_indices: p.state_indices,
        cache_seqlens: p.cache_seqlens,
        status: p.status,
        n_slots: u.n_slots as i32,
        state_len: u.state_len as i32,
    };
    kernels::<T>().update.run(&params, stream)
}
