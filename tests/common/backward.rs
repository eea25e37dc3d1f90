//! The backward's f64 reference, written for the tests apart from the library's (which
//! gathers each gradient from the outputs it touches): the forward with states over each
//! sequence written out whole (its history, then its tokens, `sequences::reference_row`),
//! and its backward by scattering every output's dz onto the inputs and taps it read.
//! Also the runner of one backward call on a device, batch or packed, with NaN-poisoned
//! outputs.

use super::sequences::{download, reference_row, upload};
use super::{assert_accurate, index, nan, rel_norm_error, tolerance, Rng};
use hipconv::conv1d::{
    Activation, BackwardInputs, CausalConv1dBackward, CausalConv1dVarlenBackward, Gradients, Layout, Options,
    ParamGrad, Shape, VarlenShape,
};
use hipconv::half::{bf16, f16};
use hipconv::{DType, Device, Element, Stream};

/// The sequences of one call and where their elements lie: the rows of a batch, or the
/// sequences of a packed batch (`shape` is then `[1, dim, total tokens]`).
#[derive(Clone, Debug)]
pub struct Rows {
    pub shape: Shape,
    /// Per sequence: its batch row, its first token, its length.
    pub seqs: Vec<(usize, usize, usize)>,
    /// The offsets of a packed batch.
    pub cu_seqlens: Option<Vec<i32>>,
}

impl Rows {
    pub fn batch(shape: Shape) -> Rows {
        Rows { shape, seqs: (0..shape.batch).map(|b| (b, 0, shape.seqlen)).collect(), cu_seqlens: None }
    }

    pub fn packed(lengths: &[usize], dim: usize, width: usize) -> Rows {
        let mut cu = vec![0usize];
        lengths.iter().for_each(|&n| cu.push(cu.last().unwrap() + n));
        let seqs = lengths.iter().enumerate().map(|(i, &n)| (0, cu[i], n)).collect();
        let shape = Shape::new(1, dim, *cu.last().unwrap(), width);
        Rows { shape, seqs, cu_seqlens: Some(cu.iter().map(|&v| v as i32).collect()) }
    }

    /// Elements of the states `[rows, dim, width−1]`.
    pub fn state_len(&self) -> usize {
        self.seqs.len() * self.shape.dim * (self.shape.width - 1)
    }

    /// Where token t of channel c of sequence `seq` lies in x.
    pub fn at(&self, layout: Layout, seq: usize, c: usize, t: usize) -> usize {
        let (b, start, _) = self.seqs[seq];
        index(&self.shape, layout, b, c, start + t)
    }
}

/// The inputs of one backward call (host copies). `Inputs<f64>` is what the reference reads.
#[derive(Clone, Debug)]
pub struct Inputs<T> {
    pub x: Vec<T>,
    pub w: Vec<T>,
    pub bias: Option<Vec<T>>,
    pub dy: Vec<T>,
    pub initial: Option<Vec<T>>,
    pub dfinal: Option<Vec<T>>,
}

impl<T: Element> Inputs<T> {
    /// Fresh random inputs for `rows`, with bias and states as `with` says.
    pub fn random(rng: &mut Rng, rows: &Rows, with: With) -> Inputs<T> {
        let s = rows.shape;
        let mut maybe = |on: bool, len: usize| on.then(|| rng.vec(len));
        let (bias, initial, dfinal) =
            (maybe(with.bias, s.dim), maybe(with.initial, rows.state_len()), maybe(with.dfinal, rows.state_len()));
        Inputs { x: rng.vec(s.x_len()), w: rng.vec(s.w_len()), bias, dy: rng.vec(s.x_len()), initial, dfinal }
    }

    pub fn to_f64(&self) -> Inputs<f64> {
        let f = |v: &Vec<T>| v.iter().map(|e| e.to_f64()).collect::<Vec<f64>>();
        Inputs {
            x: f(&self.x),
            w: f(&self.w),
            bias: self.bias.as_ref().map(f),
            dy: f(&self.dy),
            initial: self.initial.as_ref().map(f),
            dfinal: self.dfinal.as_ref().map(f),
        }
    }
}

/// The gradients in f64: dx laid out as x, dweight `[dim, width]`, dbias `[dim]`,
/// dinitial `[rows, dim, width−1]`; and the root sum of squares of the terms each of
/// dweight and dbias sums, the size of such a sum of random signs (see [`assert_close`]).
#[derive(Clone, Debug)]
pub struct Grads {
    pub dx: Vec<f64>,
    pub dweight: Vec<f64>,
    pub dbias: Vec<f64>,
    pub dinitial: Vec<f64>,
    pub dweight_rss: Vec<f64>,
    pub dbias_rss: Vec<f64>,
}

