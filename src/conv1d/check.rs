//! Every argument check of the conv1d operations, in one place. All of them run before
//! any launch, so a failing call leaves the caller's buffers untouched.

use super::heuristics::{self, ArchFamily};
use super::{Activation, Algorithm, ConvOptions, ConvShape, Layout};
use crate::buffer::Buffer;
use crate::device::{Device, DeviceId};
use crate::element::{Element, Scalar};
use crate::error::{Error, Result};
use crate::stream::Stream;

/// The kernels index rows, columns and GEMM dimensions with 32-bit ints (offsets in 64 bits).
const KERNEL_INDEX_LIMIT: u128 = i32::MAX as u128;
/// Element counts must be addressable in bytes for the widest element (4 bytes).
const ELEMENT_COUNT_LIMIT: u128 = (isize::MAX as u128) / 4;

fn positive(arg: &'static str, value: usize) -> Result<()> {
    if value == 0 {
        return Err(Error::InvalidDimension { arg, value, expected: "at least 1" });
    }
    Ok(())
}

fn product_within(quantity: &'static str, factors: &[usize], limit: u128) -> Result<()> {
    // Each factor is a usize, so four of them cannot overflow u128.
    let value = factors.iter().map(|&f| f as u128).product::<u128>();
    if value > limit {
        return Err(Error::IndexOverflow { quantity, value, limit });
    }
    Ok(())
}

/// A shape every backend accepts.
pub(crate) fn shape(s: &ConvShape) -> Result<()> {
    positive("batch", s.batch)?;
    positive("dim", s.dim)?;
    positive("seqlen", s.seqlen)?;
    positive("width", s.width)?;
    product_within("batch*seqlen (GEMM m)", &[s.batch, s.seqlen], KERNEL_INDEX_LIMIT)?;
    product_within("width*dim (GEMM k)", &[s.width, s.dim], KERNEL_INDEX_LIMIT)?;
    product_within("batch*dim*seqlen (elements of x and y)", &[s.batch, s.dim, s.seqlen], ELEMENT_COUNT_LIMIT)
}

/// The explicit pipeline's workspaces fit in memory and in the kernels' 64-bit offsets.
pub(crate) fn im2col_workspace(s: &ConvShape) -> Result<()> {
    product_within(
        "batch*seqlen*width*dim (elements of the im2col matrix A)",
        &[s.batch, s.seqlen, s.width, s.dim],
        ELEMENT_COUNT_LIMIT,
    )?;
    product_within("dim*width*dim (elements of the dense weight B)", &[s.dim, s.width, s.dim], ELEMENT_COUNT_LIMIT)
}

pub(crate) fn stream_on(stream: &Stream, device: DeviceId) -> Result<()> {
    on_device("stream", stream.device().id(), device)
}

fn on_device(arg: &'static str, found: DeviceId, expected: DeviceId) -> Result<()> {
    if found != expected {
        return Err(Error::WrongDevice { arg, expected: expected.to_string(), found: found.to_string() });
    }
    Ok(())
}

/// `buffer` lives on `device` and holds exactly `expected` elements laid out as `layout`.
pub(crate) fn buffer<T: Scalar>(
    arg: &'static str,
    buffer: &Buffer<T>,
    device: DeviceId,
    expected: usize,
    layout: impl FnOnce() -> String,
) -> Result<()> {
    on_device(arg, buffer.device(), device)?;
    if buffer.len() != expected {
        return Err(Error::BufferLength { arg, expected, found: buffer.len(), layout: layout() });
    }
    Ok(())
}

/// The layout of x and y, with sizes, for error messages.
pub(crate) fn describe_x(s: &ConvShape, layout: Layout) -> String {
    match layout {
        Layout::ChannelFirst => format!("channel-first [batch {}, dim {}, seqlen {}]", s.batch, s.dim, s.seqlen),
        Layout::ChannelLast => format!("channel-last [batch {}, seqlen {}, dim {}]", s.batch, s.seqlen, s.dim),
    }
}

/// x, w, bias and y of a forward call.
pub(crate) fn forward_buffers<T: Element>(
    s: &ConvShape,
    layout: Layout,
    device: DeviceId,
    x: &Buffer<T>,
    w: &Buffer<T>,
    bias: Option<&Buffer<T>>,
    y: &Buffer<T>,
) -> Result<()> {
    let describe = || describe_x(s, layout);
    buffer("x", x, device, s.x_len(), describe)?;
    buffer("w", w, device, s.w_len(), || format!("[dim {}, width {}]", s.dim, s.width))?;
    if let Some(bias) = bias {
        buffer("bias", bias, device, s.dim, || format!("[dim {}]", s.dim))?;
    }
    buffer("y", y, device, s.x_len(), describe)
}

/// What `Error::Unsupported` from `Im2colGemm` or `FusedGemm` suggests instead.
const USE_DIRECT: &str = "; use Algorithm::Direct (or Auto), which supports it";

