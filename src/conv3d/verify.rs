//! Host verification (feature `verify_host`), the seed's ENABLE_HOST_VERIFICATION for
//! conv3d: after a GPU `Im3colGemm` forward, redo im3col on the host and compare the patch
//! matrix element by element with the GPU's (exact match expected), then compare the
//! output with the f64 reference. Not compiled without the feature.

use super::forward::{Conv3d, Frames};
use super::host;
use super::reference::conv3d_f64;
use crate::element::Element;
use crate::error::{Error, Report, Result};
use crate::runtime::{Backend, Buffer, Stream};
use crate::verification::{compare_output, count_mismatches, MismatchCount, OutputCheck};
use std::any::Any;
use std::fmt;

/// What one verified conv3d forward found.
#[derive(Clone, Debug, PartialEq)]
pub struct VerificationReport {
    pub backend: Backend,
    /// The GPU's patch matrix against the host's; `None` unless the forward ran the GPU
    /// `Im3colGemm` pipeline.
    pub im3col: Option<MismatchCount>,
    pub output: OutputCheck,
}

impl VerificationReport {
    pub fn passed(&self) -> bool {
        self.im3col.is_none_or(|c| c.passed()) && self.output.passed()
    }
}

impl Report for VerificationReport {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl fmt::Display for VerificationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.im3col {
            Some(c) => writeln!(f, "im3col patch matrix (GPU vs host): {c}")?,
            None => writeln!(f, "im3col check: not applicable (only the GPU Im3colGemm pipeline has a patch matrix)")?,
        }
        write!(f, "{}", self.output)
    }
}

impl<T: Element> Conv3d<T> {
    /// [`Conv3d::forward`], then the host verification; waits for the stream. Returns the
    /// report, or [`Error::VerificationFailed`] carrying it when a check fails.
    pub fn forward_verified(
        &mut self,
        stream: &Stream,
        x: &Buffer<T>,
        w: &Buffer<T>,
        bias: Option<&Buffer<T>>,
        y: &mut Buffer<T>,
    ) -> Result<VerificationReport> {
        self.forward_chunk(stream, x, w, bias, Frames::default(), y)?;
        let (s, options) = (self.shape(), self.options());
        let (x_host, w_host, y_host) = (x.to_vec(stream)?, w.to_vec(stream)?, y.to_vec(stream)?);
        let bias_host = bias.map(|b| b.to_vec(stream)).transpose()?;
        // Only the GPU pipeline has a patch matrix to check; on the host backend the host
        // im3col is itself the reference.
        let im3col = match self.patches().filter(|_| self.device().is_gpu()) {
            None => None,
            Some(a) => {
                let mut a_host = vec![T::from_f32(0.0); host::patch_len(&s)];
                host::im3col(&s, options.layout, &x_host, None, &mut a_host);
                Some(count_mismatches(&a.to_vec(stream)?, &a_host))
            }
        };
        let reference = conv3d_f64(&s, &options, &x_host, &w_host, bias_host.as_deref(), None);
        let report = VerificationReport {
            backend: self.device().backend(),
            im3col,
            output: compare_output(&y_host, &reference),
        };
        if report.passed() {
            Ok(report)
        } else {
            Err(Error::VerificationFailed { op: "conv3d forward", report: Box::new(report) })
        }
    }
}
