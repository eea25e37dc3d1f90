//! Causal depthwise conv1d, the first op family.
//!
//! `y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)])`, zero history
//! before t = 0 (or the caller's states), with `x`, `y` stored `[batch, dim, seqlen]`
//! (channel-first) or `[batch, seqlen, dim]` (channel-last) and `w` `[dim, width]`.
//!
//! Operations: [`CausalConv1d`] (the forward, with optional bias, SiLU and chunk
//! [`States`]), [`CausalConv1dUpdate`] (a decode step against a state cache, docs/UPDATE.md),
//! [`CausalConv1dVarlen`] (packed variable-length batches, docs/VARLEN.md), and the
//! backward of both, [`CausalConv1dBackward`] and [`CausalConv1dVarlenBackward`]
//! (docs/BACKWARD.md).
//!
//! Algorithms ([`Algorithm`]), all of which run on the host backend too:
//! - `Direct`: streaming kernels that read each input once (every dtype, both layouts,
//!   bias, SiLU, any width; widths up to 16 near the copy bandwidth, up to
//!   [`STREAM_MAX_WIDTH`] streaming, docs/PERFORMANCE.md);
//! - `FusedGemm`: the implicit-im2col GEMM on matrix cores (widths up to
//!   [`FUSED_GEMM_MAX_WIDTH`]);
//! - `Im2colGemm`: the seed's explicit pipeline (docs/DESIGN.md; its stages one by one in
//!   [`stages`]): `preprocess_input` (transpose + causal padding + im2col),
//!   `preprocess_weight` (depthwise → dense block-diagonal), and the shared matrix-core GEMM
//!   with an epilogue that writes `y` in place. `Auto` never picks it; `verify_host` checks it;
//! - `Auto` (the default) picks one per device architecture, shape, dtype and layout
//!   (heuristics.rs).
//!
//! Inside (docs/ARCHITECTURE.md): the public ops (forward.rs, update.rs, varlen.rs,
//! stages.rs) run check.rs's checks, then the `unsafe` launch layer (launch.rs), which runs
//! host.rs on the host backend or gpu.rs's launchers of the kernels under hip/conv1d/.

mod backward;
mod check;
mod forward;
#[cfg(hipconv_gpu)]
mod gpu;
mod heuristics;
mod host;
mod launch;
mod options;
mod pipeline;
pub mod reference;
mod shape;
pub mod stages;
mod status;
mod update;
mod varlen;
#[cfg(feature = "verify_host")]
mod verify;

pub use backward::{BackwardInputs, CausalConv1dBackward, CausalConv1dVarlenBackward, Gradients, ParamGrad};
pub use forward::{CausalConv1d, States};
pub use heuristics::{FUSED_GEMM_MAX_WIDTH, STREAM_MAX_WIDTH};
pub use options::{Activation, Algorithm, Layout, Options};
pub use shape::{Shape, UpdateShape, VarlenShape};
pub use update::{CausalConv1dUpdate, StateCache};
pub use varlen::CausalConv1dVarlen;
#[cfg(feature = "verify_host")]
pub use verify::{MismatchCount, OutputCheck, PreprocessingCheck, VerificationReport};
