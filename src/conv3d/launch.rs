//! conv3d's launch layer: each function runs one kernel (or pass) on the stream's backend
//! (crate::backend's dispatch: the host backend's code in host.rs, or the GPU launcher in
//! gpu.rs). Every function is `unsafe`: the kernels index memory by the shape, so it is
//! sound only with arguments that passed the checks of check.rs, which each `# Safety`
//! names. The public operation (forward.rs) is the only caller.

use super::host;
use super::options::{Algorithm, Layout, Options};
use super::shape::Shape;
use crate::backend::{host_data, host_data_mut, on_backend};
use crate::element::Element;
use crate::error::Result;
use crate::runtime::{Buffer, Stream};

/// The operands of one forward.
#[derive(Clone, Copy)]
pub(crate) struct Operands<'a, T: Element> {
    pub(crate) x: &'a Buffer<T>,
    pub(crate) w: &'a Buffer<T>,
    pub(crate) bias: Option<&'a Buffer<T>>,
    pub(crate) initial: Option<&'a Buffer<T>>,
}

impl<'a, T: Element> Operands<'a, T> {
    fn host(&self) -> host::Operands<'a, T> {
        host::Operands {
            x: host_data(self.x),
            w: host_data(self.w),
            bias: self.bias.map(host_data),
            initial: self.initial.map(host_data),
        }
    }

    #[cfg(hipconv_gpu)]
    fn device(&self, y: *mut std::ffi::c_void) -> super::gpu::Pointers {
        super::gpu::Pointers {
            x: self.x.as_raw(),
            w: self.w.as_raw(),
            bias: self.bias.map_or(std::ptr::null(), Buffer::as_raw),
            initial: self.initial.map_or(std::ptr::null(), Buffer::as_raw),
            y,
        }
    }
}

/// A direct forward (`options.algorithm` resolved, not `Im3colGemm`), with x, w and the
/// frames in `input_layout` (the options' layout, or on a GPU channels-last copies that
/// [`run_to_channels_last`] made) and y in the options' layout.
///
/// # Safety
/// `s` passed `check::shape`, `options` `check::resolve_algorithm`; x, w, bias and y passed
/// `check::forward_buffers` and `initial` `check::frames` for the stream's device, x, w and
/// initial laid out in `input_layout`, which is `options.layout` on the host backend.
pub(crate) unsafe fn run_forward<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    input_layout: Layout,
    operands: Operands<'_, T>,
    y: &mut Buffer<T>,
) -> Result<()> {
    debug_assert!(!matches!(options.algorithm, Algorithm::Auto | Algorithm::Im3colGemm));
    on_backend!(stream,
        host: {
            assert_eq!(input_layout, options.layout, "the host backend reads the caller's layout");
            host::forward_direct(s, options, operands.host(), host_data_mut(y))
        },
        // SAFETY: every buffer lives on the stream's device with the length the shape and
        // layouts need (this function's contract); missing ones are null.
        gpu: unsafe { super::gpu::forward::<T>(stream, s, options, input_layout, operands.device(y.as_raw_mut())) })
}

/// What [`run_to_channels_last`] relayouts: x, frames (`[N][C][D·H·W]` → `[N][D·H·W][C]`)
/// or w (`[Cout][Cin/groups][kd·kh·kw]` → `[Cout][kd·kh·kw][Cin/groups]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Relayout {
    Input,
    Frames,
    Weight,
}

/// The NCDHW tensor `src` copied into `dst` in NDHWC order (used on GPUs: the host
/// backend's forward reads any layout directly).
///
/// # Safety
/// `s` passed `check::shape`; `src` passed the check of its tensor (`check::forward_buffers`
/// or `check::frames`) in NCDHW, and `dst` holds as many elements, on the stream's device.
pub(crate) unsafe fn run_to_channels_last<T: Element>(
    stream: &Stream,
    s: &Shape,
    what: Relayout,
    src: &Buffer<T>,
    dst: &mut Buffer<T>,
) -> Result<()> {
    let [d, h, w] = s.input;
    let dims = match what {
        Relayout::Input => [s.batch, s.cin, d * h * w],
        Relayout::Frames => [s.batch, s.cin, s.history_frames() * h * w],
        Relayout::Weight => [s.cout, s.cin_per_group(), s.kernel.iter().product()],
    };
    debug_assert_eq!(src.len(), dims.iter().product::<usize>());
    on_backend!(stream,
        host: host::transpose(dims, host_data(src), host_data_mut(dst)),
        // SAFETY: src and dst hold the matrices' elements on the stream's device (contract);
        // dst is a distinct buffer (a &mut borrow).
        gpu: unsafe { super::gpu::transpose::<T>(stream, src.as_raw(), dst.as_raw_mut(), dims) })
}

/// The explicit pipeline's first stage: x (and the initial frames) → the patch matrix `a`.
///
/// # Safety
/// As [`run_forward`], and `s` passed `check::im3col_workspace` with `a` holding
/// `host::patch_len(s)` elements on the stream's device.
pub(crate) unsafe fn run_im3col<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    operands: Operands<'_, T>,
    a: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
    host: host::im3col(s, options.layout, host_data(operands.x), operands.initial.map(host_data), host_data_mut(a)),
    // SAFETY: as run_forward's contract, with a of the patch matrix's length; y is not
    // read by the im3col pass.
    gpu: unsafe {
        let pointers = operands.device(a.as_raw_mut());
        super::gpu::pipeline::<T>(stream, s, options, super::gpu::PipelineStage::Im3col, pointers, a.as_raw_mut())
    })
}

/// The explicit pipeline's GEMM: `a` · wᵀ per group, bias and activation, written into y.
///
/// # Safety
/// As [`run_im3col`], with y having passed `check::forward_buffers`.
pub(crate) unsafe fn run_im3col_gemm<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    operands: Operands<'_, T>,
    a: &Buffer<T>,
    y: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
    host: host::im3col_gemm(s, options, host_data(a), host_data(operands.w), operands.bias.map(host_data), host_data_mut(y)),
    // SAFETY: as run_forward's contract, with a of the patch matrix's length (read only).
    gpu: unsafe {
        let pointers = operands.device(y.as_raw_mut());
        super::gpu::pipeline::<T>(stream, s, options, super::gpu::PipelineStage::Gemm, pointers, a.as_raw().cast_mut())
    })
}

/// The streaming pass: the last frames of (initial, x) → `final_frames`.
///
/// # Safety
/// `s` passed `check::shape`; x passed `check::forward_buffers`, `initial` and
/// `final_frames` `check::frames`, for the stream's device.
pub(crate) unsafe fn run_final_frames<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    x: &Buffer<T>,
    initial: Option<&Buffer<T>>,
    final_frames: &mut Buffer<T>,
) -> Result<()> {
    on_backend!(stream,
    host: host::final_frames(s, options.layout, host_data(x), initial.map(host_data), host_data_mut(final_frames)),
    // SAFETY: x, initial and final_frames live on the stream's device with the lengths
    // the shape needs (contract); final_frames is a distinct buffer (a &mut borrow).
    gpu: unsafe {
        let pointers = super::gpu::Pointers::inputs(x.as_raw(), initial.map_or(std::ptr::null(), Buffer::as_raw));
        super::gpu::final_frames::<T>(stream, s, options, pointers, final_frames.as_raw_mut())
    })
}
