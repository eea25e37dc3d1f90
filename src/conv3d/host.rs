//! The host backend: every algorithm's operations on the CPU, multi-threaded over rows of
//! y, f32 accumulation, results rounded to the element type once. `Im3colGemm` builds the
//! same patch matrix as hip/conv3d/im3col.hip (what `verify_host` compares the GPU's with)
//! and multiplies it; every other algorithm computes the sum directly.

use super::options::{Layout, Options};
use super::shape::Shape;
use crate::element::Element;
use crate::parallel::for_each_row;

/// The operands of a forward on the host, in the options' layout: x, w, optional bias
/// `[cout]` and optional initial frames (the causal history before depth 0).
#[derive(Clone, Copy)]
pub(crate) struct Operands<'a, T> {
    pub(crate) x: &'a [T],
    pub(crate) w: &'a [T],
    pub(crate) bias: Option<&'a [T]>,
    pub(crate) initial: Option<&'a [T]>,
}

/// Where everything of one problem lives: strides of x, y, w and the frames, the padding
/// before index 0, the output extent.
pub(crate) struct Geometry {
    pub(crate) s: Shape,
    pub(crate) out: [usize; 3],
    pub(crate) pad: [usize; 3],
    pub(crate) x_strides: [usize; 5],
    pub(crate) w_strides: [usize; 5],
    pub(crate) frame_strides: [usize; 5],
}

impl Geometry {
    /// For a shape that passed `check::shape` (it has an output).
    pub(crate) fn new(s: &Shape, layout: Layout) -> Geometry {
        Geometry {
            s: *s,
            out: s.output().expect("checked before: the shape has an output"),
            pad: s.pad_front(),
            x_strides: s.x_strides(layout),
            w_strides: s.w_strides(layout),
            frame_strides: s.frames_strides(layout),
        }
    }

    /// The input index tap `k` of output `o` reads on `axis` (negative in the front padding).
    fn input_index(&self, axis: usize, o: usize, k: usize) -> isize {
        (o * self.s.stride[axis] + k * self.s.dilation[axis]) as isize - self.pad[axis] as isize
    }

    /// x[n, c, id, ih, iw] with the padding rules of hip/include/hipconv/conv3d.h: 0 outside,
    /// the initial frames (where given) before depth 0.
    fn input<T: Element>(&self, x: &[T], initial: Option<&[T]>, n: usize, c: usize, [id, ih, iw]: [isize; 3]) -> f32 {
        let [_, h, w] = self.s.input;
        if ih < 0 || iw < 0 || ih as usize >= h || iw as usize >= w || id >= self.s.input[0] as isize {
            return 0.0;
        }
        let (ih, iw) = (ih as usize, iw as usize);
        if id >= 0 {
            return x[offset(&self.x_strides, [n, c, id as usize, ih, iw])].to_f32();
        }
        match initial {
            Some(frames) if id >= -(self.pad[0] as isize) => {
                let frame = (self.pad[0] as isize + id) as usize;
                frames[offset(&self.frame_strides, [n, c, frame, ih, iw])].to_f32()
            }
            _ => 0.0,
        }
    }

    /// The weight's offset of (co, ci, kd, kh, kw).
    fn weight(&self, co: usize, ci: usize, [kd, kh, kw]: [usize; 3]) -> usize {
        offset(&self.w_strides, [co, ci, kd, kh, kw])
    }

    /// Rows of y as the host fills them: NCDHW rows are (n, co, od, oh) along ow; NDHWC rows
    /// are (n, od, oh, ow) along co. `value(n, co, [od, oh, ow])` gives each element.
    fn fill_y<T: Element>(&self, layout: Layout, y: &mut [T], value: impl Fn(usize, usize, [usize; 3]) -> f32 + Sync) {
        let [od, oh, ow] = self.out;
        match layout {
            Layout::Ncdhw => for_each_row(y, ow, |row, out| {
                let (rest, h) = (row / oh, row % oh);
                let (rest, d) = (rest / od, rest % od);
                let (n, co) = (rest / self.s.cout, rest % self.s.cout);
                for (w, o) in out.iter_mut().enumerate() {
                    *o = T::from_f32(value(n, co, [d, h, w]));
                }
            }),
            Layout::Ndhwc => for_each_row(y, self.s.cout, |row, out| {
                let (rest, w) = (row / ow, row % ow);
                let (rest, h) = (rest / oh, rest % oh);
                let (n, d) = (rest / od, rest % od);
                for (co, o) in out.iter_mut().enumerate() {
                    *o = T::from_f32(value(n, co, [d, h, w]));
                }
            }),
        }
    }
}

/// The element offset of an index through per-axis strides.
fn offset(strides: &[usize; 5], index: [usize; 5]) -> usize {
    strides.iter().zip(index).map(|(s, i)| s * i).sum()
}

/// Every tap (kd, kh, kw) of the kernel, depth outermost.
fn taps(kernel: [usize; 3]) -> impl Iterator<Item = [usize; 3]> {
    let [kd, kh, kw] = kernel;
    (0..kd).flat_map(move |d| (0..kh).flat_map(move |h| (0..kw).map(move |w| [d, h, w])))
}

/// `act(bias[co] + acc)`.
fn epilogue<T: Element>(options: &Options, bias: Option<&[T]>, co: usize, acc: f32) -> f32 {
    options.activation.apply(acc + bias.map_or(0.0, |b| b[co].to_f32()))
}

