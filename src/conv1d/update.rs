//! Decode-time update (docs/UPDATE.md): the outputs of a few new tokens per sequence
//! against each sequence's rolling state, which it advances in place.
//!
//! `y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · xx[t + tap])`, where `xx` is the last
//! width−1 inputs held by the row's state slot followed by `x[b, c, ..]`. A slot is either
//! a shifting window (the last `state_len` inputs in order) or, with `cache_seqlens`, a
//! circular buffer whose write position the caller keeps.

use super::check;
use super::stages::{self, host_data};
use super::status::{self, DeviceStatus, IndexLimits};
use super::{Algorithm, ConvOptions, ConvShape};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::marker::PhantomData;

/// Sizes of one decode step and of the state cache it reads and advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UpdateShape {
    pub batch: usize,
    pub dim: usize,
    /// New tokens per row (1 for plain decoding; more for speculative decoding).
    pub seqlen: usize,
    pub width: usize,
    /// Slots of `conv_state [n_slots, dim, state_len]`.
    pub n_slots: usize,
    /// Inputs each slot holds, at least width−1.
    pub state_len: usize,
}

impl UpdateShape {
    /// One slot per row (`n_slots = batch`) of exactly width−1 inputs; see [`UpdateShape::slots`].
    pub fn new(batch: usize, dim: usize, seqlen: usize, width: usize) -> UpdateShape {
        UpdateShape { batch, dim, seqlen, width, n_slots: batch, state_len: width.saturating_sub(1) }
    }

    /// The same step against a cache of `n_slots` slots of `state_len` inputs.
    pub fn slots(self, n_slots: usize, state_len: usize) -> UpdateShape {
        UpdateShape { n_slots, state_len, ..self }
    }

    /// x and y as a forward's shape: `[batch, dim, seqlen]`.
    pub fn conv_shape(&self) -> ConvShape {
        ConvShape::new(self.batch, self.dim, self.seqlen, self.width)
    }

    /// Elements of x and y: batch·dim·seqlen.
    pub fn x_len(&self) -> usize {
        self.batch * self.dim * self.seqlen
    }

    /// Elements of w: dim·width.
    pub fn w_len(&self) -> usize {
        self.dim * self.width
    }

    /// Elements of `conv_state`: n_slots·dim·state_len.
    pub fn state_elems(&self) -> usize {
        self.n_slots * self.dim * self.state_len
    }
}

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
    options: ConvOptions,
    status: DeviceStatus,
    element: PhantomData<T>,
}

impl<T: Element> CausalConv1dUpdate<T> {
    /// Validates the shape and options (layout and activation; the update has one kernel,
    /// so `algorithm` must be `Auto` or `Direct`).
    pub fn new(device: &Device, shape: UpdateShape, options: ConvOptions) -> Result<Self> {
        check::shape(&shape.conv_shape())?;
        check::update_shape(&shape)?;
        if !matches!(options.algorithm, Algorithm::Auto | Algorithm::Direct) {
            return Err(Error::Unsupported {
                op: "the decode update",
                what: format!("algorithm {}", options.algorithm),
                hint: "; it has one kernel: use Algorithm::Auto or Direct",
            });
        }
        let options = ConvOptions { algorithm: Algorithm::Direct, ..options };
        let status = DeviceStatus::new(device)?;
        Ok(CausalConv1dUpdate { device: device.clone(), shape, options, status, element: PhantomData })
    }

    pub fn shape(&self) -> UpdateShape {
        self.shape
    }

    pub fn options(&self) -> ConvOptions {
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
        check::stream_on(stream, device)?;
        check::forward_buffers(&s, self.options.layout, device, x, w, bias, y)?;
        check::update_cache(&u, device, cache.conv_state, cache.state_indices, cache.cache_seqlens)?;
        if !stream.device().is_gpu() {
            let (indices, cache_seqlens) = (cache.state_indices.map(host_data), cache.cache_seqlens.map(host_data));
            status::check_update_indices(indices, cache_seqlens, self.limits())?;
        }
        stages::run_update(stream, &u, &self.options, (x, w, bias), cache, self.status.as_raw_mut(), y)
    }

    /// Waits for `stream`, then returns the first bad index the kernel met since the last
    /// call (`Error::BadIndex`: a slot ≥ n_slots, a negative write position), clearing it.
    /// The rows with a bad index were skipped: their states untouched, their outputs NaN.
    pub fn wait_and_check(&mut self, stream: &Stream) -> Result<()> {
        check::stream_on(stream, self.device.id())?;
        let limits = self.limits();
        self.status.wait_and_check(stream, limits)
    }
}
