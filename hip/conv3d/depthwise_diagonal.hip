/*
 * Depthwise conv3d, channels-last (NDHWC), f16/bf16, 3x3x3 with dilation 1, stride 1 in
 * depth and 1 or 2 on h and w, on the matrix cores with a diagonal weight operand (NVIDIA
 * sm_90: TMA and mma.sync; nothing here runs elsewhere, and the launcher says so, so the
 * caller takes another kernel).
 *
 *   in   x [batch, in[0..2], C] by x_stride (c stride 1, the other strides multiples of 8
 *        elements), w [C, 1, 3, 3, 3] by w_stride, bias [C] or NULL,
 *        initial_frames [batch, pad[0], in[1], in[2], C] or NULL (same constraints)
 *   out  y [batch, out[0..2], C] by y_stride (same constraints)
 *        y[n,od,oh,ow,c] = act(bias[c] + sum t[c,kd,kh,kw] x[n,od-pad0+kd,s oh-pad1+kh,s ow-pad2+kw,c])
 *        (s: the stride on h and w)
 *
 * The product. An mma m16n8k16 multiplies A [16 positions][16] by B [16][8 channels]. With
 * k = (tap, channel c') over two taps and B[(tap, c')][c] = the tap's weight of channel c
 * where c' = c (zero elsewhere), row i of the product is the two taps' sum for 8 channels
 * at position i. A's rows are positions as NDHWC holds them (8 channels = 16 contiguous
 * bytes), so ldmatrix reads them straight from a staged plane, an 8-row block per (row,
 * shift): no transposition. 1/8 of the products are useful; the matrix unit still has room
 * (per 128 outputs 12 m16n8k16 and 3 m16n8k8, against 126 FMAs a vector unit would issue).
 *
 * A block owns 64 channels (128 bytes a position: whole L2 lines), 8 x 8 output positions
 * (w x h) and a chunk of output depths; warp i owns channels 8i .. 8i + 7 of them. An m16
 * tile is two output rows of 8 positions; each warp keeps its 4 tiles for three output
 * depths in registers (a ring, acc[3][4][4]).
 *
 *   plane j (input depth d0 + j): one TMA box [10 rows][10 positions][64 channels] at
 *   (h0 - pad1, w0 - pad2), 128-byte swizzle (tma.h), zeros outside x:
 *
 *          w0-pad2 ... +9          input row pair (hh, hh + 1), hh = 0 .. 8, shifted by
 *   row 0  [ . . . . . . . . . . ]   kw = 0, 1 (ldmatrix.x4) and 2 (.x2), feeds output
 *   row 1  [ . . . . . . . . . . ]   rows (hh - kh, + 1) for even hh - kh, at depths
 *    ...                              j - kd: per (kd, kh) an m16n8k16 on kw 0 and 1;
 *   row 9  [ . . . . . . . . . . ]   kw 2 of kh 0 and 1 pairs the shift-2 blocks of input
 *                                     pairs hh - 1 and hh (odd hh) in one m16n8k16, kw 2
 *                                     of kh 2 is an m16n8k8
 *
 *   At stride 2 a block owns 8 x 4 outputs and plane j is a box [9 rows][17 positions][64
 *   channels]: output rows 2P, 2P + 1 read input rows 4P + kh, 4P + 2 + kh at positions
 *   2c + kw, one ldmatrix.x4 (kw 0, 1) and one .x2 (kw 2) per (P, kh), with no reuse
 *   across rows: per (P, kh, kd) an m16n8k16 and an m16n8k8.
 *
 * Pipeline (kStages boxes in flight, a block barrier every kPeriod planes): after the
 * barrier that ends a period, thread 0 issues into the period's stages the planes kStages
 * further on. A plane of padding (outside x and the frames: zeros) skips its products (at
 * the bench's 16 outputs and padding 1, 2 of a block's 18 planes: 92.5-93.4 against
 * 97.0-97.4 us on an H200, fifty-third session). After plane j, output depth j - 2 is
 * whole (its ring slot started at the bias): each warp applies the activation, rounds to
 * 16 bits and puts its 8 channels into output tile (j - 2) % kTiles (stmatrix, the same
 * swizzle); after the period's barrier thread 0 stores the period's tiles to y by TMA
 * (clipped at y's edges), and before a barrier it waits until the stores of the tiles the
 * next period writes have read them. Stride 1 runs periods of two planes with five stages
 * (one barrier a plane and four stages: 1-1.5% slower at the bench's f16 row on an H200,
 * fifty-fifth session); stride 2 one plane with four (five do not fit twice an SM).
 *
 * Launch: 256 threads (8 warps; 128 registers at stride 1, 99 at 2), one block per
 * (channel block, w tile, row tile, depth chunk, batch row), channel block fastest; kStages
 * stages and kTiles output tiles of dynamic shared memory (98 KiB at stride 1, 93 KiB at
 * 2: two blocks an SM). The launch is chained (dependent_launch.h): the block waits for the
 * kernels before it after its barriers are set up, so back-to-back forwards place the next
 * one's blocks while this one's last wave runs. A block ends once its last stores have read
 * their tiles, not once they are written. Both: 89.5-89.6 against 90.2 us at the bench's
 * f16 row on an H200, the chained launch alone 89.8-90.0 (sixty-fifth session).
 */
