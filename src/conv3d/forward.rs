//! The forward op: [`Conv3d`], one shape and set of options on one device, with optional
//! bias, activation and the frames of a causal stream ([`Frames`]).

use super::check;
use super::heuristics;
use super::host::patch_len;
use super::launch::{self, Operands, Relayout};
use super::options::{Algorithm, Layout, Options};
use super::shape::{Padding, Shape};
use crate::element::Element;
use crate::error::Result;
use crate::runtime::{Buffer, Device, Stream};

/// The frames of a chunked causal conv ([`Conv3d::forward_chunk`]), each
/// `[batch, cin, (kd−1)·dilation_d, h, w]` in the layout of x.
#[derive(Debug)]
pub struct Frames<'a, T: Element> {
    /// The last input frames of the previous chunk (zeros where absent: the first chunk).
    pub initial: Option<&'a Buffer<T>>,
    /// Receives the last frames of (initial, x): the next chunk's `initial`.
    pub final_frames: Option<&'a mut Buffer<T>>,
}

impl<T: Element> Default for Frames<'_, T> {
    fn default() -> Self {
        Frames { initial: None, final_frames: None }
    }
}

/// A conv3d of one shape and set of options on one device. It owns its workspace (for
/// `Im3colGemm`: the patch matrix; for an NCDHW `ImplicitGemm` on a GPU: channels-last
/// copies of x, w and the frames), so `forward` allocates nothing and never waits for the
/// host: it can be captured in a graph.
#[derive(Debug)]
pub struct Conv3d<T: Element> {
    device: Device,
    shape: Shape,
    options: Options,
    patches: Option<Buffer<T>>,
    channels_last: Option<ChannelsLast<T>>,
}

/// NDHWC copies of an NCDHW conv's inputs, which the implicit GEMM reads with 16-byte
/// gathers (heuristics::stage_channels_last says when).
#[derive(Debug)]
struct ChannelsLast<T: Element> {
    x: Buffer<T>,
    w: Buffer<T>,
    frames: Option<Buffer<T>>,
}

impl<T: Element> Conv3d<T> {
    /// Validates shape and options (resolving `Auto`) and allocates the workspace.
    pub fn new(device: &Device, shape: Shape, options: Options) -> Result<Self> {
        check::shape(&shape)?;
        let algorithm = check::resolve_algorithm(device, &shape, &options)?;
        let options = Options { algorithm, ..options };
        let patches = if algorithm == Algorithm::Im3colGemm {
            check::im3col_workspace::<T>(device, &shape)?;
            Some(device.alloc(patch_len(&shape))?)
        } else {
            None
        };
        let channels_last = if device.is_gpu() && heuristics::stage_channels_last::<T>(&shape, &options) {
            let frames = shape.history_frames() > 0 && shape.padding == Padding::Causal;
            Some(ChannelsLast {
                x: device.alloc(shape.x_len())?,
                w: device.alloc(shape.w_len())?,
                frames: if frames { Some(device.alloc(shape.frames_len())?) } else { None },
            })
        } else {
            None
        };
        Ok(Conv3d { device: device.clone(), shape, options, patches, channels_last })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The options in force; `algorithm` is the resolved one, never `Auto`.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Bytes of device memory the op holds besides its operands (the `Im3colGemm` patch
    /// matrix, or the channels-last copies of an NCDHW `ImplicitGemm`).
    pub fn workspace_bytes(&self) -> usize {
        let staged =
            self.channels_last.as_ref().map_or(0, |c| c.x.len() + c.w.len() + c.frames.as_ref().map_or(0, Buffer::len));
        (self.patches.as_ref().map_or(0, Buffer::len) + staged) * std::mem::size_of::<T>()
    }

    /// Enqueues `y = act(bias + conv(x, w))` on `stream` (bias `[cout]` optional). Arguments
    /// are checked before anything is enqueued; on the host backend the call runs to
    /// completion before returning.
    pub fn forward(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        bias: Option<&Buffer<T>>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        self.forward_chunk(stream, x, w, bias, Frames::default(), y)
    }

    /// The forward of one chunk of a causal video ([`Padding::Causal`],
    /// depth stride 1): `frames.initial` holds the previous chunk's last `(kd−1)·dilation_d`
    /// input frames (instead of zero padding), and `frames.final_frames` receives this
    /// chunk's, ready to be the next chunk's `initial`. A video processed chunk by chunk
    /// gives exactly the output of one pass.
    pub fn forward_chunk(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        bias: Option<&Buffer<T>>,
        frames: Frames<'_, T>,
        y: &mut Buffer<T>,
    ) -> Result<()> {
        let (s, options, device) = (self.shape, self.options, self.device.id());
        crate::check::stream_on(stream, device)?;
        check::forward_buffers(&s, options.layout, device, x, w, bias, y)?;
        let Frames { initial, final_frames } = frames;
        check::frames(&s, options.layout, device, initial, final_frames.as_deref())?;
        let operands = Operands { x, w, bias, initial };
        // SAFETY: the shape passed check::shape, the options check::resolve_algorithm and
        // (Im3colGemm) check::im3col_workspace in `new`, which sized the patch matrix; x, w,
        // bias and y passed check::forward_buffers, the frames check::frames above.
        unsafe {
            match (&mut self.patches, &mut self.channels_last) {
                (Some(a), _) => {
                    launch::run_im3col(stream, &s, &options, operands, a)?;
                    launch::run_im3col_gemm(stream, &s, &options, operands, a, y)?;
                }
                // NCDHW through channels-last copies: x, w and the frames transposed first
                // (the copies have the same lengths, so they pass the same checks).
                (None, Some(cl)) => {
                    launch::run_to_channels_last(stream, &s, Relayout::Input, x, &mut cl.x)?;
                    launch::run_to_channels_last(stream, &s, Relayout::Weight, w, &mut cl.w)?;
                    let staged_initial = match (initial, &mut cl.frames) {
                        (Some(frames), Some(copy)) => {
                            launch::run_to_channels_last(stream, &s, Relayout::Frames, frames, copy)?;
                            Some(&*copy)
                        }
                        _ => None,
                    };
                    let staged = Operands { x: &cl.x, w: &cl.w, bias, initial: staged_initial };
                    launch::run_forward(stream, &s, &options, Layout::Ndhwc, staged, y)?;
                }
                (None, None) => launch::run_forward(stream, &s, &options, options.layout, operands, y)?,
            }
            match final_frames {
                Some(out) => launch::run_final_frames(stream, &s, &options, x, initial, out),
                None => Ok(()),
            }
        }
    }

    /// The `Im3colGemm` patch matrix as the last forward left it.
    #[cfg_attr(not(feature = "verify_host"), allow(dead_code))]
    pub(crate) fn patches(&self) -> Option<&Buffer<T>> {
        self.patches.as_ref()
    }
}
