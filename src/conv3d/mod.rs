//! 3-D convolution, the second op family: dense, grouped and depthwise, for video VAEs,
//! 3-D U-Nets and X3D-style networks.
//!
//! `y[n, co, o] = act(bias[co] + Σ_{ci, kd, kh, kw} w[co, ci, kd, kh, kw] · x[n, g·cin_g + ci, o·stride − pad + k·dilation])`
//! with per-axis stride, dilation and padding ([`Padding`], including the video VAEs'
//! causal time padding with no padded copy), groups, x and y in NCDHW or NDHWC and w in the
//! matching order ([`Layout`]), f16/bf16/f32 with fp32 accumulation.
//!
//! Algorithms ([`Algorithm`]), each selectable, all on the host backend too: `Naive`,
//! `Tiled`, `Im3colGemm` (the seed's explicit pipeline, what `verify_host` inspects),
//! `ImplicitGemm` (matrix cores, no patch matrix), `Depthwise` (streaming), and `Auto`
//! (heuristics.rs). A causal video runs chunk by chunk with [`Frames`]
//! ([`Conv3d::forward_chunk`]). API page: docs/CONV3D.md.
//!
//! Inside (docs/ARCHITECTURE.md): the public op (forward.rs) runs check.rs's checks, then the
//! `unsafe` launch layer (launch.rs), which runs host.rs on the host backend or gpu.rs's
//! launchers of the kernels under hip/conv3d/.

mod check;
mod forward;
#[cfg(hipconv_gpu)]
mod gpu;
mod heuristics;
mod host;
mod launch;
mod options;
pub mod reference;
mod shape;
#[cfg(feature = "verify_host")]
mod verify;

pub use forward::{Conv3d, Frames};
pub use options::{Activation, Algorithm, Layout, Options};
pub use shape::{Padding, Shape};
#[cfg(feature = "verify_host")]
pub use verify::VerificationReport;
