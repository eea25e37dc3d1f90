//! Launches of the explicit pipeline's kernels (hip/conv1d, hip/gemm) on a stream.
//! Callers have validated shapes, devices and lengths (check.rs); these functions only
//! fill the params structs, pick the dtype's entry point and map the status.

use super::ConvShape;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::gpu::{check, sys};
use crate::stream::Stream;
use std::ffi::c_void;

fn f16_only<T: Element>(op: &'static str) -> Result<()> {
    match T::DTYPE {
        DType::F16 => Ok(()),
        dtype => Err(Error::UnsupportedDtype { dtype, op, supported: "f16" }),
    }
}

/// # Safety
/// `x` must hold `s.x_len()` and `a` `s.a_len()` elements of `T` on the stream's device,
/// live until the launch completes; `s` must have passed `check::shape`.
pub(crate) unsafe fn preprocess_input<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    x: *const c_void,
    a: *mut c_void,
) -> Result<()> {
    f16_only::<T>("preprocess_input")?;
    let params = sys::hipconv_preprocess_input_params {
        x,
        a,
        batch: s.batch as i32,
        dim: s.dim as i32,
        seqlen: s.seqlen as i32,
        width: s.width as i32,
    };
    check(sys::hipconv_preprocess_input_f16(&params, stream.as_raw()), "hipconv_preprocess_input_f16")
}

/// # Safety
/// `w` must hold `s.w_len()` and `b` `s.b_len()` elements of `T` on the stream's device,
/// live until the launch completes; `s` must have passed `check::shape`.
pub(crate) unsafe fn preprocess_weight<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    w: *const c_void,
    b: *mut c_void,
) -> Result<()> {
    f16_only::<T>("preprocess_weight")?;
    let params = sys::hipconv_preprocess_weight_params { w, b, dim: s.dim as i32, width: s.width as i32 };
    check(sys::hipconv_preprocess_weight_f16(&params, stream.as_raw()), "hipconv_preprocess_weight_f16")
}

/// # Safety
/// `a` must hold `s.a_len()`, `b` `s.b_len()` and `y` `s.x_len()` elements of `T` on the
/// stream's device, live until the launch completes; `s` must have passed `check::shape`.
pub(crate) unsafe fn gemm_abt<T: Element>(
    stream: &Stream,
    s: &ConvShape,
    a: *const c_void,
    b: *const c_void,
    y: *mut c_void,
) -> Result<()> {
    f16_only::<T>("gemm_abt")?;
    let g = s.gemm();
    let params = sys::hipconv_gemm_abt_params {
        a,
        b,
        y,
        m: g.m as i32,
        n: g.n as i32,
        k: g.k as i32,
        lda: g.lda as i64,
        ldb: g.ldb as i64,
        seqlen: s.seqlen as i32,
    };
    check(sys::hipconv_gemm_abt_f16(&params, stream.as_raw()), "hipconv_gemm_abt_f16")
}
