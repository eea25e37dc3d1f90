//! The backward of the causal conv1d (docs/BACKWARD.md): dx, dweight, dbias and the
//! gradient of the initial states, for batches ([`CausalConv1dBackward`]) and packed
//! variable-length batches ([`CausalConv1dVarlenBackward`]).
//!
//! With `z = bias + conv(x, w)` (history from the initial states) and `y = act(z)`:
//! - `dz[b, c, t] = dy[b, c, t] · act'(z[b, c, t])`, z recomputed from x (nothing from the
//!   forward is stored);
//! - `dx[b, c, τ] = Σ_k w[c, k] · dz[b, c, τ + (width−1) − k]` over times before seqlen,
//!   plus `dfinal_states[b, c, τ − (seqlen − (width−1))]` where that index is ≥ 0;
//! - `dweight[c, k] = Σ_{b, t} dz[b, c, t] · x[b, c, t + k − (width−1)]`, `dbias[c] =
//!   Σ_{b, t} dz[b, c, t]`, both in fp32;
//! - `dinitial_states[b, c, j]`: the dx sum at τ = j − (width−1) < 0, plus
//!   `dfinal_states[b, c, j − seqlen]` where j ≥ seqlen.
//!
//! Deterministic by construction: dweight and dbias are sums of per-tile partials taken in
//! a fixed order, never atomics, so the same inputs give bitwise-equal gradients.
//!
//! Inside: args.rs (the arguments), op.rs (the public ops), check.rs (every argument check, before any launch),
//! launch.rs (the `unsafe` layer that runs host.rs on the host backend or gpu.rs's
//! launcher of hip/conv1d/backward*.hip).

mod args;
mod check;
#[cfg(hipconv_gpu)]
mod gpu;
mod host;
mod launch;
mod op;

pub use args::{BackwardInputs, Gradients, ParamGrad};
pub use op::{CausalConv1dBackward, CausalConv1dVarlenBackward};
