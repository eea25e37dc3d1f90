//! Typed buffers owned by one device: device memory on a GPU, a `Vec` on the host.

use super::device::{Device, DeviceId};
use super::stream::Stream;
use crate::element::Scalar;
use crate::error::{Error, Result};
use std::ffi::c_void;

/// `len` elements of `T` on one device. GPU memory is freed on drop.
#[derive(Debug)]
pub struct Buffer<T: Scalar> {
    device: DeviceId,
    len: usize,
    storage: Storage<T>,
}

#[derive(Debug)]
enum Storage<T> {
    Host(Vec<T>),
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    Gpu {
        ptr: *mut c_void,
        owned: bool,
    },
}

// SAFETY: device memory is not tied to a thread; host storage is a Vec of Send + Sync T.
unsafe impl<T: Scalar> Send for Buffer<T> {}
// SAFETY: shared references only read (copies out), never write.
unsafe impl<T: Scalar> Sync for Buffer<T> {}

impl<T: Scalar> Buffer<T> {
    pub(crate) fn alloc(device: &Device, len: usize) -> Result<Buffer<T>> {
        let storage = match device.id() {
            DeviceId::Host => Storage::Host(vec![T::default(); len]),
            DeviceId::Gpu(_) => {
                #[cfg(hipconv_gpu)]
                {
                    device.activate()?;
                    let bytes = byte_len::<T>(len)?;
                    let ptr = if bytes == 0 { std::ptr::null_mut() } else { super::result::malloc(bytes)? };
                    Storage::Gpu { ptr, owned: true }
                }
                #[cfg(not(hipconv_gpu))]
                unreachable!("no GPU device can exist without a GPU backend")
            }
        };
        Ok(Buffer { device: device.id(), len, storage })
    }

