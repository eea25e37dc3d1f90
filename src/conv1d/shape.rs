//! The sizes of conv1d's problems: a forward ([`Shape`]), a decode step against a state
//! cache ([`UpdateShape`]) and a packed variable-length batch ([`VarlenShape`]).

use super::options::Layout;

/// Sizes of one causal conv1d problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub batch: usize,
    pub dim: usize,
    pub seqlen: usize,
    pub width: usize,
}

impl Shape {
    pub fn new(batch: usize, dim: usize, seqlen: usize, width: usize) -> Shape {
        Shape { batch, dim, seqlen, width }
    }

    /// Elements of `x` and of `y`: batch·dim·seqlen.
    pub fn x_len(&self) -> usize {
        self.batch * self.dim * self.seqlen
    }

    /// Elements of `w`: dim·width.
    pub fn w_len(&self) -> usize {
        self.dim * self.width
    }

    /// Element strides `[batch, dim, seqlen]` of x and y in `layout`.
    pub fn strides(&self, layout: Layout) -> [usize; 3] {
        match layout {
            Layout::ChannelFirst => [self.dim * self.seqlen, self.seqlen, 1],
            Layout::ChannelLast => [self.seqlen * self.dim, 1, self.dim],
        }
    }

    /// `FusedGemm`'s history H = 16·⌈(width−1)/16⌉: each output is a dot product of length
    /// K = 16 + H (hip/conv1d/fused_gemm.hip).
    pub fn fused_gemm_history(&self) -> usize {
        16 * (self.width - 1).div_ceil(16)
    }
}

/// Sizes of one decode step and of the state cache it reads and advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UpdateShape {
    pub batch: usize,
    pub dim: usize,
    /// New tokens per row (1 for plain decoding; more for speculative decoding).
    pub seqlen: usize,
    pub width: usize,
    /// Slots of `conv_state [n_slots, dim, state_len]`.
    pub n_slots: usize,
    /// Inputs each slot holds, at least width−1.
    pub state_len: usize,
}

impl UpdateShape {
    /// One slot per row (`n_slots = batch`) of exactly width−1 inputs; see [`UpdateShape::slots`].
    pub fn new(batch: usize, dim: usize, seqlen: usize, width: usize) -> UpdateShape {
        UpdateShape { batch, dim, seqlen, width, n_slots: batch, state_len: width.saturating_sub(1) }
    }

    /// The same step against a cache of `n_slots` slots of `state_len` inputs.
    pub fn slots(self, n_slots: usize, state_len: usize) -> UpdateShape {
        UpdateShape { n_slots, state_len, ..self }
    }

    /// x and y as a forward's shape: `[batch, dim, seqlen]`.
    pub fn conv_shape(&self) -> Shape {
        Shape::new(self.batch, self.dim, self.seqlen, self.width)
    }

    /// Elements of x and y: batch·dim·seqlen.
    pub fn x_len(&self) -> usize {
        self.batch * self.dim * self.seqlen
    }

    /// Elements of w: dim·width.
    pub fn w_len(&self) -> usize {
        self.dim * self.width
    }

    /// Elements of `conv_state`: n_slots·dim·state_len.
    pub fn state_elems(&self) -> usize {
        self.n_slots * self.dim * self.state_len
    }
}

/// Sizes of a packed variable-length batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarlenShape {
    pub n_seqs: usize,
    pub dim: usize,
    /// Tokens of all sequences together: `cu_seqlens[n_seqs]`.
    pub total_tokens: usize,
    pub width: usize,
}

impl VarlenShape {
    pub fn new(n_seqs: usize, dim: usize, total_tokens: usize, width: usize) -> VarlenShape {
        VarlenShape { n_seqs, dim, total_tokens, width }
    }

    /// The packed tensor as a forward's shape: batch 1, seqlen = total tokens.
    pub fn packed(&self) -> Shape {
        Shape::new(1, self.dim, self.total_tokens, self.width)
    }

    /// Elements of x and y: dim·total_tokens.
    pub fn x_len(&self) -> usize {
        self.dim * self.total_tokens
    }

    /// Elements of the initial or final states `[n_seqs, dim, width−1]`.
    pub fn state_elems(&self) -> usize {
        self.n_seqs * self.dim * (self.width - 1)
    }
}
