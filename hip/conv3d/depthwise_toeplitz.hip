/*
 * Depthwise conv3d on the matrix cores, channel-first (NCDHW), f16/bf16: the 3x3x3 taps of
 * one channel as nine Toeplitz products along w (hip/common/toeplitz_tile.h), one per
 * (kd, kh), summed in fp32 by the matrix unit. The vector-unit kernel (depthwise.hip) spends
 * 27 fp32 multiply-adds and ~45 instructions per output and is issue-bound; here a tile of
 * kTile outputs costs 3 window loads and 9 matrix steps per plane.
 *
 *   in   x [batch, C, in[0..2]] by x_stride (w stride 1, rows of 16-byte vectors),
 *        w [C, 1, 3, 3, 3] by w_stride, bias [C] or NULL,
 *        initial_frames [batch, C, pad[0], in[1], in[2]] or NULL (same vector rules, and x's row stride)
 *   out  y [batch, C, out[0..2]] by y_stride (w stride 1, rows of 16-byte vectors)
 *        y[n,c,od,oh,ow] = act(bias[c] + sum t[c,kd,kh,kw] x[n,c,od-pad0+kd,oh-pad1+kh,ow-pad2+kw])
 *
 * A block owns one (n, c), a tile of `rows` output rows and a chunk of output depths. It
 * streams the input planes of its rows through a ring of kSlots plane buffers in shared
 * memory (three planes in flight while one is computed). A slot holds the rows + 2 input
 * rows oh0 - pad1 + r as one flattened sequence, each row followed by a gap of zeros
 * (pitch = in[2] + 8), so that a filter along that sequence is the filter along w of every
 * row with its zero padding:
 *
 *     slot:  | lead 0s | row 0 (ih = oh0-pad1) | 0s | row 1 | 0s | ... | row rows+1 | 0s | tail |
 *              kReach    <------ pitch ------>
 *
 * Output (oh0 + j, ow) sits at e = lead + (j + 1) * pitch + ow + 2 of that sequence; tap
 * (kd, kh, kw) reads input plane od + kd (chunk-relative) at e + (kh - 1) * pitch + kw - 2 -
 * pad2. Tiles of kTile consecutive e (the band shift kReach - 2 - pad2 keeps them 8-aligned)
 * cover the rows; outputs in the gaps are computed and dropped.
 *
 * Depth walk: plane j feeds outputs j, j - 1, j - 2 through taps kd = 0, 1, 2. Planes that are
 * padding zeros (outside x and the frames) at the chunk's ends are neither staged nor
 * multiplied: the walk starts at the first plane with data. Each wave keeps its tiles' three
 * accumulators (a ring by output depth mod 3, counted from that plane; the plane loop is
 * unrolled by 3 so the ring index is a compile-time constant) and the nine bands' operands in registers
 * for the whole item (NVIDIA: built by shuffles from one tap a lane, depthwise_lane_taps;
 * AMD: read from shared memory once, after the block builds them). Per tile
 * it loads the plane's window once per kh and multiplies it by the three kd bands; the
 * product that starts output j (plane j, kh 0, kd 0) takes the bias as its addend. After
 * plane j, output j - 2 is complete: activated and rounded into output tile (j - 2) % 3
 * (% 2 without TMA: output_tiles), where output (oh0 + r, ow) sits at kOutLead + r * pitch
 * + ow (rows of pitch elements, the gap outputs after each row, the first row 128-byte
 * aligned). After the next plane's barrier the tile goes to y: on sm_90 as one TMA store of
 * a box of rows x pitch elements by the last wave's lane 0 (the gap columns lie outside y's
 * map and are clipped), elsewhere in 16-byte row stores by every thread. Rows of 56
 * outputs at pitch 64 with TMA (the 56 x 56 planes of video and 3-D networks) take dense
 * output tiles instead: output (r, ow) at kOutLead + r * 56 + ow, where a lane's outputs
 * keep their column in every tile, and the rows go out as they lie in y, one 1-D bulk
 * store a tile; there a plane barrier comes every two planes (five slots, four output
 * tiles). At the bench's row: 12.5% fewer L2 write sectors and 91.2-91.5 against
 * 92.6-92.7 us (f16; sixtieth session).
 *   window (kh = 1) of tile t:  slot + f0 - kReach, f0 = lead + pitch + t * kTile
 *   kh = 0 / 2: one pitch before / after
 * Where x's rows are those 56 elements, contiguous, and every plane of the walk is in x or
 * the frames, the slots are dense instead (bulk reads): the staged rows as they lie in x,
 * one 1-D bulk copy a plane, with the same tiles, band and outputs. The window's 16-byte
 * chunks are addressed per lane (ldmatrix), and the two of each row's 8 blocks that lie
 * outside the row (w -8..-1 and 56..63) come from a slot of zeros at the same offset:
 *
 *     dense slot:   | lead | row 0 (56) | row 1 (56) | ... | row rows+1 | ... |
 *     block jb of a row (outputs w 8 jb - 2 .. 8 jb + 5): chunks w 8 jb - 8 .. 8 jb + 7,
 *     jb 0's first and jb 7's second from the slot of zeros (the ring's slot kRing)
 *
 * At the bench's row: L2 read sectors 6.96 -> 5.89 M, DRAM reads 155.9 -> 154.2 MB (x is
 * 154.1), time level alone; with the per-plane bookkeeping trimmed (the slots' phases by
 * laps, compile-time slot sizes, each lane's shared addresses kept in registers) 90.7-91.5
 * against 91.4-91.6 us f16 and 94.7-95.0 against 96.3-96.8 bf16 with bias and SiLU
 * (sixty-seventh session).
 *
 * Staging. On sm_90 (where the launcher can encode PlaneMaps) lane 0 of wave kWaves - 2 (a
 * wave with the fewest tiles) copies a plane as
 * one TMA box of (rows + 2) x pitch elements into the slot's rows, 128-byte aligned: the
 * pitch - in[2] columns past each row are outside the map and arrive as the gap's zeros,
 * rows and planes outside x as zeros, and the slot's mbarrier counts the bytes (against
 * every thread's cp.async: 3.2-5% faster at the bench's row, 49.7 -> 41.7% of issue
 * slots; docs/PERFORMANCE.md, fifty-second session). An item's first kSlots - 1 boxes go
 * out before its taps are built. The output tiles' TMA stores take the y stores off the
 * computing warps (97.1-97.9 against 100.7-100.9 us at the bench's row, f16; fifty-seventh
 * session): each thread fences its tile writes for the async proxy before the plane
 * barrier, and the storing thread waits there until the store issued two planes earlier
 * has read the tile that the plane is about to write. Elsewhere every thread copies its
 * 16-byte vectors (cp.async on NVIDIA), with addresses worked out once per item (at most
 * kCopies vectors a thread), so that a plane costs a pointer and a predicate per copy.
 *
 * With TMA the block's data planes take the ring's slots in turn across its items, so a
 * slot's mbarrier phase is the parity of the lap (one bit, not a bit a slot).
 *
 * Launch: kThreads threads (NVIDIA 4 warps, five blocks an SM at 96 registers with TMA's
 * staging, four at 128 with the threads' copies; AMD 4 waves of 64); wave w takes tiles w,
 * w + kWaves, ..., kTiles of them (2 or 4, the kernel's instances: the plane's tiles padded
 * to kWaves * kTiles, so no branch separates their matrix steps, except that a wave whose
 * last tile is past the plane's skips it); one block per (n, c, row tile, depth chunk of up
 * to 16), depth chunk fastest (neighbouring chunks share planes in L2). Dynamic shared
 * memory: kSlots input slots, three output tiles (two without TMA; five slots and four
 * tiles with dense tiles) and on AMD the taps operands (39,408 bytes on NVIDIA at the
 * bench's 56 x 56 planes: two row tiles of 28 rows), with TMA after the slots' mbarriers
 * (the ring kRingOffset bytes in). The launch is chained (dependent_launch.h): a block
 * waits for the kernels before it once its shared memory is set up, and it ends once its
 * last stores have read their tiles (91.2 against 91.7 us at the bench's f16 row on an H200
 * in one call, level in another; sixty-fifth session). Without TMA, outputs are
 * written once and the threads' copies read planes once: both go through L2 as
 * evict-first (block_copy.h copy16_once_if, store16_once).
 */
