/*
 * conv3d im3col: the patch matrix of x for the explicit pipeline (hipconv/conv3d.h).
 *
 *   in   x [batch, cin, in[0..2]] through x_stride; initial_frames (or NULL) through
 *        initial_stride for the depth indices -pad[0] .. -1
 *   out  a [m, lda], m = batch*out[0]*out[1]*out[2], row = ((n*out[0] + od)*out[1] + oh)*out[2] + ow
 *        a[row, g*k_g + col(ci, kd, kh, kw)] = x[n, g*cin_g + ci, id, ih, iw], 0 in the padding
 *        col() = the order of w's rows (w_stride; geometry.h ColumnOrder), so B = w as is
 *   An exact copy: elements move as raw bits (one kernel per element size).
 *
 * Launch: 256 threads; a block takes a strip of `rows_per_strip` rows (host-chosen so a strip
 * has >= 2048 elements) and walks it as one flat range of rows * columns: consecutive threads
 * write consecutive columns of a row (coalesced), and read x along its innermost w axis (ci
 * for NDHWC-ordered w, kw for NCDHW-ordered w). 1-D grid-stride loop over the strips.
 *
 *      a:  row r   | g=0: col 0 .. k_g-1 | g=1: ... |      <- one strip = rows r .. r+R-1,
 *          row r+1 | ...                             |         threads along the columns
 */
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {
namespace conv3d {

constexpr int kIm3colThreads = 256;
constexpr int kIm3colStripElements = 2048;

struct Im3colGeometry {
    ColumnOrder order;
    int32_t columns;  // groups * k_g
    int32_t rows_per_strip;
    int64_t m;
    int64_t strips;
};

template <typename Bits>
__global__ void __launch_bounds__(kIm3colThreads)
    conv3d_im3col_kernel(hipconv_conv3d_params p, Bits *a, int64_t lda, Im3colGeometry geo) {
    const int cin_g = p.cin / p.groups;
    const int strip_elements = geo.rows_per_strip * geo.columns;
    for (int64_t strip = blockIdx.x; strip < geo.strips; strip += gridDim.x) {
        const int64_t row0 = strip * geo.rows_per_strip;
        for (int e = threadIdx.x; e < strip_elements; e += kIm3colThreads) {
            const int r = e / geo.columns, column = e - r * geo.columns;
            const int64_t row = row0 + r;
            if (row >= geo.m) break;  // e only grows
            const int g = column / geo.order.k_g;
            int idx[4];  // ci, kd, kh, kw
            decompose(geo.order, column - g * geo.order.k_g, idx);
            const OutputPosition o = output_position(p, row);
            const Bits *at = reinterpret_cast<const Bits *>(input_at<Bits>(
                p, o.n, g * cin_g + idx[0], o.od * p.stride[0] - p.pad[0] + idx[1] * p.dilation[0],
                o.oh * p.stride[1] - p.pad[1] + idx[2] * p.dilation[1],
                o.ow * p.stride[2] - p.pad[2] + idx[3] * p.dilation[2]));
            a[row * lda + column] = at != nullptr ? *at : Bits(0);
        }
    }
}

template <typename T>
hipconv_status_t launch_conv3d_im3col(const hipconv_conv3d_im3col_params &params, hipStream_t stream) {
    const hipconv_conv3d_params &p = params.conv;
    Im3colGeometry geo{};
    if (!valid_params(p) || params.a == nullptr || !column_order(p, &geo.order))
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t columns = (int64_t)p.groups * geo.order.k_g;
    if (columns > INT32_MAX || params.lda < columns) return (hipconv_status_t)hipErrorInvalidValue;
    geo.columns = (int32_t)columns;
    geo.rows_per_strip = (int32_t)ceil_div(kIm3colStripElements, columns);
    geo.m = output_positions(p);
    geo.strips = ceil_div(geo.m, geo.rows_per_strip);
    typedef element_bits_t<T> Bits;
    hipLaunchKernelGGL(conv3d_im3col_kernel<Bits>, dim3(grid_blocks(geo.strips)), dim3(kIm3colThreads), 0, stream, p,
                       static_cast<Bits *>(params.a), params.lda, geo);
    return last_launch_status();
}

}  // namespace conv3d

template <typename T>
hipconv_status_t launch_conv3d_im3col(const hipconv_conv3d_im3col_params &params, hipStream_t stream) {
    return conv3d::launch_conv3d_im3col<T>(params, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_im3col, hipconv_conv3d_im3col_params)
