//! The activations an epilogue applies to `bias + conv` before rounding, shared by every
//! op family.

/// Applied to the fp32 accumulator before the output is rounded to the element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Activation {
    #[default]
    Identity,
    /// `v · sigmoid(v)`.
    Silu,
}

impl Activation {
    /// The activation of an f32 accumulator, as the host backends apply it.
    pub(crate) fn apply(self, acc: f32) -> f32 {
        match self {
            Activation::Silu => acc / (1.0 + (-acc).exp()),
            Activation::Identity => acc,
        }
    }

    /// The same in f64, for references.
    pub(crate) fn apply_f64(self, acc: f64) -> f64 {
        match self {
            Activation::Silu => acc / (1.0 + (-acc).exp()),
            Activation::Identity => acc,
        }
    }

    /// The derivative at an f32 accumulator, as the host backend's backward takes it:
    /// `σ · (1 + v · (1 − σ))` for SiLU.
    pub(crate) fn derivative(self, acc: f32) -> f32 {
        match self {
            Activation::Silu => {
                let sigmoid = 1.0 / (1.0 + (-acc).exp());
                sigmoid * (1.0 + acc * (1.0 - sigmoid))
            }
            Activation::Identity => 1.0,
        }
    }

    /// The derivative at `acc` in f64, for the backward's reference: `σ · (1 + v · (1 − σ))`
    /// for SiLU.
    pub(crate) fn derivative_f64(self, acc: f64) -> f64 {
        match self {
            Activation::Silu => {
                let sigmoid = 1.0 / (1.0 + (-acc).exp());
                sigmoid * (1.0 + acc * (1.0 - sigmoid))
            }
            Activation::Identity => 1.0,
        }
    }

    /// 1 for SiLU, 0 otherwise: the C ABI's `silu` field.
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    pub(crate) fn silu_flag(self) -> i32 {
        i32::from(self == Activation::Silu)
    }
}