/// The direct forward (every algorithm but `Im3colGemm`):
/// y[n, co, o] = act(bias[co] + Σ_{ci, tap} w[co, ci, tap] · x[n, g·cin_g + ci, o·stride − pad + tap·dilation]).
pub(crate) fn forward_direct<T: Element>(s: &Shape, options: &Options, operands: Operands<'_, T>, y: &mut [T]) {
    let Operands { x, w, bias, initial } = operands;
    let g = Geometry::new(s, options.layout);
    let (cin_g, cout_g) = (s.cin_per_group(), s.cout_per_group());
    let [kd, kh, kw] = s.kernel;
    g.fill_y(options.layout, y, |n, co, o| {
        let c0 = (co / cout_g) * cin_g;
        let mut acc = 0f32;
        for ci in 0..cin_g {
            for a in 0..kd {
                let id = g.input_index(0, o[0], a);
                for b in 0..kh {
                    let ih = g.input_index(1, o[1], b);
                    if ih < 0 || ih as usize >= s.input[1] {
                        continue;
                    }
                    for c in 0..kw {
                        let v = g.input(x, initial, n, c0 + ci, [id, ih, g.input_index(2, o[2], c)]);
                        acc += w[g.weight(co, ci, [a, b, c])].to_f32() * v;
                    }
                }
            }
        }
        epilogue(options, bias, co, acc)
    });
}

/// The patch matrix's leading dimension: `groups · taps`.
pub(crate) fn patch_lda(s: &Shape) -> usize {
    s.groups * s.taps()
}

/// Elements of the patch matrix: output positions × [`patch_lda`].
pub(crate) fn patch_len(s: &Shape) -> usize {
    s.output_positions() * patch_lda(s)
}

/// The patch matrix (hip/include/hipconv/conv3d.h, im3col): row m = ((n·od + d)·oh + h)·ow + w,
/// column g·taps + (the weight's offset of (ci, tap) within its output channel's row), the
/// input element that tap reads (0 in the padding). An exact copy.
pub(crate) fn im3col<T: Element>(s: &Shape, layout: Layout, x: &[T], initial: Option<&[T]>, a: &mut [T]) {
    let g = Geometry::new(s, layout);
    let (cin_g, k_g) = (s.cin_per_group(), s.taps());
    let [od, oh, ow] = g.out;
    for_each_row(a, patch_lda(s), |m, row| {
        let (rest, w) = (m / ow, m % ow);
        let (rest, h) = (rest / oh, rest % oh);
        let (n, d) = (rest / od, rest % od);
        for group in 0..s.groups {
            for ci in 0..cin_g {
                for tap in taps(s.kernel) {
                    let at = [0, 1, 2].map(|axis| g.input_index(axis, [d, h, w][axis], tap[axis]));
                    let col = group * k_g + g.weight(0, ci, tap);
                    row[col] = T::from_f32(g.input(x, initial, n, group * cin_g + ci, at));
                }
            }
        }
    });
}

/// The pipeline's GEMMs and epilogue: y[n, co, o] = act(bias[co] + Σ_k a[m(n, o), g·taps + k] · w[co·taps + k]).
pub(crate) fn im3col_gemm<T: Element>(s: &Shape, options: &Options, a: &[T], w: &[T], bias: Option<&[T]>, y: &mut [T]) {
    let g = Geometry::new(s, options.layout);
    let (k_g, cout_g, lda) = (s.taps(), s.cout_per_group(), patch_lda(s));
    let [od, oh, ow] = g.out;
    g.fill_y(options.layout, y, |n, co, [d, h, x]| {
        let m = ((n * od + d) * oh + h) * ow + x;
        let row = &a[m * lda + (co / cout_g) * k_g..][..k_g];
        let acc = row.iter().zip(&w[co * k_g..][..k_g]).map(|(a, w)| a.to_f32() * w.to_f32()).sum();
        epilogue(options, bias, co, acc)
    });
}

/// The frames the next chunk of a causal stream needs (conv3d.h, final_frames): the last
/// `history` frames of (initial frames, then x) along depth.
pub(crate) fn final_frames<T: Element>(s: &Shape, layout: Layout, x: &[T], initial: Option<&[T]>, out: &mut [T]) {
    let g = Geometry::new(s, layout);
    let history = s.history_frames();
    let [d, h, w] = s.input;
    for n in 0..s.batch {
        for c in 0..s.cin {
            for j in 0..history {
                let source = d as isize - history as isize + j as isize;
                for ih in 0..h {
                    for iw in 0..w {
                        let v = g.input(x, initial, n, c, [source, ih as isize, iw as isize]);
                        out[offset(&g.frame_strides, [n, c, j, ih, iw])] = T::from_f32(v);
                    }
                }
            }
        }
    }
}

/// `dst[b, c, r] = src[b, r, c]` for a batch of `rows × cols` matrices.
pub(crate) fn transpose<T: Element>([batch, rows, cols]: [usize; 3], src: &[T], dst: &mut [T]) {
    debug_assert!(src.len() == batch * rows * cols && dst.len() == src.len());
    for_each_row(dst, rows * cols, |b, out| {
        let matrix = &src[b * rows * cols..][..rows * cols];
        for (c, column) in out.chunks_mut(rows).enumerate() {
            for (r, v) in column.iter_mut().enumerate() {
                *v = matrix[r * cols + c];
            }
        }
    });
}
