//! The bench's measurement method, the same for every op family: graph-replay timing,
//! the copy bandwidth rows are compared with, how many rotating input sets a row needs,
//! and filled input buffers.
//!
//! Method (docs/PERFORMANCE.md): each row captures a graph of K forwards that rotate over
//! K separate (x, y) sets, with K chosen so the sets together exceed 3x the L2 cache.
//! So inputs come from memory, not L2, and launch gaps are not timed. The graph is
//! replayed 3 times to warm up, then `--reps` times between CUDA/HIP events. A row
//! reports the median replay time / K. Bytes are the floor every algorithm must move:
//! x read once, y written once, w (and bias) read once. GB/s = bytes / time, and % copy
//! compares that with a device-to-device copy measured in the same run (bytes read +
//! written).

use hipconv::half::f16;
use hipconv::{Buffer, Device, Element, Stream};

/// The most rotating sets a row captures, however small one set is.
const MAX_SETS: usize = 256;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median milliseconds of `reps` timed launches of `run` (after 3 untimed ones), and the minimum.
pub fn time_ms(
    stream: &Stream,
    reps: usize,
    mut run: impl FnMut() -> hipconv::Result<()>,
) -> hipconv::Result<(f64, f64)> {
    for _ in 0..3 {
        run()?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = stream.record_event()?;
        run()?;
        let end = stream.record_event()?;
        times.push(f64::from(start.elapsed_ms(&end)?));
    }
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((median(times), min))
}

/// Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written.
pub fn copy_bandwidth(device: &Device, stream: &Stream, reps: usize) -> hipconv::Result<f64> {
    let len = 1usize << 30; // 1 Gi f16 = 2 GiB each way
    let src = device.alloc::<f16>(len)?;
    let mut dst = device.alloc::<f16>(len)?;
    let (ms, _) = time_ms(stream, reps, || dst.copy_from_buffer(stream, &src))?;
    Ok(2.0 * (len * 2) as f64 / (ms * 1e-3))
}

/// GB/s of `bytes` moved in `median_us`, and that as % of `copy_bandwidth` (bytes/s).
pub fn gbs_and_pct_copy(bytes: usize, median_us: f64, copy_bandwidth: f64) -> (f64, f64) {
    let gbs = bytes as f64 / (median_us * 1e-6) / 1e9;
    (gbs, 100.0 * gbs * 1e9 / copy_bandwidth)
}

/// How many rotating sets of `bytes_per_set` together exceed 3x the L2 cache (at least
/// 3, at most MAX_SETS; an L2 under 50 MiB counts as 50 MiB).
pub fn sets_for(device: &Device, bytes_per_set: usize) -> usize {
    let l2 = device.properties().l2_cache_bytes.max(50 << 20) as usize;
    (3 * l2).div_ceil(bytes_per_set.max(1)).clamp(3, MAX_SETS)
}

/// A buffer of `len` values in [-1, 1), a different pattern for each `seed`.
pub fn filled<T: Element>(device: &Device, stream: &Stream, len: usize, seed: usize) -> hipconv::Result<Buffer<T>> {
    let values: Vec<T> = (0..len).map(|i| T::from_f32((((i + seed) * 7919) % 2003) as f32 / 1001.0 - 1.0)).collect();
    device.upload(stream, &values)
}
