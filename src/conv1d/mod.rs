//! Causal depthwise conv1d.
//!
//! `y[b, c, t] = Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)]`, zero history before t = 0,
//! with `x`, `y` stored `[batch, dim, seqlen]` and `w` `[dim, width]`.
//!
//! Algorithms ([`Algorithm`]), all of which run on the host backend too:
//! - `Direct`: streaming kernels that read each input once (every dtype, both layouts,
//!   bias, SiLU, any width; widths up to [`STREAM_MAX_WIDTH`] near the copy bandwidth);
//! - `FusedGemm`: the implicit-im2col GEMM on matrix cores (widths up to
//!   [`FUSED_GEMM_MAX_WIDTH`]);
//! - `Im2colGemm`: the seed's explicit pipeline (docs/DESIGN.md): `preprocess_input`
//!   (transpose + causal padding + im2col), `preprocess_weight` (depthwise → dense
//!   block-diagonal), `gemm_abt` on matrix cores with an epilogue that writes `y` in place;
//! - `Auto` (the default) picks one per device architecture, shape, dtype and layout
//!   (`heuristics.rs`).

mod check;
#[cfg(hipconv_gpu)]
mod gpu;
mod heuristics;
pub(crate) mod host;
mod options;
pub mod reference;
pub mod stages;
mod status;
mod update;
mod varlen;

pub use heuristics::STREAM_MAX_WIDTH;
pub use options::{Activation, Algorithm, ConvOptions, Layout};
pub use update::{CausalConv1dUpdate, StateCache, UpdateShape};
pub use varlen::{CausalConv1dVarlen, VarlenShape};

/// The widest kernel `Algorithm::FusedGemm` takes (its shared-memory window grows with the
/// width); `Direct` has no limit. Equal to `HIPCONV_FUSED_GEMM_MAX_WIDTH` in hipconv.h.
pub const FUSED_GEMM_MAX_WIDTH: usize = 512;

use crate::buffer::Buffer;
use crate::device::Device;
use crate::element::Element;
use crate::error::Result;
use crate::stream::Stream;
use std::fmt;

/// Sizes of one causal conv1d problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvShape {
    pub batch: usize,
    pub dim: usize,
    pub seqlen: usize,
    pub width: usize,
}

impl ConvShape {
    pub fn new(batch: usize, dim: usize, seqlen: usize, width: usize) -> ConvShape {
        ConvShape { batch, dim, seqlen, width }
    }

    /// Elements of `x` and of `y`: batch·dim·seqlen.
    pub fn x_len(&self) -> usize {
        self.batch * self.dim * self.seqlen
    }

    /// Elements of `w`: dim·width.
    pub fn w_len(&self) -> usize {
        self.dim * self.width
    }

    /// Elements of the im2col matrix A: (batch·seqlen)·(width·dim).
    pub fn a_len(&self) -> usize {
        self.batch * self.seqlen * self.width * self.dim
    }

    /// Elements of the dense weight B: dim·(width·dim).
    pub fn b_len(&self) -> usize {
        self.dim * self.width * self.dim
    }

    /// Element strides `[batch, dim, seqlen]` of x and y in `layout`.
    pub fn strides(&self, layout: Layout) -> [usize; 3] {
        match layout {
            Layout::ChannelFirst => [self.dim * self.seqlen, self.seqlen, 1],
            Layout::ChannelLast => [self.seqlen * self.dim, 1, self.dim],
        }
    }

    /// `FusedGemm`'s history H = 16·⌈(width−1)/16⌉: each output is a dot product of length
    /// K = 16 + H (hip/conv1d/fused_gemm.hip).
    pub fn fused_gemm_history(&self) -> usize {
        16 * (self.width - 1).div_ceil(16)
    }

    /// The GEMM this shape becomes in the explicit pipeline.
    pub fn gemm(&self) -> GemmShape {
        let k = self.width * self.dim;
        GemmShape { m: self.batch * self.seqlen, n: self.dim, k, lda: k, ldb: k, ldc: self.dim }
    }
}

/// `C[m, n] = A[m, k] · B[n, k]ᵀ`. `ldc` is the leading dimension of C viewed row-major;
/// the epilogue writes C straight into `y [batch, dim, seqlen]` instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmShape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl fmt::Display for GemmShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m:{},n:{},k:{},lda:{},ldb:{},ldc:{}", self.m, self.n, self.k, self.lda, self.ldb, self.ldc)
    }
}

/// The GPU GEMM's tile configuration (compile-time constants of hip/gemm/gemm_abt.hip).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmTileConfig {
    pub block_m: u32,
    pub block_n: u32,
    pub block_k: u32,
    pub waves_m: u32,
    pub waves_n: u32,
    pub inst_m: u32,
    pub inst_n: u32,
    pub inst_k: u32,
    pub wave_size: u32,
}

