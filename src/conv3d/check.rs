//! Every argument check of the conv3d operations, in one place, built from the core's
//! primitives (crate::check). All of them run before any launch, so a failing call leaves
//! the caller's buffers untouched; the launch layer (launch.rs) requires them.

use super::heuristics;
use super::options::{Algorithm, Layout, Options};
use super::shape::{Padding, Shape};
use crate::arch::ArchFamily;
use crate::check::{
    buffer, optional_buffer, positive, product_within, workspace_fits, ELEMENT_COUNT_LIMIT, KERNEL_INDEX_LIMIT,
};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::{Buffer, Device, DeviceId};

const AXES: [&str; 3] = ["depth", "height", "width"];

/// A shape every backend accepts: sizes ≥ 1, groups dividing both channel counts, an
/// output on every axis, and sizes within the kernels' index types.
pub(crate) fn shape(s: &Shape) -> Result<()> {
    positive("batch", s.batch)?;
    positive("cin", s.cin)?;
    positive("cout", s.cout)?;
    positive("groups", s.groups)?;
    for axis in 0..3 {
        positive(["input depth", "input height", "input width"][axis], s.input[axis])?;
        positive(["kernel depth", "kernel height", "kernel width"][axis], s.kernel[axis])?;
        positive(["stride depth", "stride height", "stride width"][axis], s.stride[axis])?;
        positive(["dilation depth", "dilation height", "dilation width"][axis], s.dilation[axis])?;
    }
    if s.cin % s.groups != 0 || s.cout % s.groups != 0 {
        return Err(Error::InvalidDimension {
            arg: "groups",
            value: s.groups,
            expected: "a divisor of both cin and cout",
        });
    }
    for (axis, name) in AXES.iter().enumerate() {
        product_within("a padded input extent", &[s.padded_input(axis)], KERNEL_INDEX_LIMIT)?;
        product_within("a kernel extent (dilation included)", &[s.kernel[axis], s.dilation[axis]], KERNEL_INDEX_LIMIT)?;
        let (extent, padded) = (s.kernel_extent(axis), s.padded_input(axis));
        if extent > padded {
            return Err(Error::KernelLargerThanInput {
                axis: name,
                kernel: s.kernel[axis],
                dilation: s.dilation[axis],
                extent,
                padded,
            });
        }
    }
    let out = s.output().expect("every axis has an output (checked above)");
    product_within(
        "batch*od*oh*ow (output positions, the GEMMs' m)",
        &[s.batch, out[0], out[1], out[2]],
        KERNEL_INDEX_LIMIT,
    )?;
    product_within("cout", &[s.cout], KERNEL_INDEX_LIMIT)?;
    product_within(
        "cin/groups*kd*kh*kw (taps, the GEMMs' k)",
        &[s.cin_per_group(), s.kernel[0], s.kernel[1], s.kernel[2]],
        KERNEL_INDEX_LIMIT,
    )?;
    product_within("elements of x", &[s.batch, s.cin, s.input[0], s.input[1], s.input[2]], ELEMENT_COUNT_LIMIT)?;
    product_within("elements of y", &[s.batch, s.cout, out[0], out[1], out[2]], ELEMENT_COUNT_LIMIT)?;
    product_within(
        "elements of w",
        &[s.cout, s.cin_per_group(), s.kernel[0], s.kernel[1], s.kernel[2]],
        ELEMENT_COUNT_LIMIT,
    )
}

/// `Auto` resolved, and the chosen algorithm able to run this shape.
pub(crate) fn resolve_algorithm(device: &Device, s: &Shape, options: &Options) -> Result<Algorithm> {
    let algorithm = match options.algorithm {
        Algorithm::Auto => heuristics::auto_algorithm(ArchFamily::of(&device.properties().arch), s),
        chosen => chosen,
    };
    if algorithm == Algorithm::Depthwise && !(s.groups == s.cin && s.cin == s.cout) {
        return Err(Error::Unsupported {
            op: "conv3d Depthwise",
            what: format!(
                "groups {} with cin {} and cout {} (it needs groups == cin == cout)",
                s.groups, s.cin, s.cout
            ),
            hint: "; use Algorithm::ImplicitGemm, Tiled or Auto",
        });
    }
    Ok(algorithm)
}

