//! The sizes and geometry of one conv3d problem ([`Shape`]): batch, channels, groups, input
//! extent, kernel, and per-axis stride, dilation and padding ([`Padding`]).

use super::options::Layout;

/// Padding of the input before the conv; zeros, never a padded copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// `[d, h, w]` zeros on both sides of each axis.
    Symmetric([usize; 3]),
    /// Video VAEs' causal conv: time padded at the front only, by `(kd−1)·dilation_d`
    /// (frames of the previous chunk when streaming, zeros otherwise), height and width
    /// symmetrically by `⌊(k−1)·dilation / 2⌋` on each side (stride 1 keeps the size).
    Causal,
}

impl Default for Padding {
    fn default() -> Self {
        Padding::Symmetric([0; 3])
    }
}

/// One conv3d problem. Axes of the `[usize; 3]` arrays are depth (time), height, width.
///
/// ```
/// use hipconv::conv3d::{Padding, Shape};
/// let s = Shape::new(1, 96, 96, [4, 60, 104], [3, 3, 3]).padding(Padding::Causal);
/// assert_eq!(s.output(), Some([4, 60, 104]));
/// assert_eq!(s.pad_front(), [2, 1, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub batch: usize,
    pub cin: usize,
    pub cout: usize,
    /// 1 (dense), a common divisor of `cin` and `cout`, or `cin == cout` (depthwise).
    pub groups: usize,
    pub input: [usize; 3],
    pub kernel: [usize; 3],
    pub stride: [usize; 3],
    pub dilation: [usize; 3],
    pub padding: Padding,
}

impl Shape {
    /// Groups 1, stride 1, dilation 1, no padding.
    pub fn new(batch: usize, cin: usize, cout: usize, input: [usize; 3], kernel: [usize; 3]) -> Shape {
        Shape {
            batch,
            cin,
            cout,
            groups: 1,
            input,
            kernel,
            stride: [1; 3],
            dilation: [1; 3],
            padding: Padding::default(),
        }
    }

    pub fn groups(self, groups: usize) -> Shape {
        Shape { groups, ..self }
    }

    pub fn stride(self, stride: [usize; 3]) -> Shape {
        Shape { stride, ..self }
    }

    pub fn dilation(self, dilation: [usize; 3]) -> Shape {
        Shape { dilation, ..self }
    }

    pub fn padding(self, padding: Padding) -> Shape {
        Shape { padding, ..self }
    }

    /// Input channels per group.
    pub fn cin_per_group(&self) -> usize {
        self.cin / self.groups
    }

    /// Output channels per group.
    pub fn cout_per_group(&self) -> usize {
        self.cout / self.groups
    }

    /// Taps of one output: `cin/groups · kd · kh · kw` (the GEMMs' k per group).
    pub fn taps(&self) -> usize {
        self.cin_per_group() * self.kernel.iter().product::<usize>()
    }

    /// The extent one output's taps span on `axis`: `(k−1)·dilation + 1`.
    pub fn kernel_extent(&self, axis: usize) -> usize {
        (self.kernel[axis].max(1) - 1) * self.dilation[axis] + 1
    }

    /// Padding before index 0 of each axis.
    pub fn pad_front(&self) -> [usize; 3] {
        match self.padding {
            Padding::Symmetric(p) => p,
            Padding::Causal => {
                [self.kernel_extent(0) - 1, (self.kernel_extent(1) - 1) / 2, (self.kernel_extent(2) - 1) / 2]
            }
        }
    }

    /// Padding after the last index of each axis.
    pub fn pad_back(&self) -> [usize; 3] {
        match self.padding {
            Padding::Symmetric(p) => p,
            Padding::Causal => {
                let front = self.pad_front();
                [0, self.kernel_extent(1) - 1 - front[1], self.kernel_extent(2) - 1 - front[2]]
            }
        }
    }

