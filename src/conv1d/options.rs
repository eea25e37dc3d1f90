//! How a causal conv1d runs: algorithm, memory layout of x and y, activation.

use std::fmt;

/// Which implementation computes the forward.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Picks per device, shape, dtype and layout (see docs/PERFORMANCE.md for the
    /// measurements behind the choice).
    #[default]
    Auto,
    /// The seed's explicit pipeline: im2col + dense block-diagonal weight + matrix-core
    /// GEMM. What `verify_host` inspects. f16, channel-first, no bias or activation.
    Im2colGemm,
    /// A streaming kernel that reads each input once and writes each output once; every
    /// dtype, layout, width, bias and SiLU.
    Direct,
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::Auto => "auto",
            Algorithm::Im2colGemm => "im2col_gemm",
            Algorithm::Direct => "direct",
        })
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

/// Applied to `bias + conv` before the output is rounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Activation {
    #[default]
    Identity,
    /// `v · sigmoid(v)`.
    Silu,
}

/// Options fixed when a [`super::CausalConv1d`] is created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConvOptions {
    pub algorithm: Algorithm,
    pub layout: Layout,
    pub activation: Activation,
}

impl ConvOptions {
    pub fn algorithm(self, algorithm: Algorithm) -> Self {
        ConvOptions { algorithm, ..self }
    }

    pub fn layout(self, layout: Layout) -> Self {
        ConvOptions { layout, ..self }
    }

    pub fn activation(self, activation: Activation) -> Self {
        ConvOptions { activation, ..self }
    }
}