#include <atomic>
#include <type_traits>

#include "activation.h"
#include "compat.h"
#include "dependent_launch.h"
#include "depthwise_toeplitz.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "implicit_gemm.h"
#include "launch.h"
#include "matrix_core.h"
#include "tma.h"

#if defined(HIPCONV_PLATFORM_NVIDIA)

namespace hipconv {

namespace {

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kChannels = 8 * kWarps;  // 64: one 128-byte line a position
constexpr CUtensorMapSwizzle kSwizzle = CU_TENSOR_MAP_SWIZZLE_128B;
constexpr int kPositions = 8;          // output positions along w a block
constexpr int kLine = 2 * kChannels;  // bytes a position

// A block's tile at spatial stride kStride (1 or 2 on h and w): output rows, the input box
// they read (rows x positions), and the shared memory.
template <int kStride> struct DiagonalTile {
    static constexpr int kStages = kStride == 1 ? 5 : 4;  // input boxes (stride 2: five do not fit twice an SM)
    static constexpr int kPeriod = kStride == 1 ? 2 : 1;  // planes a block barrier
    static constexpr int kTiles = kPeriod + 2;  // output tiles: a period's being written, the last ones stored
    static constexpr int kRows = kStride == 1 ? 8 : 4;  // output rows a block
    static constexpr int kInRows = (kRows - 1) * kStride + 3;
    static constexpr int kInPositions = (kPositions - 1) * kStride + 3;
    static constexpr int kBoxBytes = kInRows * kInPositions * kLine;
    static constexpr int kStageBytes = (kBoxBytes + 1023) / 1024 * 1024;
    static constexpr int kTileBytes = kRows * kPositions * kLine;
    static constexpr int kSharedBytes = 1024 + kStages * kStageBytes + kTiles * kTileBytes + kStages * 8;
};

struct DiagonalGeometry {
    int c_blocks, w_tiles, h_tiles;  // blocks along c, w, h
    int depth_chunk, out_d;          // output depths a block, in all
    int pad[3];
    int frames;  // initial frames given (pad[0] of them)
};

// 16-bit bits of w[c, 0, kd, kh, kw].
template <typename T> __device__ inline uint32_t weight_bits(const T *w, const int64_t (&s)[5], int c, int kd, int kh,
                                                           int kw) {
    return *reinterpret_cast<const uint16_t *>(w + c * s[0] + kd * s[2] + kh * s[3] + kw * s[4]);
}

#if HIPCONV_HAS_TMA
// The m16n8k8 (kw 2) beside matrix_core.h's Mma16x8x16 (kw 0 and 1).
template <typename T> struct Mma16x8x8;
template <> struct Mma16x8x8<__half> {
    __device__ static void run(float (&c)[4], const uint32_t (&a)[2], uint32_t b0) {
        asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(b0));
    }
};
template <> struct Mma16x8x8<hipconv_bf16> {
    __device__ static void run(float (&c)[4], const uint32_t (&a)[2], uint32_t b0) {
        asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(b0));
    }
};

