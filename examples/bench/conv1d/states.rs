//! conv1d's state-operation table: the decode update (shifting and circular states, one
//! and four tokens per step) and a packed variable-length forward, each next to a
//! baseline measured in the same run. Same method as the forward rows: a graph of
//! `sets` calls over separate buffers (together over 3x L2), median replay / sets.

use crate::report::{Row, Table};
use crate::timing::{filled, gbs_and_pct_copy, sets_for, time_ms};
use crate::Bench;
use hipconv::conv1d::{
    CausalConv1d, CausalConv1dUpdate, CausalConv1dVarlen, Layout, Options, Shape, StateCache, States, UpdateShape,
    VarlenShape,
};
use hipconv::half::{bf16, f16};
use hipconv::{Buffer, DType, Element};

pub struct StateRow {
    what: String,
    dtype: DType,
    median_us: f64,
    bytes: usize,
    gbs: f64,
    pct_copy: f64,
    sets: usize,
}

impl StateRow {
    fn new<T: Element>(bench: &Bench, what: String, median_us: f64, bytes: usize, sets: usize) -> StateRow {
        let (gbs, pct_copy) = gbs_and_pct_copy(bytes, median_us, bench.copy_bandwidth);
        StateRow { what, dtype: T::DTYPE, median_us, bytes, gbs, pct_copy, sets }
    }
}

/// The decode update at serving sizes (batch 256, dim 4096, width 4; 1 and 4 tokens;
/// shifting and circular states) and the varlen forward with its baseline; f16 only with
/// `--quick`.
pub fn table(bench: &Bench) -> hipconv::Result<Table<StateRow>> {
    let mut rows = Vec::new();
    for tokens in [1, 4] {
        let u = UpdateShape::new(256, 4096, tokens, 4);
        for circular in [false, true] {
            rows.push(update_row::<f16>(bench, u, circular)?);
            if !bench.quick {
                rows.push(update_row::<bf16>(bench, u, circular)?);
                rows.push(update_row::<f32>(bench, u, circular)?);
            }
        }
    }
    for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
        rows.extend(varlen_rows::<f16>(bench, 4096, 4, layout)?);
        if !bench.quick {
            rows.extend(varlen_rows::<f32>(bench, 4096, 4, layout)?);
        }
    }
    let header = format!(
        "{:<64} {:<5} {:>10} {:>10} {:>9} {:>8} {:>5}",
        "state operation", "dtype", "median us", "MB moved", "GB/s", "% copy", "sets"
    );
    Ok(Table { key: "state_rows", header, rows })
}

/// One decode step of `batch` rows over slots in reversed order (so the index is used),
/// shifting or circular. Bytes: x and y, each slot's state read and written, w, indices.
fn update_row<T: Element>(bench: &Bench, u: UpdateShape, circular: bool) -> hipconv::Result<StateRow> {
    let (device, stream) = (&bench.device, &bench.stream);
    let elem = std::mem::size_of::<T>();
    let state_bytes = u.batch * u.dim * u.state_len * elem;
    let bytes = (2 * u.x_len() + u.w_len()) * elem + 2 * state_bytes + u.batch * 4 * (1 + usize::from(circular));
    let sets = sets_for(device, bytes);
    let w = filled::<T>(device, stream, u.w_len(), 1)?;
    let x: Vec<Buffer<T>> = (0..sets).map(|i| filled(device, stream, u.x_len(), i)).collect::<Result<_, _>>()?;
    let mut y: Vec<Buffer<T>> = (0..sets).map(|_| device.alloc(u.x_len())).collect::<Result<_, _>>()?;
    let mut states: Vec<Buffer<T>> =
        (0..sets).map(|i| filled(device, stream, u.state_elems(), i)).collect::<Result<_, _>>()?;
    let slots: Vec<i32> = (0..u.batch as i32).rev().collect();
    let indices = device.upload(stream, &slots)?;
    let positions = device.upload(stream, &vec![7i32; u.batch])?;
    let mut op = CausalConv1dUpdate::<T>::new(device, u, Options::default())?;
    let graph = stream.capture(|s| {
        for ((x, y), state) in x.iter().zip(y.iter_mut()).zip(states.iter_mut()) {
            let cache = StateCache {
                conv_state: state,
                state_indices: Some(&indices),
                cache_seqlens: circular.then_some(&positions),
            };
            op.update(s, x, &w, None, cache, y)?;
        }
        Ok(())
    })?;
    let (ms, _) = time_ms(stream, bench.reps, || graph.launch(stream))?;
    op.wait_and_check(stream)?;
    let kind = if circular { "circular" } else { "shifting" };
    let what = format!("update {kind} (b{},d{},tokens {},w{})", u.batch, u.dim, u.seqlen, u.width);
    Ok(StateRow::new::<T>(bench, what, ms * 1e3 / sets as f64, bytes, sets))
}

