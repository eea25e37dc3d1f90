/*
 * Dense planes for the NCDHW matrix-core depthwise kernel (depthwise_toeplitz.hip, NVIDIA
 * sm_90, pitch 16, 32 or 64, rows contiguous in x and y). A plane's rows land as they lie in
 * x, in[2] elements a row, by one 1-D bulk copy, and the gapped sequence of
 * depthwise_toeplitz.h stays virtual. In 16-byte chunks (pitch 64, in[2] 56):
 *
 *     virtual:  | lead | r0 c0 .. c6 | gap | r1 c0 .. c6 | gap | ...     8 chunks a row
 *     dense:           | r0 c0 .. c6 | r1 c0 .. c6 | ...                  7 chunks a row
 *
 * A wave's tile windows start at whole virtual rows (tiles 64 chunks apart, kh one row, pitch /
 * 8 dividing 16), so the chunk of its row that a lane's ldmatrix row reads is the same for
 * every tile, kh and plane. dense_lanes() works out once per block where that row lies: in a
 * dense slot (`window`, for tile 0 and kh 0) or, for a gap chunk or the lead, in a zero area
 * (`zero`). Tile t's window at kh is then the lane's pointer plus in[2] * (kh + t * 512 /
 * pitch). Each 8-lane phase reads 8 consecutive virtual chunks: their data chunks are
 * consecutive dense chunks, and the zero chunks sit at the bank quads those leave free, so a
 * phase stays conflict-free.
 *
 * Outputs the same way: output (r, ow) of a dense output tile sits at r * in[2] + ow; a lane's
 * outputs of tile t, half h (acc values 2h, 2h + 1) at `out` + in[2] * (t * 512 + h * 64) /
 * pitch. A lane whose outputs fall in the gap (`out_kept` false) stores nothing.
 */
#pragma once

namespace hipconv {
namespace depthwise_toeplitz {

// The pitch whose planes are dense: rows of 56 elements (the 56 x 56 planes of video and 3-D
// networks). dense_lanes() takes any pitch whose pitch / 8 divides 8 (16, 32, 64); the kernel
// has its steps as constants for this one (as runtime values the extra address arithmetic
// took 30% more instructions a plane; fifty-eighth session).
constexpr int kDensePitch = 64, kDenseRow = kDensePitch - 8, kDenseShift = 3;  // log2(kDensePitch / 8)

struct DenseLanes {
    int window;     // elements from a dense slot's row 0: this lane's ldmatrix row, tile 0, kh 0
    int zero;       // elements into the zero area: where it reads zeros (a gap, or a zero plane)
    bool gap;       // the row is a gap chunk or the lead
    int out;        // elements into a dense output tile: this lane's first output, tile 0, half 0
    bool out_kept;  // its outputs lie in a row, not in the gap
};

// This lane's DenseLanes in wave `wave` (NVIDIA: kTile 128, ldmatrix row l % 8 of block l / 8
// = A rows l % 8 + 8 (l / 8 % 2), chunk l / 16), `shift` = log2(pitch / 8).
__device__ inline DenseLanes dense_lanes(int shift, int wave, int lane) {
    const int chunks = 1 << shift, kept = chunks - 1;  // chunks a virtual row, and of those in the row
    auto row_of = [&](int v) { return ((v + chunks) >> shift) - 1; };  // floor(v / chunks), v >= -chunks
    // Virtual chunk v (from row 0's first chunk; -1 is the lead) as a dense chunk; a gap chunk
    // comes out as the next row's first.
    auto dense_chunk = [&](int v) { return row_of(v) * kept + v - row_of(v) * chunks; };
    const int block = lane / 8, first = wave * 16 + 8 * (block & 1) + block / 2 - 1;  // the phase's chunks
    const int mine = first + lane % 8;
    DenseLanes d;
    d.gap = mine - row_of(mine) * chunks == kept;
    d.window = 8 * dense_chunk(mine);
    // The phase's 8 chunks hold 8 / chunks gaps; its data chunks run from dense_chunk(first),
    // and its gap chunks take the bank quads after them, in order.
    const int gaps = 8 >> shift, gaps_before = row_of(mine) - row_of(first);
    d.zero = 8 * (d.gap ? (dense_chunk(first) + 8 - gaps + gaps_before) & 7 : dense_chunk(mine) & 7);
    // Output pair (2q, 2q + 1) of row g, tile 0, half 0, at pitch-space position q0 (-2: the
    // outputs start two before the window's rows, depthwise_toeplitz.hip).
    const int pitch = 8 * chunks, q0 = wave * 128 - 2 + 8 * (lane / 4) + 2 * (lane % 4);
    const int row = (q0 + pitch) / pitch - 1, column = q0 - row * pitch;
    d.out = row * (pitch - 8) + column;
    d.out_kept = column < pitch - 8;
    return d;
}

}  // namespace depthwise_toeplitz
}  // namespace hipconv
