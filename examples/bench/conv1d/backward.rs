//! conv1d's backward table (JSON key "backward_rows", the row format the anchors kit's
//! compare_dao.py reads): bias + SiLU, dx in the element type, dweight and dbias in fp32
//! (`ParamGrad::F32`), f16, bf16 and f32, both layouts, at the usual Mamba shapes. Same
//! method as the forward rows: a graph of `sets` backwards over separate (x, dy, dx) sets
//! (together over 3x L2), median replay / sets. Bytes as compare_dao.py counts them:
//! x and dy read, dx written, w read and dweight written (3·B·D·L + 2·D·K elements).
//! Each row also says whether one more replay gives bitwise the same dweight and dbias.

use crate::report::{Row, Table};
use crate::timing::{filled, gbs_and_pct_copy, sets_for, time_ms};
use crate::Bench;
use hipconv::conv1d::{Activation, BackwardInputs, CausalConv1dBackward, Gradients, Layout, Options, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Buffer, DType, Element};

/// compare_dao.py's backward shapes (its SILU_SHAPES).
const SHAPES: &[(usize, usize, usize, usize)] = &[(8, 4096, 2048, 4), (4, 5120, 4096, 4)];

pub struct BackwardRow {
    shape: Shape,
    dtype: DType,
    layout: Layout,
    sets: usize,
    median_us: f64,
    min_us: f64,
    bytes: usize,
    gbs: f64,
    pct_copy: f64,
    workspace_bytes: usize,
    /// dweight and dbias bitwise equal after one more replay.
    repeatable: bool,
}

/// The rows of `bench.shapes` (`--shape`), or of SHAPES (the first with `--quick`).
pub fn table(bench: &Bench) -> hipconv::Result<Table<BackwardRow>> {
    let shapes: Vec<_> = if bench.shapes.is_empty() {
        SHAPES.iter().copied().take(if bench.quick { 1 } else { SHAPES.len() }).collect()
    } else {
        bench.shapes.clone()
    };
    let mut rows = Vec::new();
    for (b, d, s, w) in shapes {
        let shape = Shape::new(b, d, s, w);
        for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
            let options = Options::default().layout(layout).activation(Activation::Silu);
            rows.push(backward_row::<f16>(bench, shape, options)?);
            rows.push(backward_row::<bf16>(bench, shape, options)?);
            rows.push(backward_row::<f32>(bench, shape, options)?);
        }
    }
    let header = format!(
        "{:<22} {:<5} {:<13} {:>10} {:>10} {:>9} {:>8} {:>12} {:>10} {:>5}",
        "backward (b,d,s,w)",
        "dtype",
        "layout",
        "median us",
        "MB moved",
        "GB/s",
        "% copy",
        "workspace MB",
        "repeatable",
        "sets"
    );
    Ok(Table { key: "backward_rows", header, rows })
}

/// One backward with bias + SiLU over K rotating (x, dy, dx) sets, fp32 dweight and dbias.
fn backward_row<T: Element>(bench: &Bench, shape: Shape, options: Options) -> hipconv::Result<BackwardRow> {
    let (device, stream) = (&bench.device, &bench.stream);
    let elem = std::mem::size_of::<T>();
    let bytes = (3 * shape.x_len() + 2 * shape.w_len()) * elem;
    let sets = sets_for(device, 3 * shape.x_len() * elem);
    let x: Vec<Buffer<T>> = (0..sets).map(|i| filled(device, stream, shape.x_len(), i)).collect::<Result<_, _>>()?;
    let dy: Vec<Buffer<T>> =
        (0..sets).map(|i| filled(device, stream, shape.x_len(), i + 1000)).collect::<Result<_, _>>()?;
    let mut dx: Vec<Buffer<T>> = (0..sets).map(|_| device.alloc(shape.x_len())).collect::<Result<_, _>>()?;
    let w = filled::<T>(device, stream, shape.w_len(), 1)?;
    let bias = filled::<T>(device, stream, shape.dim, 2)?;
    let (mut dweight, mut dbias) = (device.alloc::<f32>(shape.w_len())?, device.alloc::<f32>(shape.dim)?);
    let mut op = CausalConv1dBackward::<T>::new(device, shape, options)?;
    let graph = stream.capture(|s| {
        for ((x, dy), dx) in x.iter().zip(&dy).zip(dx.iter_mut()) {
            let inputs = BackwardInputs::new(x, &w, dy).bias(&bias);
            op.backward(s, inputs, Gradients::new(dx, &mut dweight).dbias(&mut dbias))?;
        }
        Ok(())
    })?;
    let (ms, min_ms) = time_ms(stream, bench.reps, || graph.launch(stream))?;
    let before = (dweight.to_vec(stream)?, dbias.to_vec(stream)?);
    graph.launch(stream)?;
    let after = (dweight.to_vec(stream)?, dbias.to_vec(stream)?);
    let bits = |v: &[f32]| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
    let repeatable = bits(&before.0) == bits(&after.0) && bits(&before.1) == bits(&after.1);
    let median_us = ms * 1e3 / sets as f64;
    let (gbs, pct_copy) = gbs_and_pct_copy(bytes, median_us, bench.copy_bandwidth);
    Ok(BackwardRow {
        shape,
        dtype: T::DTYPE,
        layout: options.layout,
        sets,
        median_us,
        min_us: min_ms * 1e3 / sets as f64,
        bytes,
        gbs,
        pct_copy,
        workspace_bytes: op.workspace_bytes(),
        repeatable,
    })
}

impl Row for BackwardRow {
    fn line(&self) -> String {
        let s = self.shape;
        format!(
            "{:<22} {:<5} {:<13} {:>10.2} {:>10.2} {:>9.0} {:>7.1}% {:>12.2} {:>10} {:>5}",
            format!("({},{},{},{})", s.batch, s.dim, s.seqlen, s.width),
            self.dtype.to_string(),
            self.layout.to_string(),
            self.median_us,
            self.bytes as f64 / 1e6,
            self.gbs,
            self.pct_copy,
            self.workspace_bytes as f64 / 1e6,
            if self.repeatable { "yes" } else { "NO" },
            self.sets
        )
    }

    fn json(&self) -> String {
        let s = self.shape;
        format!(
            "{{\"batch\": {}, \"dim\": {}, \"seqlen\": {}, \"width\": {}, \"dtype\": \"{}\", \"layout\": \"{}\", \
             \"bias_silu\": true, \"param_grad\": \"f32\", \"median_us\": {:.3}, \"min_us\": {:.3}, \"bytes\": {}, \
             \"gbs\": {:.1}, \"pct_copy\": {:.1}, \"workspace_bytes\": {}, \"repeatable\": {}, \"sets\": {}}}",
            s.batch,
            s.dim,
            s.seqlen,
            s.width,
            self.dtype,
            self.layout,
            self.median_us,
            self.min_us,
            self.bytes,
            self.gbs,
            self.pct_copy,
            self.workspace_bytes,
            self.repeatable,
            self.sets
        )
    }
}
