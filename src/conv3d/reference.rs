//! An f64 host reference of conv3d, for `verify_host` and the examples. The test suite keeps
//! its own, separately written reference, so that the library is not checked against itself.

use super::options::Options;
use super::shape::Shape;
use crate::element::Element;

/// y in f64, in `options.layout`, with zero padding (or `initial` frames before depth 0):
/// `y[n, co, o] = act(bias[co] + Σ_{ci, kd, kh, kw} w[co, ci, k] · x[n, g·cin_g + ci, o·stride − pad + k·dilation])`.
/// `x`, `w`, `bias` and `initial` must hold `shape.x_len()`, `shape.w_len()`, `cout` and
/// `shape.frames_len()` elements; the shape must have an output.
pub fn conv3d_f64<T: Element>(
    shape: &Shape,
    options: &Options,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    initial: Option<&[T]>,
) -> Vec<f64> {
    let s = shape;
    let layout = options.layout;
    let out = s.output().expect("a shape with an output");
    let (xs, ys, ws, fs) = (s.x_strides(layout), s.y_strides(layout), s.w_strides(layout), s.frames_strides(layout));
    let pad = s.pad_front();
    let at = |st: &[usize; 5], i: [usize; 5]| -> usize { st.iter().zip(i).map(|(a, b)| a * b).sum() };
    let (cin_g, cout_g) = (s.cin_per_group(), s.cout_per_group());
    let mut y = vec![0f64; s.y_len()];
    for n in 0..s.batch {
        for co in 0..s.cout {
            let group = co / cout_g;
            for od in 0..out[0] {
                for oh in 0..out[1] {
                    for ow in 0..out[2] {
                        let o = [od, oh, ow];
                        let mut acc = bias.map_or(0.0, |b| b[co].to_f32() as f64);
                        for ci in 0..cin_g {
                            let c = group * cin_g + ci;
                            for kd in 0..s.kernel[0] {
                                for kh in 0..s.kernel[1] {
                                    for kw in 0..s.kernel[2] {
                                        let k = [kd, kh, kw];
                                        let i: [isize; 3] = [0, 1, 2].map(|a| {
                                            (o[a] * s.stride[a] + k[a] * s.dilation[a]) as isize - pad[a] as isize
                                        });
                                        if i[1] < 0
                                            || i[2] < 0
                                            || i[1] >= s.input[1] as isize
                                            || i[2] >= s.input[2] as isize
                                        {
                                            continue;
                                        }
                                        let (ih, iw) = (i[1] as usize, i[2] as usize);
                                        let v = if i[0] >= s.input[0] as isize {
                                            continue;
                                        } else if i[0] >= 0 {
                                            x[at(&xs, [n, c, i[0] as usize, ih, iw])]
                                        } else {
                                            match initial {
                                                Some(f) if i[0] >= -(pad[0] as isize) => {
                                                    f[at(&fs, [n, c, (pad[0] as isize + i[0]) as usize, ih, iw])]
                                                }
                                                _ => continue,
                                            }
                                        };
                                        acc += w[at(&ws, [co, ci, kd, kh, kw])].to_f32() as f64 * v.to_f32() as f64;
                                    }
                                }
                            }
                        }
                        y[at(&ys, [n, co, od, oh, ow])] = options.activation.apply_f64(acc);
                    }
                }
            }
        }
    }
    y
}