/// Sequence `seq`, channel c: its history (initial states or zeros), then its tokens.
fn history_and_tokens(rows: &Rows, layout: Layout, p: &Inputs<f64>, seq: usize, c: usize) -> (Vec<f64>, Vec<f64>) {
    let history = rows.shape.width - 1;
    let row = (seq * rows.shape.dim + c) * history;
    let h = p.initial.as_ref().map_or(vec![0.0; history], |init| init[row..row + history].to_vec());
    let tokens = (0..rows.seqs[seq].2).map(|t| p.x[rows.at(layout, seq, c, t)]).collect();
    (h, tokens)
}

fn taps(p: &Inputs<f64>, width: usize, c: usize) -> &[f64] {
    &p.w[c * width..(c + 1) * width]
}

/// The forward with states in f64: y laid out as x, and the final states (the last
/// width−1 of each sequence's history and tokens).
pub fn forward(rows: &Rows, layout: Layout, silu: bool, p: &Inputs<f64>) -> (Vec<f64>, Vec<f64>) {
    let (dim, width) = (rows.shape.dim, rows.shape.width);
    let (mut y, mut final_states) = (vec![0.0; rows.shape.x_len()], Vec::with_capacity(rows.state_len()));
    for seq in 0..rows.seqs.len() {
        for c in 0..dim {
            let (h, tokens) = history_and_tokens(rows, layout, p, seq, c);
            let bias = p.bias.as_ref().map_or(0.0, |b| b[c]);
            for (t, v) in reference_row(&h, &tokens, taps(p, width, c), bias, silu).into_iter().enumerate() {
                y[rows.at(layout, seq, c, t)] = v;
            }
            let whole: Vec<f64> = h.into_iter().chain(tokens).collect();
            final_states.extend_from_slice(&whole[whole.len() - (width - 1)..]);
        }
    }
    (y, final_states)
}

/// d silu(z) / dz = σ(z) + z·σ(z)·(1 − σ(z)).
fn silu_slope(z: f64) -> f64 {
    let sigma = (1.0 + (-z).exp()).recip();
    sigma + z * sigma * (1.0 - sigma)
}

/// The backward of [`forward`]: each output t of a sequence spreads dz[t] = dy[t]·act'(z[t])
/// onto the width inputs it read (whole[t..t + width], history included) and onto the taps;
/// dfinal_states adds onto the last width−1 of history and tokens.
pub fn backward(rows: &Rows, layout: Layout, silu: bool, p: &Inputs<f64>) -> Grads {
    let (dim, width, history) = (rows.shape.dim, rows.shape.width, rows.shape.width - 1);
    let mut g = Grads {
        dx: vec![0.0; rows.shape.x_len()],
        dweight: vec![0.0; dim * width],
        dbias: vec![0.0; dim],
        dinitial: vec![0.0; rows.state_len()],
        dweight_rss: vec![0.0; dim * width],
        dbias_rss: vec![0.0; dim],
    };
    for seq in 0..rows.seqs.len() {
        for c in 0..dim {
            let (h, tokens) = history_and_tokens(rows, layout, p, seq, c);
            let bias = p.bias.as_ref().map_or(0.0, |b| b[c]);
            let w = taps(p, width, c);
            let z = reference_row(&h, &tokens, w, bias, false);
            let whole: Vec<f64> = h.iter().chain(&tokens).copied().collect();
            let mut dwhole = vec![0.0; whole.len()];
            for (t, &z) in z.iter().enumerate() {
                let dz = p.dy[rows.at(layout, seq, c, t)] * if silu { silu_slope(z) } else { 1.0 };
                g.dbias[c] += dz;
                g.dbias_rss[c] += dz * dz;
                for (k, &tap) in w.iter().enumerate() {
                    dwhole[t + k] += tap * dz;
                    g.dweight[c * width + k] += whole[t + k] * dz;
                    g.dweight_rss[c * width + k] += (whole[t + k] * dz).powi(2);
                }
            }
            let row = (seq * dim + c) * history;
            if let Some(dfinal) = &p.dfinal {
                let last = dwhole.len() - history;
                dwhole[last..].iter_mut().zip(&dfinal[row..row + history]).for_each(|(d, f)| *d += f);
            }
            g.dinitial[row..row + history].copy_from_slice(&dwhole[..history]);
            for t in 0..tokens.len() {
                g.dx[rows.at(layout, seq, c, t)] = dwhole[history + t];
            }
        }
    }
    g.dweight_rss.iter_mut().chain(&mut g.dbias_rss).for_each(|v| *v = v.sqrt());
    g
}

