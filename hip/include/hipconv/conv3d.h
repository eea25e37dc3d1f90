/*
 * hipconv C ABI: 3-D convolution (hip/conv3d/).
 *
 *   forwards          hipconv_conv3d_params         naive, tiled, depthwise, implicit_gemm
 *   explicit pipeline hipconv_conv3d_im3col_params  im3col, im3col_gemm
 *   streaming         hipconv_conv3d_frames_params  final_frames
 *   relayout          hipconv_conv3d_transpose_params transpose
 * Every entry point is hipconv_conv3d_<op>_{f16,bf16,f32} (HIPCONV_DECLARE_PER_DTYPE); it
 * takes its params by pointer and passes them to the kernel by value. fp32 accumulation,
 * outputs rounded to the element type once.
 */
#ifndef HIPCONV_CONV3D_H
#define HIPCONV_CONV3D_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Axes of the spatial arrays below: 0 = depth (time), 1 = height, 2 = width. */
#define HIPCONV_CONV3D_AXES 3
/* Axes of the stride arrays of x, y and initial_frames: n, c, d, h, w; of w: co, ci, kd, kh, kw. */
#define HIPCONV_CONV3D_TENSOR_AXES 5

/*
 * y[n, co, od, oh, ow] = act(bias[co] + sum_{ci, kd, kh, kw} w[co, ci, kd, kh, kw] *
 *                            x[n, g*cin_g + ci, id, ih, iw])
 *   g = co / cout_g, cin_g = cin / groups, cout_g = cout / groups, ci < cin_g
 *   id = od*stride[0] - pad[0] + kd*dilation[0]   (likewise ih, iw on axes 1, 2)
 * Padding: an index below 0 or at or past in[axis] reads zero, except on the depth axis where
 * initial_frames is given: x[n, c, id, .., ..] for -pad[0] <= id < 0 is
 * initial_frames[n, c, pad[0] + id, .., ..] (a causal conv's frames of the previous chunk).
 * pad[] is the padding before index 0; the padding after the end is whatever out[] needs.
 *
 * Every tensor is addressed by element strides per axis (int64; offsets are 64-bit):
 *   x               [batch, cin, in[0], in[1], in[2]]         x_stride (n, c, d, h, w)
 *   y               [batch, cout, out[0], out[1], out[2]]     y_stride
 *   w               [cout, cin_g, kernel[0..2]]               w_stride (co, ci, kd, kh, kw)
 *   initial_frames  [batch, cin, pad[0], in[1], in[2]] or NULL initial_stride
 * so NCDHW (x_stride = {C*D*H*W, D*H*W, H*W, W, 1}, w [cout, cin_g, kd, kh, kw]) and NDHWC
 * (x_stride = {D*H*W*C, 1, H*W*C, W*C, C}, w [cout, kd, kh, kw, cin_g]) are both views.
 * bias [cout] contiguous or NULL; silu 0 or 1. y must not overlap an input.
 *
 * Limits (checked by the caller): every size >= 1, groups divides cin and cout; the output
 * positions batch*out[0]*out[1]*out[2], cout and cin_g*kernel[0]*kernel[1]*kernel[2] each
 * fit int32; each tensor's elements fit int64.
 */
typedef struct hipconv_conv3d_params {
    const void *x;
    const void *w;
    const void *bias;
    void *y;
    const void *initial_frames;
    int32_t batch;
    int32_t cin;
    int32_t cout;
    int32_t groups;
    int32_t in[HIPCONV_CONV3D_AXES];
    int32_t out[HIPCONV_CONV3D_AXES];
    int32_t kernel[HIPCONV_CONV3D_AXES];
    int32_t stride[HIPCONV_CONV3D_AXES];
    int32_t pad[HIPCONV_CONV3D_AXES];
    int32_t dilation[HIPCONV_CONV3D_AXES];
    int64_t x_stride[HIPCONV_CONV3D_TENSOR_AXES];
    int64_t y_stride[HIPCONV_CONV3D_TENSOR_AXES];
    int64_t w_stride[HIPCONV_CONV3D_TENSOR_AXES];
    int64_t initial_stride[HIPCONV_CONV3D_TENSOR_AXES];
    int32_t silu;
} hipconv_conv3d_params;

/* -------------------------------------------------------------- forwards */

/* Naive (hip/conv3d/naive.hip): one thread per output element, every n and co; any
 * geometry, groups and strides. */
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_naive, hipconv_conv3d_params)

/* Tiled (hip/conv3d/tiled.hip): a block computes an output tile of a few output channels;
 * per input channel it stages the input tile plus its halo in shared memory once
 * (coalesced), and the channels' taps; any geometry, groups and strides. Few taps per
 * output (cin_g*kernel volume <= 128, cout_g <= 16) take a direct path instead: a thread per
 * two output rows and 8 channels, inputs read from global memory, only the taps staged (with
 * 3x3 taps on h and w, at most 9 (ci, kd) slabs and no initial frames: in NCDHW every input
 * of a thread loaded at once, hip/conv3d/direct_slabs.hip; in other layouts, and on sm_90
 * and newer in any layout where the grid is one wave (the seed's shape), a block's strip of
 * x staged in shared memory, hip/conv3d/direct_staged.hip). */
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_tiled, hipconv_conv3d_params)

