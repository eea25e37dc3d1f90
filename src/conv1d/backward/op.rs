//! The public backward ops: [`CausalConv1dBackward`] (batches, optional chunk states) and
//! [`CausalConv1dVarlenBackward`] (packed variable-length batches), their inputs
//! ([`BackwardInputs`]) and outputs ([`Gradients`]), from args.rs.

use super::args::{BackwardInputs, Call, Gradients};
use super::check;
use super::launch;
use crate::backend::host_data;
use crate::conv1d::launch::Packed;
use crate::conv1d::options::{Algorithm, Options};
use crate::conv1d::shape::{Shape, VarlenShape};
use crate::conv1d::status::{self, IndexLimits};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::{Buffer, Device, Stream};
use crate::status::DeviceStatus;

/// The backward has one family of kernels: `Auto` or `Direct`.
fn backward_options(options: Options) -> Result<Options> {
    if !matches!(options.algorithm, Algorithm::Auto | Algorithm::Direct) {
        return Err(Error::Unsupported {
            op: "the backward",
            what: format!("algorithm {}", options.algorithm),
            hint: "; it has one family of streaming kernels: use Algorithm::Auto or Direct",
        });
    }
    Ok(Options { algorithm: Algorithm::Direct, ..options })
}

/// The backward of one shape and set of options (layout, activation) on one device. It
/// owns its workspace (the per-tile partials of dweight and dbias, and on the generic path
/// dz), so `backward` allocates nothing and never waits for the host: it can be captured
/// in a graph.
#[derive(Debug)]
pub struct CausalConv1dBackward<T: Element> {
    device: Device,
    shape: Shape,
    options: Options,
    workspace: Option<Buffer<f32>>,
    element: std::marker::PhantomData<T>,
}

impl<T: Element> CausalConv1dBackward<T> {
    /// Validates shape and options (`algorithm` must be `Auto` or `Direct`) and allocates
    /// the workspace.
    pub fn new(device: &Device, shape: Shape, options: Options) -> Result<Self> {
        crate::conv1d::check::shape(&shape)?;
        let options = backward_options(options)?;
        let workspace = launch::alloc_workspace::<T>(device, &shape, options.layout, None)?;
        Ok(CausalConv1dBackward {
            device: device.clone(),
            shape,
            options,
            workspace,
            element: std::marker::PhantomData,
        })
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The options in force (`algorithm` is `Direct`).
    pub fn options(&self) -> Options {
        self.options
    }

    /// Bytes of device memory the op holds as workspace.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.as_ref().map_or(0, |w| 4 * w.len())
    }

    /// Enqueues the backward: every gradient of `grads` from `inputs`. Arguments are
    /// checked before anything is enqueued; on the host backend the call runs to completion.
    pub fn backward(&mut self, stream: &Stream, inputs: BackwardInputs<'_, T>, grads: Gradients<'_, T>) -> Result<()> {
        let (s, device) = (self.shape, self.device.id());
        crate::check::stream_on(stream, device)?;
        let rows = crate::conv1d::check::StateRows { count: s.batch, name: "batch" };
        check::call(&s, self.options.layout, rows, device, &inputs, &grads)?;
        // SAFETY: shape and options passed check::shape and backward_options in `new`, which
        // sized the workspace for them; every buffer passed check::call above.
        unsafe {
            launch::run_backward(
                stream,
                &s,
                &self.options,
                Call { inputs, grads, packed: None },
                self.workspace.as_mut(),
            )
        }
    }
}

/// The backward of packed variable-length batches (the forward: `CausalConv1dVarlen`) of
/// one shape and set of options on one device; owns its workspace and the status word its
/// kernels report bad `cu_seqlens` into.
#[derive(Debug)]
pub struct CausalConv1dVarlenBackward<T: Element> {
    device: Device,
    shape: VarlenShape,
    options: Options,
    workspace: Option<Buffer<f32>>,
    status: DeviceStatus,
    element: std::marker::PhantomData<T>,
}

impl<T: Element> CausalConv1dVarlenBackward<T> {
    pub fn new(device: &Device, shape: VarlenShape, options: Options) -> Result<Self> {
        let packed = shape.packed();
        crate::conv1d::check::shape(&packed)?;
        crate::conv1d::check::varlen_shape(&shape)?;
        let options = backward_options(options)?;
        let workspace = launch::alloc_workspace::<T>(device, &packed, options.layout, Some(shape.n_seqs))?;
        let status = DeviceStatus::new(device)?;
        Ok(CausalConv1dVarlenBackward {
            device: device.clone(),
            shape,
            options,
            workspace,
            status,
            element: std::marker::PhantomData,
        })
    }

    pub fn shape(&self) -> VarlenShape {
        self.shape
    }

    /// The options in force (`algorithm` is `Direct`).
    pub fn options(&self) -> Options {
        self.options
    }

    /// Bytes of device memory the op holds as workspace.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.as_ref().map_or(0, |w| 4 * w.len())
    }

    fn limits(&self) -> IndexLimits {
        IndexLimits { n_slots: 0, total_tokens: self.shape.total_tokens }
    }

    /// Enqueues the backward of every sequence of the packed batch (`cu_seqlens
    /// [n_seqs + 1]` int32 on the device; states `[n_seqs, dim, width−1]`). Everything
    /// checkable on the host is checked first (on the host backend that includes the values
    /// of `cu_seqlens`); on a GPU the kernels check them (see
    /// [`CausalConv1dVarlenBackward::wait_and_check`]).
    pub fn backward(
        &mut self,
        stream: &Stream,
        inputs: BackwardInputs<'_, T>,
        cu_seqlens: &Buffer<i32>,
        grads: Gradients<'_, T>,
    ) -> Result<()> {
        let (v, s, device) = (self.shape, self.shape.packed(), self.device.id());
        crate::check::stream_on(stream, device)?;
        let rows = crate::conv1d::check::StateRows { count: v.n_seqs, name: "n_seqs" };
        check::call(&s, self.options.layout, rows, device, &inputs, &grads)?;
        crate::check::buffer("cu_seqlens", cu_seqlens, device, v.n_seqs + 1, || {
            format!("[n_seqs+1 {}] int32", v.n_seqs + 1)
        })?;
        if !stream.device().is_gpu() {
            status::check_cu_seqlens(host_data(cu_seqlens), self.limits())?;
        }
        let packed = Some(Packed { cu_seqlens, status: self.status.as_raw_mut() });
        // SAFETY: the packed shape passed check::shape and check::varlen_shape in `new`,
        // which sized the workspace; buffers, cu_seqlens (on the host its values) were
        // checked above; the status word is ours.
        unsafe {
            launch::run_backward(stream, &s, &self.options, Call { inputs, grads, packed }, self.workspace.as_mut())
        }
    }

    /// Waits for `stream`, then returns the first bad `cu_seqlens` entry the kernels met
    /// since the last call (`Error::BadIndex`), clearing it; the gradients are then not to
    /// be used.
    pub fn wait_and_check(&mut self, stream: &Stream) -> Result<()> {
        crate::check::stream_on(stream, self.device.id())?;
        let limits = self.limits();
        status::wait_and_check(&mut self.status, stream, limits)
    }
}