/// Which optional inputs a call has and which optional outputs it asks for.
#[derive(Clone, Copy, Debug, Default)]
pub struct With {
    pub bias: bool,
    pub initial: bool,
    pub dfinal: bool,
    pub dbias: bool,
    pub dinitial: bool,
    /// dweight and dbias in the element type (`ParamGrad::Native`) instead of fp32.
    pub native: bool,
}

impl With {
    /// Everything, with fp32 parameter gradients.
    pub const ALL: With = With { bias: true, initial: true, dfinal: true, dbias: true, dinitial: true, native: false };

    /// The combination of bit i of `bits` for each flag in the order of the fields.
    pub fn from_bits(bits: u32) -> With {
        let bit = |i: u32| bits >> i & 1 == 1;
        With { bias: bit(0), initial: bit(1), dfinal: bit(2), dbias: bit(3), dinitial: bit(4), native: bit(5) }
    }
}

/// One backward call: its sequences, layout, activation and optional parts.
#[derive(Clone, Debug)]
pub struct Case {
    pub rows: Rows,
    pub layout: Layout,
    pub silu: bool,
    pub with: With,
}

impl Case {
    pub fn options(&self) -> Options {
        let activation = if self.silu { Activation::Silu } else { Activation::Identity };
        Options::default().layout(self.layout).activation(activation)
    }
}

/// What a call wrote (parameter gradients widened to f32; the optional ones where asked for).
#[derive(Clone, Debug, PartialEq)]
pub struct Got<T> {
    pub dx: Vec<T>,
    pub dweight: Vec<f32>,
    pub dbias: Option<Vec<f32>>,
    pub dinitial: Option<Vec<T>>,
}

impl<T: Element> Got<T> {
    /// Bit patterns, for comparing runs.
    pub fn bits(&self) -> Vec<u32> {
        let b = |v: &[T]| v.iter().map(|e| e.to_f32().to_bits()).collect::<Vec<_>>();
        let f = |v: &[f32]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
        let mut all = b(&self.dx);
        all.extend(f(&self.dweight));
        all.extend(self.dbias.as_deref().map(f).unwrap_or_default());
        all.extend(self.dinitial.as_deref().map(b).unwrap_or_default());
        all
    }
}

/// A parameter gradient of `len` NaNs, in fp32 or the element type.
enum ParamBuffer<T: Element> {
    F32(hipconv::Buffer<f32>),
    Native(hipconv::Buffer<T>),
}

impl<T: Element> ParamBuffer<T> {
    fn new(device: &Device, stream: &Stream, len: usize, native: bool) -> Self {
        match native {
            true => ParamBuffer::Native(upload(device, stream, &vec![nan::<T>(); len])),
            false => ParamBuffer::F32(upload(device, stream, &vec![f32::NAN; len])),
        }
    }

    fn grad(&mut self) -> ParamGrad<'_, T> {
        match self {
            ParamBuffer::F32(b) => ParamGrad::F32(b),
            ParamBuffer::Native(b) => ParamGrad::Native(b),
        }
    }

    fn download(&self, stream: &Stream) -> Vec<f32> {
        match self {
            ParamBuffer::F32(b) => download(stream, b),
            ParamBuffer::Native(b) => download(stream, b).iter().map(|v| v.to_f32()).collect(),
        }
    }
}

