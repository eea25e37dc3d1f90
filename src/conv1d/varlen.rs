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
use super::forward::States;
use super::launch::{self, Packed};
use super::options::{Algorithm, Options};
use super::shape::VarlenShape;
use super::status::{self, IndexLimits};
use crate::backend::host_data;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::{Buffer, Device, Stream};
use crate::status::DeviceStatus;
use std::marker::PhantomData;

/// The forward of packed variable-length batches of one shape and set of options on one
/// device; owns the status word its kernels report bad `cu_seqlens` into.
#[derive(Debug)]
pub struct CausalConv1dVarlen<T: Element> {
    device: Device,
    shape: VarlenShape,
    options: Options,
    status: DeviceStatus,
    element: PhantomData<T>,
}

impl<T: Element> CausalConv1dVarlen<T> {
    /// Validates the shape and options, resolving `Auto` for the packed tokens as one
    /// sequence (`Im2colGemm` has no sequence boundaries: `Error::Unsupported`).
    pub fn new(device: &Device, shape: VarlenShape, options: Options) -> Result<Self> {
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
        let options = Options { algorithm, ..options };
        let status = DeviceStatus::new(device)?;
        Ok(CausalConv1dVarlen { device: device.clone(), shape, options, status, element: PhantomData })
    }

    pub fn shape(&self) -> VarlenShape {
        self.shape
    }

    /// The options in force; `algorithm` is the resolved one, never `Auto`.
    pub fn options(&self) -> Options {
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
        states: States<'_, T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        let (v, s, device) = (self.shape, self.shape.packed(), self.device.id());
        crate::check::stream_on(stream, device)?;
        check::forward_buffers(&s, self.options.layout, device, x, w, bias, y)?;
        crate::check::buffer("cu_seqlens", cu_seqlens, device, v.n_seqs + 1, || {
            format!("[n_seqs+1 {}] int32", v.n_seqs + 1)
        })?;
        let States { initial, final_states } = states;
        let rows = StateRows { count: v.n_seqs, name: "n_seqs" };
        check::states(&s, rows, self.options.algorithm, device, initial, final_states.as_deref())?;
        if !stream.device().is_gpu() {
            status::check_cu_seqlens(host_data(cu_seqlens), self.limits())?;
        }
        let packed = Some(Packed { cu_seqlens, status: self.status.as_raw_mut() });
        // SAFETY: the packed shape and options passed check::shape, check::varlen_shape and
        // check::resolve_algorithm in `new`; buffers, cu_seqlens (and on the host its values)
        // and states were checked above; the status word is ours.
        unsafe { launch::run_forward(stream, &s, &self.options, x, w, bias, (initial, final_states), packed, y) }
    }

    /// Waits for `stream`, then returns the first bad `cu_seqlens` entry the kernels met
    /// since the last call (`Error::BadIndex`), clearing it. The sequences it bounds were
    /// skipped by the boundary pass, so their outputs are not to be used.
    pub fn wait_and_check(&mut self, stream: &Stream) -> Result<()> {
        crate::check::stream_on(stream, self.device.id())?;
        let limits = self.limits();
        status::wait_and_check(&mut self.status, stream, limits)
    }
}
