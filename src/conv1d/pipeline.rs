//! The sizes of `Im2colGemm`'s explicit pipeline (the seed's shape of the op): the im2col
//! matrix A, the dense block-diagonal weight B, and the GEMM between them. Only the pipeline
//! and its stage API ([`super::stages`]) need them, so they live here, off [`Shape`].

use super::shape::Shape;
use std::fmt;

/// Elements of the im2col matrix A `[batch·seqlen, width·dim]`.
pub fn a_len(s: &Shape) -> usize {
    s.batch * s.seqlen * s.width * s.dim
}

/// Elements of the dense weight B `[dim, width·dim]`.
pub fn b_len(s: &Shape) -> usize {
    s.dim * s.width * s.dim
}

/// The GEMM a shape becomes in the explicit pipeline.
pub fn gemm_shape(s: &Shape) -> GemmShape {
    let k = s.width * s.dim;
    GemmShape { m: s.batch * s.seqlen, n: s.dim, k, lda: k, ldb: k, ldc: s.dim }
}

/// `C[m, n] = A[m, k] · B[n, k]ᵀ`. `ldc` is the leading dimension of C viewed row-major;
/// the epilogue writes C straight into `y [batch, dim, seqlen]` instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmShape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl fmt::Display for GemmShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m:{},n:{},k:{},lda:{},ldb:{},ldc:{}", self.m, self.n, self.k, self.lda, self.ldb, self.ldc)
    }
}

/// Shape of A for error messages.
pub(crate) fn describe_a(s: &Shape) -> String {
    format!("[batch*seqlen {}, width*dim {}]", s.batch * s.seqlen, s.width * s.dim)
}

/// Shape of B for error messages.
pub(crate) fn describe_b(s: &Shape) -> String {
    format!("[dim {}, width*dim {}]", s.dim, s.width * s.dim)
}