/// Runs the backward of `case` on `inputs` (batch or packed as `case.rows` says) with every
/// output poisoned with NaN, and downloads what it wrote.
pub fn run<T: Element>(device: &Device, case: &Case, inputs: &Inputs<T>) -> Got<T> {
    let (rows, with) = (&case.rows, case.with);
    let s = rows.shape;
    let stream = device.stream().unwrap();
    let up = |v: &Vec<T>| upload(device, &stream, v);
    let (x, w, dy) = (up(&inputs.x), up(&inputs.w), up(&inputs.dy));
    let (bias, initial, dfinal) =
        (inputs.bias.as_ref().map(up), inputs.initial.as_ref().map(up), inputs.dfinal.as_ref().map(up));
    let mut dx = upload(device, &stream, &vec![nan::<T>(); s.x_len()]);
    let mut dweight = ParamBuffer::<T>::new(device, &stream, s.w_len(), with.native);
    let mut dbias = ParamBuffer::<T>::new(device, &stream, s.dim, with.native);
    let mut dinitial = upload(device, &stream, &vec![nan::<T>(); rows.state_len()]);
    let grads = Gradients {
        dx: &mut dx,
        dweight: dweight.grad(),
        dbias: with.dbias.then(|| dbias.grad()),
        dinitial_states: with.dinitial.then_some(&mut dinitial),
    };
    let inputs = BackwardInputs {
        x: &x,
        w: &w,
        bias: bias.as_ref(),
        dy: &dy,
        initial_states: initial.as_ref(),
        dfinal_states: dfinal.as_ref(),
    };
    match &rows.cu_seqlens {
        None => {
            let mut op = CausalConv1dBackward::<T>::new(device, s, case.options()).unwrap();
            op.backward(&stream, inputs, grads).unwrap();
        }
        Some(cu) => {
            let v = VarlenShape::new(rows.seqs.len(), s.dim, s.seqlen, s.width);
            let mut op = CausalConv1dVarlenBackward::<T>::new(device, v, case.options()).unwrap();
            let cu = upload(device, &stream, cu);
            op.backward(&stream, inputs, &cu, grads).unwrap();
            op.wait_and_check(&stream).unwrap();
        }
    }
    Got {
        dx: download(&stream, &dx),
        dweight: dweight.download(&stream),
        dbias: with.dbias.then(|| dbias.download(&stream)),
        dinitial: with.dinitial.then(|| download(&stream, &dinitial)),
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// The relative-norm error of a sum over batch·seqlen terms accumulated in fp32: relative to
/// the reference, or where its terms cancelled to less than their root sum of squares (what
/// a sum of random signs comes to), to that. Otherwise a channel whose sum cancels by chance
/// (dim 1, thousands of terms) fails fp32's tolerance on the accumulation's rounding alone.
pub fn sum_error(got: &[f32], reference: &[f64], rss: &[f64]) -> f64 {
    let size = norm(reference);
    rel_norm_error(got, reference) * size / size.max(norm(rss))
}

/// Every gradient `got` has within the dtype's tolerance of `reference`: dx and
/// dinitial_states (in the dtype) by relative norm error and largest error
/// (hipconv::testing::assert_accurate), dweight and dbias (fp32 sums) by [`sum_error`].
pub fn assert_close<T: Element>(got: &Got<T>, reference: &Grads, what: &str) {
    let mut outputs = vec![("dx", &got.dx, &reference.dx)];
    if let Some(dinitial) = &got.dinitial {
        outputs.push(("dinitial_states", dinitial, &reference.dinitial));
    }
    for (name, out, want) in outputs {
        assert_accurate(out, want, format_args!("{name}, {what}"));
    }
    let tol = tolerance(T::DTYPE);
    let mut sums = vec![("dweight", sum_error(&got.dweight, &reference.dweight, &reference.dweight_rss))];
    if let Some(dbias) = &got.dbias {
        sums.push(("dbias", sum_error(dbias, &reference.dbias, &reference.dbias_rss)));
    }
    for (name, err) in sums {
        assert!(err <= tol, "{name}: rel error {err:.3e} > {tol:.0e}, {} {what}", T::DTYPE);
    }
}

/// Runs `case` on fresh random inputs and checks it against the reference.
pub fn check<T: Element>(device: &Device, case: &Case, rng: &mut Rng) {
    let inputs = Inputs::<T>::random(rng, &case.rows, case.with);
    let got = run(device, case, &inputs);
    let reference = backward(&case.rows, case.layout, case.silu, &inputs.to_f64());
    assert_close(&got, &reference, &format!("{case:?} on {}", device.id()));
}

/// [`check`] in `dtype`.
pub fn check_dtype(dtype: DType, device: &Device, case: &Case, rng: &mut Rng) {
    match dtype {
        DType::F16 => check::<f16>(device, case, rng),
        DType::BF16 => check::<bf16>(device, case, rng),
        DType::F32 => check::<f32>(device, case, rng),
    }
}

/// Three runs of `case` on the same fresh inputs write the same bits.
pub fn assert_deterministic<T: Element>(device: &Device, case: &Case, rng: &mut Rng) {
    let inputs = Inputs::<T>::random(rng, &case.rows, case.with);
    let first = run(device, case, &inputs).bits();
    for again in 1..3 {
        let bits = run(device, case, &inputs).bits();
        let diff = first.iter().zip(&bits).position(|(a, b)| a != b);
        assert!(diff.is_none(), "run {again} differs at {diff:?}, {} {case:?} on {}", T::DTYPE, device.id());
    }
}

/// [`assert_deterministic`] in `dtype`.
pub fn assert_deterministic_dtype(dtype: DType, device: &Device, case: &Case, rng: &mut Rng) {
    match dtype {
        DType::F16 => assert_deterministic::<f16>(device, case, rng),
        DType::BF16 => assert_deterministic::<bf16>(device, case, rng),
        DType::F32 => assert_deterministic::<f32>(device, case, rng),
    }
}

pub const DTYPES: [DType; 3] = [DType::F16, DType::BF16, DType::F32];
pub const LAYOUTS: [Layout; 2] = [Layout::ChannelFirst, Layout::ChannelLast];
