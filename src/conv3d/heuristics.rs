//! `Auto`'s policy for conv3d: which algorithm runs a forward, keyed by device
//! architecture, shape, dtype and layout. The one place its crossovers live (docs/CONV3D.md,
//! "Auto"; the measurements in docs/PERFORMANCE.md, "conv3d").

use super::options::{Algorithm, Layout, Options};
use super::shape::Shape;
use crate::arch::ArchFamily;
use crate::element::Element;

/// Per-group taps (`cin/groups · kd · kh · kw`) below which the matrix cores' k-steps are
/// mostly padding and the tiled kernel on the vector units is faster (the seed's example,
/// 3 channels × 27 taps = 81).
pub(crate) const TILED_MAX_TAPS: usize = 96;

/// What `Auto` runs, on every architecture (measured on an H200; the others get the same
/// rule, the documented default):
/// - `groups == cin == cout`: `Depthwise`, the streaming kernel;
/// - few taps per output (< [`TILED_MAX_TAPS`]) or few output channels per group (< 8):
///   `Tiled`, since the GEMM tiles would be mostly padding;
/// - everything else: `ImplicitGemm`.
///
/// `Naive` and `Im3colGemm` never: the first re-reads every input per output, the second
/// writes and reads a patch matrix `kd·kh·kw` times the size of x.
pub(crate) fn auto_algorithm(arch: ArchFamily, s: &Shape) -> Algorithm {
    match arch {
        ArchFamily::Hopper | ArchFamily::Other => {
            if s.groups == s.cin && s.cin == s.cout {
                Algorithm::Depthwise
            } else if s.taps() < TILED_MAX_TAPS || s.cout_per_group() < 8 {
                Algorithm::Tiled
            } else {
                Algorithm::ImplicitGemm
            }
        }
    }
}

/// Whether an `ImplicitGemm` on a GPU runs an NCDHW conv through NDHWC copies of x, w and the
/// frames (hip/conv3d/transpose.hip, then the GEMM's 16-byte gathers; y is still written in
/// NCDHW by the epilogue): when those gathers apply, that is when a group's channels are
/// whole 16-byte vectors. The copies cost a read and a write of x; the element gathers
/// that NCDHW would otherwise take cost several times the GEMM (docs/CONV3D.md).
pub(crate) fn stage_channels_last<T: Element>(s: &Shape, options: &Options) -> bool {
    let vector = 16 / std::mem::size_of::<T>();
    options.algorithm == Algorithm::ImplicitGemm && options.layout == Layout::Ncdhw && s.cin_per_group() % vector == 0
}
