//! Decode-time update (docs/UPDATE.md): the outputs of a few new tokens per sequence
//! against each sequence's rolling state, which it advances in place.
//!
//! `y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · xx[t + tap])`, where `xx` is the last
//! width−1 inputs held by the row's state slot followed by `x[b, c, ..]`. A slot is either
//! a shifting window (the last `state_len` inputs in order) or, with `cache_seqlens`, a
//! circular buffer whose write position the caller keeps.

use super::check;
use super::launch::{self, CacheBuffers};
use super::options::{Algorithm, Options};
use super::shape::UpdateShape;
use super::status::{self, IndexLimits};
use crate::backend::host_data;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::{Buffer, Device, Stream};
use crate::status::DeviceStatus;
use std::marker::PhantomData;

/// The state cache one update reads and advances.
#[derive(Debug)]
pub struct StateCache<'a, T: Element> {
    /// `[n_slots, dim, state_len]`, contiguous.
    pub conv_state: &'a mut Buffer<T>,
    /// `[batch]`: the slot of each row; negative marks a padding row (y = 0, no state
    /// touched). Without it row b uses slot b.
    pub state_indices: Option<&'a Buffer<i32>>,
    /// `[batch]`: with it each slot is a circular buffer and this is where the row's next
    /// token goes (≥ 0; the caller advances it by `seqlen` after the step).
    pub cache_seqlens: Option<&'a Buffer<i32>>,
}

impl<'a, T: Element> StateCache<'a, T> {
    /// Slot b for row b, shifting states.
    pub fn new(conv_state: &'a mut Buffer<T>) -> Self {
        StateCache { conv_state, state_indices: None, cache_seqlens: None }
    }
}

/// The decode step of one shape and set of options on one device. It owns the status word
/// its kernel reports bad indices into; `update` never waits for the host and can be
/// captured in a graph, and [`CausalConv1dUpdate::wait_and_check`] reports what the device
/// found.
#[derive(Debug)]
pub struct CausalConv1dUpdate<T: Element> {
    device: Device,
    shape: UpdateShape,
    options: Options,
    status: DeviceStatus,
    element: PhantomData<T>,
}

impl<T: Element> CausalConv1dUpdate<T> {
    /// Validates the shape and options (layout and activation; the update has one kernel,
    /// so `algorithm` must be `Auto` or `Direct`).
    pub fn new(device: &Device, shape: UpdateShape, options: Options) -> Result<Self> {
        check::shape(&shape.conv_shape())?;
        check::update_shape(&shape)?;
        if !matches!(options.algorithm, Algorithm::Auto | Algorithm::Direct) {
            return Err(Error::Unsupported {
                op: "the decode update",
                what: format!("algorithm {}", options.algorithm),
                hint: "; it has one kernel: use Algorithm::Auto or Direct",
            });
        }
        let options = Options { algorithm: Algorithm::Direct, ..options };
        let status = DeviceStatus::new(device)?;
        Ok(CausalConv1dUpdate { device: device.clone(), shape, options, status, element: PhantomData })
    }

    pub fn shape(&self) -> UpdateShape {
        self.shape
    }

    pub fn options(&self) -> Options {
        self.options
    }

    fn limits(&self) -> IndexLimits {
        IndexLimits { n_slots: self.shape.n_slots, total_tokens: 0 }
    }

    /// Enqueues one step: `y` `[batch, dim, seqlen]` (in the options' layout, as `x`) from
    /// `x`, `w [dim, width]`, optional `bias [dim]` and the states, which it advances.
    /// Lengths, devices and everything checkable on the host are checked before anything
    /// is enqueued; slot indices and write positions on a GPU are checked by the kernel
    /// (see [`CausalConv1dUpdate::wait_and_check`]).
    pub fn update(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        bias: Option<&Buffer<T>>,
        cache: StateCache<'_, T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        let (u, s, device) = (self.shape, self.shape.conv_shape(), self.device.id());
        crate::check::stream_on(stream, device)?;
        check::forward_buffers(&s, self.options.layout, device, x, w, bias, y)?;
        check::update_cache(&u, device, cache.conv_state, cache.state_indices, cache.cache_seqlens)?;
        if !stream.device().is_gpu() {
            let (indices, cache_seqlens) = (cache.state_indices.map(host_data), cache.cache_seqlens.map(host_data));
            status::check_update_indices(indices, cache_seqlens, self.limits())?;
        }
        let StateCache { conv_state, state_indices, cache_seqlens } = cache;
        let cache = CacheBuffers { conv_state, state_indices, cache_seqlens };
        // SAFETY: the shape passed check::shape and check::update_shape in `new`; the buffers
        // and the cache were checked above, the host's indices too; the status word is ours.
        unsafe { launch::run_update(stream, &u, &self.options, (x, w, bias), cache, self.status.as_raw_mut(), y) }
    }

    /// Waits for `stream`, then returns the first bad index the kernel met since the last
    /// call (`Error::BadIndex`: a slot ≥ n_slots, a negative write position), clearing it.
    /// The rows with a bad index were skipped: their states untouched, their outputs NaN.
    pub fn wait_and_check(&mut self, stream: &Stream) -> Result<()> {
        crate::check::stream_on(stream, self.device.id())?;
        let limits = self.limits();
        status::wait_and_check(&mut self.status, stream, limits)
    }
}
