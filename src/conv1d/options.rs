//! How a causal conv1d runs: algorithm, memory layout of x and y, activation.

pub use crate::activation::Activation;
use crate::parse::by_name;
use std::fmt;

/// Which implementation computes the forward.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Picks per device architecture, shape, dtype and layout (src/conv1d/heuristics.rs;
    /// docs/PERFORMANCE.md has the measurements behind the choice).
    #[default]
    Auto,
    /// The seed's explicit pipeline: im2col + dense block-diagonal weight + matrix-core
    /// GEMM. What `verify_host` inspects. f16, channel-first, no bias or activation.
    Im2colGemm,
    /// Implicit im2col GEMM on matrix cores: each 16x16 output tile of one channel is
    /// `A · B` with `A` read from the staged input window and `B` the Toeplitz band of that
    /// channel's own taps (no im2col matrix, no other channel's zero weights). Every dtype
    /// (fp32 kept fp32-accurate), layout, bias and SiLU; widths 1 to
    /// [`FUSED_GEMM_MAX_WIDTH`](super::heuristics::FUSED_GEMM_MAX_WIDTH).
    FusedGemm,
    /// Streaming kernels that read each input once and write each output once; every
    /// dtype, layout, width, bias and SiLU. Widths up to 4 are compiled as such and run near
    /// the copy bandwidth; widths 5 to
    /// [`STREAM_MAX_WIDTH`](super::heuristics::STREAM_MAX_WIDTH) run as 8, 16, 32 or 64 taps
    /// with zeros in front (so an inf or NaN in `x` reaches up to that many outputs more
    /// through `0 · x`): f16/bf16 channel-first (and channel-last from width 33) as Toeplitz
    /// products on the matrix cores (fp32 sums of exact products; an inf or NaN reaches up
    /// to 79 outputs of its channel), the others with fp32 FMAs, which bind past width 16;
    /// wider filters run a tiled generic-width kernel.
    Direct,
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::Auto => "auto",
            Algorithm::Im2colGemm => "im2col_gemm",
            Algorithm::FusedGemm => "fused_gemm",
            Algorithm::Direct => "direct",
        })
    }
}

impl std::str::FromStr for Algorithm {
    type Err = String;

    /// The names `Display` prints: `auto`, `im2col_gemm`, `fused_gemm`, `direct`.
    fn from_str(name: &str) -> Result<Self, String> {
        by_name(name, "algorithm", &[Algorithm::Auto, Algorithm::Im2colGemm, Algorithm::FusedGemm, Algorithm::Direct])
    }
}

/// Memory layout of x and y. w is always `[dim, width]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `[batch, dim, seqlen]`: time is contiguous.
    #[default]
    ChannelFirst,
    /// `[batch, seqlen, dim]`: channels are contiguous.
    ChannelLast,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::ChannelFirst => "channel_first",
            Layout::ChannelLast => "channel_last",
        })
    }
}

impl std::str::FromStr for Layout {
    type Err = String;

    /// The names `Display` prints: `channel_first`, `channel_last`.
    fn from_str(name: &str) -> Result<Self, String> {
        by_name(name, "layout", &[Layout::ChannelFirst, Layout::ChannelLast])
    }
}

/// Options fixed when a [`CausalConv1d`](super::CausalConv1d) (or an update or varlen op) is created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    pub algorithm: Algorithm,
    pub layout: Layout,
    pub activation: Activation,
}

impl Options {
    pub fn algorithm(self, algorithm: Algorithm) -> Self {
        Options { algorithm, ..self }
    }

    pub fn layout(self, layout: Layout) -> Self {
        Options { layout, ..self }
    }

    pub fn activation(self, activation: Activation) -> Self {
        Options { activation, ..self }
    }
}
