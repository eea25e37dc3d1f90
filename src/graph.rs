//! Graphs: a stream's work captured once and replayed with one launch (hipGraph / CUDA
//! graph). A captured forward replays with whatever the captured buffers hold at launch
//! time, which is how a serving loop reuses it.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::ffi::c_void;

/// An instantiated, replayable graph on one device.
#[derive(Debug)]
pub struct Graph {
    device: Device,
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    exec: *mut c_void,
}

// SAFETY: an instantiated graph may be launched from any thread in both runtimes.
unsafe impl Send for Graph {}

impl Stream {
    /// Captures the work `record` enqueues on this stream into a [`Graph`]; nothing runs
    /// during capture. The buffers `record` uses must outlive every launch of the graph.
    /// GPU streams only: the host backend has no graphs.
    pub fn capture(&self, record: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        if !self.device().is_gpu() {
            return Err(Error::Unsupported {
                op: "graph capture",
                what: String::from("the host backend"),
                hint: "; capture a stream of a GPU device",
            });
        }
        #[cfg(hipconv_gpu)]
        {
            use crate::gpu::{check, sys};
            self.device().activate()?;
            // SAFETY: the stream handle is live for the lifetime of `self`.
            check(unsafe { sys::hipconv_stream_begin_capture(self.as_raw()) }, "hipStreamBeginCapture")?;
            let recorded = record(self);
            let mut exec = std::ptr::null_mut();
            // SAFETY: ends the capture begun above, whether or not `record` succeeded.
            let ended =
                check(unsafe { sys::hipconv_stream_end_capture(self.as_raw(), &mut exec) }, "hipStreamEndCapture");
            let graph = Graph { device: self.device().clone(), exec };
            recorded?;
            ended?;
            Ok(graph)
        }
        #[cfg(not(hipconv_gpu))]
        {
            let _ = record;
            unreachable!("no GPU device can exist without a GPU backend")
        }
    }
}

impl Graph {
    /// Enqueues one replay of the graph on `stream` (a stream of the same device).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        if stream.device() != &self.device {
            return Err(Error::WrongDevice {
                arg: "stream",
                expected: self.device.id().to_string(),
                found: stream.device().id().to_string(),
            });
        }
        #[cfg(hipconv_gpu)]
        {
            self.device.activate()?;
            // SAFETY: exec is a live instantiated graph; the stream is live.
            crate::gpu::check(
                unsafe { crate::gpu::sys::hipconv_graph_launch(self.exec, stream.as_raw()) },
                "hipGraphLaunch",
            )
        }
        #[cfg(not(hipconv_gpu))]
        unreachable!("no graph can exist without a GPU backend")
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        #[cfg(hipconv_gpu)]
        if !self.exec.is_null() {
            // SAFETY: created by end_capture, destroyed once; a failure cannot be reported here.
            let _ = unsafe { crate::gpu::sys::hipconv_graph_exec_destroy(self.exec) };
        }
    }
}
