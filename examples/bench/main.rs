//! Benchmark of the conv1d forward on a GPU: a table and a JSON file.
//!
//!     cargo run --release --example bench [-- --json bench.json --reps 50 --quick --auto-only]
//!
//! `--quick`: the first three shapes and f16 state rows; `--auto-only`: only what `Auto`
//! runs (with the bias + SiLU rows), not every algorithm; `--shape b,d,s,w` (repeatable):
//! these forward shapes instead of the list below.
//!
//! Method (docs/PERFORMANCE.md): each row captures a graph of K forwards that rotate over
//! K separate (x, y) sets, with K chosen so the sets together exceed 3x the L2 cache.
//! So inputs come from memory, not L2, and launch gaps are not timed. The graph is
//! replayed 3 times to warm up, then `--reps` times between CUDA/HIP events. A row
//! reports the median replay time / K. Bytes are the floor every algorithm must move:
//! x read once, y written once, w (and bias) read once. GB/s = bytes / time, and % copy
//! compares that with a device-to-device copy measured in the same run (bytes read +
//! written). GEMM rows (Im2colGemm, FusedGemm) also give the TFLOP/s their matrix
//! instructions execute (FusedGemm: 2·K per output, zeros of the Toeplitz band included).
//! A second table has the state operations (examples/bench/state_rows.rs): the decode
//! update and a variable-length forward next to its one-sequence baseline.

mod state_rows;

use hipconv::conv1d::{Activation, Algorithm, CausalConv1d, Layout, Options, Shape, UpdateShape};
use hipconv::half::{bf16, f16};
use hipconv::{Buffer, DType, Device, Element, Stream};
use std::fmt::Write as _;
use std::process::ExitCode;

const SHAPES: &[(usize, usize, usize, usize)] = &[
    (1, 64, 2048, 4),
    (1, 64, 65536, 4),
    (4, 2048, 2048, 4),
    (8, 4096, 2048, 4),
    (4, 5120, 4096, 4),
    (8, 4096, 2048, 2),
    (8, 4096, 2048, 3),
    (4, 2048, 4096, 16),
    // Where FusedGemm's Toeplitz GEMM overtakes Direct's generic-width loop.
    (4, 2048, 4096, 8),
    (4, 2048, 4096, 32),
    // Seqlens that are not a multiple of a 16-byte vector, against (8,4096,2048,4) and a
    // packed 16384-token batch: the streaming kernels must stay within 10% of those.
    (8, 4096, 2047, 4),
    (1, 4096, 16395, 4),
];
/// Shapes that also get bias + SiLU rows (the usual Mamba configuration).
const SILU_SHAPES: &[(usize, usize, usize, usize)] = &[(8, 4096, 2048, 4), (4, 5120, 4096, 4)];
const MAX_SETS: usize = 256;

