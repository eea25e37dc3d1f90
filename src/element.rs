//! Element types the library moves and computes: f16, bf16 and f32 on the host side.

use half::{bf16, f16};
use std::fmt;

/// The element type of a buffer, as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F16,
    BF16,
    F32,
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
        })
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for f32 {}
    impl Sealed for i32 {}
}

/// A value a [`Buffer`](crate::Buffer) can hold: the [`Element`]s the kernels compute
/// with, and `i32` for index arguments (state slots, sequence offsets). Sealed: every bit
/// pattern is a valid value, which the GPU buffers rely on when copying device memory
/// back, and `Default` is zero.
pub trait Scalar: Copy + Default + Send + Sync + fmt::Debug + PartialEq + 'static + sealed::Sealed {}

impl Scalar for f16 {}
impl Scalar for bf16 {}
impl Scalar for f32 {}
impl Scalar for i32 {}

/// An element the kernels compute with (f16, bf16, f32), accumulated in f32.
pub trait Element: Scalar {
    const DTYPE: DType;
    fn to_f32(self) -> f32;
    /// Rounds to nearest even.
    fn from_f32(value: f32) -> Self;
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
    /// The raw bits, for exact comparisons (distinguishes -0 from +0).
    fn to_bits_u32(self) -> u32;
}

impl Element for f16 {
    const DTYPE: DType = DType::F16;
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(value: f32) -> Self {
        f16::from_f32(value)
    }
    fn to_bits_u32(self) -> u32 {
        u32::from(self.to_bits())
    }
}

impl Element for bf16 {
    const DTYPE: DType = DType::BF16;
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(value: f32) -> Self {
        bf16::from_f32(value)
    }
    fn to_bits_u32(self) -> u32 {
        u32::from(self.to_bits())
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::F32;
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(value: f32) -> Self {
        value
    }
    fn to_bits_u32(self) -> u32 {
        self.to_bits()
    }
}
