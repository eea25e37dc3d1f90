//! Streams: ordered queues of device work. On the host backend work runs synchronously,
//! so a stream is only a device tag.

use super::device::{Device, DeviceId};
use super::handle::StreamHandle;
use crate::error::Result;
use std::ffi::c_void;

/// An ordered queue of work on one device. Operations enqueue and return without
/// waiting; [`Stream::synchronize`] waits.
#[derive(Debug)]
pub struct Stream {
    device: Device,
    handle: StreamHandle,
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    owned: bool,
}

// SAFETY: HIP and CUDA streams may be used from any thread; the host stream holds no state.
unsafe impl Send for Stream {}
// SAFETY: enqueueing on one stream from several threads is allowed by both runtimes.
unsafe impl Sync for Stream {}

impl Stream {
    pub(crate) fn new(device: &Device) -> Result<Stream> {
        let handle = match device.id() {
            DeviceId::Host => StreamHandle::NULL,
            DeviceId::Gpu(_) => {
                device.activate()?;
                #[cfg(hipconv_gpu)]
                {
                    super::result::stream_create()?
                }
                #[cfg(not(hipconv_gpu))]
                unreachable!("no GPU device can exist without a GPU backend")
            }
        };
        Ok(Stream { device: device.clone(), handle, owned: device.is_gpu() })
    }

    /// Wraps a stream the caller created (hipStream_t / cudaStream_t, or null for the
    /// default stream) without taking ownership.
    ///
    /// # Safety
    /// `handle` must be a stream of `device` (and of this crate's backend) that outlives
    /// the returned value and everything enqueued through it.
    pub unsafe fn from_raw(device: &Device, handle: *mut c_void) -> Stream {
        Stream { device: device.clone(), handle: StreamHandle::from_raw(handle), owned: false }
    }

    /// The runtime handle (null on the host and for the default stream).
    pub fn as_raw(&self) -> *mut c_void {
        self.handle.as_raw()
    }

    /// The typed handle the result layer and the families' launchers take.
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    pub(crate) fn handle(&self) -> StreamHandle {
        self.handle
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits until all work enqueued so far has completed.
    pub fn synchronize(&self) -> Result<()> {
        match self.device.id() {
            DeviceId::Host => Ok(()),
            DeviceId::Gpu(_) => {
                #[cfg(hipconv_gpu)]
                // SAFETY: the handle is live for the lifetime of `self`.
                unsafe {
                    super::result::stream_synchronize(self.handle)
                }
                #[cfg(not(hipconv_gpu))]
                unreachable!("no GPU device can exist without a GPU backend")
            }
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        #[cfg(hipconv_gpu)]
        if self.owned {
            // SAFETY: owned handles come from stream_create and are dropped once.
            // A failure here cannot be reported from drop; the handle is gone either way.
            let _ = unsafe { super::result::stream_destroy(self.handle) };
        }
    }
}