/// `Auto` resolved, and the chosen algorithm able to run these options on this device.
pub(crate) fn resolve_algorithm<T: Element>(
    device: &Device,
    shape: &ConvShape,
    options: &ConvOptions,
) -> Result<Algorithm> {
    match options.algorithm {
        Algorithm::Auto => {
            Ok(heuristics::auto_algorithm::<T>(ArchFamily::of(&device.properties().arch), shape, options.layout))
        }
        Algorithm::Direct => Ok(Algorithm::Direct),
        Algorithm::FusedGemm => {
            if shape.width > super::FUSED_GEMM_MAX_WIDTH {
                return Err(Error::Unsupported {
                    op: "FusedGemm",
                    what: format!("width {} (at most {})", shape.width, super::FUSED_GEMM_MAX_WIDTH),
                    hint: USE_DIRECT,
                });
            }
            Ok(Algorithm::FusedGemm)
        }
        Algorithm::Im2colGemm => {
            let unsupported = |what: String| Err(Error::Unsupported { op: "Im2colGemm", what, hint: USE_DIRECT });
            if options.layout != Layout::ChannelFirst {
                return unsupported(format!("layout {}", options.layout));
            }
            if options.activation != Activation::Identity {
                return unsupported(format!("activation {:?}", options.activation));
            }
            Ok(Algorithm::Im2colGemm)
        }
    }
}

/// The sequences states belong to: the batch rows, or the sequences of a packed batch.
#[derive(Clone, Copy)]
pub(crate) struct StateRows {
    pub(crate) count: usize,
    pub(crate) name: &'static str,
}

/// Initial and final states: `[rows, dim, width−1]` each on the conv's device, and only
/// with the fast paths.
pub(crate) fn states<T: Element>(
    s: &ConvShape,
    rows: StateRows,
    algorithm: Algorithm,
    device: DeviceId,
    initial: Option<&Buffer<T>>,
    final_states: Option<&Buffer<T>>,
) -> Result<()> {
    if initial.is_none() && final_states.is_none() {
        return Ok(());
    }
    if algorithm == Algorithm::Im2colGemm {
        return Err(Error::Unsupported {
            op: "Im2colGemm",
            what: String::from("initial/final states"),
            hint: USE_DIRECT,
        });
    }
    let len = rows.count * s.dim * (s.width - 1);
    let layout = || format!("[{} {}, dim {}, width-1 {}]", rows.name, rows.count, s.dim, s.width - 1);
    if let Some(initial) = initial {
        buffer("initial_states", initial, device, len, layout)?;
    }
    if let Some(final_states) = final_states {
        buffer("final_states", final_states, device, len, layout)?;
    }
    Ok(())
}

/// The explicit pipeline's GEMM epilogue has no bias.
pub(crate) fn im2col_bias<T: Element>(bias: Option<&Buffer<T>>) -> Result<()> {
    match bias {
        Some(_) => Err(Error::Unsupported { op: "Im2colGemm", what: String::from("bias"), hint: USE_DIRECT }),
        None => Ok(()),
    }
}

/// A decode update's state cache fits the kernels' 32-bit slot and state indices.
pub(crate) fn update_shape(u: &super::UpdateShape) -> Result<()> {
    positive("n_slots", u.n_slots)?;
    if u.state_len < u.width - 1 {
        return Err(Error::InvalidDimension { arg: "state_len", value: u.state_len, expected: "at least width-1" });
    }
    product_within("n_slots", &[u.n_slots], KERNEL_INDEX_LIMIT)?;
    product_within("state_len", &[u.state_len], KERNEL_INDEX_LIMIT)?;
    product_within(
        "n_slots*dim*state_len (elements of conv_state)",
        &[u.n_slots, u.dim, u.state_len],
        ELEMENT_COUNT_LIMIT,
    )
}

/// The state cache of one update call: lengths, devices, and slot b for row b to exist
/// where no `state_indices` say otherwise.
pub(crate) fn update_cache<T: Element>(
    u: &super::UpdateShape,
    device: DeviceId,
    conv_state: &Buffer<T>,
    state_indices: Option<&Buffer<i32>>,
    cache_seqlens: Option<&Buffer<i32>>,
) -> Result<()> {
    let state_layout = || format!("[n_slots {}, dim {}, state_len {}]", u.n_slots, u.dim, u.state_len);
    buffer("conv_state", conv_state, device, u.state_elems(), state_layout)?;
    let rows = || format!("[batch {}] int32", u.batch);
    if let Some(indices) = state_indices {
        buffer("state_indices", indices, device, u.batch, rows)?;
    } else if u.n_slots < u.batch {
        return Err(Error::InvalidDimension {
            arg: "n_slots",
            value: u.n_slots,
            expected: "at least batch without state_indices (row b uses slot b)",
        });
    }
    if let Some(cache_seqlens) = cache_seqlens {
        buffer("cache_seqlens", cache_seqlens, device, u.batch, rows)?;
    }
    Ok(())
}

/// A packed batch's sequence count fits the kernels' 32-bit indices.
pub(crate) fn varlen_shape(v: &super::VarlenShape) -> Result<()> {
    positive("n_seqs", v.n_seqs)?;
    product_within("n_seqs+1", &[v.n_seqs + 1], KERNEL_INDEX_LIMIT)?;
    product_within(
        "n_seqs*dim*(width-1) (elements of the states)",
        &[v.n_seqs, v.dim, v.width - 1],
        ELEMENT_COUNT_LIMIT,
    )
}
