//! conv3d test support: an f64 reference on logical NCDHW arrays (written apart from the
//! library's, which works through strides), layout conversions, and the runner that checks
//! one configuration of one algorithm on one device.

use super::{assert_accurate, nan, Rng};
use hipconv::conv3d::{Activation, Conv3d, Frames, Layout, Options, Padding, Shape};
use hipconv::{Buffer, Device, Element, Stream};

/// Front and back padding of each axis, by the rules of `Padding`.
pub fn pads(s: &Shape) -> ([usize; 3], [usize; 3]) {
    match s.padding {
        Padding::Symmetric(p) => (p, p),
        Padding::Causal => {
            let ext = |a: usize| (s.kernel[a] - 1) * s.dilation[a];
            let front = [ext(0), ext(1) / 2, ext(2) / 2];
            (front, [0, ext(1) - front[1], ext(2) - front[2]])
        }
    }
}

/// The output extent, computed here from the padding rules.
pub fn out_extent(s: &Shape) -> [usize; 3] {
    let (front, back) = pads(s);
    [0, 1, 2].map(|a| {
        let padded = s.input[a] + front[a] + back[a];
        let ext = (s.kernel[a] - 1) * s.dilation[a] + 1;
        (padded - ext) / s.stride[a] + 1
    })
}

/// Position of logical (n, c, d, h, w) of a `channels × [D, H, W]` tensor in `layout`.
pub fn index(layout: Layout, channels: usize, e: [usize; 3], [n, c, d, h, w]: [usize; 5]) -> usize {
    let [ed, eh, ew] = e;
    match layout {
        Layout::Ncdhw => (((n * channels + c) * ed + d) * eh + h) * ew + w,
        Layout::Ndhwc => (((n * ed + d) * eh + h) * ew + w) * channels + c,
    }
}

/// Position of logical weight (co, ci, kd, kh, kw) in `layout`'s weight order.
pub fn w_index(s: &Shape, layout: Layout, [co, ci, kd, kh, kw]: [usize; 5]) -> usize {
    let [d, h, w] = s.kernel;
    let cig = s.cin / s.groups;
    match layout {
        Layout::Ncdhw => (((co * cig + ci) * d + kd) * h + kh) * w + kw,
        Layout::Ndhwc => (((co * d + kd) * h + kh) * w + kw) * cig + ci,
    }
}

/// The reference: y in f64, laid out in `layout`. `initial` (the frames before depth 0,
/// `[batch, cin, front depth padding, H, W]` in `layout`) replaces the zero padding there.
pub fn reference<T: Element>(
    s: &Shape,
    layout: Layout,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    initial: Option<&[T]>,
    silu: bool,
) -> Vec<f64> {
    let (front, _) = pads(s);
    let out = out_extent(s);
    let (cig, cog) = (s.cin / s.groups, s.cout / s.groups);
    let frames = [front[0], s.input[1], s.input[2]];
    let mut y = vec![0f64; s.batch * s.cout * out.iter().product::<usize>()];
    for n in 0..s.batch {
        for co in 0..s.cout {
            for od in 0..out[0] {
                for oh in 0..out[1] {
                    for ow in 0..out[2] {
                        let mut acc = bias.map_or(0.0, |b| b[co].to_f64());
                        for ci in 0..cig {
                            let c = (co / cog) * cig + ci;
                            for kd in 0..s.kernel[0] {
                                let id = (od * s.stride[0] + kd * s.dilation[0]) as i64 - front[0] as i64;
                                for kh in 0..s.kernel[1] {
                                    let ih = (oh * s.stride[1] + kh * s.dilation[1]) as i64 - front[1] as i64;
                                    for kw in 0..s.kernel[2] {
                                        let iw = (ow * s.stride[2] + kw * s.dilation[2]) as i64 - front[2] as i64;
                                        let inside_hw =
                                            ih >= 0 && iw >= 0 && ih < s.input[1] as i64 && iw < s.input[2] as i64;
                                        if !inside_hw || id >= s.input[0] as i64 {
                                            continue;
                                        }
                                        let (ih, iw) = (ih as usize, iw as usize);
                                        let v = if id >= 0 {
                                            x[index(layout, s.cin, s.input, [n, c, id as usize, ih, iw])].to_f64()
                                        } else if let Some(f) = initial {
                                            let frame = (front[0] as i64 + id) as usize;
                                            f[index(layout, s.cin, frames, [n, c, frame, ih, iw])].to_f64()
                                        } else {
                                            continue;
                                        };
                                        acc += w[w_index(s, layout, [co, ci, kd, kh, kw])].to_f64() * v;
                                    }
                                }
                            }
                        }
                        if silu {
                            acc /= 1.0 + (-acc).exp();
                        }
                        y[index(layout, s.cout, out, [n, co, od, oh, ow])] = acc;
                    }
                }
            }
        }
    }
    y
}

/// Inputs with values in (−1, 1), never zeros.
pub fn random<T: Element>(rng: &mut Rng, len: usize) -> Vec<T> {
    rng.vec(len)
}

pub fn upload<T: hipconv::Scalar>(device: &Device, stream: &Stream, values: &[T]) -> Buffer<T> {
    device.upload(stream, values).unwrap()
}

/// One forward of `s` with `options` on `device` over the given inputs, y poisoned with NaN
/// first; returns y as the device wrote it.
pub fn run_forward<T: Element>(
    device: &Device,
    s: Shape,
    options: Options,
    x: &[T],
    w: &[T],
    b: Option<&[T]>,
) -> Vec<T> {
    let stream = device.stream().unwrap();
    let out_len = s.batch * s.cout * out_extent(&s).iter().product::<usize>();
    let (xd, wd) = (upload(device, &stream, x), upload(device, &stream, w));
    let bd = b.map(|b| upload(device, &stream, b));
    let mut y = upload(device, &stream, &vec![nan::<T>(); out_len]);
    let mut conv = Conv3d::<T>::new(device, s, options).unwrap_or_else(|e| panic!("{s:?} {options:?}: {e}"));
    conv.forward_chunk(&stream, &xd, &wd, bd.as_ref(), Frames::default(), &mut y)
        .unwrap_or_else(|e| panic!("{s:?} {options:?}: {e}"));
    y.to_vec(&stream).unwrap()
}

/// Runs one forward of `s` with `options` on `device` over fresh random inputs (y poisoned
/// with NaN first) and checks it against the reference; returns the relative norm error.
pub fn check_forward<T: Element>(device: &Device, s: Shape, options: Options, bias: bool, rng: &mut Rng) -> f64 {
    let x: Vec<T> = random(rng, s.x_len());
    let w: Vec<T> = random(rng, s.w_len());
    let b: Vec<T> = random(rng, s.cout);
    let b = bias.then_some(&b[..]);
    let got = run_forward(device, s, options, &x, &w, b);
    let want = reference(&s, options.layout, &x, &w, b, None, options.activation == Activation::Silu);
    let what = format_args!("{} on {} ({s:?} {:?}, bias {bias})", options.algorithm, device.id(), options.layout);
    assert_accurate(&got, &want, what).rel_norm_error
}
