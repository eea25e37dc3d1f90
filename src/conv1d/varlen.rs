//! Variable-length batches (docs/VARLEN.md): sequences of different lengths packed into
//! one tensor, `[dim, total_tokens]` (channel-first) or `[total_tokens, dim]`
//! (channel-last), with `cu_seqlens [n_seqs + 1]` (int32, on the device) marking where
//! each starts. No sequence sees another's tokens; each may start from its own initial
//! state and hand back its final state.
//!
//! How: the forward kernels (`Direct` or `FusedGemm`) run over the packed tokens as one
//! sequence, with a grid sized by the total tokens, never by reading `cu_seqlens` on the
//! host; then a small pass (hip/conv1d/states.hip) recomputes the first width−1 outputs of
//! every sequence with that sequence's own history. It reads `cu_seqlens` on the device,
//! checks them, and skips (and reports) sequences whose offsets are bad.

use super::check::{self, StateRows};
use super::stages::{self, host_data, Packed};
use super::status::{self, DeviceStatus, IndexLimits};
use super::{Algorithm, ConvOptions, ConvShape, ConvStates};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::marker::PhantomData;

/// Sizes of a packed variable-length batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarlenShape {
    pub n_seqs: usize,
    pub dim: usize,
    /// Tokens of all sequences together: `cu_seqlens[n_seqs]`.
    pub total_tokens: usize,
    pub width: usize,
}

impl VarlenShape {
    pub fn new(n_seqs: usize, dim: usize, total_tokens: usize, width: usize) -> VarlenShape {
        VarlenShape { n_seqs, dim, total_tokens, width }
    }

    /// The packed tensor as a forward's shape: batch 1, seqlen = total tokens.
    pub fn packed(&self) -> ConvShape {
        ConvShape::new(1, self.dim, self.total_tokens, self.width)
    }

    /// Elements of x and y: dim·total_tokens.
    pub fn x_len(&self) -> usize {
        self.dim * self.total_tokens
    }

    /// Elements of the initial or final states `[n_seqs, dim, width−1]`.
    pub fn state_elems(&self) -> usize {
        self.n_seqs * self.dim * (self.width - 1)
    }
}

/// The forward of packed variable-length batches of one shape and set of options on one
/// device; owns the status word its kernels report bad `cu_seqlens` into.
#[derive(Debug)]
pub struct CausalConv1dVarlen<T: Element> {
    device: Device,
    shape: VarlenShape,
    options: ConvOptions,
    status: DeviceStatus,
    element: PhantomData<T>,
}

impl<T: Element> CausalConv1dVarlen<T> {
    /// Validates the shape and options, resolving `Auto` for the packed tokens as one
    /// sequence (`Im2colGemm` has no sequence boundaries: `Error::Unsupported`).
    pub fn new(device: &Device, shape: VarlenShape, options: ConvOptions) -> Result<Self> {
        let packed = shape.packed();
        check::shape(&packed)?;
        check::varlen_shape(&shape)?;
        if options.algorithm == Algorithm::Im2colGemm {
            return Err(Error::Unsupported {
                op: "Im2colGemm",
                what: String::from("variable-length batches"),
                hint: "; use Algorithm::Direct, FusedGemm or Auto",
            });
        }
        let algorithm = check::resolve_algorithm::<T>(device, &packed, &options)?;
        let options = ConvOptions { algorithm, ..options };
        let status = DeviceStatus::new(device)?;
        Ok(CausalConv1dVarlen { device: device.clone(), shape, options, status, element: PhantomData })
    }

    pub fn shape(&self) -> VarlenShape {
        self.shape
    }

    /// The options in force; `algorithm` is the resolved one, never `Auto`.
    pub fn options(&self) -> ConvOptions {
        self.options
    }

    fn limits(&self) -> IndexLimits {
        IndexLimits { n_slots: 0, total_tokens: self.shape.total_tokens }
    }

    /// Enqueues `y = act(conv(x, w) + bias)` over every sequence of the packed `x`, each
    /// from its `states.initial[seq]` (zeros without it), writing `states.final_states[seq]`
    /// (both `[n_seqs, dim, width−1]`). Everything checkable on the host is checked before
    /// anything is enqueued (on the host backend that includes the values of `cu_seqlens`);
    /// on a GPU the kernels check `cu_seqlens` (see [`CausalConv1dVarlen::wait_and_check`]).
    #[allow(clippy::too_many_arguments)] // forward_with_states' arguments and cu_seqlens
    pub fn forward(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        cu_seqlens: &Buffer<i32>,
        w: &Buffer<T>,
        bias: Option<&Buffer<T>>,
        states: ConvStates<'_, T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        let (v, s, device) = (self.shape, self.shape.packed(), self.device.id());
        check::stream_on(stream, device)?;
        check::forward_buffers(&s, self.options.layout, device, x, w, bias, y)?;
        check::buffer("cu_seqlens", cu_seqlens, device, v.n_seqs + 1, || format!("[n_seqs+1 {}] int32", v.n_seqs + 1))?;
        let ConvStates { initial, final_states } = states;
        let rows = StateRows { count: v.n_seqs, name: "n_seqs" };
        check::states(&s, rows, self.options.algorithm, device, initial, final_states.as_deref())?;
        if !stream.device().is_gpu() {
            status::check_cu_seqlens(host_data(cu_seqlens), self.limits())?;
        }
        let packed = Some(Packed { cu_seqlens, status: self.status.as_raw_mut() });
        stages::run_forward(stream, &s, &self.options, x, w, bias, initial, packed, y)?;
        match final_states {
            Some(final_states) => {
                stages::run_final_states(stream, &s, self.options.layout, x, initial, packed, final_states)
            }
            None => Ok(()),
        }
    }

    /// Waits for `stream`, then returns the first bad `cu_seqlens` entry the kernels met
    /// since the last call (`Error::BadIndex`), clearing it. The sequences it bounds were
    /// skipped by the boundary pass, so their outputs are not to be used.
    pub fn wait_and_check(&mut self, stream: &Stream) -> Result<()> {
        check::stream_on(stream, self.device.id())?;
        let limits = self.limits();
        self.status.wait_and_check(stream, limits)
    }
}
