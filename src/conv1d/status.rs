//! conv1d's bad index arguments: checked on the host where the indices are readable there,
//! and otherwise by the kernels that read them, which skip the rows they belong to and keep
//! the first error in the core's device status word (crate::status) with one of the codes
//! below (`HIPCONV_STATUS_*` in hip/include/hipconv/conv1d.h). Both paths give the same
//! `Error::BadIndex`.

use crate::error::{Error, Result};
use crate::runtime::Stream;
use crate::status::DeviceStatus;

/// What an index is measured against, for the error message.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexLimits {
    pub(crate) n_slots: usize,
    pub(crate) total_tokens: usize,
}

// The codes of conv1d.h (HIPCONV_STATUS_*), restated so the host backend raises the same
// errors; gpu.rs asserts that they agree.
pub(crate) const SLOT_OUT_OF_RANGE: i32 = 1;
pub(crate) const NEGATIVE_CACHE_SEQLEN: i32 = 2;
pub(crate) const CU_SEQLENS_START: i32 = 3;
pub(crate) const CU_SEQLENS_DECREASING: i32 = 4;
pub(crate) const CU_SEQLENS_RANGE: i32 = 5;
pub(crate) const CU_SEQLENS_END: i32 = 6;

/// The error for status `code` at `position` with `value`; `on_device` says who found it.
pub(crate) fn index_error(code: i32, position: usize, value: i64, limits: IndexLimits, on_device: bool) -> Error {
    let (arg, expected) = match code {
        SLOT_OUT_OF_RANGE => {
            ("state_indices", format!("a slot below n_slots = {} (or negative for a padding row)", limits.n_slots))
        }
        NEGATIVE_CACHE_SEQLEN => ("cache_seqlens", String::from("a write position of at least 0")),
        CU_SEQLENS_START => ("cu_seqlens", String::from("0: the first sequence starts at token 0")),
        CU_SEQLENS_DECREASING => ("cu_seqlens", String::from("offsets that do not decrease")),
        CU_SEQLENS_RANGE => ("cu_seqlens", format!("an offset in 0..={} (the total tokens)", limits.total_tokens)),
        CU_SEQLENS_END => ("cu_seqlens", format!("the last offset to be the total tokens, {}", limits.total_tokens)),
        other => ("status word", format!("a known status code, not {other}")),
    };
    let found = if on_device {
        "found on the device; the rows it belongs to were skipped"
    } else {
        "found before launch; nothing was written"
    };
    Error::BadIndex { arg, position, value, expected, found }
}

/// Waits for `stream`, then returns the first index error the kernels reported into
/// `status` since the last call, clearing it.
pub(crate) fn wait_and_check(status: &mut DeviceStatus, stream: &Stream, limits: IndexLimits) -> Result<()> {
    match status.wait_and_take(stream)? {
        None => Ok(()),
        Some(report) => Err(index_error(report.code, report.position, report.value, limits, true)),
    }
}

/// The host backend's check of `cu_seqlens` (`n_seqs + 1` offsets into `total_tokens`), in
/// the kernels' order, with their errors.
pub(crate) fn check_cu_seqlens(cu_seqlens: &[i32], limits: IndexLimits) -> Result<()> {
    let total = limits.total_tokens as i64;
    let error = |code, position, value| Err(index_error(code, position, value, limits, false));
    let n_seqs = cu_seqlens.len() - 1;
    for seq in 0..n_seqs {
        let (start, end) = (i64::from(cu_seqlens[seq]), i64::from(cu_seqlens[seq + 1]));
        if seq == 0 && start != 0 {
            return error(CU_SEQLENS_START, 0, start);
        }
        if !(0..=total).contains(&start) {
            return error(CU_SEQLENS_RANGE, seq, start);
        }
        if !(0..=total).contains(&end) {
            return error(CU_SEQLENS_RANGE, seq + 1, end);
        }
        if end < start {
            return error(CU_SEQLENS_DECREASING, seq + 1, end);
        }
        if seq == n_seqs - 1 && end != total {
            return error(CU_SEQLENS_END, seq + 1, end);
        }
    }
    Ok(())
}

/// The host backend's check of a decode update's `state_indices` and `cache_seqlens`.
pub(crate) fn check_update_indices(
    state_indices: Option<&[i32]>,
    cache_seqlens: Option<&[i32]>,
    limits: IndexLimits,
) -> Result<()> {
    let error = |code, position, value| Err(index_error(code, position, value, limits, false));
    let rows = state_indices.or(cache_seqlens).map_or(0, <[i32]>::len);
    for row in 0..rows {
        let slot = state_indices.map_or(row as i64, |s| i64::from(s[row]));
        if slot < 0 {
            continue; // padding row: nothing is read
        }
        if slot >= limits.n_slots as i64 {
            return error(SLOT_OUT_OF_RANGE, row, slot);
        }
        if let Some(&cache) = cache_seqlens.map(|c| &c[row]) {
            if cache < 0 {
                return error(NEGATIVE_CACHE_SEQLEN, row, i64::from(cache));
            }
        }
    }
    Ok(())
}
