//! conv3d's GPU launchers: each fills a params struct of hip/include/hipconv/conv3d.h, finds
//! the dtype's entry point in the one dtype table below, and maps the status through the
//! result layer. Unsafe: callers (launch.rs) pass checked arguments (check.rs).

use super::host::patch_lda;
use super::options::{Algorithm, Layout, Options};
use super::shape::Shape;
use crate::element::{DType, Element};
use crate::error::Result;
use crate::runtime::entry::{entry, Entry};
use crate::runtime::{sys, Stream};
use std::ffi::c_void;
use std::ptr;

const _: () = assert!(sys::HIPCONV_CONV3D_AXES == 3 && sys::HIPCONV_CONV3D_TENSOR_AXES == 5);

/// conv3d's entry points of one dtype (`HIPCONV_DECLARE_PER_DTYPE` in conv3d.h).
struct Kernels {
    naive: Entry<sys::hipconv_conv3d_params>,
    tiled: Entry<sys::hipconv_conv3d_params>,
    depthwise: Entry<sys::hipconv_conv3d_params>,
    implicit_gemm: Entry<sys::hipconv_conv3d_params>,
    im3col: Entry<sys::hipconv_conv3d_im3col_params>,
    im3col_gemm: Entry<sys::hipconv_conv3d_im3col_params>,
    final_frames: Entry<sys::hipconv_conv3d_frames_params>,
    transpose: Entry<sys::hipconv_conv3d_transpose_params>,
}

/// The one dtype table: every entry point of every dtype.
const F16: Kernels = Kernels {
    naive: entry!(hipconv_conv3d_naive_f16),
    tiled: entry!(hipconv_conv3d_tiled_f16),
    depthwise: entry!(hipconv_conv3d_depthwise_f16),
    implicit_gemm: entry!(hipconv_conv3d_implicit_gemm_f16),
    im3col: entry!(hipconv_conv3d_im3col_f16),
    im3col_gemm: entry!(hipconv_conv3d_im3col_gemm_f16),
    final_frames: entry!(hipconv_conv3d_final_frames_f16),
    transpose: entry!(hipconv_conv3d_transpose_f16),
};
const BF16: Kernels = Kernels {
    naive: entry!(hipconv_conv3d_naive_bf16),
    tiled: entry!(hipconv_conv3d_tiled_bf16),
    depthwise: entry!(hipconv_conv3d_depthwise_bf16),
    implicit_gemm: entry!(hipconv_conv3d_implicit_gemm_bf16),
    im3col: entry!(hipconv_conv3d_im3col_bf16),
    im3col_gemm: entry!(hipconv_conv3d_im3col_gemm_bf16),
    final_frames: entry!(hipconv_conv3d_final_frames_bf16),
    transpose: entry!(hipconv_conv3d_transpose_bf16),
};
const F32: Kernels = Kernels {
    naive: entry!(hipconv_conv3d_naive_f32),
    tiled: entry!(hipconv_conv3d_tiled_f32),
    depthwise: entry!(hipconv_conv3d_depthwise_f32),
    implicit_gemm: entry!(hipconv_conv3d_implicit_gemm_f32),
    im3col: entry!(hipconv_conv3d_im3col_f32),
    im3col_gemm: entry!(hipconv_conv3d_im3col_gemm_f32),
    final_frames: entry!(hipconv_conv3d_final_frames_f32),
    transpose: entry!(hipconv_conv3d_transpose_f32),
};

/// `T`'s row of the table.
fn kernels<T: Element>() -> &'static Kernels {
    match T::DTYPE {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
    }
}

/// The device addresses of one forward's operands (null where absent).
#[derive(Clone, Copy)]
pub(crate) struct Pointers {
    pub(crate) x: *const c_void,
    pub(crate) w: *const c_void,
    pub(crate) bias: *const c_void,
    pub(crate) initial: *const c_void,
    pub(crate) y: *mut c_void,
}

impl Pointers {
    /// Only x and the frames (the final-frames pass reads nothing else).
    pub(crate) fn inputs(x: *const c_void, initial: *const c_void) -> Pointers {
        Pointers { x, w: ptr::null(), bias: ptr::null(), initial, y: ptr::null_mut() }
    }
}

fn axes(v: [usize; 3]) -> [i32; 3] {
    v.map(|e| e as i32)
}

fn strides(v: [usize; 5]) -> [i64; 5] {
    v.map(|e| e as i64)
}

