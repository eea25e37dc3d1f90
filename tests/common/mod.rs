//! Shared by the integration tests: the f64 reference (the only one), random inputs,
//! the error metric, and the list of backends to run each test body on.
#![allow(dead_code)]

pub mod sequences;

use hipconv::half::{bf16, f16};
use hipconv::{ConvShape, DType, Device, Element, Layout};
use std::io::Write;

/// xorshift64*: deterministic per seed, different per test.
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

/// A seed from the clock, printed so that a failure can be replayed with HIPCONV_TEST_SEED.
pub fn fresh_seed(test: &str) -> u64 {
    let seed = std::env::var("HIPCONV_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    println!("{test}: HIPCONV_TEST_SEED={seed}");
    seed
}

/// Index of element (b, c, t) of x or y in `layout`.
pub fn index(s: &ConvShape, layout: Layout, b: usize, c: usize, t: usize) -> usize {
    match layout {
        Layout::ChannelFirst => (b * s.dim + c) * s.seqlen + t,
        Layout::ChannelLast => (b * s.seqlen + t) * s.dim + c,
    }
}

/// y[b, c, t] = act(bias[c] + Σ_tap w[c, tap] · x[b, c, t + tap − (width−1)]) in f64, zero
/// history, x and y in `layout`.
pub fn reference_conv<T: Element>(
    s: &ConvShape,
    layout: Layout,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    silu: bool,
) -> Vec<f64> {
    let mut y = vec![0f64; s.x_len()];
    for b in 0..s.batch {
        for c in 0..s.dim {
            for t in 0..s.seqlen {
                let mut acc = bias.map_or(0.0, |bias| bias[c].to_f64());
                for tap in 0..s.width {
                    let tau = t as i64 + tap as i64 - (s.width as i64 - 1);
                    if tau >= 0 {
                        acc += w[c * s.width + tap].to_f64() * x[index(s, layout, b, c, tau as usize)].to_f64();
                    }
                }
                if silu {
                    acc *= 1.0 / (1.0 + (-acc).exp());
                }
                y[index(s, layout, b, c, t)] = acc;
            }
        }
    }
    y
}

/// A[b·seqlen + t, tap·dim + c] = x[b, c, t + tap − (width−1)], zero before the sequence.
pub fn reference_im2col<T: Element>(s: &ConvShape, x: &[T]) -> Vec<T> {
    let k = s.width * s.dim;
    let mut a = vec![T::from_f32(0.0); s.a_len()];
    for b in 0..s.batch {
        for t in 0..s.seqlen {
            for tap in 0..s.width {
                for c in 0..s.dim {
                    let tau = t as i64 + tap as i64 - (s.width as i64 - 1);
                    if tau >= 0 {
                        a[(b * s.seqlen + t) * k + tap * s.dim + c] = x[(b * s.dim + c) * s.seqlen + tau as usize];
                    }
                }
            }
        }
    }
    a
}

/// B[co, tap·dim + ci] = (ci == co) ? w[co, tap] : 0
pub fn reference_dense_weight<T: Element>(s: &ConvShape, w: &[T]) -> Vec<T> {
    let k = s.width * s.dim;
    let mut b = vec![T::from_f32(0.0); s.b_len()];
    for co in 0..s.dim {
        for tap in 0..s.width {
            b[co * k + tap * s.dim + co] = w[co * s.width + tap];
        }
    }
    b
}

/// ‖out − ref‖₂ / ‖ref‖₂; NaN anywhere gives infinity.
pub fn rel_norm_error<T: Element>(out: &[T], reference: &[f64]) -> f64 {
    assert_eq!(out.len(), reference.len());
    let (mut diff2, mut ref2) = (0f64, 0f64);
    for (&o, &r) in out.iter().zip(reference) {
        let o = o.to_f64();
        if o.is_nan() {
            return f64::INFINITY;
        }
        diff2 += (o - r) * (o - r);
        ref2 += r * r;
    }
    if ref2 == 0.0 {
        return if diff2 == 0.0 { 0.0 } else { f64::INFINITY };
    }
    (diff2 / ref2).sqrt()
}

pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 1e-3,
        DType::BF16 => 1e-2,
        DType::F32 => 1e-5,
    }
}

/// NaN of each dtype, for poisoning outputs.
pub fn nan<T: Element>() -> T {
    T::from_f32(f32::NAN)
}

/// Writes straight to the process's stderr, past the test harness's capture, so the
/// line is seen in a normal `cargo test` run.
pub fn announce(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn gpu_required() -> bool {
    std::env::var("HIPCONV_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// GPU 0 of the compiled backend, or None after printing "skipped: no GPU"; with
/// HIPCONV_REQUIRE_GPU=1 a missing GPU fails the test instead.
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

/// Every backend this test body runs on: the host, then the GPU if present.
pub fn devices(test: &str) -> Vec<Device> {
    let mut list = vec![Device::host()];
    list.extend(gpu_device(test));
    list
}

pub fn f16s(values: &[f32]) -> Vec<f16> {
    values.iter().map(|&v| f16::from_f32(v)).collect()
}

pub fn bf16s(values: &[f32]) -> Vec<bf16> {
    values.iter().map(|&v| bf16::from_f32(v)).collect()
}
