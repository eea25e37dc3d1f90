//! Deterministic inputs shared by the examples (each includes this file with `#[path]`).

use hipconv::half::f16;

/// Deterministic inputs in [-1, 1) (never all zero), xorshift from `seed`.
pub fn inputs(len: usize, seed: u64) -> Vec<f16> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f16::from_f32((state >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
        })
        .collect()
}
