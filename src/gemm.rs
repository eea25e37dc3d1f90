//! The shared matrix-core GEMM (hip/gemm/): the op families' explicit pipelines run their
//! patch matrices through it, each with its own epilogue. Here: its tile configuration.

use std::fmt;

/// The GPU GEMM's tile configuration (compile-time constants of the HIP GEMM).
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
    /// The configuration compiled into this build's GPU backend (`None` without one).
    pub fn compiled() -> Option<GemmTileConfig> {
        #[cfg(hipconv_gpu)]
        {
            use crate::runtime::sys;
            let mut c = sys::hipconv_gemm_config::default();
            // SAFETY: writes one struct.
            unsafe { sys::hipconv_gemm_config_get(&mut c) };
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
