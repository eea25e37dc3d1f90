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

/// The widths Direct's streaming kernels take (`HIPCONV_STREAM_MAX_WIDTH` in conv1d.h,
/// asserted equal in gpu.rs): they read every input and write every output once, on every
/// architecture; widths 1 to 4 are compiled as such, 5 to 64 as 8, 16, 32 or 64 taps.
pub const STREAM_MAX_WIDTH: usize = 64;

/// Channel-first f32: FusedGemm from this width on (the f32 streaming kernel compiles
/// widths 33 to 64 as 64 taps, where its FMAs bind; f16/bf16 run theirs on the matrix cores).
const CHANNEL_FIRST_F32_FUSED_FROM: usize = 33;

/// What `Auto` runs (measured on an H100 at (4,2048,4096,w), docs/PERFORMANCE.md "Auto"):
/// - widths 1 to 32: Direct, whose streaming kernels beat FusedGemm in both layouts and
///   every dtype (channel-first f16: 88% of copy against 65% at width 8, 80% against 47%
///   at 32);
/// - widths 33 to [`STREAM_MAX_WIDTH`]: Direct in f16/bf16 (channel-first on the matrix
///   cores: 61% against FusedGemm's 37% at width 64) and in channel-last f32; FusedGemm for
///   channel-first f32, whose matrix cores win where the streaming kernel's FMAs bind
///   (width 64: 34% against 31%);
/// - past it, channel-first up to [`FUSED_GEMM_MAX_WIDTH`]: FusedGemm (Direct's tiled
///   generic-width loop is slower);
/// - past it, channel-last: Direct, except f16/bf16 up to `FUSED_GEMM_MAX_WIDTH`
///   (FusedGemm 129 vs 147 µs at width 32 against the tiled loop);
/// - past `FUSED_GEMM_MAX_WIDTH`: Direct, the only one that takes it.
///
/// Im2colGemm never: it moves a width-times larger matrix and multiplies a dim-times
/// wasteful weight.
pub(crate) fn auto_algorithm<T: Element>(arch: ArchFamily, shape: &Shape, layout: Layout) -> Algorithm {
    match arch {
        ArchFamily::Hopper | ArchFamily::Other => {
            let half = T::DTYPE != DType::F32;
            // The narrowest width at which FusedGemm wins (up to its maximum).
            let fused_from = match (layout, half) {
                (Layout::ChannelFirst, true) => STREAM_MAX_WIDTH + 1,
                (Layout::ChannelFirst, false) => CHANNEL_FIRST_F32_FUSED_FROM,
                (Layout::ChannelLast, true) => STREAM_MAX_WIDTH + 1,
                (Layout::ChannelLast, false) => usize::MAX,
            };
            let fused_wins = shape.width >= fused_from && shape.width <= FUSED_GEMM_MAX_WIDTH;
            if fused_wins {
                Algorithm::FusedGemm
            } else {
                Algorithm::Direct
            }
        }
    }
}