/// The params struct of one call: x, w and the frames in `input_layout`, y in the options'.
fn params(s: &Shape, options: &Options, input_layout: Layout, p: Pointers) -> sys::hipconv_conv3d_params {
    let layout = input_layout;
    sys::hipconv_conv3d_params {
        x: p.x,
        w: p.w,
        bias: p.bias,
        y: p.y,
        initial_frames: p.initial,
        batch: s.batch as i32,
        cin: s.cin as i32,
        cout: s.cout as i32,
        groups: s.groups as i32,
        in_: axes(s.input),
        out: axes(s.output().expect("checked before: the shape has an output")),
        kernel: axes(s.kernel),
        stride: axes(s.stride),
        pad: axes(s.pad_front()),
        dilation: axes(s.dilation),
        x_stride: strides(s.x_strides(layout)),
        y_stride: strides(s.y_strides(options.layout)),
        w_stride: strides(s.w_strides(layout)),
        initial_stride: strides(s.frames_strides(layout)),
        silu: options.activation.silu_flag(),
    }
}

/// A direct forward: `Naive`, `Tiled`, `Depthwise` or `ImplicitGemm` (`options.algorithm`).
///
/// # Safety
/// `p`'s pointers address `s.x_len()`, `s.w_len()`, `s.cout` (bias), `s.frames_len()`
/// (initial) and `s.y_len()` elements of `T` on the stream's device, x, w and initial in
/// `input_layout` and y in `options.layout` (bias and initial may be null), live until the
/// launch completes; `s` passed `check::shape` and `options.algorithm`
/// `check::resolve_algorithm`.
pub(crate) unsafe fn forward<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    input_layout: Layout,
    p: Pointers,
) -> Result<()> {
    let k = kernels::<T>();
    let entry = match options.algorithm {
        Algorithm::Naive => &k.naive,
        Algorithm::Tiled => &k.tiled,
        Algorithm::Depthwise => &k.depthwise,
        Algorithm::ImplicitGemm => &k.implicit_gemm,
        Algorithm::Auto | Algorithm::Im3colGemm => unreachable!("resolved before: {}", options.algorithm),
    };
    entry.run(&params(s, options, input_layout, p), stream)
}

/// The im3col pass (x → the patch matrix `a`) or the pipeline's GEMM (`a`, w → y).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PipelineStage {
    Im3col,
    Gemm,
}

/// # Safety
/// As [`forward`], and `a` addresses `host::patch_len(s)` elements of `T` on the stream's
/// device.
pub(crate) unsafe fn pipeline<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    stage: PipelineStage,
    p: Pointers,
    a: *mut c_void,
) -> Result<()> {
    let params =
        sys::hipconv_conv3d_im3col_params { conv: params(s, options, options.layout, p), a, lda: patch_lda(s) as i64 };
    let k = kernels::<T>();
    match stage {
        PipelineStage::Im3col => k.im3col.run(&params, stream),
        PipelineStage::Gemm => k.im3col_gemm.run(&params, stream),
    }
}

/// # Safety
/// `p.x` and `p.initial` (may be null) as in [`forward`]; `final_frames` addresses
/// `s.frames_len()` elements of `T` on the stream's device, distinct from both.
pub(crate) unsafe fn final_frames<T: Element>(
    stream: &Stream,
    s: &Shape,
    options: &Options,
    p: Pointers,
    final_frames: *mut c_void,
) -> Result<()> {
    let params = sys::hipconv_conv3d_frames_params {
        conv: params(s, options, options.layout, p),
        final_frames,
        final_stride: strides(s.frames_strides(options.layout)),
    };
    kernels::<T>().final_frames.run(&params, stream)
}

/// `dst[b, c, r] = src[b, r, c]` for a batch of `rows × cols` matrices.
///
/// # Safety
/// `src` and `dst` address `batch · rows · cols` elements of `T` each on the stream's
/// device, distinct, live until the launch completes; `rows` and `cols` fit int32.
pub(crate) unsafe fn transpose<T: Element>(
    stream: &Stream,
    src: *const c_void,
    dst: *mut c_void,
    [batch, rows, cols]: [usize; 3],
) -> Result<()> {
    let params =
        sys::hipconv_conv3d_transpose_params { src, dst, batch: batch as i64, rows: rows as i32, cols: cols as i32 };
    kernels::<T>().transpose.run(&params, stream)
}