/// The `Im3colGemm` patch matrix fits the kernels' offsets and the device's memory (the
/// host backend: any size its allocator grants).
pub(crate) fn im3col_workspace<T: Element>(device: &Device, s: &Shape) -> Result<()> {
    let elements = (s.output_positions() as u128) * (s.groups as u128) * (s.taps() as u128);
    product_within(
        "elements of the im3col patch matrix",
        &[s.output_positions(), s.groups, s.taps()],
        ELEMENT_COUNT_LIMIT,
    )?;
    workspace_fits(
        device,
        "the Im3colGemm patch matrix (output positions × cin·kd·kh·kw)",
        elements * std::mem::size_of::<T>() as u128,
        "; Algorithm::ImplicitGemm gathers the patches without one",
    )
}

/// x, w, bias and y of a forward call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_buffers<T: Element>(
    s: &Shape,
    layout: Layout,
    device: DeviceId,
    x: &Buffer<T>,
    w: &Buffer<T>,
    bias: Option<&Buffer<T>>,
    y: &Buffer<T>,
) -> Result<()> {
    let out = s.output().expect("checked before: the shape has an output");
    buffer("x", x, device, s.x_len(), || describe(layout, s.batch, s.cin, s.input))?;
    buffer("w", w, device, s.w_len(), || describe_weight(s, layout))?;
    optional_buffer("bias", bias, device, s.cout, || format!("[cout {}]", s.cout))?;
    buffer("y", y, device, s.y_len(), || describe(layout, s.batch, s.cout, out))
}

/// The streaming frames: only for a causal conv with depth stride 1 (where chunks compose
/// exactly), each `[batch, cin, (kd−1)·dilation_d, h, w]` in the layout of x.
pub(crate) fn frames<T: Element>(
    s: &Shape,
    layout: Layout,
    device: DeviceId,
    initial: Option<&Buffer<T>>,
    final_frames: Option<&Buffer<T>>,
) -> Result<()> {
    if initial.is_none() && final_frames.is_none() {
        return Ok(());
    }
    if s.padding != Padding::Causal || s.stride[0] != 1 {
        return Err(Error::Unsupported {
            op: "conv3d streaming",
            what: format!("frames with padding {:?} and depth stride {}", s.padding, s.stride[0]),
            hint: "; chunks compose exactly only with Padding::Causal and depth stride 1",
        });
    }
    let frames = [s.history_frames(), s.input[1], s.input[2]];
    let layout_of = || describe(layout, s.batch, s.cin, frames);
    optional_buffer("initial_frames", initial, device, s.frames_len(), layout_of)?;
    optional_buffer("final_frames", final_frames, device, s.frames_len(), layout_of)
}

/// A tensor's layout with its sizes, for error messages.
fn describe(layout: Layout, batch: usize, channels: usize, [d, h, w]: [usize; 3]) -> String {
    match layout {
        Layout::Ncdhw => format!("NCDHW [{batch}, {channels}, {d}, {h}, {w}]"),
        Layout::Ndhwc => format!("NDHWC [{batch}, {d}, {h}, {w}, {channels}]"),
    }
}

/// w's layout with its sizes.
fn describe_weight(s: &Shape, layout: Layout) -> String {
    let [kd, kh, kw] = s.kernel;
    let (cout, cig, groups) = (s.cout, s.cin_per_group(), s.groups);
    match layout {
        Layout::Ncdhw => format!("[cout {cout}, cin/groups {cig}, {kd}, {kh}, {kw}] for groups {groups}"),
        Layout::Ndhwc => format!("[cout {cout}, {kd}, {kh}, {kw}, cin/groups {cig}] for groups {groups}"),
    }
}