struct Row {
    shape: Shape,
    dtype: DType,
    layout: Layout,
    /// What the row asked for (`Auto` included) and what ran.
    requested: Algorithm,
    algorithm: Algorithm,
    bias_silu: bool,
    sets: usize,
    median_us: f64,
    min_us: f64,
    bytes: usize,
    gemm_flops: Option<f64>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median milliseconds of `reps` timed launches of `run` (after 3 untimed ones), and the minimum.
fn time_ms(stream: &Stream, reps: usize, mut run: impl FnMut() -> hipconv::Result<()>) -> hipconv::Result<(f64, f64)> {
    for _ in 0..3 {
        run()?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = stream.record_event()?;
        run()?;
        let end = stream.record_event()?;
        times.push(f64::from(start.elapsed_ms(&end)?));
    }
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((median(times), min))
}

/// Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written.
fn copy_bandwidth(device: &Device, stream: &Stream, reps: usize) -> hipconv::Result<f64> {
    let len = 1usize << 30; // 1 Gi f16 = 2 GiB each way
    let src = device.alloc::<f16>(len)?;
    let mut dst = device.alloc::<f16>(len)?;
    let (ms, _) = time_ms(stream, reps, || dst.copy_from_buffer(stream, &src))?;
    Ok(2.0 * (len * 2) as f64 / (ms * 1e-3))
}

fn bench_row<T: Element>(
    device: &Device,
    stream: &Stream,
    shape: Shape,
    options: Options,
    reps: usize,
) -> hipconv::Result<Row> {
    let elem = std::mem::size_of::<T>();
    let bias_silu = options.activation == Activation::Silu;
    let bytes = (2 * shape.x_len() + shape.w_len() + if bias_silu { shape.dim } else { 0 }) * elem;
    let l2 = device.properties().l2_cache_bytes.max(50 << 20) as usize;
    let sets = (3 * l2).div_ceil(2 * shape.x_len() * elem).clamp(3, MAX_SETS);
    let values: Vec<T> = (0..shape.x_len()).map(|i| T::from_f32(((i * 7919) % 2003) as f32 / 1001.0 - 1.0)).collect();
    let weights: Vec<T> = (0..shape.w_len()).map(|i| T::from_f32(((i * 31) % 17) as f32 / 8.0 - 1.0)).collect();
    let x: Vec<Buffer<T>> = (0..sets).map(|_| device.upload(stream, &values)).collect::<Result<_, _>>()?;
    let mut y: Vec<Buffer<T>> = (0..sets).map(|_| device.alloc(shape.x_len())).collect::<Result<_, _>>()?;
    let w = device.upload(stream, &weights)?;
    let bias = device.upload(stream, &weights[..shape.dim])?;
    let mut conv = CausalConv1d::<T>::with_options(device, shape, options)?;
    let graph = stream.capture(|s| {
        for (x, y) in x.iter().zip(y.iter_mut()) {
            if bias_silu {
                conv.forward_with_bias(s, x, &w, &bias, y)?;
            } else {
                conv.forward(s, x, &w, y)?;
            }
        }
        Ok(())
    })?;
    let (ms, min_ms) = time_ms(stream, reps, || graph.launch(stream))?;
    let g = hipconv::conv1d::stages::gemm_shape(&shape);
    let gemm_flops = match conv.options().algorithm {
        Algorithm::Im2colGemm => Some(2.0 * (g.m * g.n * g.k) as f64),
        // One K = 16 + H long dot product per output (H: width-1 rounded up to 16).
        Algorithm::FusedGemm => Some(2.0 * (shape.x_len() * (16 + shape.fused_gemm_history())) as f64),
        _ => None,
    };
    Ok(Row {
        shape,
        dtype: T::DTYPE,
        layout: options.layout,
        requested: options.algorithm,
        algorithm: conv.options().algorithm,
        bias_silu,
        sets,
        median_us: ms * 1e3 / sets as f64,
        min_us: min_ms * 1e3 / sets as f64,
        bytes,
        gemm_flops,
    })
}

const STAGE_REPEATS: usize = 64;

/// Median device time of each explicit-pipeline stage alone (f16), from graphs of
/// STAGE_REPEATS back-to-back launches on the same buffers (the seed's shape fits in L2).
fn im2col_stage_us(device: &Device, stream: &Stream, s: Shape, reps: usize) -> hipconv::Result<[f64; 3]> {
    use hipconv::conv1d::stages;
    let x = device.upload(stream, &vec![f16::from_f32(0.5); s.x_len()])?;
    let w = device.upload(stream, &vec![f16::from_f32(0.25); s.w_len()])?;
    let (mut a, mut b, mut y) =
        (device.alloc::<f16>(stages::a_len(&s))?, device.alloc::<f16>(stages::b_len(&s))?, device.alloc(s.x_len())?);
    let time = |stage: &mut dyn FnMut(&Stream) -> hipconv::Result<()>| -> hipconv::Result<f64> {
        let graph = stream.capture(|st| (0..STAGE_REPEATS).try_for_each(|_| stage(st)))?;
        Ok(time_ms(stream, reps, || graph.launch(stream))?.0 * 1e3 / STAGE_REPEATS as f64)
    };
    let input = time(&mut |st| stages::preprocess_input(st, &s, &x, &mut a))?;
    let weight = time(&mut |st| stages::preprocess_weight(st, &s, &w, &mut b))?;
    let gemm = time(&mut |st| stages::gemm_abt(st, &s, &a, &b, &mut y))?;
    Ok([input, weight, gemm])
}

fn main() -> ExitCode {
    let mut json_path = String::from("bench.json");
    let mut reps = 50usize;
    let mut quick = false;
    let mut auto_only = false;
    let mut only: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json_path = args.next().unwrap_or(json_path),
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(reps).max(50),
            "--quick" => quick = true,
            "--auto-only" => auto_only = true,
            "--shape" => match args.next().as_deref().map(parse_shape) {
                Some(Some(shape)) => only.push(shape),
                _ => {
                    eprintln!("--shape takes batch,dim,seqlen,width");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "unknown option {other:?}; usage: bench [--json PATH] [--reps N>=50] [--quick] [--auto-only] [--shape b,d,s,w]..."
                );
                return ExitCode::from(2);
            }
        }
    }
    let shapes: Vec<_> = if only.is_empty() {
        SHAPES.iter().copied().take(if quick { 3 } else { SHAPES.len() }).collect()
    } else {
        only
    };
    match run(&json_path, reps, &shapes, quick, auto_only) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `b,d,s,w` as a shape.