__device__ inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}
__device__ inline void ldmatrix_x2(uint32_t (&r)[2], uint32_t address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(address));
}
__device__ inline void stmatrix_x4(uint32_t address, const uint32_t (&r)[4]) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(address), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}
// Byte offset of 16-byte chunk `chunk` of position `line` in a 128-byte swizzled box.
__device__ inline uint32_t swizzled(int line, int chunk) {
    return (uint32_t)(line * kLine + (((chunk ^ line) & 7) << 4));
}
#endif

template <typename T, bool kSilu, int kStride>
__global__ void __launch_bounds__(kThreads, 2)
    conv3d_depthwise_diagonal_kernel(const T *__restrict__ w, const T *__restrict__ bias, hipconv_conv3d_params p,
                                     DiagonalGeometry g, const __grid_constant__ CUtensorMap x_map,
                                     const __grid_constant__ CUtensorMap f_map,
                                     const __grid_constant__ CUtensorMap y_map) {
#if HIPCONV_HAS_TMA
    using Tile = DiagonalTile<kStride>;
    constexpr int kRows = Tile::kRows, kInPositions = Tile::kInPositions;
    constexpr int kStageBytes = Tile::kStageBytes, kTileBytes = Tile::kTileBytes;
    constexpr int kStages = Tile::kStages, kPeriod = Tile::kPeriod, kTiles = Tile::kTiles;
    extern __shared__ uint8_t dynamic_shared[];
    const uint32_t shared_base = (tma::shared_address(dynamic_shared) + 1023) & ~1023u;
    const uint32_t stages = shared_base, tiles = stages + kStages * kStageBytes;
    const uint32_t bars = tiles + kTiles * kTileBytes;
    uint8_t *bars_generic = dynamic_shared + (bars - tma::shared_address(dynamic_shared));
    uint64_t *full = reinterpret_cast<uint64_t *>(bars_generic);

    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int item = (int)blockIdx.x;
    const int cb = item % g.c_blocks;
    item /= g.c_blocks;
    const int wt = item % g.w_tiles;
    item /= g.w_tiles;
    const int ht = item % g.h_tiles;
    item /= g.h_tiles;
    const int chunks = (g.out_d + g.depth_chunk - 1) / g.depth_chunk;
    const int chunk = item % chunks, n = item / chunks;
    const int c0 = cb * kChannels, w0 = wt * kPositions, h0 = ht * kRows;
    const int od0 = chunk * g.depth_chunk;
    const int outputs = min(g.depth_chunk, g.out_d - od0);
    const int planes = outputs + 2;
    const int d0 = od0 - g.pad[0];  // input depth of plane 0

    // Plane j into stage s: frames for depths before 0 where given, x otherwise (zeros
    // outside it).
    auto issue_plane = [&](int j, int s) {
        const int d = d0 + j;
        const uint32_t bar = tma::shared_address(full + s);
        tma::arrive_expect_bytes(full + s, Tile::kBoxBytes);
        const uint32_t dst = stages + s * kStageBytes;
        const int iw = w0 * kStride - g.pad[2], ih = h0 * kStride - g.pad[1];
        if (g.frames && d < 0)
            tma::load_tile5(dst, &f_map, c0, iw, ih, g.pad[0] + d, n, bar);
        else
            tma::load_tile5(dst, &x_map, c0, iw, ih, d, n, bar);
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) tma::init_barrier(full + s, 1);
        tma::fence_barrier_init();
    }
    __syncthreads();
    begin_chained_kernel();  // the kernels before this one have written x, w, bias and the frames
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages && s < planes; ++s) issue_plane(s, s);

    // The diagonal B operands of warp's 8 channels: lane (g, t) holds B[k][g] for k = 2t,
    // 2t + 1 (+ 8), nonzero where k % 8 == g, i.e. on lanes t == g / 2, in half g % 2.
    // b01: taps kw 0 and 1 of (kd, kh); b2: kw 2 of (kd, kh). At stride 1, kw 2 of kh 0 and 1
    // go into one m16n8k16 (b2[kd][0], b2[kd][1]) and kw 2 of kh 2 into an m16n8k8.
    const int gq = lane / 4, tq = lane % 4;
    const int channel = c0 + 8 * warp + gq;
    const bool holder = tq == gq / 2 && channel < p.cin;
    const int half_shift = 16 * (gq % 2);
    auto tap = [&](int kd, int kh, int kw) {
        return holder ? weight_bits(w, p.w_stride, channel, kd, kh, kw) << half_shift : 0u;
    };
    uint32_t b01[3][3][2], b2[3][3];
