//! Events: timestamps on a stream's timeline (a wall-clock instant on the host backend).

use super::device::DeviceId;
use super::handle::EventHandle;
use super::stream::Stream;
use crate::error::Result;
use std::time::Instant;

/// A point on a stream's timeline.
#[derive(Debug)]
pub struct Event {
    inner: EventInner,
}

#[derive(Debug)]
enum EventInner {
    Host(Instant),
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    Gpu(EventHandle),
}

// SAFETY: events may be queried from any thread in both runtimes.
unsafe impl Send for Event {}

impl Stream {
    /// Records an event at the current end of the stream (a wall-clock instant on the host).
    pub fn record_event(&self) -> Result<Event> {
        let stream = self;
        match stream.device().id() {
            DeviceId::Host => Ok(Event { inner: EventInner::Host(Instant::now()) }),
            DeviceId::Gpu(_) => {
                #[cfg(hipconv_gpu)]
                {
                    stream.device().activate()?;
                    let event = Event { inner: EventInner::Gpu(super::result::event_create()?) };
                    if let EventInner::Gpu(handle) = event.inner {
                        // SAFETY: both handles are live.
                        unsafe { super::result::event_record(handle, stream.handle())? };
                    }
                    Ok(event)
                }
                #[cfg(not(hipconv_gpu))]
                unreachable!("no GPU device can exist without a GPU backend")
            }
        }
    }
}

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
                unsafe { super::result::event_elapsed_ms(*start, *end) }
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
            let _ = unsafe { super::result::event_destroy(handle) };
        }
    }
}
