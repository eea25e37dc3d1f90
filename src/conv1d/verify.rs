//! Host verification (feature `verify_host`), the seed's ENABLE_HOST_VERIFICATION: after a
//! GPU forward, redo transpose + padding + im2col and the weight transform on the host and
//! compare them element by element with the GPU's buffers (exact match expected), then
//! compare the output with an f64 host result. Not compiled without the feature.

use super::forward::CausalConv1d;
use super::host;
use super::pipeline;
use super::reference::causal_conv1d_f64;
use crate::element::Element;
use crate::error::{Error, Report, Result};
use crate::runtime::{Backend, Buffer, Stream};
use crate::verification::{compare_output, count_mismatches};
pub use crate::verification::{MismatchCount, OutputCheck};
use std::any::Any;
use std::fmt;

/// The two preprocessing buffers of the GPU pipeline against the host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreprocessingCheck {
    /// im2col matrix A.
    pub input: MismatchCount,
    /// Dense weight B.
    pub weight: MismatchCount,
}

/// What one verified forward found.
#[derive(Clone, Debug, PartialEq)]
pub struct VerificationReport {
    pub backend: Backend,
    /// `None` unless the forward ran the GPU `Im2colGemm` pipeline.
    pub preprocessing: Option<PreprocessingCheck>,
    pub output: OutputCheck,
}

impl VerificationReport {
    pub fn passed(&self) -> bool {
        self.preprocessing.is_none_or(|p| p.input.passed() && p.weight.passed()) && self.output.passed()
    }
}

impl Report for VerificationReport {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl fmt::Display for VerificationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.preprocessing {
            Some(p) => {
                writeln!(f, "input preprocessing (GPU vs host): {}", p.input)?;
                writeln!(f, "weight preprocessing (GPU vs host): {}", p.weight)?;
            }
            None => writeln!(
                f,
                "preprocessing checks: not applicable (only the GPU Im2colGemm pipeline has preprocessing buffers)"
            )?,
        }
        write!(f, "{}", self.output)
    }
}

impl<T: Element> CausalConv1d<T> {
    /// [`CausalConv1d::forward`], then the host verification; waits for the stream.
    /// Returns the report, or [`Error::VerificationFailed`] carrying it when a check fails.
    pub fn forward_verified(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        y: &mut Buffer<T>,
    ) -> Result<VerificationReport> {
        self.forward(stream, x, w, y)?;
        let s = self.shape();
        let (x_host, w_host, y_host) = (x.to_vec(stream)?, w.to_vec(stream)?, y.to_vec(stream)?);
        // Only the GPU pipeline has preprocessing buffers to check; on the host backend the
        // host transforms are themselves the reference.
        let preprocessing = match self.workspace().filter(|_| self.device().is_gpu()) {
            None => None,
            Some(ws) => {
                let mut a_host = vec![T::from_f32(0.0); pipeline::a_len(&s)];
                let mut b_host = vec![T::from_f32(0.0); pipeline::b_len(&s)];
                host::im2col(&s, &x_host, &mut a_host);
                host::dense_weight(&s, &w_host, &mut b_host);
                Some(PreprocessingCheck {
                    input: count_mismatches(&ws.a.to_vec(stream)?, &a_host),
                    weight: count_mismatches(&ws.b.to_vec(stream)?, &b_host),
                })
            }
        };
        let output = compare_output(&y_host, &causal_conv1d_f64(&s, &self.options(), &x_host, &w_host, None));
        let report = VerificationReport { backend: self.device().backend(), preprocessing, output };
        if report.passed() {
            Ok(report)
        } else {
            Err(Error::VerificationFailed { op: "conv1d forward", report: Box::new(report) })
        }
    }
}