impl GemmTileConfig {
    /// The configuration compiled into this build's GPU backend.
    pub fn compiled() -> Option<GemmTileConfig> {
        #[cfg(hipconv_gpu)]
        {
            let c = crate::gpu::gemm_config();
            let u = |v: i32| v.max(0) as u32;
            Some(GemmTileConfig {
                block_m: u(c.block_m),
                block_n: u(c.block_n),
                block_k: u(c.block_k),
                waves_m: u(c.waves_m),
                waves_n: u(c.waves_n),
                inst_m: u(c.inst_m),
                inst_n: u(c.inst_n),
                inst_k: u(c.inst_k),
                wave_size: u(c.wave_size),
            })
        }
        #[cfg(not(hipconv_gpu))]
        None
    }
}

impl fmt::Display for GemmTileConfig {
    /// The seed's naming: `block_gemm_<tile m×n×k>_<waves>x1_<instruction m×n×k>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "block_gemm_{}x{}x{}_{}x{}x1_{}x{}x{}",
            self.block_m, self.block_n, self.block_k, self.waves_m, self.waves_n, self.inst_m, self.inst_n, self.inst_k
        )
    }
}

/// The states of a chunked forward ([`CausalConv1d::forward_with_states`]), each
/// `[batch, dim, width−1]`, contiguous, in either layout of x.
#[derive(Debug)]
pub struct ConvStates<'a, T: Element> {
    /// The inputs before t = 0: `x[b, c, −k] = initial[b, c, width−1−k]`.
    pub initial: Option<&'a Buffer<T>>,
    /// Receives `x[b, c, seqlen−(width−1)+k]` at `[b, c, k]`.
    pub final_states: Option<&'a mut Buffer<T>>,
}

impl<T: Element> Default for ConvStates<'_, T> {
    fn default() -> Self {
        ConvStates { initial: None, final_states: None }
    }
}

/// A causal conv1d of one shape and set of options on one device. It owns its workspace
/// (for `Im2colGemm`: the im2col matrix and the dense weight), so `forward` allocates
/// nothing and never waits for the host: it can be captured in a graph.
#[derive(Debug)]
pub struct CausalConv1d<T: Element> {
    device: Device,
    shape: ConvShape,
    options: ConvOptions,
    workspace: Option<Im2colWorkspace<T>>,
}

#[derive(Debug)]
pub(crate) struct Im2colWorkspace<T: Element> {
    pub(crate) a: Buffer<T>,
    pub(crate) b: Buffer<T>,
}

impl<T: Element> CausalConv1d<T> {
    /// Default options: `Auto`, channel-first, no activation.
    pub fn new(device: &Device, shape: ConvShape) -> Result<Self> {
        Self::with_options(device, shape, ConvOptions::default())
    }

    /// Validates shape and options (resolving `Auto`), and allocates the workspace.
    pub fn with_options(device: &Device, shape: ConvShape, options: ConvOptions) -> Result<Self> {
        check::shape(&shape)?;
        let algorithm = check::resolve_algorithm::<T>(device, &shape, &options)?;
        let options = ConvOptions { algorithm, ..options };
        let workspace = if algorithm == Algorithm::Im2colGemm {
            check::im2col_workspace(&shape)?;
            Some(Im2colWorkspace { a: device.alloc(shape.a_len())?, b: device.alloc(shape.b_len())? })
        } else {
            None
        };
        Ok(CausalConv1d { device: device.clone(), shape, options, workspace })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn shape(&self) -> ConvShape {
        self.shape
    }

    /// The options in force; `algorithm` is the resolved one, never `Auto`.
    pub fn options(&self) -> ConvOptions {
        self.options
    }

    /// Enqueues `y = act(conv(x, w))` on `stream`. Arguments are checked before anything is
    /// enqueued; on the host backend the call runs to completion before returning.
    pub fn forward(&mut self, stream: &Stream, x: &Buffer<T>, w: &Buffer<T>, y: &mut Buffer<T>) -> Result<()> {
        self.forward_with_states(stream, x, w, None, ConvStates::default(), y)
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
        self.forward_with_states(stream, x, w, Some(bias), ConvStates::default(), y)
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
        states: ConvStates<'_, T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        let s = self.shape;
        check::stream_on(stream, self.device.id())?;
        check::forward_buffers(&s, self.options.layout, self.device.id(), x, w, bias, y)?;
        let ConvStates { initial, final_states } = states;
        let rows = check::StateRows { count: s.batch, name: "batch" };
        check::states(&s, rows, self.options.algorithm, self.device.id(), initial, final_states.as_deref())?;
        match &mut self.workspace {
            Some(ws) => {
                check::im2col_bias(bias)?;
                stages::run_preprocess_input(stream, &s, x, &mut ws.a)?;
                stages::run_preprocess_weight(stream, &s, w, &mut ws.b)?;
                stages::run_gemm_abt(stream, &s, &ws.a, &ws.b, y)
            }
            None => {
                stages::run_forward(stream, &s, &self.options, x, w, bias, initial, None, y)?;
                match final_states {
                    Some(final_states) => {
                        stages::run_final_states(stream, &s, self.options.layout, x, initial, None, final_states)
                    }
                    None => Ok(()),
                }
            }
        }
    }

    /// The `Im2colGemm` buffers (A, B) as the last forward left them.
    #[cfg_attr(not(feature = "verify_host"), allow(dead_code))]
    pub(crate) fn workspace(&self) -> Option<&Im2colWorkspace<T>> {
        self.workspace.as_ref()
    }
}
