//! hipconv: GPU convolution kernels written in HIP, for AMD (hipcc, MFMA matrix cores) and
//! NVIDIA (nvcc on the same sources, tensor cores), with a multi-threaded host backend.
//!
//! The crate is an op-agnostic core and one module per op family (docs/ARCHITECTURE.md).
//! The first family is the causal depthwise conv1d of Mamba-style models ([`conv1d`]):
//! `Auto` picks per device architecture, shape, dtype and layout among `Direct` (streaming
//! kernels on the vector units) and `FusedGemm` (implicit im2col on matrix cores); the seed's
//! explicit pipeline `Im2colGemm` (input preprocessing, weight preprocessing and the shared
//! matrix-core GEMM whose epilogue writes `y` directly) is selectable, and is what
//! `verify_host` inspects.
//!
//! ```
//! use half::f16;
//! use hipconv::conv1d::{CausalConv1d, Shape};
//! use hipconv::Device;
//!
//! # fn main() -> hipconv::Result<()> {
//! let device = Device::best_available(); // GPU 0 if there is one, else the host backend
//! let stream = device.stream()?;
//! let shape = Shape::new(1, 4, 6, 3);
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
//! The core: the runtime's layers (`sys` → `result` → the safe [`Device`], [`Stream`],
//! [`Event`], [`Buffer`], [`Graph`]), element types, errors, activations, the shared GEMM's
//! [`GemmTileConfig`], and [`testing`] support. Families import the core, never each other.

// The core: knows no operation.
mod activation;
mod arch;
mod backend;
mod check;
mod element;
mod error;
mod gemm;
mod parallel;
mod parse;
mod runtime;
mod status;
pub mod testing;
#[cfg(feature = "verify_host")]
mod verification;

// Op families.
pub mod conv1d;
pub mod conv3d;

pub use activation::Activation;
pub use element::{DType, Element, Scalar};
pub use error::{Error, Report, Result};
pub use gemm::GemmTileConfig;
pub use runtime::{Backend, Buffer, Device, DeviceId, DeviceProperties, Event, Graph, Stream};

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

#[cfg(doctest)]
#[doc = include_str!("../docs/BACKWARD.md")]
pub struct BackwardPage;

#[cfg(doctest)]
#[doc = include_str!("../docs/CONV3D.md")]
pub struct Conv3dPage;