#include <algorithm>

#include "activation.h"
#include "block_copy.h"
#include "compat.h"
#include "dependent_launch.h"
#include "depthwise_toeplitz.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "implicit_gemm.h"
#include "launch.h"
#include "packed.h"
#include "tma.h"

namespace hipconv {

namespace {

using namespace depthwise_toeplitz;

// Block sizes (the kernel's kThreads) in order of preference: the launcher takes the first
// whose block stages at least 4 rows of the plane (or all of them). NVIDIA: 4 warps, four
// blocks an SM (five with TMA), so that one block's matrix steps overlap the others'
// copies at independent plane barriers (against 8 warps and two blocks: 129.4 against
// 130.7 us at the bench's 56 x 56 planes, 125.3-125.8 against 130.3-131.2 with the L2 hints
// of block_copy.h; the two row tiles' halo rows come from L2); 8 warps for wider rows. AMD:
// 4 waves of 64.
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr int kBlockSizes[] = {128, 256};
constexpr int kBlockThreads = 512;  // registers per SM / 128: threads of the blocks an SM holds
// With TMA's staging (sm_90 code) the instances fit 96 registers: five 4-warp blocks an SM
// (101.7-101.9 against 108.5-108.6 us at the bench's row, fifty-third session).
#if HIPCONV_HAS_TMA
constexpr int kBlockThreadsTma = 640;
#else
constexpr int kBlockThreadsTma = kBlockThreads;
#endif
#else
constexpr int kBlockSizes[] = {256};
#endif
constexpr int kSlotBudget = 4352;  // elements per slot (8.5 KiB)

struct Geometry {
    SmallDivisor pitch;        // elements per staged row (in[2] + 8)
    SmallDivisor vectors;      // 16-byte vectors per input row (in[2] / 8)
    SmallDivisor out_vectors;  // 16-byte vectors per output row (out[2] / 8)
    int rows;                  // output rows per block
    int tiles;                 // tiles of kTile outputs that cover them
    int row_tiles;
    int depth_chunk;
    int depth_chunks;
    int slot;        // elements per ring slot (a multiple of kSlotAlign)
    int box_bytes;   // bytes of a plane's TMA box (PlaneMaps): rows + 2 rows of pitch elements
    int out_slot;    // elements per output tile (a multiple of kSlotAlign)
    bool dense;      // dense output tiles (kDensePitch; only where TMA takes the planes)
    bool bulk;       // dense slots, a plane by one 1-D bulk copy (with dense; bulk_slot_elements)
    int64_t items;
};

// Where this build has TMA (sm_90 and newer) and the launcher could encode them, a plane's
// rows come in one box of (rows + 2) x pitch elements at (0, oh0 - pad1, depth, c, n): the
// pitch - in[2] elements past each row lie outside the map and arrive as the gap's zeros, as
// do rows and planes outside x. frames: the same of initial_frames (depths 0 .. pad[0] - 1).
// y: an output tile goes out as one box of rows x pitch elements at (0, oh0, depth, c, n),
// the gap columns and the rows past y clipped.
struct PlaneMaps {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    CUtensorMap x, frames, y;
#endif
};
// Shared memory (128-byte aligned): a TMA mbarrier per slot, then the ring from kRingOffset
// bytes, where each slot's rows (kLead elements in) start 128-byte aligned, TMA's
// destinations; slots are whole multiples of 128 bytes.
constexpr int kSlotAlign = 64;  // elements
constexpr int kRingOffset = 128 - 2 * kLead;
static_assert((kSlots + 1) * 8 <= kRingOffset && kRingOffset % 16 == 0, "the mbarriers before the ring");
// Output (r, ow) of an output tile sits at kOutLead + r * pitch + ow. With TMA the tiles
// start kLead elements before a 128-byte boundary (after the ring's slots), so row 0 is
// 128-byte aligned, the store box's source; without TMA 16-byte aligned, as the copies need.
// The elements before row 0 take the dropped outputs of the first tile's gap.
constexpr int kOutLead = kLead;
// Dense output tiles (Geometry::dense, with TMA): rows of 56 outputs at pitch 64, where a
// lane's outputs keep their column in every tile and half (tiles 2 * kWaves rows apart,
// halves one row). Output (r, ow) sits at kOutLead + r * 56 + ow and the tile's rows, as
// they lie in y, go out as one 1-D bulk store (against a box of rows: 12.5% fewer L2 write
// sectors, the box's 112-byte rows at 16-byte alignment cost 4 sectors each).
constexpr int kDensePitch = 64, kDenseRow = 56;
static_assert(kTile % kDensePitch == 0, "tiles of whole rows at the dense pitch");
// Dense slots (Geometry::bulk: dense tiles, x's rows of 56 contiguous, pad[2] 1, every plane
// of the walk in x or the frames): a slot holds the staged rows as they lie in x, row r at
// kLead + r * 56, so that a plane comes in one 1-D bulk copy (reads by boxes of 112-byte
// rows: 46.7 us at the bench's row, a linear read 36.6; sixty-first session). The tiles
// stay those of the pitch-64 sequence: block b of a tile (A row b) is block jb = b % 8 of
// output row 2 t + b / 8, outputs w 8 jb - 2 .. 8 jb + 5, and its window the two 16-byte
// chunks of input w 8 jb - 8 .. 8 jb + 7 (slot row 2 t + b / 8 + kh). ldmatrix takes each
// lane's chunk address, so the two chunks outside the row (jb 0's first, w -8..-1, and jb
// 7's second, w 56..63: the rows before and after in a dense slot) come from a slot of
// zeros (the ring's slot kRing) at the same offset instead, and the band, the outputs and
// their tiles are the pitch-64 kernel's. The slot rows outside x are zeroed per item.
// Elements of a dense slot (bulk reads) for `tiles` tiles a plane: every window's rows (2 a
// tile, 2 more) and a chunk past them.
__host__ __device__ constexpr int bulk_slot_elements(int tiles) {
    return (kLead + (2 * tiles + 2) * kDenseRow + kRowVec + kSlotAlign - 1) / kSlotAlign * kSlotAlign;
}
// Elements of a dense output tile for `tiles` tiles a plane (the launcher's out_slot where the
// tiles' kTile outputs each cover every row at the dense pitch).
__host__ __device__ constexpr int dense_out_slot_elements(int tiles) {
    return (kOutLead + tiles * kTile + kSlotAlign - 1) / kSlotAlign * kSlotAlign;
}
// Planes between plane barriers: with dense tiles two (a slot more and a tile more, which
// the dense pitch's small slots leave room for at five blocks an SM), elsewhere one.
__host__ __device__ constexpr int barrier_period(bool dense) { return dense ? 2 : 1; }
__host__ __device__ constexpr int ring_slots(bool dense) { return kSlots + barrier_period(dense) - 1; }
// Output tiles, a ring of finished output planes: with TMA's stores three, so that a tile's
// store has a plane's products to read it before the tile is written again (the storing
// thread waits at the barrier for the store two planes back; against two tiles and a wait
// for the last store: -0.3% at the bench's row, fifty-seventh session); with dense tiles four
// (the storing thread waits, at each barrier, for the stores of the previous one); two with
// the threads' stores, which read a tile before the barrier that frees it.
__host__ __device__ constexpr int output_tiles(bool tma, bool dense) { return !tma ? 2 : dense ? 4 : 3; }

// A thread's share of staging one plane and of writing one output plane, worked out once
// per item: copy k moves vector k * kThreads + tid (k even) or (k + 1) * kThreads - 1 - tid
// (k odd: from the last thread down, so the high waves, which skip a padded last tile where
// a plane has one, take more of the copies); kCopies * kThreads covers the staged input
// vectors and the output vectors (the launcher checks).
//   stage:  in_from[k] in an input plane (row * row stride + column, the same in x and in
//           the frames; 0 for a row outside the input, which in_row[k] says is zeros) to
//           slot offset in_to[k] (-1: past the staged rows, no copy);
//   output: out_from[k] in the output tile to out_at[k] in the output plane (-1: none).
// A plane then costs a pointer and a predicate per copy (the launcher checks that plane
// offsets fit 32 bits and that the frames' rows are x's).
constexpr int kCopies = 2;
struct Copies {
    int in_from[kCopies], in_to[kCopies];
    bool in_row[kCopies];
    int out_from[kCopies], out_at[kCopies];
};

#if defined(HIPCONV_PLATFORM_NVIDIA)
// The bits of tap t = lane of channel c, (kd, kh, kw) = (t / 9, t / 3 % 3, t % 3), for lanes
// t < 27; 0 for the others.
template <typename T> __device__ inline uint16_t lane_tap_bits(const hipconv_conv3d_params &p, int c, int lane) {
    return lane < 27 ? reinterpret_cast<const uint16_t *>(
                           p.w)[conv3d::offset(p.w_stride, c, 0, lane / 9, lane / 3 % 3, lane % 3)]
                     : uint16_t(0);
}

// This lane's taps operand of each band (kd, kh), taps[kh][kd][0], from the warp's 27 taps
// (lane_tap: lane t holds tap t) by shuffles, in registers: T(k, n) = tap kw = k - n - shift of
// the band, 0 outside [0, 3); lane (g, q) holds b0 = T(2q, g), T(2q + 1, g) and b1 = T(2q +
// 8, g), T(2q + 9, g) (toeplitz_tile.h). Against the bands built in shared memory by the waves
// (build_taps) and read back after a barrier: 93.4 against 96.3 us at the bench's row with
// the leads-only zeros (fifty-eighth session).
static_assert(Band3::kSteps == 1, "one taps operand a band");
__device__ inline void depthwise_lane_taps(uint2 (&taps)[3][3][1], uint16_t lane_tap, int shift) {
    const int lane = mc::lane_id(), kw0 = 2 * (lane % 4) - lane / 4 - shift;
#pragma unroll
    for (int kh = 0; kh < 3; ++kh)
#pragma unroll
        for (int kd = 0; kd < 3; ++kd) {
            uint32_t t[4];  // T(2q, g), T(2q + 1, g), T(2q + 8, g), T(2q + 9, g)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int kw = kw0 + (i & 1) + 8 * (i >> 1);
                const bool inside = kw >= 0 && kw < 3;
                const uint32_t bits = __shfl_sync(0xffffffffu, (uint32_t)lane_tap, kd * 9 + kh * 3 + (inside ? kw : 0));
                t[i] = inside ? bits : 0u;
            }
            taps[kh][kd][0] = make_uint2(t[0] | t[1] << 16, t[2] | t[3] << 16);
        }
}
#endif

// kTiles tiles per wave (the plane's tiles padded to kWaves * kTiles: no branch between
// them, so their matrix steps interleave).
// kTma: the maps are valid; where this build has TMA, one thread stages each plane as one box
// and another stores each output tile as one box (kBoxThread, kStoreThread), elsewhere every
// thread copies its 16-byte vectors (cp.async on sm_80+) and stores its output vectors.
// kBulk (with kDense): dense slots by bulk copies (Geometry::bulk).
template <typename T, bool kSilu, int kTiles, int kThreads, bool kTma, bool kDense, bool kBulk>
// (AMD: bounded by kThreads only)
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, (kTma ? kBlockThreadsTma : kBlockThreads) / kThreads)
    conv3d_depthwise_toeplitz_kernel(hipconv_conv3d_params p, Geometry g, const HIPCONV_GRID_CONSTANT PlaneMaps maps) {
    constexpr int kWaves = kThreads / HIPCONV_WAVE_SIZE;
#if HIPCONV_HAS_TMA
    constexpr bool kUseTma = kTma;
#else
    constexpr bool kUseTma = false;
#endif
    constexpr bool kDenseTiles = kDense && kUseTma;  // (sm_90 code)
    constexpr bool kBulkReads = kBulk && kDenseTiles;
    // Slot and output tile sizes: compile-time on the bulk path (bulk_slot_elements,
    // the dense output tiles' kWaves * kTiles tiles).
    const int slot_size = kBulkReads ? bulk_slot_elements(kWaves * kTiles) : g.slot;
    const int out_slot = kBulkReads ? dense_out_slot_elements(kWaves * kTiles) : g.out_slot;
    constexpr int kOutTiles = output_tiles(kUseTma, kDenseTiles);
    constexpr int kRing = ring_slots(kDenseTiles), kPeriod = barrier_period(kDenseTiles);
#if HIPCONV_HAS_TMA
    // TMA's requests come from the last two waves, which have the fewest tiles (wave w takes
    // tiles w, w + kWaves, ...): the boxes from wave kWaves - 2's lane 0, the output tiles'
    // stores from wave kWaves - 1's (against thread 0 for both: -1.4% at the bench's row,
    // -2.6% with bf16, bias and SiLU; fifty-seventh session).
    constexpr int kBoxThread = kThreads - 2 * HIPCONV_WAVE_SIZE, kStoreThread = kThreads - HIPCONV_WAVE_SIZE;
#endif
    extern __shared__ __align__(128) uint4 shared_words[];
    uint64_t *const landed = reinterpret_cast<uint64_t *>(shared_words);  // the slots' mbarriers (kUseTma)
    // kRing input planes, then kOutTiles output tiles (from the start without TMA).
    T *ring = reinterpret_cast<T *>(reinterpret_cast<char *>(shared_words) + (kUseTma ? kRingOffset : 0));
    T *out_tiles = ring + (kRing + (kBulkReads ? 1 : 0)) * slot_size;  // (kBulkReads: the slot of zeros before)
    // The output tile of output depth od (chunk-relative), row 0 at kOutLead.
    auto tile_of = [&](int od) { return out_tiles + ((unsigned)od % kOutTiles) * out_slot; };
#if !defined(HIPCONV_PLATFORM_NVIDIA)
    // The taps operands: [band][step][lane] (NVIDIA builds them in registers: depthwise_lane_taps).
    StepTaps<T> *band_slots = reinterpret_cast<StepTaps<T> *>(out_tiles + kOutTiles * out_slot);
#endif
    const int wave = threadIdx.x / HIPCONV_WAVE_SIZE, lane = mc::lane_id();
    // kDenseTiles: this lane's first output (tile 0, half 0) in a dense output tile, and
    // whether its column is in the row (kept) or in the gap.
    const int dense_first = wave * kTile - 2 + output_offset(0);  // >= -2: tile 0, half 0
    const int dense_row = (dense_first + kDensePitch) / kDensePitch - 1;
    const int dense_column = dense_first - dense_row * kDensePitch;
    const bool dense_kept = dense_column < kDenseRow;
    [[maybe_unused]] const int dense_out = dense_row * kDenseRow + dense_column;  // (TMA)
    static_assert(!kDenseTiles || (kOutTiles & (kOutTiles - 1)) == 0, "dense tiles: a ring of 2^k");
    using Frags = WindowFrags<T, Band3::kSteps>;
#if HIPCONV_HAS_TMA
    // kDenseTiles: this lane's first output in output tile 0 as a shared-space address, kept in
    // a register (ptxas would rebuild it from the lane id each plane).
    uint32_t dense_lane = tma::shared_address(out_tiles + kOutLead + dense_out);
    if (kDenseTiles) asm volatile("mov.b32 %0, %0;" : "+r"(dense_lane));
    // kBulkReads: this lane's ldmatrix row (row l % 8 of block l / 8 is A row b = l % 8 + 8
    // ((l / 8) & 1), chunk (l / 8) >> 1) in the slot of a plane: bulk_rows + slot *
    // bulk_slot_bytes, plus the tile's and kh's rows. The lanes of chunks outside the row read
    // the slot of zeros at the same offset (a multiple of 128 bytes away: no bank conflict).
    const int bulk_jb = lane % 8, bulk_chunk = lane / 16;
    const bool bulk_zero = bulk_chunk == 0 ? bulk_jb == 0 : bulk_jb == kDensePitch / 8 - 1;
    const int bulk_a = (2 * wave + (lane / 8) % 2) * kDenseRow + 8 * (bulk_jb - 1 + bulk_chunk);
    const uint32_t bulk_slot_bytes = bulk_zero ? 0u : (uint32_t)(slot_size * (int)sizeof(T));
    const uint32_t bulk_rows = tma::shared_address(ring + (bulk_zero ? kRing * slot_size : 0) + kLead + bulk_a);
#endif

    // Zeros once where no copy writes them. Without TMA every slot whole: the threads' copies
    // write rows, not the gaps or the lead. With TMA the slots' leads only: a box writes whole
    // rows of pitch elements, its gap columns and rows outside x as zeros, and the tail past
    // the staged rows feeds only dropped outputs (zeroing the slots whole cost every block's
    // start 9 shared stores a thread; fifty-eighth session).
    if (kUseTma) {
        constexpr int kLeadVectors = kLead / kRowVec;
        if (threadIdx.x < kRing * kLeadVectors)
            reinterpret_cast<uint4 *>(ring + threadIdx.x / kLeadVectors * slot_size)[threadIdx.x % kLeadVectors] =
                make_uint4(0, 0, 0, 0);
        if (kBulkReads)  // the slot of zeros, whole
            for (int i = threadIdx.x; i < slot_size / kRowVec; i += kThreads)
                reinterpret_cast<uint4 *>(ring + kRing * slot_size)[i] = make_uint4(0, 0, 0, 0);
    } else {
        for (int i = threadIdx.x; i < kSlots * slot_size / kRowVec; i += kThreads)
            reinterpret_cast<uint4 *>(ring)[i] = make_uint4(0, 0, 0, 0);
    }
#if HIPCONV_HAS_TMA
    if (kUseTma) {
        tma::fence_shared_for_async();  // the zeros before the boxes' writes
        if (threadIdx.x == 0) {
            for (int s = 0; s < kRing; ++s) tma::init_barrier(landed + s, 1);
            tma::fence_barrier_init();
        }
    }
    // TMA: the block's data planes take the ring's slots in turn across its items, so the
    // phase to wait for is the lap's parity: ring_slot and ring_lap, the next data plane's.
    int ring_slot = 0;
    uint32_t ring_lap = 0;
    const uint32_t landed_at = tma::shared_address(landed);
#else
    (void)maps, (void)landed;
#endif
    // Chained launch: everything above touches only shared memory; here the kernels before
    // this one in the stream have written x, w, bias and the frames.
    begin_chained_kernel();

    for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
        QuotientRemainder q = divide(item, g.depth_chunks);
        const int od0 = (int)q.remainder * g.depth_chunk;
        q = divide(q.quotient, g.row_tiles);
        const int oh0 = (int)q.remainder * g.rows;
        q = divide(q.quotient, p.cout);
        const int c = (int)q.remainder, n = (int)q.quotient;
        const int depths = min(g.depth_chunk, p.out[0] - od0);
        const int rows = min(g.rows, p.out[1] - oh0);

#if HIPCONV_HAS_TMA
        // The previous item's stores have read its tiles (the tile numbers start again).
        if (kUseTma && threadIdx.x == kStoreThread) tma::wait_stores_read<0>();
#endif
        __syncthreads();  // the previous item's reads of the ring, the tiles and the bands are done
        const int planes = depths + 2;
        // kBulkReads: slot rows bulk_r0 .. bulk_r1 - 1 lie inside x, one bulk copy a plane; the
        // rows before them and after them up to rows + 1 (padding rows) are zeroed in every
        // ring slot here (rows the copies write in other items: fenced for the async proxy,
        // which the next item's barrier orders before its copies).
        const int bulk_r0 = max(0, p.pad[1] - oh0), bulk_r1 = min(rows + 2, p.in[1] - oh0 + p.pad[1]);
        [[maybe_unused]] const int bulk_ih = oh0 - p.pad[1] + bulk_r0;
        [[maybe_unused]] const uint32_t bulk_bytes = (uint32_t)((bulk_r1 - bulk_r0) * kDenseRow * (int)sizeof(T));
        if constexpr (kBulkReads) {
            constexpr int kRowVectors = kDenseRow / kRowVec;
            const int zero_rows = bulk_r0 + rows + 2 - bulk_r1, per_slot = zero_rows * kRowVectors;
            for (int i = threadIdx.x; i < kRing * per_slot; i += kThreads) {
                const int s = i / per_slot, v = i % per_slot, r = v / kRowVectors;
                reinterpret_cast<uint4 *>(ring + s * slot_size + kLead +
                                          (r < bulk_r0 ? r : bulk_r1 + r - bulk_r0) * kDenseRow)[v % kRowVectors] =
                    make_uint4(0, 0, 0, 0);
            }
#if HIPCONV_HAS_TMA
            tma::fence_shared_for_async();
#endif
        }
        // Planes outside x that the frames do not give are zeros. The plane loop starts at the
        // first plane with data (at most plane 2, where output 0 completes; the outputs before
        // it start at the bias), and the planes from end_plane on (past the data, and past the
        // last plane that starts an output: no output then starts at its bias there) take no
        // box, wait or products: at the bench's row 2 of 18 planes (zeros, 11% of the matrix
        // steps; fifty-ninth session).
        const int first_plane = p.initial_frames != nullptr ? 0 : min(max(0, p.pad[0] - od0), 2);
        const int end_plane = min(planes, max(p.in[0] + p.pad[0] - od0, depths));
#if HIPCONV_HAS_TMA
        // Plane j of the chunk (input depth od0 - pad[0] + j) into the ring's slot (ring_slot + j -
        // first_plane) % kRing (the block's data planes take the slots in turn) as one box (or,
        // kBulkReads, one bulk copy) by thread kBoxThread (kUseTma), its bytes counted on the
        // slot's mbarrier.
        auto box = [&](int j) {
            const int id = od0 - p.pad[0] + j, s = (ring_slot + j - first_plane) % kRing;
            if constexpr (kBulkReads) {  // rows bulk_r0 .. bulk_r1 - 1 (the plane is in x or the frames)
                const T *from = id < 0 ? static_cast<const T *>(p.initial_frames) +
                                             conv3d::offset(p.initial_stride, n, c, p.pad[0] + id, bulk_ih, 0)
                                       : static_cast<const T *>(p.x) + conv3d::offset(p.x_stride, n, c, id, bulk_ih, 0);
                tma::arrive_expect_bytes(landed + s, bulk_bytes);
                tma::load_bulk(ring + s * slot_size + kLead + bulk_r0 * kDenseRow, from, bulk_bytes, landed + s);
                return;
            }
            const uint32_t to = (uint32_t)__cvta_generic_to_shared(ring + s * slot_size + kLead);
            const uint32_t bar = (uint32_t)__cvta_generic_to_shared(landed + s);
            tma::arrive_expect_bytes(landed + s, (uint32_t)g.box_bytes);
            const int ih = oh0 - p.pad[1];  // coordinates (w, h, d, c, n)
            if (id < 0 && p.initial_frames != nullptr)
                tma::load_tile5(to, &maps.frames, 0, ih, p.pad[0] + id, c, n, bar);
            else
                tma::load_tile5(to, &maps.x, 0, ih, id, c, n, bar);
        };
        // The item's first planes are on their way while its taps are built.
        if (kUseTma && threadIdx.x == kBoxThread)
            for (int j = first_plane; j < min(first_plane + kRing - kPeriod, end_plane); ++j) box(j);
#endif
#if defined(HIPCONV_PLATFORM_NVIDIA)
        // Lane t < 27 reads tap t of the channel (depthwise_lane_taps builds the operands from them).
        const uint16_t lane_tap = lane_tap_bits<T>(p, c, lane);
#else
        const T *w = static_cast<const T *>(p.w);
        for (int b = wave; b < kBands; b += kWaves)
            build_taps<T, Band3::kSteps>(
                band_slots + b * Band3::kSteps * HIPCONV_WAVE_SIZE,
                DepthwiseBand<T>{w + conv3d::offset(p.w_stride, c, 0, b / 3, b % 3, 0), p.w_stride[4],
                                 Band3::kReach - 2 - p.pad[2]});
#endif
        const float bias = p.bias != nullptr ? to_float(static_cast<const T *>(p.bias)[c]) : 0.f;

        Copies copies;
#pragma unroll
        for (int k = 0; k < kCopies; ++k) {
            const int i = k % 2 == 0 ? k * kThreads + threadIdx.x : (k + 1) * kThreads - 1 - threadIdx.x;
            int v;
            int r = g.vectors.quotient(i, v);
            const int ih = oh0 - p.pad[1] + r;
            copies.in_row[k] = (unsigned)ih < (unsigned)p.in[1];
            copies.in_from[k] = copies.in_row[k] ? ih * (int)p.x_stride[3] + v * kRowVec : 0;
            copies.in_to[k] = i < (rows + 2) * g.vectors.d ? kLead + r * g.pitch.d + v * kRowVec : -1;
            r = g.out_vectors.quotient(i, v);
            copies.out_from[k] = kOutLead + r * g.pitch.d + v * kRowVec;
            copies.out_at[k] = r < rows ? r * (int)p.y_stride[3] + v * kRowVec : -1;
        }
        // Plane j of the chunk (input depth od0 - pad[0] + j) into slot j % kSlots: rows + 2
        // rows of in[2] / 8 vectors; rows and planes outside the input are zeros.
        const T *x_channel = static_cast<const T *>(p.x) + conv3d::offset(p.x_stride, n, c, 0, 0, 0);
        // stage(j) is called for j = first_plane, first_plane + 1, ... in turn: x_plane is plane
        // j's offset in x.
        int64_t x_plane = (int64_t)(od0 - p.pad[0] + first_plane) * p.x_stride[2];
        auto stage = [&](int j) {
#if HIPCONV_HAS_TMA
            if (kUseTma) {
                if (threadIdx.x == kBoxThread && j < end_plane) box(j);
                return;
            }
#endif
            if (j < end_plane) {  // (planes past the data are not read)
                const int id = od0 - p.pad[0] + j;
                // A plane neither in x nor in the frames is zeros (read from x_channel: none).
                bool source = (unsigned)id < (unsigned)p.in[0];
                const T *plane = x_channel + (source ? x_plane : 0);
                if (__builtin_expect(id < 0 && id >= -p.pad[0] && p.initial_frames != nullptr, 0)) {  // rare: a branch
                    plane = static_cast<const T *>(p.initial_frames) +
                            conv3d::offset(p.initial_stride, n, c, p.pad[0] + id, 0, 0);
                    source = true;
                }
                T *slot = ring + (j % kSlots) * slot_size;
#pragma unroll
                for (int k = 0; k < kCopies; ++k)
                    if (copies.in_to[k] >= 0)
                        copy16_once_if(source && copies.in_row[k], plane + copies.in_from[k], slot + copies.in_to[k]);
            }
            x_plane += p.x_stride[2];
            copy_commit();  // an empty stage past the chunk keeps the count uniform
        };
        // The output tile of output plane `od` (chunk-relative) to y: one TMA store by
        // kStoreThread (kUseTma), elsewhere 16-byte stores by every thread.
        T *y_rows = static_cast<T *>(p.y) + conv3d::offset(p.y_stride, n, c, od0, oh0, 0);
        auto write_out = [&](int od) {
#if HIPCONV_HAS_TMA
            if (kDenseTiles) {
                if (threadIdx.x == kStoreThread)
                    tma::store_bulk(y_rows + od * p.y_stride[2], tma::shared_address(tile_of(od) + kOutLead),
                                    (uint32_t)(rows * kDenseRow * (int)sizeof(T)));
                return;
            }
            if (kUseTma) {
                if (threadIdx.x == kStoreThread)
                    tma::store_tile5(&maps.y, 0, oh0, od0 + od, c, n, tma::shared_address(tile_of(od) + kOutLead));
                return;
            }
#endif
            T *y_plane = y_rows + od * p.y_stride[2];
            const T *tile = tile_of(od);
#pragma unroll
            for (int k = 0; k < kCopies; ++k)
                if (copies.out_at[k] >= 0)
                    store16_once(y_plane + copies.out_at[k],
                                 *reinterpret_cast<const uint4 *>(tile + copies.out_from[k]));
        };

#if !defined(HIPCONV_PLATFORM_NVIDIA)
        __syncthreads();  // the bands are in place
#endif
        // The wave's last tile: past the plane's tiles for some waves (the plane is padded to
        // kWaves * kTiles tiles); they skip it.
        const bool last_tile = wave + (kTiles - 1) * kWaves < g.tiles;
        auto computed = [&](int t) { return t < kTiles - 1 || last_tile; };
        StepTaps<T> item_taps[3][3][Band3::kSteps];  // [kh][kd][step]
#if defined(HIPCONV_PLATFORM_NVIDIA)
        depthwise_lane_taps(item_taps, lane_tap, Band3::kReach - 2 - p.pad[2]);
#else
#pragma unroll
        for (int kh = 0; kh < 3; ++kh)
#pragma unroll
            for (int kd = 0; kd < 3; ++kd)
#pragma unroll
                for (int s = 0; s < Band3::kSteps; ++s)
                    item_taps[kh][kd][s] = band_slots[((kd * 3 + kh) * Band3::kSteps + s) * HIPCONV_WAVE_SIZE + lane];
#endif
        if (!kUseTma)  // (the boxes of the first planes are issued above)
            for (int j = first_plane; j < first_plane + kSlots - 1; ++j) stage(j);

        // [tile][output depth - first_plane mod 3]: output j is set to the bias by its first
        // product (plane j, kh 0, kd 0), the matrix step's addend, so no fill follows each
        // output. The two outputs before first_plane start at the bias (outputs -2 and -1, never
        // stored, or outputs whose first planes are zeros).
        TileAcc acc[kTiles][3], bias_acc;
        fill(bias_acc, bias);
#if HIPCONV_HAS_TMA
        // (kBulkReads: the bias quad made opaque, as measured in the sixty-seventh session; ptxas
        // still rebuilds the addend from the uniform bias each plane, but drops it and schedules
        // the instance differently.)
        if (kBulkReads)
#pragma unroll
            for (int i = 0; i < 4; ++i) asm volatile("mov.b32 %0, %1;" : "=f"(bias_acc.v[i]) : "f"(bias));
#endif
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
            for (int r = 0; r < 3; ++r) acc[t][r] = bias_acc;

        // The slot of data plane j (j % kRing without TMA) and, with TMA, the parity of its phase.
#if HIPCONV_HAS_TMA
        int slot = kUseTma ? ring_slot : first_plane % kRing;
        uint32_t lap = ring_lap;
#else
        int slot = first_plane % kRing;
#endif
        for (int j0 = first_plane; j0 < planes; j0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int j = j0 + u;
                if (j >= planes) HIPCONV_DWT_PAST_CHUNK;
                const bool data = j < end_plane;  // (uniform)
#if HIPCONV_HAS_TMA
                if (kUseTma) {
                    if (data) {
                        tma::wait_barrier_at(landed_at + 8 * slot, lap);  // plane j has landed
                    }
                } else
#endif
                    copy_wait<kSlots - 2>();  // plane j has landed
                // A plane barrier every kPeriod planes from first_plane (uniform): after it planes
                // j - kPeriod .. j - 1's slots are free, outputs up to j - 3 are in their tiles and
                // go out, and planes up to j + kRing - 1 are staged.
                if (kPeriod == 1 || ((j - first_plane) & (kPeriod - 1)) == 0) {
#if HIPCONV_HAS_TMA
                    if (kUseTma) {
                        tma::fence_shared_for_async();  // this thread's writes of the outputs to j - 3
                        // The stores issued kPeriod planes back (outputs j - 2 - 2 kPeriod ..) have
                        // read the tiles that outputs j - 2 .. j - 3 + kPeriod take.
                        if (threadIdx.x == kStoreThread) tma::wait_stores_read<kOutTiles - 2 * kPeriod>();
                    }
#endif
                    __syncthreads();  // for every thread
#pragma unroll
                    for (int k = 0; k < kPeriod; ++k) {
                        stage(j + kRing - kPeriod + k);
                        if (j - 2 - kPeriod + k >= 0) write_out(j - 2 - kPeriod + k);
                    }
                }
                const T *window = ring + slot * slot_size + g.pitch.d + wave * kTile;  // tile's f0 - kReach
#if HIPCONV_HAS_TMA
                // (kBulkReads) this lane's row in the slot of plane j
                [[maybe_unused]] const uint32_t bulk_window = bulk_rows + (uint32_t)slot * bulk_slot_bytes;
#endif
                // Tile t (the last one only where it holds outputs: `last_tile`), window kh - 1
                // rows off, times band (kd, kh) into output j - kd: ring slot (u - kd) mod 3;
                // output j starts here (kh 0, kd 0), at its bias.
                auto products = [&](int t, int kh) {
                    Frags frags;
#if HIPCONV_HAS_TMA
                    if constexpr (kBulkReads) {  // tile t's rows 2 kWaves t on, kh rows down
                        static_assert(Band3::kSteps == 1, "one window step");
                        mc::ldmatrix_at(frags.a[0], bulk_window + (2 * kWaves * t + kh) * kDenseRow * (int)sizeof(T));
                    } else
#endif
                        load_window<T, Band3::kSteps>(frags, window + (kh - 1) * g.pitch.d + t * kWaves * kTile);
#pragma unroll
                    for (int kd = 0; kd < 3; ++kd) {
                        TileAcc &out = acc[t][(u - kd + 3) % 3];
                        if (kh == 0 && kd == 0) out = bias_acc;
                        multiply(out, frags, [&](int s) { return item_taps[kh][kd][s]; });
                    }
                };
                // With kh outside, an accumulator's three steps lie a tile loop apart and the TMA
                // instances fit 96 registers (five blocks an SM); the threads' copies keep t
                // outside (kh outside, their kTiles 4 instances spill at 128 registers on sm_90).
                if (data && kUseTma) {
#pragma unroll
                    for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                        for (int t = 0; t < kTiles; ++t)
                            if (computed(t)) products(t, kh);
                } else if (data) {
#pragma unroll
                    for (int t = 0; t < kTiles; ++t)
#pragma unroll
                        for (int kh = 0; kh < 3; ++kh)
                            if (computed(t)) products(t, kh);
                }  // (past the data: zeros, no products)
                const int done = (u + 1) % 3;  // output j - 2 (a constant once unrolled)
                if (j >= 2 && (!kDenseTiles || dense_kept)) {
                    // Into output tile (j - 2) % kOutTiles (pairs of outputs, the first even): output
                    // (oh0 + r, ow) at kOutLead + r * pitch + ow, rows 16-byte aligned; dense tiles at
                    // kOutLead + r * 56 + ow (a lane whose outputs lie in the gap writes none).
                    T *tile = tile_of(j - 2) + kOutLead + wave * kTile - 2 + output_offset(0);  // (!kDenseTiles)
#if HIPCONV_HAS_TMA
                    const uint32_t dense_tile =
                        dense_lane + (uint32_t)(((j - 2) & (kOutTiles - 1)) * out_slot * (int)sizeof(T));
#endif
#pragma unroll
                    for (int t = 0; t < kTiles; ++t)
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            if (!computed(t)) continue;  // only the last t (continue: hipcc unrolls it)
                            const TileAcc &out = acc[t][done];
                            const uint32_t lo = float_to_bits(T(), activate_to<kSilu, T>(acc_value(out, 2 * h)));
                            const uint32_t hi = float_to_bits(T(), activate_to<kSilu, T>(acc_value(out, 2 * h + 1)));
                            constexpr int kHalf = kSecondPair / kDensePitch * kDenseRow;
                            const int at = kDenseTiles ? t * (kWaves * kTile / kDensePitch * kDenseRow) + h * kHalf
                                                  : t * kWaves * kTile + h * kSecondPair;
#if HIPCONV_HAS_TMA
                            if constexpr (kDenseTiles)
                                asm volatile("st.shared.b32 [%0], %1;" ::"r"(dense_tile + at * (int)sizeof(T)),
                                             "r"(lo | hi << 16)
                                             : "memory");
                            else
#endif
                                *reinterpret_cast<uint32_t *>(tile + at) = lo | hi << 16;
                        }
                }
                if (data && ++slot == kRing) {
                    slot = 0;
#if HIPCONV_HAS_TMA
                    lap ^= 1u;
#endif
                }
            }
        }