    /// The input extent with its padding on `axis`.
    pub fn padded_input(&self, axis: usize) -> usize {
        self.input[axis] + self.pad_front()[axis] + self.pad_back()[axis]
    }

    /// Output extent `[d, h, w]`: `⌊(padded − extent) / stride⌋ + 1`; `None` where the
    /// kernel's extent exceeds the padded input on some axis (or a stride is 0).
    pub fn output(&self) -> Option<[usize; 3]> {
        let mut out = [0; 3];
        for (axis, o) in out.iter_mut().enumerate() {
            let (padded, extent) = (self.padded_input(axis), self.kernel_extent(axis));
            if extent > padded || self.stride[axis] == 0 {
                return None;
            }
            *o = (padded - extent) / self.stride[axis] + 1;
        }
        Some(out)
    }

    /// Output positions `batch · od · oh · ow` (the GEMMs' m); 0 without an output.
    pub fn output_positions(&self) -> usize {
        self.output().map_or(0, |o| self.batch * o.iter().product::<usize>())
    }

    /// Elements of x: `batch · cin · d · h · w`.
    pub fn x_len(&self) -> usize {
        self.batch * self.cin * self.input.iter().product::<usize>()
    }

    /// Elements of y: `batch · cout · od · oh · ow`.
    pub fn y_len(&self) -> usize {
        self.output_positions() * self.cout
    }

    /// Elements of w: `cout · cin/groups · kd · kh · kw`.
    pub fn w_len(&self) -> usize {
        self.cout * self.taps()
    }

    /// Frames a causal stream carries between chunks: the front time padding,
    /// `(kd−1)·dilation_d` with [`Padding::Causal`].
    pub fn history_frames(&self) -> usize {
        self.pad_front()[0]
    }

    /// Elements of `initial_frames` / `final_frames`: `batch · cin · history · h · w`.
    pub fn frames_len(&self) -> usize {
        self.batch * self.cin * self.history_frames() * self.input[1] * self.input[2]
    }

    /// Element strides `[n, c, d, h, w]` of x in `layout` (of the frames with `depth` =
    /// the history, of y with the output extent: [`Shape::strides_of`]).
    pub fn x_strides(&self, layout: Layout) -> [usize; 5] {
        Self::strides_of(layout, self.cin, self.input)
    }

    /// Element strides `[n, c, d, h, w]` of y in `layout`.
    pub fn y_strides(&self, layout: Layout) -> [usize; 5] {
        Self::strides_of(layout, self.cout, self.output().unwrap_or([0; 3]))
    }

    /// Element strides `[n, c, d, h, w]` of the streaming frames in `layout`.
    pub fn frames_strides(&self, layout: Layout) -> [usize; 5] {
        Self::strides_of(layout, self.cin, [self.history_frames(), self.input[1], self.input[2]])
    }

    /// Strides `[n, c, d, h, w]` of a `channels × extent` tensor in `layout`.
    pub fn strides_of(layout: Layout, channels: usize, [d, h, w]: [usize; 3]) -> [usize; 5] {
        match layout {
            Layout::Ncdhw => [channels * d * h * w, d * h * w, h * w, w, 1],
            Layout::Ndhwc => [d * h * w * channels, 1, h * w * channels, w * channels, channels],
        }
    }

    /// Element strides `[co, ci, kd, kh, kw]` of w: `[cout, cin/groups, kd, kh, kw]` with
    /// NCDHW, `[cout, kd, kh, kw, cin/groups]` with NDHWC.
    pub fn w_strides(&self, layout: Layout) -> [usize; 5] {
        let [kd, kh, kw] = self.kernel;
        let cig = self.cin_per_group();
        match layout {
            Layout::Ncdhw => [cig * kd * kh * kw, kd * kh * kw, kh * kw, kw, 1],
            Layout::Ndhwc => [kd * kh * kw * cig, 1, kh * kw * cig, kw * cig, cig],
        }
    }
}
