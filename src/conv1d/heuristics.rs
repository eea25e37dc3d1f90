//! `Auto`'s policy: which algorithm runs a forward, keyed by device architecture, shape,
//! dtype and layout. The one place the measured crossovers live (docs/PERFORMANCE.md, "Auto").

use super::options::{Algorithm, Layout};
use super::shape::Shape;
use crate::arch::ArchFamily;
use crate::element::{DType, Element};

/// The widest kernel `Algorithm::FusedGemm` takes (its shared-memory window grows with the
/// width); `Direct` has no limit. Equal to `HIPCONV_FUSED_GEMM_MAX_WIDTH` in
/// hip/include/hipconv/conv1d.h (asserted in gpu.rs).
pub const FUSED_GEMM_MAX_WIDTH: usize = 512;

/// The widths Direct's streaming kernels compile (`HIPCONV_STREAM_MAX_WIDTH` in conv1d.h,
/// asserted equal in gpu.rs): they read every input and write every output once, at the
/// copy bandwidth, on every architecture.
pub const STREAM_MAX_WIDTH: usize = 4;

/// What `Auto` runs (measured on an H200, docs/PERFORMANCE.md "Auto"):
/// - widths 1 to [`STREAM_MAX_WIDTH`]: Direct, whose streaming kernels run near the copy
///   bandwidth in both layouts and every dtype;
/// - channel-first, widths 5 to [`FUSED_GEMM_MAX_WIDTH`]: FusedGemm, whose Toeplitz GEMM
///   on matrix cores beats Direct's tiled generic-width loop (width 8: 65 vs 141 µs,
///   16: 72 vs 173, 32: 93 vs 243);
/// - channel-last: Direct, except f16/bf16 from width 32 on (FusedGemm 129 vs 147 µs);
/// - past `FUSED_GEMM_MAX_WIDTH`: Direct, the only one that takes it.
///
/// Im2colGemm never: it moves a width-times larger matrix and multiplies a dim-times
/// wasteful weight.
pub(crate) fn auto_algorithm<T: Element>(arch: ArchFamily, shape: &Shape, layout: Layout) -> Algorithm {
    match arch {
        ArchFamily::Hopper | ArchFamily::Other => {
            let half = T::DTYPE != DType::F32;
            let fused_wins = shape.width > STREAM_MAX_WIDTH
                && shape.width <= FUSED_GEMM_MAX_WIDTH
                && match layout {
                    Layout::ChannelFirst => true,
                    Layout::ChannelLast => half && shape.width >= 32,
                };
            if fused_wins {
                Algorithm::FusedGemm
            } else {
                Algorithm::Direct
            }
        }
    }
}
