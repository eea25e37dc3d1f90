//! The backward's argument checks, from the forward's and the core's primitives; all run
//! before any launch, so a failing call leaves every buffer untouched.

use super::args::{BackwardInputs, Gradients, ParamGrad};
use crate::check::{buffer, on_device, optional_buffer};
use crate::conv1d::check::{describe_x, weight, StateRows};
use crate::conv1d::options::Layout;
use crate::conv1d::shape::Shape;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::DeviceId;

/// A parameter gradient of `expected` elements on `device`.
fn param_grad<T: Element>(
    arg: &'static str,
    grad: &ParamGrad<'_, T>,
    device: DeviceId,
    expected: usize,
    layout: impl FnOnce() -> String,
) -> Result<()> {
    on_device(arg, grad.device(), device)?;
    if grad.len() != expected {
        return Err(Error::BufferLength { arg, expected, found: grad.len(), layout: layout() });
    }
    Ok(())
}

/// Every buffer of one backward call: x, dy and dx as x in `layout`; w, bias and the
/// parameter gradients; the states and their gradients `[rows, dim, width−1]`.
pub(crate) fn call<T: Element>(
    s: &Shape,
    layout: Layout,
    rows: StateRows,
    device: DeviceId,
    inputs: &BackwardInputs<'_, T>,
    grads: &Gradients<'_, T>,
) -> Result<()> {
    let describe = || describe_x(s, layout);
    buffer("x", inputs.x, device, s.x_len(), describe)?;
    weight(s, device, inputs.w)?;
    let channels = || format!("[dim {}]", s.dim);
    optional_buffer("bias", inputs.bias, device, s.dim, channels)?;
    buffer("dy", inputs.dy, device, s.x_len(), describe)?;
    buffer("dx", grads.dx, device, s.x_len(), describe)?;
    param_grad("dweight", &grads.dweight, device, s.w_len(), || format!("[dim {}, width {}]", s.dim, s.width))?;
    if let Some(dbias) = &grads.dbias {
        param_grad("dbias", dbias, device, s.dim, channels)?;
    }
    let len = rows.count * s.dim * (s.width - 1);
    let states = || format!("[{} {}, dim {}, width-1 {}]", rows.name, rows.count, s.dim, s.width - 1);
    optional_buffer("initial_states", inputs.initial_states, device, len, states)?;
    optional_buffer("dfinal_states", inputs.dfinal_states, device, len, states)?;
    optional_buffer("dinitial_states", grads.dinitial_states.as_deref(), device, len, states)
}