#if HIPCONV_HAS_TMA
        ring_slot = slot, ring_lap = lap;
        if (kUseTma) tma::fence_shared_for_async();
#endif
        __syncthreads();  // the last output planes are in their tiles
        // Those after the last barrier's: from output jb - 2 (jb: the last barrier's plane). One
        // plane a period leaves output depths - 1 alone (the loop form spills 8 bytes on sm_80).
        if constexpr (kPeriod == 1)
            write_out(depths - 1);
        else
            for (int od = max(first_plane + (planes - 1 - first_plane) / kPeriod * kPeriod - 2, 0); od < depths; ++od)
                write_out(od);
    }
#if HIPCONV_HAS_TMA
    // The last stores have read their tiles before the block ends (their writes complete with
    // the grid, as CUTLASS's epilogues end: the block's slot frees a write's round trip sooner).
    if (kUseTma && threadIdx.x == kStoreThread) tma::wait_stores_read<0>();
#endif
}

template <typename T, bool kSilu, int kTiles, int kThreads, bool kTma, bool kDense, bool kBulk>
hipError_t launch_kernel(const hipconv_conv3d_params &p, const Geometry &g, const PlaneMaps &maps, dim3 grid,
                         int shared_bytes, hipStream_t stream) {
    static std::atomic<int64_t> shared_granted[kMaxCachedDevices];
    auto kernel = conv3d_depthwise_toeplitz_kernel<T, kSilu, kTiles, kThreads, kTma, kDense, kBulk>;
    const hipError_t err = allow_dynamic_shared(kernel, shared_bytes, shared_granted);
    if (err != hipSuccess) return err;
    return (hipError_t)launch_chained(kernel, grid, dim3(kThreads), shared_bytes, stream, p, g, maps);
}

