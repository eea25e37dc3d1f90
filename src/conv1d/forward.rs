//! The forward op: [`CausalConv1d`], one shape and set of options on one device, with
//! optional bias, activation and chunk states ([`States`]).

use super::check;
use super::launch;
use super::options::{Algorithm, Options};
use super::pipeline;
use super::shape::Shape;
use crate::element::Element;
use crate::error::Result;
use crate::runtime::{Buffer, Device, Stream};

/// The states of a chunked forward ([`CausalConv1d::forward_with_states`]), each
/// `[batch, dim, width−1]`, contiguous, in either layout of x.
#[derive(Debug)]
pub struct States<'a, T: Element> {
    /// The inputs before t = 0: `x[b, c, −k] = initial[b, c, width−1−k]`.
    pub initial: Option<&'a Buffer<T>>,
    /// Receives `x[b, c, seqlen−(width−1)+k]` at `[b, c, k]`.
    pub final_states: Option<&'a mut Buffer<T>>,
}

impl<T: Element> Default for States<'_, T> {
    fn default() -> Self {
        States { initial: None, final_states: None }
    }
}

/// A causal conv1d of one shape and set of options on one device. It owns its workspace
/// (for `Im2colGemm`: the im2col matrix and the dense weight), so `forward` allocates
/// nothing and never waits for the host: it can be captured in a graph.
#[derive(Debug)]
pub struct CausalConv1d<T: Element> {
    device: Device,
    shape: Shape,
    options: Options,
    workspace: Option<Im2colWorkspace<T>>,
}

#[derive(Debug)]
pub(crate) struct Im2colWorkspace<T: Element> {
    pub(crate) a: Buffer<T>,
    pub(crate) b: Buffer<T>,
}

impl<T: Element> CausalConv1d<T> {
    /// Default options: `Auto`, channel-first, no activation.
    pub fn new(device: &Device, shape: Shape) -> Result<Self> {
        Self::with_options(device, shape, Options::default())
    }

    /// Validates shape and options (resolving `Auto`), and allocates the workspace.
    pub fn with_options(device: &Device, shape: Shape, options: Options) -> Result<Self> {
        check::shape(&shape)?;
        let algorithm = check::resolve_algorithm::<T>(device, &shape, &options)?;
        let options = Options { algorithm, ..options };
        let workspace = if algorithm == Algorithm::Im2colGemm {
            check::im2col_workspace(&shape)?;
            Some(Im2colWorkspace {
                a: device.alloc(pipeline::a_len(&shape))?,
                b: device.alloc(pipeline::b_len(&shape))?,
            })
        } else {
            None
        };
        Ok(CausalConv1d { device: device.clone(), shape, options, workspace })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The options in force; `algorithm` is the resolved one, never `Auto`.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Enqueues `y = act(conv(x, w))` on `stream`. Arguments are checked before anything is
    /// enqueued; on the host backend the call runs to completion before returning.
    pub fn forward(&mut self, stream: &Stream, x: &Buffer<T>, w: &Buffer<T>, y: &mut Buffer<T>) -> Result<()> {
        self.forward_with_states(stream, x, w, None, States::default(), y)
    }

    /// As [`CausalConv1d::forward`], adding `bias [dim]` before the activation.
    pub fn forward_with_bias(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        bias: &Buffer<T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        self.forward_with_states(stream, x, w, Some(bias), States::default(), y)
    }

    /// The forward of one chunk of longer sequences: `states.initial` `[batch, dim, width−1]`
    /// is the history before t = 0 (instead of zeros), and `states.final_states` receives the
    /// last width−1 inputs of each row (taken from the initial states where seqlen <
    /// width−1), ready to be the next chunk's initial states. Either may be absent; `bias` is
    /// optional. `Direct` and `FusedGemm` only (docs/STATES.md).
    pub fn forward_with_states(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        bias: Option<&Buffer<T>>,
        states: States<'_, T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        let s = self.shape;
        crate::check::stream_on(stream, self.device.id())?;
        check::forward_buffers(&s, self.options.layout, self.device.id(), x, w, bias, y)?;
        let States { initial, final_states } = states;
        let rows = check::StateRows { count: s.batch, name: "batch" };
        check::states(&s, rows, self.options.algorithm, self.device.id(), initial, final_states.as_deref())?;
        match &mut self.workspace {
            Some(ws) => {
                check::im2col_bias(bias)?;
                // SAFETY: the shape passed check::shape and check::im2col_workspace in
                // `with_options` (which sized A and B); x, w and y passed check::forward_buffers above.
                unsafe {
                    launch::run_preprocess_input(stream, &s, x, &mut ws.a)?;
                    launch::run_preprocess_weight(stream, &s, w, &mut ws.b)?;
                    launch::run_gemm_abt(stream, &s, &ws.a, &ws.b, y)
                }
            }
            None => {
                // SAFETY: shape and options passed check::shape and check::resolve_algorithm in
                // `with_options`; x, w, bias, y and the states passed check::forward_buffers
                // and check::states above.
                unsafe { launch::run_forward(stream, &s, &self.options, x, w, bias, (initial, final_states), None, y) }
            }
        }
    }

    /// The `Im2colGemm` buffers (A, B) as the last forward left them.
    #[cfg_attr(not(feature = "verify_host"), allow(dead_code))]
    pub(crate) fn workspace(&self) -> Option<&Im2colWorkspace<T>> {
        self.workspace.as_ref()
    }
}
