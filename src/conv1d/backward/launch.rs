//! The backward's launch layer: the workspace its kernels need, and the one `unsafe` call
//! that runs the backward on the stream's backend (host.rs, or gpu.rs's launcher).

use super::args::Call;
use crate::backend::on_backend;
use crate::conv1d::options::{Layout, Options};
use crate::conv1d::shape::Shape;
use crate::element::Element;
use crate::error::Result;
use crate::runtime::{Buffer, Device, Stream};

/// The workspace of the backward of `s` in `layout` (`n_seqs` for a packed batch) on
/// `device`: fp32 words, none on the host backend.
#[cfg_attr(not(hipconv_gpu), allow(unused_variables, clippy::extra_unused_type_parameters))]
pub(crate) fn alloc_workspace<T: Element>(
    device: &Device,
    s: &Shape,
    layout: Layout,
    n_seqs: Option<usize>,
) -> Result<Option<Buffer<f32>>> {
    if !device.is_gpu() {
        return Ok(None);
    }
    #[cfg(hipconv_gpu)]
    {
        device.activate()?;
        let bytes = super::gpu::workspace_bytes::<T>(s, layout, n_seqs)?;
        crate::check::workspace_fits(
            device,
            "the backward's workspace (per-tile partials, and dz on the generic path)",
            bytes as u128,
            "",
        )?;
        Ok(Some(device.alloc(bytes.div_ceil(4).max(1))?))
    }
    #[cfg(not(hipconv_gpu))]
    unreachable!("no GPU device can exist without a GPU backend")
}

/// Runs the backward of one call.
///
/// # Safety
/// `s` passed `conv1d::check::shape` (and for a packed batch `check::varlen_shape`, with
/// `s.batch` 1), the call's buffers `check::call` for the stream's device, `packed`'s
/// `cu_seqlens` holds `n_seqs + 1` offsets on that device (on the host backend checked by
/// `status::check_cu_seqlens`) and its status word `STATUS_WORDS` int32; `workspace` is
/// what `alloc_workspace` gave for `s`, `options.layout` and the packed batch (None on the
/// host backend).
#[cfg_attr(not(hipconv_gpu), allow(unused_variables))] // `workspace` is the GPU's
pub(crate) unsafe fn run_backward<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    call: Call<'_, '_, T>,
    workspace: Option<&mut Buffer<f32>>,
) -> Result<()> {
    on_backend!(stream,
        host: super::host::backward(s, options, call),
        // SAFETY: this function's contract.
        gpu: unsafe { super::gpu::backward::<T>(stream, s, options, call, workspace) })
}