template <typename T, bool kSilu, int kThreads>
hipError_t launch_kernel(const hipconv_conv3d_params &p, const Geometry &g, const PlaneMaps *maps, int tiles_wave,
                         dim3 grid, int shared_bytes, hipStream_t stream) {
    auto launch = [&](auto tiles, auto tma, auto dense, auto bulk) {
        return launch_kernel<T, kSilu, decltype(tiles)::value, kThreads, decltype(tma)::value, decltype(dense)::value,
                             decltype(bulk)::value>(p, g, maps != nullptr ? *maps : PlaneMaps{}, grid, shared_bytes,
                                                    stream);
    };
    auto with_tiles = [&](auto tma, auto dense, auto bulk) {
        return tiles_wave == 2 ? launch(std::integral_constant<int, 2>{}, tma, dense, bulk)
                               : launch(std::integral_constant<int, kMaxTiles>{}, tma, dense, bulk);
    };
#if defined(HIPCONV_PLATFORM_NVIDIA)
    if (g.bulk) return with_tiles(std::true_type{}, std::true_type{}, std::true_type{});  // (dense and maps too)
    if (g.dense) return with_tiles(std::true_type{}, std::true_type{}, std::false_type{});  // (maps too)
    if (maps != nullptr) return with_tiles(std::true_type{}, std::false_type{}, std::false_type{});
#endif
    return with_tiles(std::false_type{}, std::false_type{}, std::false_type{});
}