    /// Wraps device memory the caller owns, without taking ownership.
    ///
    /// # Safety
    /// `ptr` must point to at least `len` elements of `T` in `device`'s memory, allocated
    /// by this crate's runtime, valid for as long as the returned buffer and any work
    /// enqueued with it. `device` must be a GPU.
    pub unsafe fn from_raw_parts(device: &Device, ptr: *mut c_void, len: usize) -> Buffer<T> {
        assert!(device.is_gpu(), "from_raw_parts wraps device memory of a GPU");
        Buffer { device: device.id(), len, storage: Storage::Gpu { ptr, owned: false } }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device(&self) -> DeviceId {
        self.device
    }

    /// The device pointer (or the host vector's pointer on the host backend).
    pub fn as_raw(&self) -> *const c_void {
        match &self.storage {
            Storage::Host(data) => data.as_ptr().cast(),
            Storage::Gpu { ptr, .. } => *ptr,
        }
    }

    /// Mutable device pointer (or the host vector's pointer).
    pub fn as_raw_mut(&mut self) -> *mut c_void {
        match &mut self.storage {
            Storage::Host(data) => data.as_mut_ptr().cast(),
            Storage::Gpu { ptr, .. } => *ptr,
        }
    }

    pub(crate) fn host_slice(&self) -> Option<&[T]> {
        match &self.storage {
            Storage::Host(data) => Some(data),
            Storage::Gpu { .. } => None,
        }
    }

    pub(crate) fn host_slice_mut(&mut self) -> Option<&mut [T]> {
        match &mut self.storage {
            Storage::Host(data) => Some(data),
            Storage::Gpu { .. } => None,
        }
    }

    /// Copies `src` into the buffer; returns once the copy is complete.
    pub fn copy_from_host(&mut self, stream: &Stream, src: &[T]) -> Result<()> {
        self.check_transfer(stream, src.len(), "src")?;
        match &mut self.storage {
            Storage::Host(data) => data.copy_from_slice(src),
            #[cfg(hipconv_gpu)]
            // SAFETY: lengths checked above; the copy is complete before `src` is released.
            Storage::Gpu { ptr, .. } => unsafe {
                gpu_copy_and_wait::<T>(
                    stream,
                    super::result::CopyKind::HostToDevice,
                    *ptr,
                    src.as_ptr().cast(),
                    src.len(),
                )?
            },
            #[cfg(not(hipconv_gpu))]
            Storage::Gpu { .. } => unreachable!("no GPU buffer can exist without a GPU backend"),
        }
        Ok(())
    }

    /// Copies the buffer into `dst` after all work enqueued on `stream` so far; returns
    /// once the copy is complete.
    pub fn copy_to_host(&self, stream: &Stream, dst: &mut [T]) -> Result<()> {
        self.check_transfer(stream, dst.len(), "dst")?;
        match &self.storage {
            Storage::Host(data) => dst.copy_from_slice(data),
            #[cfg(hipconv_gpu)]
            // SAFETY: lengths checked above; every T accepts any bit pattern (sealed Scalar);
            // the copy is complete before `dst` is released.
            Storage::Gpu { ptr, .. } => unsafe {
                gpu_copy_and_wait::<T>(
                    stream,
                    super::result::CopyKind::DeviceToHost,
                    dst.as_mut_ptr().cast(),
                    *ptr,
                    dst.len(),
                )?
            },
            #[cfg(not(hipconv_gpu))]
            Storage::Gpu { .. } => unreachable!("no GPU buffer can exist without a GPU backend"),
        }
        Ok(())
    }

    /// Enqueues a copy of `src` (same device, same length) into this buffer on `stream`;
    /// does not wait.
    pub fn copy_from_buffer(&mut self, stream: &Stream, src: &Buffer<T>) -> Result<()> {
        self.check_transfer(stream, src.len(), "src")?;
        if src.device != self.device {
            return Err(Error::WrongDevice {
                arg: "src",
                expected: self.device.to_string(),
                found: src.device.to_string(),
            });
        }
        match (&mut self.storage, &src.storage) {
            (Storage::Host(dst), Storage::Host(src)) => dst.copy_from_slice(src),
            #[cfg(hipconv_gpu)]
            (Storage::Gpu { ptr: dst, .. }, Storage::Gpu { ptr: src, .. }) => {
                stream.device().activate()?;
                // SAFETY: both buffers hold `len` elements on this device and outlive the
                // copy (the caller keeps them alive while the stream runs, as for launches).
                unsafe {
                    super::result::memcpy_async(
                        super::result::CopyKind::DeviceToDevice,
                        *dst,
                        *src,
                        byte_len::<T>(self.len)?,
                        stream.handle(),
                    )?
                }
            }
            _ => unreachable!("buffers of one device share a storage kind"),
        }
        Ok(())
    }

    /// Enqueues setting every element to zero on `stream`; does not wait (on the host
    /// backend, done before returning).
    pub fn zero(&mut self, stream: &Stream) -> Result<()> {
        self.check_transfer(stream, self.len, "self")?;
        match &mut self.storage {
            Storage::Host(data) => data.fill(T::default()),
            #[cfg(hipconv_gpu)]
            Storage::Gpu { ptr, .. } => {
                stream.device().activate()?;
                // SAFETY: the buffer holds `len` elements on this device and outlives the
                // memset (the caller keeps it alive while the stream runs).
                unsafe { super::result::memset_async(*ptr, 0, byte_len::<T>(self.len)?, stream.handle())? }
            }
            #[cfg(not(hipconv_gpu))]
            Storage::Gpu { .. } => unreachable!("no GPU buffer can exist without a GPU backend"),
        }
        Ok(())
    }

    /// The buffer's contents as a new vector (waits for the stream).
    pub fn to_vec(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len];
        self.copy_to_host(stream, &mut out)?;
        Ok(out)
    }

    fn check_transfer(&self, stream: &Stream, host_len: usize, arg: &'static str) -> Result<()> {
        if stream.device().id() != self.device {
            return Err(Error::WrongDevice {
                arg: "stream",
                expected: self.device.to_string(),
                found: stream.device().id().to_string(),
            });
        }
        if host_len != self.len {
            return Err(Error::BufferLength {
                arg,
                expected: self.len,
                found: host_len,
                layout: String::from("a host slice as long as the buffer"),
            });
        }
        Ok(())
    }
}

impl<T: Scalar> Drop for Buffer<T> {
    fn drop(&mut self) {
        #[cfg(hipconv_gpu)]
        if let Storage::Gpu { ptr, owned: true } = self.storage {
            if !ptr.is_null() {
                // SAFETY: owned pointers come from gpu::malloc and are freed once. A failure
                // cannot be reported from drop; the memory is released by the runtime's exit.
                let _ = unsafe { super::result::free(ptr) };
            }
        }
    }
}

/// Copies `len` elements of `T` on `stream` and waits for the copy.
///
/// # Safety
/// `dst` and `src` must be valid for `len` elements on the sides `kind` names.
#[cfg(hipconv_gpu)]
unsafe fn gpu_copy_and_wait<T>(
    stream: &Stream,
    kind: super::result::CopyKind,
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
) -> Result<()> {
    stream.device().activate()?;
    super::result::memcpy_async(kind, dst, src, byte_len::<T>(len)?, stream.handle())?;
    stream.synchronize()
}

#[cfg(hipconv_gpu)]
fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::IndexOverflow {
        quantity: "buffer bytes",
        value: len as u128 * std::mem::size_of::<T>() as u128,
        limit: usize::MAX as u128,
    })
}
