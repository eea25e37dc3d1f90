//! The backward's arguments: what it reads ([`BackwardInputs`]) and what it writes
//! ([`Gradients`], with [`ParamGrad`] for dweight and dbias), and one call's buffers as the
//! launch layer takes them ([`Call`]).

use crate::conv1d::launch::Packed;
use crate::element::Element;
use crate::runtime::Buffer;

/// What the backward reads: the forward's inputs and the gradient of its outputs.
#[derive(Debug)]
pub struct BackwardInputs<'a, T: Element> {
    /// The forward's input, in the options' layout.
    pub x: &'a Buffer<T>,
    /// `[dim, width]`.
    pub w: &'a Buffer<T>,
    /// `[dim]`, if the forward added one.
    pub bias: Option<&'a Buffer<T>>,
    /// The gradient of the forward's output y, laid out as x.
    pub dy: &'a Buffer<T>,
    /// The forward's initial states `[rows, dim, width−1]` (rows: batch, or the sequences
    /// of a packed batch), if it had them.
    pub initial_states: Option<&'a Buffer<T>>,
    /// The gradient of the forward's final states `[rows, dim, width−1]`: in chunked
    /// training, the next chunk's `dinitial_states`.
    pub dfinal_states: Option<&'a Buffer<T>>,
}

impl<'a, T: Element> BackwardInputs<'a, T> {
    /// x, w, dy; no bias and no states.
    pub fn new(x: &'a Buffer<T>, w: &'a Buffer<T>, dy: &'a Buffer<T>) -> Self {
        BackwardInputs { x, w, bias: None, dy, initial_states: None, dfinal_states: None }
    }

    pub fn bias(self, bias: &'a Buffer<T>) -> Self {
        BackwardInputs { bias: Some(bias), ..self }
    }

    /// The forward's initial states and the gradient of its final states (either may be
    /// absent: zeros).
    pub fn states(self, initial_states: Option<&'a Buffer<T>>, dfinal_states: Option<&'a Buffer<T>>) -> Self {
        BackwardInputs { initial_states, dfinal_states, ..self }
    }
}

/// A parameter gradient (dweight `[dim, width]`, dbias `[dim]`), accumulated in fp32 and
/// returned in fp32 or rounded once to the element type. It is overwritten, not added to.
#[derive(Debug)]
pub enum ParamGrad<'a, T: Element> {
    F32(&'a mut Buffer<f32>),
    /// In the element type of x and w.
    Native(&'a mut Buffer<T>),
}

impl<T: Element> ParamGrad<'_, T> {
    pub(crate) fn len(&self) -> usize {
        match self {
            ParamGrad::F32(b) => b.len(),
            ParamGrad::Native(b) => b.len(),
        }
    }

    pub(crate) fn device(&self) -> crate::runtime::DeviceId {
        match self {
            ParamGrad::F32(b) => b.device(),
            ParamGrad::Native(b) => b.device(),
        }
    }
}

/// What the backward writes. Every buffer is overwritten.
#[derive(Debug)]
pub struct Gradients<'a, T: Element> {
    /// Laid out as x.
    pub dx: &'a mut Buffer<T>,
    /// `[dim, width]`.
    pub dweight: ParamGrad<'a, T>,
    /// `[dim]`; well defined without a bias too (the gradient of a zero bias).
    pub dbias: Option<ParamGrad<'a, T>>,
    /// `[rows, dim, width−1]`; well defined without initial states (those of zero states).
    pub dinitial_states: Option<&'a mut Buffer<T>>,
}

impl<'a, T: Element> Gradients<'a, T> {
    /// dx and an fp32 dweight; no dbias, no state gradient.
    pub fn new(dx: &'a mut Buffer<T>, dweight: &'a mut Buffer<f32>) -> Self {
        Gradients { dx, dweight: ParamGrad::F32(dweight), dbias: None, dinitial_states: None }
    }

    /// An fp32 dbias.
    pub fn dbias(self, dbias: &'a mut Buffer<f32>) -> Self {
        Gradients { dbias: Some(ParamGrad::F32(dbias)), ..self }
    }

    pub fn dinitial_states(self, dinitial_states: &'a mut Buffer<T>) -> Self {
        Gradients { dinitial_states: Some(dinitial_states), ..self }
    }
}

/// One backward call's buffers, and the packed batch's offsets where it is one.
pub(crate) struct Call<'a, 'b, T: Element> {
    pub(crate) inputs: BackwardInputs<'a, T>,
    pub(crate) grads: Gradients<'a, T>,
    pub(crate) packed: Option<Packed<'b>>,
}