// The instance of kBlockSizes[kIndex...] that has `threads` threads.
template <typename T, bool kSilu, size_t kIndex = 0>
hipError_t launch_block(const hipconv_conv3d_params &p, const Geometry &g, const PlaneMaps *maps, int threads,
                        int tiles_wave, dim3 grid, int shared_bytes, hipStream_t stream) {
    constexpr int kThreads = kBlockSizes[kIndex];
    if constexpr (kIndex + 1 < sizeof(kBlockSizes) / sizeof(kBlockSizes[0]))
        if (threads != kThreads)
            return launch_block<T, kSilu, kIndex + 1>(p, g, maps, threads, tiles_wave, grid, shared_bytes, stream);
    return launch_kernel<T, kSilu, kThreads>(p, g, maps, tiles_wave, grid, shared_bytes, stream);
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// The maps of x, y and the frames in plane boxes (PlaneMaps), where TMA is allowed and takes
// them (a box of up to 256 x 256 elements, 16-byte strides); false where it does not (the
// threads' copies and stores then).
template <typename T> bool encode_plane_maps(const hipconv_conv3d_params &p, const Geometry &g, PlaneMaps *maps) {
    constexpr bool kBf16 = std::is_same<T, hipconv_bf16>::value;
    const uint32_t box_w = (uint32_t)g.pitch.d, box_h = (uint32_t)g.rows + 2;
    if (!conv3d::tma_allowed() || box_w > 256 || box_h > 256) return false;
    if (!tma::encode_channel_first_rows_map(&maps->x, p.x, kBf16, p.batch, p.cin, p.in, p.x_stride, box_w, box_h) ||
        !tma::encode_channel_first_rows_map(&maps->y, p.y, kBf16, p.batch, p.cout, p.out, p.y_stride, box_w,
                                            (uint32_t)g.rows))
        return false;
    const int frame_dims[3] = {p.pad[0], p.in[1], p.in[2]};
    return p.initial_frames == nullptr ||
           (p.pad[0] > 0 && tma::encode_channel_first_rows_map(&maps->frames, p.initial_frames, kBf16, p.batch, p.cin,
                                                              frame_dims, p.initial_stride, box_w, box_h));
}
#endif

}  // namespace