#pragma unroll
    for (int kd = 0; kd < 3; ++kd)
#pragma unroll
        for (int kh = 0; kh < 3; ++kh)
            b01[kd][kh][0] = tap(kd, kh, 0), b01[kd][kh][1] = tap(kd, kh, 1), b2[kd][kh] = tap(kd, kh, 2);
    float start[2] = {0.f, 0.f};
    if (bias != nullptr)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const int c = c0 + 8 * warp + 2 * tq + e;
            start[e] = c < p.cin ? to_float(bias[c]) : 0.f;
        }
    // Stride 1: the bias as an addend quad of its own (c0..c3 = start 0, 1, 0, 1), the first
    // product of each output's rows taking it (mc::Mma16x8x16's addend form). Its upper pair comes from an
    // add of +0, which ptxas cannot fold into the lower pair, so the quad stays whole: 16
    // moves a plane into the accumulators fewer (125 -> 128 registers), 90.4-91.1 against
    // 90.7-91.2 us at the bench's row in f16 and 98.0-98.4 against 98.8-99.1 with bf16, bias
    // and SiLU (sixty-fourth session).
    float bias4[4];
    bias4[0] = start[0], bias4[1] = start[1];
    asm volatile("add.f32 %0, %1, 0f00000000;" : "=f"(bias4[2]) : "f"(start[0]));
    asm volatile("add.f32 %0, %1, 0f00000000;" : "=f"(bias4[3]) : "f"(start[1]));

    // Stride 1: ldmatrix rows of input row pair hh: x4 blocks (row hh, hh + 1 at shift 0; the
    // same at shift 1), x2 (rows hh, hh + 1 at shift 2). Row hh starts at line 10 hh, so the
    // swizzle of a lane's line depends on hh % 4 only: four offsets per operand, the rest an
    // immediate. Stride 2: output rows 2P, 2P + 1 read input rows 4P + kh, 4P + 2 + kh, output
    // column c input position 2c + kw (line01, line2: the lane's line counted from row 4P + kh).
    // stmatrix: rows 2P .. 2P + 3 (line % 8 = the lane's column).
    const int pair_row = (lane / 8) % 2, column = lane % 8;
    const int line01 = pair_row * kInPositions * kStride + column * kStride + lane / 16;
    const int line2 = pair_row * kInPositions * kStride + column * kStride + 2;
    uint32_t offset01[4], offset2[4];
    if constexpr (kStride == 1) {
        static_assert(kInPositions == 10 && (4 * kInPositions * kLine) % 1024 == 0, "offsets repeat every 4 rows");
#pragma unroll
        for (int m = 0; m < 4; ++m) {
            offset01[m] = swizzled(m * kInPositions + line01, warp);
            offset2[m] = swizzled(m * kInPositions + line2, warp);
        }
    }
    const uint32_t store_offset = swizzled((lane / 8) * kPositions + column, warp);

    constexpr int kPairs = kRows / 2;  // m16 tiles: two rows of 8 positions
    float acc[3][kPairs][4];
    constexpr int kUnroll = 3 * kPeriod;  // j % 3 (the ring) and j % kPeriod constants once unrolled
    for (int j0 = 0; j0 < planes; j0 += kUnroll) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int j = j0 + u;
            if (j >= planes) break;
            const int s = j % kStages;
            tma::wait_barrier(full + s, (uint32_t)(j / kStages) & 1);
            const uint32_t stage = stages + s * kStageBytes;
            // A plane of padding zeros (past x, or before it without frames) adds nothing.
            const bool padding = d0 + j >= p.in[0] || (d0 + j < 0 && !g.frames);
            // Output j starts at the bias (stride 1: as its first products' addend, or, on a
            // plane of padding, as bias + 0 from the matrix unit: moves there would be hoisted
            // above the branch); outputs j - 1 and j - 2 get their later planes.
            if constexpr (kStride != 1) {
#pragma unroll
                for (int q = 0; q < kPairs; ++q) {
                    acc[u % 3][q][0] = start[0], acc[u % 3][q][1] = start[1];
                    acc[u % 3][q][2] = start[0], acc[u % 3][q][3] = start[1];
                }
            } else if (padding) {
                const uint32_t zero[4] = {0u, 0u, 0u, 0u};
#pragma unroll
                for (int q = 0; q < kPairs; ++q) mc::Mma16x8x16<T>::run(acc[u % 3][q], zero, 0u, 0u, bias4);
            }
            if (!padding) {
                if constexpr (kStride == 1) {
                    uint32_t a2_previous[2] = {0u, 0u};
#pragma unroll
                    for (int hh = 0; hh <= kRows; ++hh) {  // input rows hh, hh + 1
                        uint32_t a01[4], a2[2];
                        const uint32_t row = stage + (hh / 4) * 4 * kInPositions * kLine;
                        ldmatrix_x4(a01, row + offset01[hh % 4]);
                        ldmatrix_x2(a2, row + offset2[hh % 4]);
#pragma unroll
                        for (int kd = 0; kd < 3; ++kd) {
                            float(&pairs)[kPairs][4] = acc[(u - kd + 6) % 3];
#pragma unroll
                            for (int kh = 0; kh < 3; ++kh) {  // output rows hh - kh, + 1: kw 0 and 1
                                const int r = hh - kh;
                                if (r >= 0 && r < kRows && r % 2 == 0) {
                                    const uint32_t b0 = b01[kd][kh][0], b1 = b01[kd][kh][1];
                                    if (kd == 0 && kh == 0)  // output j's rows r, r + 1: their first product
                                        mc::Mma16x8x16<T>::run(pairs[r / 2], a01, b0, b1, bias4);
                                    else
                                        mc::Mma16x8x16<T>::run(pairs[r / 2], a01, b0, b1);
                                }
                            }
                            if (hh % 2 == 1) {  // output rows hh - 1, hh: kw 2 of kh 0 (rows hh - 1, hh) and 1
                                const uint32_t a[4] = {a2_previous[0], a2_previous[1], a2[0], a2[1]};
                                mc::Mma16x8x16<T>::run(pairs[(hh - 1) / 2], a, b2[kd][0], b2[kd][1]);
                            } else if (hh >= 2) {  // output rows hh - 2, hh - 1: kw 2 of kh 2
                                Mma16x8x8<T>::run(pairs[(hh - 2) / 2], a2, b2[kd][2]);
                            }
                        }
                        a2_previous[0] = a2[0], a2_previous[1] = a2[1];
                    }
                } else {
#pragma unroll
                    for (int q = 0; q < kPairs; ++q)
#pragma unroll
                        for (int kh = 0; kh < 3; ++kh) {  // input rows 4q + kh, 4q + 2 + kh
                            uint32_t a01[4], a2[2];
                            const int line = (4 * q + kh) * kInPositions;
                            ldmatrix_x4(a01, stage + swizzled(line + line01, warp));
                            ldmatrix_x2(a2, stage + swizzled(line + line2, warp));
#pragma unroll
                            for (int kd = 0; kd < 3; ++kd) {
                                float(&out)[4] = acc[(u - kd + 6) % 3][q];
                                mc::Mma16x8x16<T>::run(out, a01, b01[kd][kh][0], b01[kd][kh][1]);
                                Mma16x8x8<T>::run(out, a2, b2[kd][kh]);
                            }
                        }
                }
            }
            if (j >= 2) {  // output j - 2 is whole: into its tile
                const int done = (u + 1) % 3;
                const uint32_t tile = tiles + ((j - 2) % kTiles) * kTileBytes;
#pragma unroll
                for (int q = 0; q < kPairs; q += 2) {
                    uint32_t packed[4];
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const float(&v)[4] = acc[done][q + e];
                        packed[2 * e] = mc::pack(T(activate_to<kSilu, T>(v[0])), T(activate_to<kSilu, T>(v[1])));
                        packed[2 * e + 1] = mc::pack(T(activate_to<kSilu, T>(v[2])), T(activate_to<kSilu, T>(v[3])));
                    }
                    stmatrix_x4(tile + 2 * q * kPositions * kLine + store_offset, packed);
                }
            }
            // A block barrier ends each period of kPeriod planes (and the last plane): then
            // the period's stages are free for the next boxes and its outputs' tiles whole.
            const bool period_end = kPeriod == 1 || u % 2 == 1;
            if (period_end || j + 1 == planes) {
                tma::fence_shared_for_async();  // this thread's tiles since the last barrier
                // The tiles that the next period writes: the stores that last read them (two
                // barriers back at kPeriod 1, the last barrier's two at 2) are done reading.
                if (threadIdx.x == 0) tma::wait_stores_read<kPeriod == 1 ? 1 : 0>();
                __syncthreads();
                if (threadIdx.x == 0) {
                    if (kPeriod == 2 && period_end && j >= 3)
                        tma::store_tile5(&y_map, c0, w0, h0, od0 + j - 3, n, tiles + ((j - 3) % kTiles) * kTileBytes);
                    if (j >= 2)
                        tma::store_tile5(&y_map, c0, w0, h0, od0 + j - 2, n, tiles + ((j - 2) % kTiles) * kTileBytes);
                    if (kPeriod == 2 && period_end && j - 1 + kStages < planes)
                        issue_plane(j - 1 + kStages, (j - 1) % kStages);
                    if (j + kStages < planes) issue_plane(j + kStages, s);
                }
            }
        }
    }
    // The last stores have read their tiles (their writes complete with the grid).
    if (threadIdx.x == 0) tma::wait_stores_read<0>();
