//! One forward call on fresh random inputs, with a NaN-poisoned output, against the f64
//! reference ([`super::reference_conv`]); shared by tests/forward.rs and tests/fuzz_sizes.rs.

use super::{nan, reference_conv, Rng};
use hipconv::conv1d::{Activation, Algorithm, CausalConv1d, Layout, Options, Shape};
use hipconv::{Device, Element};

/// One forward configuration.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub shape: Shape,
    pub options: Options,
    pub bias: bool,
}

impl Case {
    /// `shape` by `algorithm` in `layout`, with bias + SiLU where `epilogue`.
    pub fn new(shape: Shape, algorithm: Algorithm, layout: Layout, epilogue: bool) -> Case {
        let activation = if epilogue { Activation::Silu } else { Activation::Identity };
        let options = Options { algorithm, layout, activation };
        Case { shape, options, bias: epilogue }
    }
}

/// Runs `case` on fresh random inputs with a NaN-poisoned output; returns the output and
/// its f64 reference.
pub fn output<T: Element>(device: &Device, case: Case, rng: &mut Rng) -> (Vec<T>, Vec<f64>) {
    let s = case.shape;
    let stream = device.stream().unwrap();
    let (x_host, w_host, b_host): (Vec<T>, Vec<T>, Vec<T>) = (rng.vec(s.x_len()), rng.vec(s.w_len()), rng.vec(s.dim));
    let x = device.upload(&stream, &x_host).unwrap();
    let w = device.upload(&stream, &w_host).unwrap();
    let bias = device.upload(&stream, &b_host).unwrap();
    let mut y = device.upload(&stream, &vec![nan::<T>(); s.x_len()]).unwrap();
    let mut conv = CausalConv1d::<T>::with_options(device, s, case.options).unwrap();
    match case.bias {
        true => conv.forward_with_bias(&stream, &x, &w, &bias, &mut y).unwrap(),
        false => conv.forward(&stream, &x, &w, &mut y).unwrap(),
    }
    let silu = case.options.activation == Activation::Silu;
    let reference = reference_conv(&s, case.options.layout, &x_host, &w_host, case.bias.then_some(&b_host[..]), silu);
    (y.to_vec(&stream).unwrap(), reference)
}

/// `case` within its dtype's relative norm error and largest error (an element left
/// unwritten fails both).
pub fn assert_accurate<T: Element>(device: &Device, case: Case, rng: &mut Rng) {
    let (got, want) = output::<T>(device, case, rng);
    super::assert_accurate(&got, &want, format_args!("{case:?} on {}", device.id()));
}