// Launches the matrix-core kernel where it applies (T f16 or bf16; 3x3x3, stride and
// dilation 1, NCDHW x, frames and y in rows of 16-byte vectors, pad[2] <= 1, planes whose
// rows fit the slots) and sets *status; returns false, launching nothing, elsewhere.
template <typename T>
bool launch_conv3d_depthwise_toeplitz(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t *status) {
    const bool taps3 = p.kernel[0] == 3 && p.kernel[1] == 3 && p.kernel[2] == 3;
    const bool unit = p.stride[0] == 1 && p.stride[1] == 1 && p.stride[2] == 1 && p.dilation[0] == 1 &&
                      p.dilation[1] == 1 && p.dilation[2] == 1;
    const bool y_rows = p.out[2] % kRowVec == 0 && p.y_stride[3] > 0 && conv3d::vectors_along<T>(p.y, p.y_stride, 4);
    const bool rows_of_vectors =
        p.in[2] % kRowVec == 0 && conv3d::vectors_along<T>(p.x, p.x_stride, 4) &&
        (p.initial_frames == nullptr || conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 4));
    const int pitch = p.in[2] + kRowVec;
    // Outputs read input columns -pad[2] .. out[2] + 1 - pad[2]: inside the row or its gap.
    const bool columns = p.pad[2] <= 1 && p.out[2] + 1 - p.pad[2] < pitch;
    // A staged copy's offset in a plane is 32-bit, and one offset serves x and the frames.
    const bool plane_offsets = p.x_stride[3] < (int64_t(1) << 31) &&
                               (int64_t)(p.in[1] - 1) * p.x_stride[3] + p.in[2] < (int64_t(1) << 31) &&
                               (p.initial_frames == nullptr || p.initial_stride[3] == p.x_stride[3]);
    if (!(taps3 && unit && y_rows && rows_of_vectors && columns && plane_offsets) || p.in[2] > kSlotBudget)
        return false;

    Geometry g;
    g.pitch = small_divisor(pitch);
    g.vectors = SmallDivisor{p.in[2] / kRowVec, (float)kRowVec / (float)p.in[2]};
    g.out_vectors = SmallDivisor{p.out[2] / kRowVec, (float)kRowVec / (float)p.out[2]};
    // The most rows that a slot, the waves' tiles, the threads' copies and 32-bit output
    // offsets hold, for the first block size where that is 4 rows or the plane; then as many
    // row tiles as that needs, evened out.
    int threads = 0, rows = 0;
    for (const int block : kBlockSizes) {
        const int waves = block / HIPCONV_WAVE_SIZE;
        auto fits = [&](int r) {
            int tiles = 0;
            return slot_elements(r, pitch, p.out[2], waves, tiles) <= kSlotBudget && tiles <= waves * kMaxTiles &&
                   (r + 2) * (p.in[2] / kRowVec) <= kCopies * block && r * (p.out[2] / kRowVec) <= kCopies * block &&
                   (int64_t)r * p.y_stride[3] < (int64_t(1) << 31);
        };
        rows = p.out[1];
        while (rows > 1 && !fits(rows)) --rows;
        if (fits(rows) && (rows >= 4 || rows == p.out[1])) {
            threads = block;
            break;
        }
    }
    if (threads == 0) return false;
    const int waves = threads / HIPCONV_WAVE_SIZE;
    g.row_tiles = (int)ceil_div(p.out[1], rows);
    g.rows = (int)ceil_div(p.out[1], g.row_tiles);
    int tiles = 0;
    g.slot = (int)ceil_div(slot_elements(g.rows, pitch, p.out[2], waves, tiles), kSlotAlign) * kSlotAlign;
    g.box_bytes = (g.rows + 2) * pitch * (int)sizeof(T);
    g.tiles = tiles;
    g.out_slot = (int)ceil_div(kOutLead + std::max(waves * tiles_per_wave(tiles, waves) * kTile, g.rows * pitch),
                               kSlotAlign) * kSlotAlign;

    hipError_t err = hipSuccess;
    const int64_t per_chunk = (int64_t)p.batch * p.cout * g.row_tiles;
    g.depth_chunks = depth_chunks(p.out[0], per_chunk, &g.depth_chunk, &err);
    if (err != hipSuccess) {
        *status = (hipconv_status_t)err;
        return true;
    }
    g.items = per_chunk * g.depth_chunks;

    const PlaneMaps *boxes = nullptr;  // TMA's maps, where it takes x, y and the frames
