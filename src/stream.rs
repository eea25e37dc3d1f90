//! Streams (ordered queues of device work) and events (timestamps on a stream).
//! On the host backend work runs synchronously, so a stream is only a device tag and an
//! event is a wall-clock instant.

use crate::device::{Device, DeviceId};
use crate::error::Result;
use std::ffi::c_void;
use std::time::Instant;

/// An ordered queue of work on one device. Operations enqueue and return without
/// waiting; [`Stream::synchronize`] waits.
#[derive(Debug)]
pub struct Stream {
    device: Device,
    handle: *mut c_void,
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
            DeviceId::Host => std::ptr::null_mut(),
            DeviceId::Gpu(_) => {
                device.activate()?;
                #[cfg(hipconv_gpu)]
                {
                    crate::gpu::stream_create()?
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
        Stream { device: device.clone(), handle, owned: false }
    }

    /// The runtime handle (null on the host and for the default stream).
    pub fn as_raw(&self) -> *mut c_void {
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
                    crate::gpu::stream_synchronize(self.handle)
                }
                #[cfg(not(hipconv_gpu))]
                unreachable!("no GPU device can exist without a GPU backend")
            }
        }
    }

    /// Records an event at the current end of the stream.
    pub fn record_event(&self) -> Result<Event> {
        match self.device.id() {
            DeviceId::Host => Ok(Event { inner: EventInner::Host(Instant::now()) }),
            DeviceId::Gpu(_) => {
                #[cfg(hipconv_gpu)]
                {
                    self.device.activate()?;
                    let handle = crate::gpu::event_create()?;
                    let event = Event { inner: EventInner::Gpu(handle) };
                    // SAFETY: both handles are live.
                    unsafe { crate::gpu::event_record(handle, self.handle)? };
                    Ok(event)
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
            let _ = unsafe { crate::gpu::stream_destroy(self.handle) };
        }
    }
}

/// A point on a stream's timeline.
#[derive(Debug)]
pub struct Event {
    inner: EventInner,
}

#[derive(Debug)]
enum EventInner {
    Host(Instant),
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    Gpu(*mut c_void),
}

// SAFETY: events may be queried from any thread in both runtimes.
unsafe impl Send for Event {}

impl Event {
    /// Milliseconds from `self` to `later`, waiting for `later` to complete.
    /// Both must come from streams of the same backend.
    pub fn elapsed_ms(&self, later: &Event) -> Result<f32> {
        match (&self.inner, &later.inner) {
            (EventInner::Host(start), EventInner::Host(end)) => {
                Ok(end.saturating_duration_since(*start).as_secs_f32() * 1e3)
            }
            #[cfg(hipconv_gpu)]
            (EventInner::Gpu(start), EventInner::Gpu(end)) => {
                // SAFETY: both handles are live and were recorded at creation.
                unsafe { crate::gpu::event_elapsed_ms(*start, *end) }
            }
            _ => Err(crate::error::Error::WrongDevice {
                arg: "later",
                expected: String::from("an event of the same backend"),
                found: String::from("an event of another backend"),
            }),
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        #[cfg(hipconv_gpu)]
        if let EventInner::Gpu(handle) = self.inner {
            // SAFETY: created by event_create, dropped once.
            let _ = unsafe { crate::gpu::event_destroy(handle) };
        }
    }
}