/// Sequence lengths of the varlen rows: short and long prompts, some shorter than the
/// window, 16384 tokens in all.
const VARLEN_LENGTHS: &[usize] = &[1, 3, 17, 100, 263, 1000, 2048, 4096, 5000, 3000, 512, 256, 88];

/// The packed forward over VARLEN_LENGTHS (with final states), and as its baseline the
/// plain forward of the same tokens as one sequence. Bytes: x and y, w, final states.
fn varlen_rows<T: Element>(bench: &Bench, dim: usize, width: usize, layout: Layout) -> hipconv::Result<[StateRow; 2]> {
    let (device, stream) = (&bench.device, &bench.stream);
    let elem = std::mem::size_of::<T>();
    let total: usize = VARLEN_LENGTHS.iter().sum();
    let v = VarlenShape::new(VARLEN_LENGTHS.len(), dim, total, width);
    let mut cu = vec![0i32];
    VARLEN_LENGTHS.iter().for_each(|&n| cu.push(cu.last().unwrap() + n as i32));
    let bytes = (2 * v.x_len() + dim * width + v.state_elems()) * elem + cu.len() * 4;
    let sets = sets_for(device, bytes);
    let w = filled::<T>(device, stream, dim * width, 1)?;
    let cu = device.upload(stream, &cu)?;
    let x: Vec<Buffer<T>> = (0..sets).map(|i| filled(device, stream, v.x_len(), i)).collect::<Result<_, _>>()?;
    let mut y: Vec<Buffer<T>> = (0..sets).map(|_| device.alloc(v.x_len())).collect::<Result<_, _>>()?;
    let mut finals: Vec<Buffer<T>> = (0..sets).map(|_| device.alloc(v.state_elems())).collect::<Result<_, _>>()?;
    let options = Options::default().layout(layout);
    let mut op = CausalConv1dVarlen::<T>::new(device, v, options)?;
    let graph = stream.capture(|s| {
        for ((x, y), fin) in x.iter().zip(y.iter_mut()).zip(finals.iter_mut()) {
            let states = States { initial: None, final_states: Some(fin) };
            op.forward(s, x, &cu, &w, None, states, y)?;
        }
        Ok(())
    })?;
    let (ms, _) = time_ms(stream, bench.reps, || graph.launch(stream))?;
    op.wait_and_check(stream)?;
    let algorithm = op.options().algorithm;
    let varlen = StateRow::new::<T>(
        bench,
        format!("varlen {} seqs (d{dim},tokens {total},w{width}) {layout} {algorithm}", VARLEN_LENGTHS.len()),
        ms * 1e3 / sets as f64,
        bytes,
        sets,
    );
    let plain_shape = Shape::new(1, dim, total, width);
    let mut conv = CausalConv1d::<T>::with_options(device, plain_shape, options.algorithm(algorithm))?;
    let graph = stream.capture(|s| x.iter().zip(y.iter_mut()).try_for_each(|(x, y)| conv.forward(s, x, &w, y)))?;
    let (ms, _) = time_ms(stream, bench.reps, || graph.launch(stream))?;
    let plain = StateRow::new::<T>(
        bench,
        format!("  baseline: one sequence (1,{dim},{total},{width}) {layout} {algorithm}"),
        ms * 1e3 / sets as f64,
        (2 * v.x_len() + dim * width) * elem,
        sets,
    );
    Ok([varlen, plain])
}

impl Row for StateRow {
    fn line(&self) -> String {
        let (mb, dtype) = (self.bytes as f64 / 1e6, self.dtype.to_string());
        format!(
            "{:<64} {dtype:<5} {:>10.2} {mb:>10.2} {:>9.0} {:>7.1}% {:>5}",
            self.what, self.median_us, self.gbs, self.pct_copy, self.sets
        )
    }

    fn json(&self) -> String {
        format!(
            "{{\"what\": \"{}\", \"dtype\": \"{}\", \"median_us\": {:.3}, \"bytes\": {}, \"gbs\": {:.1}, \
             \"pct_copy\": {:.1}, \"sets\": {}}}",
            self.what.trim(),
            self.dtype,
            self.median_us,
            self.bytes,
            self.gbs,
            self.pct_copy,
            self.sets
        )
    }
}
