//! Every argument check of the conv1d operations, in one place. All of them run before
//! any launch, so a failing call leaves the caller's buffers untouched.

use super::ConvShape;
use crate::buffer::Buffer;
use crate::device::{Device, DeviceId};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::stream::Stream;

/// The kernels index rows, columns and GEMM dimensions with 32-bit ints (offsets in 64 bits).
const KERNEL_INDEX_LIMIT: u128 = i32::MAX as u128;
/// Element counts must be addressable in bytes for the widest element (4 bytes).
const ELEMENT_COUNT_LIMIT: u128 = (isize::MAX as u128) / 4;

fn positive(arg: &'static str, value: usize) -> Result<()> {
    if value == 0 {
        return Err(Error::InvalidDimension { arg, value, expected: "at least 1" });
    }
    Ok(())
}

fn product_within(quantity: &'static str, factors: &[usize], limit: u128) -> Result<()> {
    // Each factor is a usize, so four of them cannot overflow u128.
    let value = factors.iter().map(|&f| f as u128).product::<u128>();
    if value > limit {
        return Err(Error::IndexOverflow { quantity, value, limit });
    }
    Ok(())
}

/// A shape every backend accepts.
pub(crate) fn shape(s: &ConvShape) -> Result<()> {
    positive("batch", s.batch)?;
    positive("dim", s.dim)?;
    positive("seqlen", s.seqlen)?;
    positive("width", s.width)?;
    product_within("batch*seqlen (GEMM m)", &[s.batch, s.seqlen], KERNEL_INDEX_LIMIT)?;
    product_within("width*dim (GEMM k)", &[s.width, s.dim], KERNEL_INDEX_LIMIT)?;
    product_within("batch*dim*seqlen (elements of x and y)", &[s.batch, s.dim, s.seqlen], ELEMENT_COUNT_LIMIT)
}

/// The explicit pipeline's workspaces fit in memory and in the kernels' 64-bit offsets.
pub(crate) fn im2col_workspace(s: &ConvShape) -> Result<()> {
    product_within(
        "batch*seqlen*width*dim (elements of the im2col matrix A)",
        &[s.batch, s.seqlen, s.width, s.dim],
        ELEMENT_COUNT_LIMIT,
    )?;
    product_within("dim*width*dim (elements of the dense weight B)", &[s.dim, s.width, s.dim], ELEMENT_COUNT_LIMIT)
}

/// The GPU pipeline is compiled for f16 only (bf16 and f32 are host-only for now).
pub(crate) fn gpu_dtype<T: Element>(device: &Device, op: &'static str) -> Result<()> {
    if device.is_gpu() && T::DTYPE != DType::F16 {
        return Err(Error::UnsupportedDtype { dtype: T::DTYPE, op, supported: "f16" });
    }
    Ok(())
}

pub(crate) fn stream_on(stream: &Stream, device: DeviceId) -> Result<()> {
    on_device("stream", stream.device().id(), device)
}

fn on_device(arg: &'static str, found: DeviceId, expected: DeviceId) -> Result<()> {
    if found != expected {
        return Err(Error::WrongDevice { arg, expected: expected.to_string(), found: found.to_string() });
    }
    Ok(())
}

/// `buffer` lives on `device` and holds exactly `expected` elements laid out as `layout`.
pub(crate) fn buffer<T: Element>(
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

/// x, w and y of a forward call.
pub(crate) fn forward_buffers<T: Element>(
    s: &ConvShape,
    device: DeviceId,
    x: &Buffer<T>,
    w: &Buffer<T>,
    y: &Buffer<T>,
) -> Result<()> {
    let layout = || format!("[batch {}, dim {}, seqlen {}]", s.batch, s.dim, s.seqlen);
    buffer("x", x, device, s.x_len(), layout)?;
    buffer("w", w, device, s.w_len(), || format!("[dim {}, width {}]", s.dim, s.width))?;
    buffer("y", y, device, s.x_len(), layout)
}
