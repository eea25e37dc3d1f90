//! How a conv3d runs: algorithm, memory layout of x, w and y, activation.

pub use crate::activation::Activation;
use crate::parse::by_name;
use std::fmt;

/// Which implementation computes the forward. All run on every backend and dtype; the
/// host backend computes each with the same arithmetic (fp32 accumulation), and its
/// `Im3colGemm` builds the same patch matrix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Picks per device architecture, shape, dtype and layout (src/conv3d/heuristics.rs;
    /// docs/CONV3D.md has the measured crossovers).
    #[default]
    Auto,
    /// One thread per output element (the seed's §2, over every batch row and channel).
    Naive,
    /// An output tile per block, its input tile plus halo staged in shared memory once per
    /// input channel (the seed's §3).
    Tiled,
    /// The seed's §4 as an explicit pipeline: the im3col kernel writes the patch matrix
    /// into the op's workspace, the shared matrix-core GEMM multiplies it by w, and its
    /// epilogue writes y in the output layout. What `verify_host` inspects.
    Im3colGemm,
    /// Implicit GEMM on matrix cores: patches gathered while the tiles are loaded into
    /// shared memory, no patch matrix in memory. NDHWC-native.
    ImplicitGemm,
    /// A streaming kernel for `groups == cin == cout`, at the memory roofline.
    Depthwise,
}

impl Algorithm {
    /// Every algorithm but `Auto`.
    pub const ALL: [Algorithm; 5] =
        [Algorithm::Naive, Algorithm::Tiled, Algorithm::Im3colGemm, Algorithm::ImplicitGemm, Algorithm::Depthwise];
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::Auto => "auto",
            Algorithm::Naive => "naive",
            Algorithm::Tiled => "tiled",
            Algorithm::Im3colGemm => "im3col_gemm",
            Algorithm::ImplicitGemm => "implicit_gemm",
            Algorithm::Depthwise => "depthwise",
        })
    }
}

impl std::str::FromStr for Algorithm {
    type Err = String;

    /// The names `Display` prints: `auto`, `naive`, `tiled`, `im3col_gemm`,
    /// `implicit_gemm`, `depthwise`.
    fn from_str(name: &str) -> Result<Self, String> {
        let mut all = vec![Algorithm::Auto];
        all.extend(Algorithm::ALL);
        by_name(name, "algorithm", &all)
    }
}

/// Memory layout of x, y and w.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// x `[N, Cin, D, H, W]`, y `[N, Cout, D, H, W]`, w `[Cout, Cin/groups, kd, kh, kw]`
    /// (PyTorch's default).
    #[default]
    Ncdhw,
    /// x `[N, D, H, W, Cin]`, y `[N, D, H, W, Cout]`, w `[Cout, kd, kh, kw, Cin/groups]`
    /// (PyTorch's channels_last_3d).
    Ndhwc,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::Ncdhw => "ncdhw",
            Layout::Ndhwc => "ndhwc",
        })
    }
}

impl std::str::FromStr for Layout {
    type Err = String;

    /// The names `Display` prints: `ncdhw`, `ndhwc`.
    fn from_str(name: &str) -> Result<Self, String> {
        by_name(name, "layout", &[Layout::Ncdhw, Layout::Ndhwc])
    }
}

/// Options fixed when a [`Conv3d`](super::Conv3d) is created.
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
