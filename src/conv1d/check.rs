//! Every argument check of the conv1d operations, in one place, built from the core's
//! primitives (crate::check). All of them run before any launch, so a failing call leaves
//! the caller's buffers untouched; the launch layer (launch.rs) requires them.

use super::heuristics::{self, FUSED_GEMM_MAX_WIDTH};
use super::options::{Activation, Algorithm, Layout, Options};
use super::pipeline;
use super::shape::{Shape, UpdateShape, VarlenShape};
use crate::arch::ArchFamily;
use crate::check::{buffer, optional_buffer, positive, product_within, ELEMENT_COUNT_LIMIT, KERNEL_INDEX_LIMIT};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::{Buffer, Device, DeviceId};

/// A shape every backend accepts.
pub(crate) fn shape(s: &Shape) -> Result<()> {
    positive("batch", s.batch)?;
    positive("dim", s.dim)?;
    positive("seqlen", s.seqlen)?;
    positive("width", s.width)?;
    product_within("batch*seqlen (GEMM m)", &[s.batch, s.seqlen], KERNEL_INDEX_LIMIT)?;
    product_within("width*dim (GEMM k)", &[s.width, s.dim], KERNEL_INDEX_LIMIT)?;
    product_within("batch*dim*seqlen (elements of x and y)", &[s.batch, s.dim, s.seqlen], ELEMENT_COUNT_LIMIT)
}

/// The explicit pipeline's workspaces fit in memory and in the kernels' 64-bit offsets.
pub(crate) fn im2col_workspace(s: &Shape) -> Result<()> {
    product_within(
        "batch*seqlen*width*dim (elements of the im2col matrix A)",
        &[s.batch, s.seqlen, s.width, s.dim],
        ELEMENT_COUNT_LIMIT,
    )?;
    product_within("dim*width*dim (elements of the dense weight B)", &[s.dim, s.width, s.dim], ELEMENT_COUNT_LIMIT)
}

/// The layout of x and y, with sizes, for error messages.
pub(crate) fn describe_x(s: &Shape, layout: Layout) -> String {
    match layout {
        Layout::ChannelFirst => format!("channel-first [batch {}, dim {}, seqlen {}]", s.batch, s.dim, s.seqlen),
        Layout::ChannelLast => format!("channel-last [batch {}, seqlen {}, dim {}]", s.batch, s.seqlen, s.dim),
    }
}

/// w `[dim, width]`.
pub(crate) fn weight<T: Element>(s: &Shape, device: DeviceId, w: &Buffer<T>) -> Result<()> {
    buffer("w", w, device, s.w_len(), || format!("[dim {}, width {}]", s.dim, s.width))
}

/// x, w, bias and y of a forward call.
pub(crate) fn forward_buffers<T: Element>(
    s: &Shape,
    layout: Layout,
    device: DeviceId,
    x: &Buffer<T>,
    w: &Buffer<T>,
    bias: Option<&Buffer<T>>,
    y: &Buffer<T>,
) -> Result<()> {
    let describe = || describe_x(s, layout);
    buffer("x", x, device, s.x_len(), describe)?;
    weight(s, device, w)?;
    optional_buffer("bias", bias, device, s.dim, || format!("[dim {}]", s.dim))?;
    buffer("y", y, device, s.x_len(), describe)
}

/// A, B of the explicit pipeline's stages.
pub(crate) fn pipeline_a<T: Element>(s: &Shape, device: DeviceId, a: &Buffer<T>) -> Result<()> {
    buffer("a", a, device, pipeline::a_len(s), || pipeline::describe_a(s))
}

pub(crate) fn pipeline_b<T: Element>(s: &Shape, device: DeviceId, b: &Buffer<T>) -> Result<()> {
    buffer("b", b, device, pipeline::b_len(s), || pipeline::describe_b(s))
}

/// What `Error::Unsupported` from `Im2colGemm` or `FusedGemm` suggests instead.
const USE_DIRECT: &str = "; use Algorithm::Direct (or Auto), which supports it";

/// `Auto` resolved, and the chosen algorithm able to run these options on this device.
pub(crate) fn resolve_algorithm<T: Element>(device: &Device, shape: &Shape, options: &Options) -> Result<Algorithm> {
    match options.algorithm {
        Algorithm::Auto => {
            Ok(heuristics::auto_algorithm::<T>(ArchFamily::of(&device.properties().arch), shape, options.layout))
        }
        Algorithm::Direct => Ok(Algorithm::Direct),
        Algorithm::FusedGemm => {
            if shape.width > FUSED_GEMM_MAX_WIDTH {
                return Err(Error::Unsupported {
                    op: "FusedGemm",
                    what: format!("width {} (at most {})", shape.width, FUSED_GEMM_MAX_WIDTH),
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
    s: &Shape,
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
    optional_buffer("initial_states", initial, device, len, layout)?;
    optional_buffer("final_states", final_states, device, len, layout)
}

/// The explicit pipeline's GEMM epilogue has no bias.
pub(crate) fn im2col_bias<T: Element>(bias: Option<&Buffer<T>>) -> Result<()> {
    match bias {
        Some(_) => Err(Error::Unsupported { op: "Im2colGemm", what: String::from("bias"), hint: USE_DIRECT }),
        None => Ok(()),
    }
}

/// A decode update's state cache fits the kernels' 32-bit slot and state indices.
pub(crate) fn update_shape(u: &UpdateShape) -> Result<()> {
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
    u: &UpdateShape,
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
    optional_buffer("cache_seqlens", cache_seqlens, device, u.batch, rows)
}

/// A packed batch's sequence count fits the kernels' 32-bit indices.
pub(crate) fn varlen_shape(v: &VarlenShape) -> Result<()> {
    positive("n_seqs", v.n_seqs)?;
    product_within("n_seqs+1", &[v.n_seqs + 1], KERNEL_INDEX_LIMIT)?;
    product_within(
        "n_seqs*dim*(width-1) (elements of the states)",
        &[v.n_seqs, v.dim, v.width - 1],
        ELEMENT_COUNT_LIMIT,
    )
}