#if defined(HIPCONV_PLATFORM_NVIDIA)
    PlaneMaps maps{};
    if (encode_plane_maps<T>(p, g, &maps)) boxes = &maps;
#endif
    // Dense output tiles where TMA takes the planes and the rows are 56 elements at pitch 64,
    // contiguous in y (the maps' 16-byte strides keep the bulk stores aligned).
    g.dense = boxes != nullptr && pitch == kDensePitch && p.out[2] == kDenseRow && p.y_stride[3] == p.out[2];
    // Dense slots too where x's rows (and the frames', whose row stride is x's) are contiguous,
    // the w padding is 1 (the band of the pitch-64 sequence), and every plane that the walk
    // stages is in x or the frames: no plane of zeros at the front (pad[0] <= 2 or frames)
    // or at the back (the last output's first plane, out[0] - 1 - pad[0], inside x).
    g.bulk = g.dense && p.in[2] == kDenseRow && p.pad[2] == 1 && p.pad[1] <= 1 && p.x_stride[3] == kDenseRow &&
             (p.pad[0] <= 2 || p.initial_frames != nullptr) && p.out[0] - p.pad[0] <= p.in[0];
    if (g.bulk) {  // rows for every window of the tiles (2 rows each, and 2 more), and a chunk past them
        g.slot = bulk_slot_elements(waves * tiles_per_wave(tiles, waves));
        g.out_slot = dense_out_slot_elements(waves * tiles_per_wave(tiles, waves));  // (the kernel's constant)
    }
