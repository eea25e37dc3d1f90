//! The library's one error type. Every variant says what was wrong and what was expected;
//! argument errors are raised before any launch, so the caller's buffers stay untouched.

use crate::element::DType;
use std::any::Any;
use std::fmt;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A HIP / CUDA runtime call failed; carries the runtime's own name and message.
    #[error("{backend} runtime call {call} failed with {name} ({code}): {message}")]
    Runtime { backend: &'static str, call: &'static str, code: i32, name: String, message: String },

    /// A GPU was asked for and there is none usable; the host backend is never substituted.
    #[error("no GPU available: {reason}")]
    NoGpu { reason: String },

    /// A size argument is out of its valid range.
    #[error("invalid {arg} = {value}: expected {expected}")]
    InvalidDimension { arg: &'static str, value: usize, expected: &'static str },

    /// A buffer's length does not match the shape.
    #[error("buffer `{arg}` has {found} elements, expected {expected} ({layout})")]
    BufferLength { arg: &'static str, expected: usize, found: usize, layout: String },

    /// A buffer or stream lives on another device than the operation.
    #[error("`{arg}` lives on {found}, expected {expected}")]
    WrongDevice { arg: &'static str, expected: String, found: String },

    /// A size product does not fit the kernels' index type.
    #[error("{quantity} = {value} exceeds the kernels' index limit of {limit}")]
    IndexOverflow { quantity: &'static str, value: u128, limit: u128 },

    /// A kernel's extent (dilation included) exceeds the padded input on an axis, so the
    /// output would be empty.
    #[error("kernel extent {extent} along {axis} (kernel {kernel}, dilation {dilation}) exceeds the padded input {padded}: expected at most {padded}, the output would be empty")]
    KernelLargerThanInput { axis: &'static str, kernel: usize, dilation: usize, extent: usize, padded: usize },

    /// A workspace the operation would allocate is larger than the device's memory.
    #[error("{what} needs {bytes} bytes, more than the device's {available} bytes of memory{hint}")]
    WorkspaceTooLarge { what: &'static str, bytes: u128, available: u128, hint: &'static str },

    /// The element type is not implemented by this operation on this backend.
    #[error("dtype {dtype} is not supported by {op}: supported {supported}")]
    UnsupportedDtype { dtype: DType, op: &'static str, supported: &'static str },

    /// The operation does not implement what was asked for (say, bias in `Im2colGemm`).
    #[error("{what} is not supported by {op}{hint}")]
    Unsupported { op: &'static str, what: String, hint: &'static str },

    /// An index argument (`state_indices`, `cache_seqlens`, `cu_seqlens`) holds a value
    /// that would address memory outside its tensor. Found before launch where the indices
    /// are readable on the host; otherwise found by the kernel that reads them, which skips
    /// the rows it belongs to, and reported by the next `wait_and_check`.
    #[error("`{arg}[{position}]` = {value}: expected {expected} ({found})")]
    BadIndex { arg: &'static str, position: usize, value: i64, expected: String, found: &'static str },

    /// Host verification (feature `verify_host`) found a mismatch; the op family's report
    /// says where (`report.as_any().downcast_ref::<conv1d::VerificationReport>()` gives it
    /// back with its fields).
    #[cfg(feature = "verify_host")]
    #[error("host verification of {op} failed:\n{report}")]
    VerificationFailed { op: &'static str, report: Box<dyn Report> },
}

/// What an op family's host verification found: printable, and recoverable as the family's
/// own type through [`Report::as_any`]. The core knows no family, so it holds reports by
/// this trait.
pub trait Report: fmt::Display + fmt::Debug + Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
}
