//! Graphs: a stream's work captured once and replayed with one launch (hipGraph / CUDA
//! graph). A captured forward replays with whatever the captured buffers hold at launch
//! time, which is how a serving loop reuses it.

use super::device::Device;
use super::handle::GraphExecHandle;
use super::stream::Stream;
use crate::error::{Error, Result};

/// An instantiated, replayable graph on one device.
#[derive(Debug)]
pub struct Graph {
    device: Device,
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    exec: GraphExecHandle,
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
            use super::result;
            self.device().activate()?;
            // SAFETY: the stream handle is live for the lifetime of `self`.
            unsafe { result::stream_begin_capture(self.handle())? };
            let recorded = record(self);
            // SAFETY: ends the capture begun above, whether or not `record` succeeded.
            let (exec, ended) = unsafe { result::stream_end_capture(self.handle()) };
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
            // SAFETY: exec is a live instantiated graph; the stream is live and of its device.
            unsafe { super::result::graph_launch(self.exec, stream.handle()) }
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
            let _ = unsafe { super::result::graph_exec_destroy(self.exec) };
        }
    }
}