#else
    (void)w, (void)bias, (void)p, (void)g, (void)x_map, (void)f_map, (void)y_map;
#endif
}

template <typename T, bool kSilu, int kStride>
hipconv_status_t launch_kernel(const hipconv_conv3d_params &p, const DiagonalGeometry &g, int64_t blocks,
                               const CUtensorMap &x_map, const CUtensorMap &f_map, const CUtensorMap &y_map,
                               hipStream_t stream) {
    static std::atomic<int64_t> shared_granted[kMaxCachedDevices];
    constexpr int kSharedBytes = DiagonalTile<kStride>::kSharedBytes;
    auto kernel = conv3d_depthwise_diagonal_kernel<T, kSilu, kStride>;
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, kSharedBytes, shared_granted));
    return launch_chained(kernel, dim3((unsigned)blocks), dim3(kThreads), kSharedBytes, stream,
                          static_cast<const T *>(p.w), static_cast<const T *>(p.bias), p, g, x_map, f_map, y_map);
}

// The kernel at spatial stride kStride, where TMA takes x, y and the frames; false,
// launching nothing, where it does not.
template <typename T, int kStride>
bool launch_stride(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t *status) {
    using Tile = DiagonalTile<kStride>;
    constexpr bool kBf16 = std::is_same<T, hipconv_bf16>::value;
    CUtensorMap x_map{}, f_map{}, y_map{};
    if (!tma::encode_channels_last_map(&x_map, p.x, kBf16, p.batch, p.cin, p.in, p.x_stride,
                                       {kChannels, Tile::kInPositions, Tile::kInRows, 1}, kSwizzle) ||
        !tma::encode_channels_last_map(&y_map, p.y, kBf16, p.batch, p.cout, p.out, p.y_stride,
                                       {kChannels, kPositions, Tile::kRows, 1}, kSwizzle))
        return false;
    if (p.initial_frames != nullptr) {
        const int frame_dims[3] = {p.pad[0], p.in[1], p.in[2]};
        if (p.pad[0] == 0 || !tma::encode_channels_last_map(&f_map, p.initial_frames, kBf16, p.batch, p.cin, frame_dims,
                                                            p.initial_stride,
                                                            {kChannels, Tile::kInPositions, Tile::kInRows, 1},
                                                            kSwizzle))
            return false;
    }
    DiagonalGeometry g{};
    g.c_blocks = (int)ceil_div(p.cin, kChannels);
    g.w_tiles = (int)ceil_div(p.out[2], kPositions);
    g.h_tiles = (int)ceil_div(p.out[1], Tile::kRows);
    g.out_d = p.out[0];
    for (int a = 0; a < 3; ++a) g.pad[a] = p.pad[a];
    g.frames = p.initial_frames != nullptr;
    hipError_t err = hipSuccess;
    const int64_t per_chunk = (int64_t)p.batch * g.c_blocks * g.w_tiles * g.h_tiles;
    const int chunks = depthwise_toeplitz::depth_chunks(p.out[0], per_chunk, &g.depth_chunk, &err);
    const int64_t blocks = per_chunk * chunks;
    if (err == hipSuccess && blocks >= (int64_t(1) << 31)) return false;  // past the grid's x range
    if (err != hipSuccess) {
        *status = (hipconv_status_t)err;
        return true;
    }
    *status = p.silu != 0 ? launch_kernel<T, true, kStride>(p, g, blocks, x_map, f_map, y_map, stream)
                          : launch_kernel<T, false, kStride>(p, g, blocks, x_map, f_map, y_map, stream);
    return true;
}

}  // namespace

