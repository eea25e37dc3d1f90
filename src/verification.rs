//! What every op family's host verification (feature `verify_host`) reports: exact
//! element-by-element comparisons of the GPU's intermediate buffers with the host's, and
//! an output against an f64 reference.

use crate::element::Element;
use crate::testing::{error_stats, tolerance};
use std::fmt;

/// Elements that differ between the GPU's buffer and the host's, out of `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MismatchCount {
    pub mismatches: usize,
    pub total: usize,
}

impl MismatchCount {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

impl fmt::Display for MismatchCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed() { "passed" } else { "FAILED" };
        write!(f, "{verdict} ({} mismatches of {})", self.mismatches, self.total)
    }
}

/// The output against an f64 host result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutputCheck {
    pub max_abs_error: f64,
    /// Largest absolute error over the largest reference magnitude.
    pub max_rel_error: f64,
    /// ‖y − ref‖₂ / ‖ref‖₂, the pass criterion.
    pub rel_norm_error: f64,
    pub tolerance: f64,
}

impl OutputCheck {
    pub fn passed(&self) -> bool {
        self.rel_norm_error <= self.tolerance
    }
}

impl fmt::Display for OutputCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "output vs f64 host result: max abs error {:.3e}, max rel error {:.3e}, rel norm error {:.3e} (tolerance {:.0e}): {}",
            self.max_abs_error,
            self.max_rel_error,
            self.rel_norm_error,
            self.tolerance,
            if self.passed() { "valid" } else { "INVALID" }
        )
    }
}

/// Elements of `device` whose bits differ from `host`'s.
pub(crate) fn count_mismatches<T: Element>(device: &[T], host: &[T]) -> MismatchCount {
    let mismatches = device.iter().zip(host).filter(|(d, h)| d.to_bits_u32() != h.to_bits_u32()).count();
    MismatchCount { mismatches, total: host.len() }
}

/// `y` against an f64 reference, judged by the dtype's tolerance.
pub(crate) fn compare_output<T: Element>(y: &[T], reference: &[f64]) -> OutputCheck {
    let stats = error_stats(y, reference);
    OutputCheck {
        max_abs_error: stats.max_abs_error,
        max_rel_error: stats.max_rel_error,
        rel_norm_error: stats.rel_norm_error,
        tolerance: tolerance(T::DTYPE),
    }
}