/* Depthwise (hip/conv3d/depthwise.hip): groups == cin == cout (cin_g = cout_g = 1); a
 * streaming kernel that reads each input about once. Any geometry; fastest with NDHWC
 * (channel stride 1) or NCDHW (width stride 1) and stride 1. f16/bf16 3x3x3 with stride 1
 * runs on the matrix cores: NCDHW with rows of 16-byte vectors as nine Toeplitz products
 * along w (hip/conv3d/depthwise_toeplitz.hip); NDHWC on Hopper with a diagonal weight
 * operand (hip/conv3d/depthwise_diagonal.hip, which also takes stride 2 on h and w),
 * elsewhere through a transposing stage (hip/conv3d/depthwise_toeplitz_last.hip); the
 * rest on the vector units: 3x3x3 at stride 1 in depthwise.hip where channels (NDHWC) or
 * widths (NCDHW) are whole aligned 16-byte vectors; other kernel sizes, strides,
 * dilations, and tensors those kernels do not take, in hip/conv3d/depthwise_generic.hip
 * (a 16-byte vector of channels a thread where channels are contiguous and aligned, else
 * a channel a thread). */
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_depthwise, hipconv_conv3d_params)

/*
 * ImplicitGemm (hip/conv3d/implicit_gemm.hip): C[m, co] = sum_k A[m, k] * W[co, k] per
 * group on matrix cores, m = (n, od, oh, ow), k = (kd, kh, kw, ci), with the rows of A
 * gathered from x while the tiles are loaded into shared memory (no patch matrix in
 * memory); the epilogue adds bias, applies SiLU and writes y in its own layout. Any
 * geometry, groups and strides; 16-byte loads where x's channel stride is 1 and cin_g is a
 * multiple of 16 bytes' worth of elements (NDHWC), element gathers otherwise.
 * fp32 is fp32-accurate (fp32 MFMA on AMD; 3xTF32 on NVIDIA).
 */
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_implicit_gemm, hipconv_conv3d_params)

/* ------------------------------------ explicit pipeline (Im3colGemm) */

/*
 * im3col (hip/conv3d/im3col.hip): the patch matrix of x,
 *   a [m, lda], m = batch*out[0]*out[1]*out[2] (row = ((n*out[0] + od)*out[1] + oh)*out[2] + ow),
 *   a[row, g*k_g + col(ci, kd, kh, kw)] = x[n, g*cin_g + ci, id, ih, iw] (0 in the padding,
 *   initial_frames before depth 0), k_g = cin_g*kernel[0]*kernel[1]*kernel[2],
 *   col(ci, kd, kh, kw) = ci*w_stride[1] + kd*w_stride[2] + kh*w_stride[3] + kw*w_stride[4]
 * so that a group's columns are in the order of w's rows: w must be dense per output
 * channel (w_stride[0] == k_g and the col() above a permutation of 0 .. k_g-1), and group
 * g's GEMM is C = A[:, g*k_g : +k_g] * W_g^T with W_g = w + g*cout_g*k_g, ldb = k_g.
 * lda >= groups*k_g. An exact copy (no arithmetic).
 *
 * im3col_gemm (hip/conv3d/im3col_gemm.hip): those GEMMs, one per group, on the shared tiled
 * GEMM (hip/gemm/tiled_gemm.h); the epilogue adds bias, applies SiLU and writes
 * C[row, co_g] to y[n, g*cout_g + co_g, od, oh, ow] through y_stride: no col2im pass.
 * conv.x and conv.initial_frames are not read.
 */
typedef struct hipconv_conv3d_im3col_params {
    hipconv_conv3d_params conv;
    void *a;
    int64_t lda;
} hipconv_conv3d_im3col_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_im3col, hipconv_conv3d_im3col_params)
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_im3col_gemm, hipconv_conv3d_im3col_params)

/* ------------------------------------------------------------- streaming */

/*
 * final_frames (hip/conv3d/frames.hip): the frames the next chunk of a causal video needs,
 *   final_frames[n, c, j, h, w] = xx[n, c, in[0] - pad[0] + j, h, w], j < pad[0],
 * xx = initial_frames (zeros where NULL) followed by x along depth: frames of x where the
 * index is >= 0, else initial_frames[n, c, pad[0] + index, h, w]. Shape [batch, cin,
 * pad[0], in[1], in[2]] through final_stride; it must not overlap x or initial_frames.
 * conv.w, conv.bias and conv.y are not read.
 */
typedef struct hipconv_conv3d_frames_params {
    hipconv_conv3d_params conv;
    void *final_frames;
    int64_t final_stride[HIPCONV_CONV3D_TENSOR_AXES];
} hipconv_conv3d_frames_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_final_frames, hipconv_conv3d_frames_params)

/* -------------------------------------------------------------- relayout */

/*
 * transpose (hip/conv3d/transpose.hip): a batch of row-major matrices transposed,
 *   dst[b, c, r] = src[b, r, c],  b < batch, r < rows, c < cols  (both contiguous)
 * which turns NCDHW x ([n][c][d*h*w]) and frames into NDHWC, and NCDHW-ordered w
 * ([co][ci][kd*kh*kw]) into NDHWC order, so that ImplicitGemm's 16-byte gathers serve an
 * NCDHW conv too (the caller owns the channels-last copies). An exact copy; src and dst
 * must not overlap; batch*rows*cols fits int64, rows and cols each fit int32.
 */
typedef struct hipconv_conv3d_transpose_params {
    const void *src;
    void *dst;
    int64_t batch;
    int32_t rows;
    int32_t cols;
} hipconv_conv3d_transpose_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv3d_transpose, hipconv_conv3d_transpose_params)

#ifdef __cplusplus
}
#endif

#endif /* HIPCONV_CONV3D_H */
