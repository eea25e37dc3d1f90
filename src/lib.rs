//! hipconv: GPU convolution kernels written in HIP, for AMD (hipcc, MFMA matrix cores) and
//! NVIDIA (nvcc on the same sources, tensor cores), with a multi-threaded host backend.
//!
//! The first operation is the causal depthwise conv1d of Mamba-style models
//! ([`conv1d`]). `Auto` picks per device architecture, shape, dtype and layout among
//! `Direct` (streaming kernels on the vector units), `FusedGemm` (implicit im2col on matrix
//! cores) and the seed's explicit pipeline `Im2colGemm` (input preprocessing, weight
//! preprocessing and a matrix-core GEMM whose epilogue writes `y` directly), which `Auto`
//! never picks and `verify_host` inspects.
//!
//! ```
//! use half::f16;
//! use hipconv::{CausalConv1d, ConvShape, Device};
//!
//! # fn main() -> hipconv::Result<()> {
//! let device = Device::best_available(); // GPU 0 if there is one, else the host backend
//! let stream = device.stream()?;
//! let shape = ConvShape::new(1, 4, 6, 3);
//! let x: Vec<f16> = (0..shape.x_len()).map(|i| f16::from_f32((i + 1) as f32 / 8.0)).collect();
//! let w: Vec<f16> = (0..shape.w_len()).map(|i| f16::from_f32(1.0 - i as f32 / 16.0)).collect();
//! let (x, w) = (device.upload(&stream, &x)?, device.upload(&stream, &w)?);
//! let mut y = device.alloc::<f16>(shape.x_len())?;
//! let mut conv = CausalConv1d::new(&device, shape)?;
//! conv.forward(&stream, &x, &w, &mut y)?;
//! let y = y.to_vec(&stream)?; // waits for the stream
//! // t = 0 sees only x[0, 0] = 1/8 times the last tap w[0, 2] = 7/8
//! assert_eq!(y[0].to_f32(), 0.125 * 0.875);
//! # Ok(())
//! # }
//! ```
//!
//! Layers, as in cudarc: `gpu::sys` (bindgen over `hip/include/hipconv.h`) → `gpu` (status →
//! `Result`) → the safe types here ([`Device`], [`Stream`], [`Buffer`], [`CausalConv1d`]).

mod buffer;
pub mod conv1d;
mod device;
mod element;
mod error;
#[cfg(hipconv_gpu)]
mod gpu;
mod graph;
mod stream;
#[cfg(feature = "verify_host")]
pub mod verify;

pub use buffer::Buffer;
pub use conv1d::{
    Activation, Algorithm, CausalConv1d, CausalConv1dUpdate, CausalConv1dVarlen, ConvOptions, ConvShape, ConvStates,
    GemmShape, GemmTileConfig, Layout, StateCache, UpdateShape, VarlenShape,
};
pub use device::{Backend, Device, DeviceId, DeviceProperties};
pub use element::{DType, Element, Scalar};
pub use error::{Error, Result};
pub use graph::Graph;
pub use stream::{Event, Stream};

/// Re-exported so callers name the same f16 / bf16 types as the crate.
pub use half;

/// The API pages under docs/ are compiled as doc tests, so their snippets stay true.
#[cfg(doctest)]
#[doc = include_str!("../docs/STATES.md")]
pub struct StatesPage;

#[cfg(doctest)]
#[doc = include_str!("../docs/UPDATE.md")]
pub struct UpdatePage;

#[cfg(doctest)]
#[doc = include_str!("../docs/VARLEN.md")]
pub struct VarlenPage;