fn parse_shape(text: &str) -> Option<(usize, usize, usize, usize)> {
    let v: Vec<usize> = text.split(',').map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
    match v[..] {
        [b, d, s, w] => Some((b, d, s, w)),
        _ => None,
    }
}

fn run(
    json_path: &str,
    reps: usize,
    shapes: &[(usize, usize, usize, usize)],
    quick: bool,
    auto_only: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::gpu(0)?; // timings of the host backend are not what this measures
    let props = device.properties();
    let stream = device.stream()?;
    let copy_bw = copy_bandwidth(&device, &stream, reps)?;
    println!(
        "device: {} ({}, {} SMs, L2 {} MiB); device-to-device copy: {:.0} GB/s (read + write)",
        props.name,
        props.arch,
        props.compute_units,
        props.l2_cache_bytes >> 20,
        copy_bw / 1e9
    );

    let mut rows = Vec::new();
    for &(b, d, s, w) in shapes {
        let shape = Shape::new(b, d, s, w);
        // `auto` first: what a user gets by default.
        let algorithms: &[Algorithm] =
            if auto_only { &[Algorithm::Auto] } else { &[Algorithm::Auto, Algorithm::Direct, Algorithm::FusedGemm] };
        for &algorithm in algorithms {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let options = Options::default().algorithm(algorithm).layout(layout);
                rows.push(bench_row::<f16>(&device, &stream, shape, options, reps)?);
                rows.push(bench_row::<bf16>(&device, &stream, shape, options, reps)?);
                rows.push(bench_row::<f32>(&device, &stream, shape, options, reps)?);
            }
        }
        if SILU_SHAPES.contains(&(b, d, s, w)) {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let options = Options::default().layout(layout).activation(Activation::Silu);
                rows.push(bench_row::<f16>(&device, &stream, shape, options, reps)?);
                rows.push(bench_row::<bf16>(&device, &stream, shape, options, reps)?);
                rows.push(bench_row::<f32>(&device, &stream, shape, options, reps)?);
            }
        }
        if !auto_only {
            let im2col = Options::default().algorithm(Algorithm::Im2colGemm);
            rows.push(bench_row::<f16>(&device, &stream, shape, im2col, reps)?);
        }
    }

    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<22} {:<5} {:<13} {:<18} {:<9} {:>10} {:>10} {:>9} {:>8} {:>8} {:>5}",
        "shape (b,d,s,w)",
        "dtype",
        "layout",
        "algorithm",
        "bias_silu",
        "median us",
        "MB moved",
        "GB/s",
        "% copy",
        "TFLOP/s",
        "sets"
    );
    let mut json = String::from("{\n");
    let _ = writeln!(json, "  \"device\": \"{}\",\n  \"arch\": \"{}\",", props.name, props.arch);
    let _ = writeln!(json, "  \"copy_bandwidth_gbs\": {:.1},\n  \"reps\": {reps},\n  \"rows\": [", copy_bw / 1e9);
    for (i, r) in rows.iter().enumerate() {
        let s = r.shape;
        let gbs = r.bytes as f64 / (r.median_us * 1e-6) / 1e9;
        let pct = 100.0 * gbs * 1e9 / copy_bw;
        let tflops = r.gemm_flops.map(|f| f / (r.median_us * 1e-6) / 1e12);
        let _ = writeln!(
            table,
            "{:<22} {:<5} {:<13} {:<18} {:<9} {:>10.2} {:>10.2} {:>9.0} {:>7.1}% {:>8} {:>5}",
            format!("({},{},{},{})", s.batch, s.dim, s.seqlen, s.width),
            r.dtype.to_string(),
            r.layout.to_string(),
            if r.requested == r.algorithm {
                r.algorithm.to_string()
            } else {
                format!("{}->{}", r.requested, r.algorithm)
            },
            if r.bias_silu { "yes" } else { "no" },
            r.median_us,
            r.bytes as f64 / 1e6,
            gbs,
            pct,
            tflops.map_or(String::from("-"), |t| format!("{t:.1}")),
            r.sets
        );
        let _ = writeln!(
            json,
            "    {{\"batch\": {}, \"dim\": {}, \"seqlen\": {}, \"width\": {}, \"dtype\": \"{}\", \"layout\": \"{}\", \
             \"algorithm\": \"{}\", \"resolved\": \"{}\", \"bias_silu\": {}, \"median_us\": {:.3}, \"min_us\": {:.3}, \"bytes\": {}, \"gbs\": {:.1}, \
             \"pct_copy\": {:.1}, \"gemm_tflops\": {}, \"sets\": {}}}{}",
            s.batch,
            s.dim,
            s.seqlen,
            s.width,
            r.dtype,
            r.layout,
            r.requested,
            r.algorithm,
            r.bias_silu,
            r.median_us,
            r.min_us,
            r.bytes,
            gbs,
            pct,
            tflops.map_or(String::from("null"), |t| format!("{t:.2}")),
            r.sets,
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json.push_str("  ],\n");
    print!("{table}");

    let state = state_table(&device, &stream, reps, quick)?;
    println!();
    let _ = writeln!(json, "  \"state_rows\": [");
    println!(
        "{:<64} {:<5} {:>10} {:>10} {:>9} {:>8} {:>5}",
        "state operation", "dtype", "median us", "MB moved", "GB/s", "% copy", "sets"
    );
    for (i, r) in state.iter().enumerate() {
        let gbs = r.bytes as f64 / (r.median_us * 1e-6) / 1e9;
        let pct = 100.0 * gbs * 1e9 / copy_bw;
        let (mb, dtype) = (r.bytes as f64 / 1e6, r.dtype.to_string());
        println!("{:<64} {dtype:<5} {:>10.2} {mb:>10.2} {gbs:>9.0} {pct:>7.1}% {:>5}", r.what, r.median_us, r.sets);
        let _ = writeln!(
            json,
            "    {{\"what\": \"{}\", \"dtype\": \"{dtype}\", \"median_us\": {:.3}, \"bytes\": {}, \"gbs\": {gbs:.1}, \
             \"pct_copy\": {pct:.1}, \"sets\": {}}}{}",
            r.what.trim(),
            r.median_us,
            r.bytes,
            r.sets,
            if i + 1 < state.len() { "," } else { "" }
        );
    }
    json.push_str("  ],\n");

    // Where the explicit pipeline's time goes at the seed's shape.
    let seed = Shape::new(1, 64, 2048, 4);
    let [input_us, weight_us, gemm_us] = im2col_stage_us(&device, &stream, seed, reps)?;
    println!(
        "Im2colGemm stages at {seed:?}: preprocess_input {input_us:.2} us, preprocess_weight {weight_us:.2} us, \
         gemm_abt {gemm_us:.2} us (each: median of graph replays of {STAGE_REPEATS} launches)"
    );
    let _ = writeln!(
        json,
        "  \"seed_im2col_stages_us\": {{\"preprocess_input\": {input_us:.3}, \"preprocess_weight\": {weight_us:.3}, \
         \"gemm_abt\": {gemm_us:.3}}}\n}}"
    );
    std::fs::write(json_path, json).map_err(|err| format!("writing {json_path}: {err}"))?;
    println!("wrote {json_path}");
    Ok(())
}

/// The decode update at serving sizes (batch 256, dim 4096, width 4; 1 and 4 tokens;
/// shifting and circular states) and the varlen forward with its baseline.
fn state_table(
    device: &Device,
    stream: &Stream,
    reps: usize,
    quick: bool,
) -> hipconv::Result<Vec<state_rows::StateRow>> {
    use state_rows::{update_row, varlen_rows};
    let mut rows = Vec::new();
    for tokens in [1, 4] {
        let u = UpdateShape::new(256, 4096, tokens, 4);
        for circular in [false, true] {
            rows.push(update_row::<f16>(device, stream, u, circular, reps)?);
            if !quick {
                rows.push(update_row::<bf16>(device, stream, u, circular, reps)?);
                rows.push(update_row::<f32>(device, stream, u, circular, reps)?);
            }
        }
    }
    for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
        rows.extend(varlen_rows::<f16>(device, stream, 4096, 4, layout, reps)?);
        if !quick {
            rows.extend(varlen_rows::<f32>(device, stream, 4096, 4, layout, reps)?);
        }
    }
    Ok(rows)
}
