//! The backward's GPU launcher: fills `hipconv_conv1d_backward_params`
//! (hip/include/hipconv/conv1d.h) and runs the dtype's entry point, which enqueues every
//! pass (hip/conv1d/backward*.hip).

use super::args::{Call, ParamGrad};
use crate::conv1d::options::{Layout, Options};
use crate::conv1d::shape::Shape;
use crate::element::{DType, Element};
use crate::error::Result;
use crate::runtime::entry::{entry, Entry};
use crate::runtime::result::check;
use crate::runtime::{sys, Buffer, Stream};
use std::ffi::c_void;

type WorkspaceQuery = unsafe extern "C" fn(*const sys::hipconv_conv1d_backward_params, *mut i64) -> i32;

/// The backward's entry points of one dtype.
struct Kernels {
    backward: Entry<sys::hipconv_conv1d_backward_params>,
    workspace: (WorkspaceQuery, &'static str),
}

macro_rules! kernels {
    ($backward:ident, $workspace:ident) => {
        Kernels { backward: entry!($backward), workspace: (sys::$workspace, stringify!($workspace)) }
    };
}

const F16: Kernels = kernels!(hipconv_conv1d_backward_f16, hipconv_conv1d_backward_workspace_f16);
const BF16: Kernels = kernels!(hipconv_conv1d_backward_bf16, hipconv_conv1d_backward_workspace_bf16);
const F32: Kernels = kernels!(hipconv_conv1d_backward_f32, hipconv_conv1d_backward_workspace_f32);

fn kernels<T: Element>() -> &'static Kernels {
    match T::DTYPE {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
    }
}

/// The params with every pointer null: sizes, strides and layout only.
fn params(s: &Shape, layout: Layout, n_seqs: Option<usize>) -> sys::hipconv_conv1d_backward_params {
    let null = std::ptr::null_mut::<c_void>();
    let options = Options::default().layout(layout);
    sys::hipconv_conv1d_backward_params {
        conv: crate::conv1d::gpu::conv1d_params(s, &options, null, null, null, null, (null, null)),
        dy: null,
        dx: null,
        dfinal_states: null,
        dinitial_states: null,
        dweight: null,
        dbias: null,
        dweight_f32: 1,
        dbias_f32: 1,
        // A placeholder for the query: only its presence matters there.
        cu_seqlens: if n_seqs.is_some() { std::ptr::NonNull::<i32>::dangling().as_ptr() } else { std::ptr::null() },
        n_seqs: n_seqs.unwrap_or(0) as i32,
        status: std::ptr::null_mut(),
        workspace: null,
        workspace_bytes: 0,
    }
}

/// The workspace bytes the kernels need for `s` in `layout` (a packed batch of `n_seqs`).
pub(crate) fn workspace_bytes<T: Element>(s: &Shape, layout: Layout, n_seqs: Option<usize>) -> Result<usize> {
    let p = params(s, layout, n_seqs);
    let mut bytes = 0i64;
    let (query, name) = kernels::<T>().workspace;
    // SAFETY: the query reads the params' sizes and pointer values only (conv1d.h) and
    // writes `bytes`.
    check(unsafe { query(&p, &mut bytes) }, name)?;
    Ok(bytes as usize)
}

/// A parameter gradient's pointer and whether it is fp32.
fn param_grad<T: Element>(grad: Option<&mut ParamGrad<'_, T>>) -> (*mut c_void, i32) {
    match grad {
        Some(ParamGrad::F32(b)) => (b.as_raw_mut(), 1),
        Some(ParamGrad::Native(b)) => (b.as_raw_mut(), 0),
        None => (std::ptr::null_mut(), 1),
    }
}

/// Enqueues the backward of one call.
///
/// # Safety
/// As `launch::run_backward`: checked shape and buffers on the stream's device, and the
/// workspace that `workspace_bytes` asked for these sizes.
pub(crate) unsafe fn backward<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    call: Call<'_, '_, T>,
    workspace: Option<&mut Buffer<f32>>,
) -> Result<()> {
    let Call { inputs, mut grads, packed } = call;
    let n_seqs = packed.map(|p| p.cu_seqlens.len() - 1);
    let mut p = params(s, options.layout, n_seqs);
    let raw = |b: Option<&Buffer<T>>| b.map_or(std::ptr::null(), Buffer::as_raw);
    p.conv.x = inputs.x.as_raw();
    p.conv.w = inputs.w.as_raw();
    p.conv.bias = raw(inputs.bias);
    p.conv.silu = options.activation.silu_flag();
    p.conv.initial_states = raw(inputs.initial_states);
    p.dy = inputs.dy.as_raw();
    p.dx = grads.dx.as_raw_mut();
    p.dfinal_states = raw(inputs.dfinal_states);
    p.dinitial_states = grads.dinitial_states.as_mut().map_or(std::ptr::null_mut(), |b| b.as_raw_mut());
    (p.dweight, p.dweight_f32) = param_grad(Some(&mut grads.dweight));
    (p.dbias, p.dbias_f32) = param_grad(grads.dbias.as_mut());
    (p.cu_seqlens, p.status) = match packed {
        Some(packed) => (packed.cu_seqlens.as_raw().cast(), packed.status),
        None => (std::ptr::null(), std::ptr::null_mut()),
    };
    if let Some(workspace) = workspace {
        p.workspace = workspace.as_raw_mut();
        p.workspace_bytes = 4 * workspace.len() as i64;
    }
    kernels::<T>().backward.run(&p, stream)
}
