//! Bench rows of the state operations: the decode update (shifting and circular states,
//! one and four tokens per step) and a packed variable-length forward, each next to a
//! baseline measured in the same run. Same method as the forward rows: a graph of
//! `sets` calls over separate buffers (together over 3x L2), median replay / sets.

use super::{time_ms, MAX_SETS};
use hipconv::conv1d::{
    CausalConv1d, CausalConv1dUpdate, CausalConv1dVarlen, Layout, Options, Shape, StateCache, States, UpdateShape,
    VarlenShape,
};
use hipconv::{Buffer, Device, Element, Stream};

pub struct StateRow {
    pub what: String,
    pub dtype: hipconv::DType,
    pub median_us: f64,
    pub bytes: usize,
    pub sets: usize,
}

fn sets_for(device: &Device, bytes_per_set: usize) -> usize {
    let l2 = device.properties().l2_cache_bytes.max(50 << 20) as usize;
    (3 * l2).div_ceil(bytes_per_set.max(1)).clamp(3, MAX_SETS)
}

fn filled<T: Element>(device: &Device, stream: &Stream, len: usize, seed: usize) -> hipconv::Result<Buffer<T>> {
    let values: Vec<T> = (0..len).map(|i| T::from_f32((((i + seed) * 7919) % 2003) as f32 / 1001.0 - 1.0)).collect();
    device.upload(stream, &values)
}

/// One decode step of `batch` rows over slots in reversed order (so the index is used),
/// shifting or circular. Bytes: x and y, each slot's state read and written, w, indices.
pub fn update_row<T: Element>(
    device: &Device,
    stream: &Stream,
    u: UpdateShape,
    circular: bool,
    reps: usize,
) -> hipconv::Result<StateRow> {
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
    let (ms, _) = time_ms(stream, reps, || graph.launch(stream))?;
    op.wait_and_check(stream)?;
    let kind = if circular { "circular" } else { "shifting" };
    Ok(StateRow {
        what: format!("update {kind} (b{},d{},tokens {},w{})", u.batch, u.dim, u.seqlen, u.width),
        dtype: T::DTYPE,
        median_us: ms * 1e3 / sets as f64,
        bytes,
        sets,
    })
}

/// Sequence lengths of the varlen rows: short and long prompts, some shorter than the
/// window, 16384 tokens in all.
pub const VARLEN_LENGTHS: &[usize] = &[1, 3, 17, 100, 263, 1000, 2048, 4096, 5000, 3000, 512, 256, 88];

/// The packed forward over `lengths` (with final states), and as its baseline the plain
/// forward of the same tokens as one sequence. Bytes: x and y, w, final states.
pub fn varlen_rows<T: Element>(
    device: &Device,
    stream: &Stream,
    dim: usize,
    width: usize,
    layout: Layout,
    reps: usize,
) -> hipconv::Result<[StateRow; 2]> {
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
    let (ms, _) = time_ms(stream, reps, || graph.launch(stream))?;
    op.wait_and_check(stream)?;
    let algorithm = op.options().algorithm;
    let varlen = StateRow {
        what: format!("varlen {} seqs (d{dim},tokens {total},w{width}) {layout} {algorithm}", VARLEN_LENGTHS.len()),
        dtype: T::DTYPE,
        median_us: ms * 1e3 / sets as f64,
        bytes,
        sets,
    };
    let plain_shape = Shape::new(1, dim, total, width);
    let mut conv = CausalConv1d::<T>::with_options(device, plain_shape, options.algorithm(algorithm))?;
    let graph = stream.capture(|s| x.iter().zip(y.iter_mut()).try_for_each(|(x, y)| conv.forward(s, x, &w, y)))?;
    let (ms, _) = time_ms(stream, reps, || graph.launch(stream))?;
    let plain = StateRow {
        what: format!("  baseline: one sequence (1,{dim},{total},{width}) {layout} {algorithm}"),
        dtype: T::DTYPE,
        median_us: ms * 1e3 / sets as f64,
        bytes: (2 * v.x_len() + dim * width) * elem,
        sets,
    };
    Ok([varlen, plain])
}
