//! Test support shared by every op family's tests, examples and host verification: a
//! seeded RNG with replayable fresh seeds, the error metrics and their per-dtype tolerances,
//! NaN poisoning, and the list of backends a test body runs on ("skipped: no GPU" without
//! one; `HIPCONV_REQUIRE_GPU=1` makes that a failure). The op references themselves stay
//! with their tests, written independently of the library.

use crate::element::{DType, Element};
use crate::runtime::Device;
use std::io::Write;

/// xorshift64*: deterministic per seed, different per test.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [lo, hi] (inclusive).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    /// One of `values`, uniformly (`values` must not be empty).
    pub fn pick<V: Copy>(&mut self, values: &[V]) -> V {
        values[self.range(0, values.len() - 1)]
    }

    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// Random values in ±[1/64, 1): never zero, and products of two stay clear of f16's
    /// subnormals (below 2⁻¹⁴), whose coarse steps would fail a one-output case on its
    /// rounding alone.
    pub fn vec<T: Element>(&mut self, len: usize) -> Vec<T> {
        (0..len)
            .map(|_| {
                let u = self.unit();
                T::from_f32(u.signum() * (1.0 / 64.0 + (63.0 / 64.0) * u.abs()))
            })
            .collect()
    }
}

/// A seed from the clock, printed so that a failure can be replayed with
/// `HIPCONV_TEST_SEED`.
pub fn fresh_seed(test: &str) -> u64 {
    let seed = std::env::var("HIPCONV_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    println!("{test}: HIPCONV_TEST_SEED={seed}");
    seed
}

/// How far an output is from a reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorStats {
    pub max_abs_error: f64,
    /// Largest absolute error over the largest reference magnitude.
    pub max_rel_error: f64,
    /// ‖out − ref‖₂ / ‖ref‖₂, the pass criterion.
    pub rel_norm_error: f64,
}

/// Error statistics of `out` against `reference` (equal lengths); a NaN in `out` makes
/// them infinite.
pub fn error_stats<T: Element>(out: &[T], reference: &[f64]) -> ErrorStats {
    assert_eq!(out.len(), reference.len(), "output and reference lengths");
    let (mut diff2, mut ref2, mut max_abs, mut max_ref) = (0f64, 0f64, 0f64, 0f64);
    for (&o, &r) in out.iter().zip(reference) {
        let d = (o.to_f64() - r).abs();
        let d = if d.is_nan() { f64::INFINITY } else { d };
        diff2 += d * d;
        ref2 += r * r;
        max_abs = max_abs.max(d);
        max_ref = max_ref.max(r.abs());
    }
    let rel = |num: f64, den: f64| {
        if den > 0.0 {
            num / den
        } else if num > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    };
    ErrorStats {
        max_abs_error: max_abs,
        max_rel_error: rel(max_abs, max_ref),
        rel_norm_error: rel(diff2.sqrt(), ref2.sqrt()),
    }
}

/// ‖out − ref‖₂ / ‖ref‖₂; NaN anywhere gives infinity.
pub fn rel_norm_error<T: Element>(out: &[T], reference: &[f64]) -> f64 {
    error_stats(out, reference).rel_norm_error
}

/// The relative-norm error an output of this dtype must stay within.
pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 1e-3,
        DType::BF16 => 1e-2,
        DType::F32 => 1e-5,
    }
}

/// The largest error anywhere, over the reference's largest magnitude, that an output of
/// this dtype may have: a few of its rounding steps at that magnitude (f16 rounds within
/// 4.9e-4 of a value, bf16 within 3.9e-3). One row or tile gone wrong in a large output
/// fails here even where the relative norm error would hide it.
pub fn max_tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 4e-3,
        DType::BF16 => 2e-2,
        DType::F32 => 2e-5,
    }
}

/// Asserts `out` within both of its dtype's tolerances of `reference`: the relative norm
/// error ([`tolerance`]) and the largest error ([`max_tolerance`]). The panic names `what`,
/// both errors and whether a NaN was left. Returns the statistics.
pub fn assert_accurate<T: Element>(out: &[T], reference: &[f64], what: impl std::fmt::Display) -> ErrorStats {
    let stats = error_stats(out, reference);
    let (norm, max) = (tolerance(T::DTYPE), max_tolerance(T::DTYPE));
    assert!(
        stats.rel_norm_error <= norm && stats.max_rel_error <= max,
        "{what}: {:?} rel norm error {:.3e} (tolerance {norm:.0e}), largest error {:.3e} of the largest output \
         (tolerance {max:.0e}); NaN left: {}",
        T::DTYPE,
        stats.rel_norm_error,
        stats.max_rel_error,
        out.iter().any(|v| v.to_f32().is_nan())
    );
    stats
}

/// NaN of each dtype, for poisoning outputs.
pub fn nan<T: Element>() -> T {
    T::from_f32(f32::NAN)
}

/// Writes straight to the process's stderr, past the test harness's capture, so the line
/// is seen in a normal `cargo test` run.
pub fn announce(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn gpu_required() -> bool {
    std::env::var("HIPCONV_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// GPU 0 of the compiled backend, or `None` after printing "skipped: no GPU"; with
/// `HIPCONV_REQUIRE_GPU=1` a missing GPU panics (fails the test) instead.
pub fn gpu_device(test: &str) -> Option<Device> {
    match Device::gpu(0) {
        Ok(device) => Some(device),
        Err(err) if gpu_required() => panic!("{test}: HIPCONV_REQUIRE_GPU=1 but {err}"),
        Err(err) => {
            announce("skipped: no GPU");
            announce(&format!("  ({test}: {err})"));
            None
        }
    }
}

/// Every backend a test body runs on: the host, then the GPU if present.
pub fn devices(test: &str) -> Vec<Device> {
    let mut list = vec![Device::host()];
    list.extend(gpu_device(test));
    list
}