#if defined(HIPCONV_PLATFORM_NVIDIA)
    constexpr int kBandBytes = 0;  // (the taps operands in registers)
#else
    constexpr int kBandBytes = kBands * Band3::kSteps * HIPCONV_WAVE_SIZE * (int)sizeof(StepTaps<T>);
#endif
    const int shared_bytes =
        kRingOffset +
        ((ring_slots(g.dense) + (g.bulk ? 1 : 0)) * g.slot + output_tiles(boxes != nullptr, g.dense) * g.out_slot) *
            (int)sizeof(T) +
        kBandBytes;
    const dim3 grid(grid_blocks(g.items));
    const int tiles_wave = tiles_per_wave(tiles, waves);
    *status = (hipconv_status_t)(
        p.silu != 0 ? launch_block<T, true>(p, g, boxes, threads, tiles_wave, grid, shared_bytes, stream)
                    : launch_block<T, false>(p, g, boxes, threads, tiles_wave, grid, shared_bytes, stream));
    return true;
}

template bool launch_conv3d_depthwise_toeplitz<__half>(const hipconv_conv3d_params &, hipStream_t, hipconv_status_t *);
template bool launch_conv3d_depthwise_toeplitz<hipconv_bf16>(const hipconv_conv3d_params &, hipStream_t,
                                                            hipconv_status_t *);

}  // namespace hipconv