// Launches the diagonal-operand kernel where it applies (an sm_90 device and build; T f16
// or bf16; 3x3x3, dilation 1, stride 1 in depth and 1 or 2 on both h and w; x, y and the
// frames channels-last with 16-byte aligned positions that TMA takes) and sets *status;
// returns false, launching nothing, elsewhere.
template <typename T>
bool launch_conv3d_depthwise_diagonal(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t *status) {
    const bool taps3 = p.kernel[0] == 3 && p.kernel[1] == 3 && p.kernel[2] == 3;
    const bool dense = p.dilation[0] == 1 && p.dilation[1] == 1 && p.dilation[2] == 1;
    const int spatial = p.stride[1];
    const bool strides = p.stride[0] == 1 && p.stride[2] == spatial && (spatial == 1 || spatial == 2);
    if (!(taps3 && dense && strides && conv3d::tma_allowed() && conv3d::device_runs_sm90a())) return false;
    return spatial == 1 ? launch_stride<T, 1>(p, stream, status) : launch_stride<T, 2>(p, stream, status);
}

template bool launch_conv3d_depthwise_diagonal<__half>(const hipconv_conv3d_params &, hipStream_t,
                                                      hipconv_status_t *);
template bool launch_conv3d_depthwise_diagonal<hipconv_bf16>(const hipconv_conv3d_params &, hipStream_t,
                                                            hipconv_status_t *);

}  // namespace hipconv

#endif  // HIPCONV_PLATFORM_NVIDIA
