//! Host parallelism for the host backends of every op family, on rayon's thread pool.

use rayon::prelude::*;

/// Runs `fill(row_index, row)` for every `row_len`-element row of `out`, in parallel.
/// `row_len` must divide `out.len()`.
pub(crate) fn for_each_row<T: Send>(out: &mut [T], row_len: usize, fill: impl Fn(usize, &mut [T]) + Sync + Send) {
    debug_assert!(row_len > 0 && out.len() % row_len == 0, "rows of {row_len} in {}", out.len());
    out.par_chunks_mut(row_len).enumerate().for_each(|(row, slice)| fill(row, slice));
}
