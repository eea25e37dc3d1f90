//! Argument-check primitives every op family builds its checks from. They run before any
//! launch, so a failing call leaves the caller's buffers untouched, and each error names
//! the argument, the value and what was expected.

use crate::element::Scalar;
use crate::error::{Error, Result};
use crate::runtime::{Buffer, Device, DeviceId, Stream};

/// Kernels index rows, columns and GEMM dimensions with 32-bit ints (offsets in 64 bits).
pub(crate) const KERNEL_INDEX_LIMIT: u128 = i32::MAX as u128;
/// Element counts must be addressable in bytes for the widest element (4 bytes).
pub(crate) const ELEMENT_COUNT_LIMIT: u128 = (isize::MAX as u128) / 4;

/// `value` ≥ 1.
pub(crate) fn positive(arg: &'static str, value: usize) -> Result<()> {
    if value == 0 {
        return Err(Error::InvalidDimension { arg, value, expected: "at least 1" });
    }
    Ok(())
}

/// The product of `factors` is at most `limit`.
pub(crate) fn product_within(quantity: &'static str, factors: &[usize], limit: u128) -> Result<()> {
    // Saturating: a product past u128 is past every limit.
    let value = factors.iter().fold(1u128, |acc, &f| acc.saturating_mul(f as u128));
    if value > limit {
        return Err(Error::IndexOverflow { quantity, value, limit });
    }
    Ok(())
}

/// A workspace of `bytes` fits `device`'s memory: `Error::WorkspaceTooLarge` naming `what`
/// (with `hint`, e.g. an algorithm that needs none) instead of a failed allocation. The host
/// backend: any size its allocator grants.
pub(crate) fn workspace_fits(device: &Device, what: &'static str, bytes: u128, hint: &'static str) -> Result<()> {
    let available = device.properties().total_memory_bytes as u128;
    if device.is_gpu() && bytes > available {
        return Err(Error::WorkspaceTooLarge { what, bytes, available, hint });
    }
    Ok(())
}

/// `found` is `expected`.
pub(crate) fn on_device(arg: &'static str, found: DeviceId, expected: DeviceId) -> Result<()> {
    if found != expected {
        return Err(Error::WrongDevice { arg, expected: expected.to_string(), found: found.to_string() });
    }
    Ok(())
}

/// The stream belongs to the operation's device.
pub(crate) fn stream_on(stream: &Stream, device: DeviceId) -> Result<()> {
    on_device("stream", stream.device().id(), device)
}

/// `buffer` lives on `device` and holds exactly `expected` elements laid out as `layout`.
pub(crate) fn buffer<T: Scalar>(
    arg: &'static str,
    buffer: &Buffer<T>,
    device: DeviceId,
    expected: usize,
    layout: impl FnOnce() -> String,
) -> Result<()> {
    on_device(arg, buffer.device(), device)?;
    if buffer.len() != expected {
        return Err(Error::BufferLength { arg, expected, found: buffer.len(), layout: layout() });
    }
    Ok(())
}

/// An optional buffer, checked as [`buffer`] where present.
pub(crate) fn optional_buffer<T: Scalar>(
    arg: &'static str,
    buffer: Option<&Buffer<T>>,
    device: DeviceId,
    expected: usize,
    layout: impl FnOnce() -> String,
) -> Result<()> {
    match buffer {
        Some(b) => self::buffer(arg, b, device, expected, layout),
        None => Ok(()),
    }
}
