//! conv1d's forward table: at each shape, `Auto` (then Direct and FusedGemm) in both
//! layouts and f16, bf16, f32; bias + SiLU rows at SILU_SHAPES (and at every `--shape`);
//! one f16 Im2colGemm row.
//! GEMM rows (Im2colGemm, FusedGemm) also give the TFLOP/s their matrix instructions
//! execute (FusedGemm: 2·K per output, zeros of the Toeplitz band included). And the time
//! of each Im2colGemm stage alone at the seed's shape.

use crate::report::{Row, Table};
use crate::timing::{gbs_and_pct_copy, sets_for, time_ms};
use crate::Bench;
use hipconv::conv1d::{stages, Activation, Algorithm, CausalConv1d, Layout, Options, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Buffer, DType, Element, Stream};

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

pub struct ForwardRow {
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
    gbs: f64,
    pct_copy: f64,
    /// What the matrix instructions execute, for GEMM rows.
    gemm_tflops: Option<f64>,
}

/// The rows of `bench.shapes` (`--shape`, each with bias + SiLU rows too), or of SHAPES
/// (the first three with `--quick`).
pub fn table(bench: &Bench) -> hipconv::Result<Table<ForwardRow>> {
    let shapes: Vec<_> = if bench.shapes.is_empty() {
        SHAPES.iter().copied().take(if bench.quick { 3 } else { SHAPES.len() }).collect()
    } else {
        bench.shapes.clone()
    };
    let mut rows = Vec::new();
    for (b, d, s, w) in shapes {
        let shape = Shape::new(b, d, s, w);
        // `auto` first: what a user gets by default.
        let algorithms: &[Algorithm] = if bench.auto_only {
            &[Algorithm::Auto]
        } else {
            &[Algorithm::Auto, Algorithm::Direct, Algorithm::FusedGemm]
        };
        for &algorithm in algorithms {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let options = Options::default().algorithm(algorithm).layout(layout);
                rows.push(forward_row::<f16>(bench, shape, options)?);
                rows.push(forward_row::<bf16>(bench, shape, options)?);
                rows.push(forward_row::<f32>(bench, shape, options)?);
            }
        }
        if SILU_SHAPES.contains(&(b, d, s, w)) || !bench.shapes.is_empty() {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let options = Options::default().layout(layout).activation(Activation::Silu);
                rows.push(forward_row::<f16>(bench, shape, options)?);
                rows.push(forward_row::<bf16>(bench, shape, options)?);
                rows.push(forward_row::<f32>(bench, shape, options)?);
            }
        }
        if !bench.auto_only {
            let im2col = Options::default().algorithm(Algorithm::Im2colGemm);
            rows.push(forward_row::<f16>(bench, shape, im2col)?);
        }
    }
    let header = format!(
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
    Ok(Table { key: "rows", header, rows })
}

/// One forward with `options` over K rotating (x, y) sets. Bytes: x and y, w, bias.
fn forward_row<T: Element>(bench: &Bench, shape: Shape, options: Options) -> hipconv::Result<ForwardRow> {
    let (device, stream) = (&bench.device, &bench.stream);
    let elem = std::mem::size_of::<T>();
    let bias_silu = options.activation == Activation::Silu;
    let bytes = (2 * shape.x_len() + shape.w_len() + if bias_silu { shape.dim } else { 0 }) * elem;
    let sets = sets_for(device, 2 * shape.x_len() * elem);
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
    let (ms, min_ms) = time_ms(stream, bench.reps, || graph.launch(stream))?;
    let g = stages::gemm_shape(&shape);
    let gemm_flops = match conv.options().algorithm {
        Algorithm::Im2colGemm => Some(2.0 * (g.m * g.n * g.k) as f64),
        // One K = 16 + H long dot product per output (H: width-1 rounded up to 16).
        Algorithm::FusedGemm => Some(2.0 * (shape.x_len() * (16 + shape.fused_gemm_history())) as f64),
        _ => None,
    };
    let median_us = ms * 1e3 / sets as f64;
    let (gbs, pct_copy) = gbs_and_pct_copy(bytes, median_us, bench.copy_bandwidth);
    Ok(ForwardRow {
        shape,
        dtype: T::DTYPE,
        layout: options.layout,
        requested: options.algorithm,
        algorithm: conv.options().algorithm,
        bias_silu,
        sets,
        median_us,
        min_us: min_ms * 1e3 / sets as f64,
        bytes,
        gbs,
        pct_copy,
        gemm_tflops: gemm_flops.map(|f| f / (median_us * 1e-6) / 1e12),
    })
}

impl Row for ForwardRow {
    fn line(&self) -> String {
        let s = self.shape;
        format!(
            "{:<22} {:<5} {:<13} {:<18} {:<9} {:>10.2} {:>10.2} {:>9.0} {:>7.1}% {:>8} {:>5}",
            format!("({},{},{},{})", s.batch, s.dim, s.seqlen, s.width),
            self.dtype.to_string(),
            self.layout.to_string(),
            if self.requested == self.algorithm {
                self.algorithm.to_string()
            } else {
                format!("{}->{}", self.requested, self.algorithm)
            },
            if self.bias_silu { "yes" } else { "no" },
            self.median_us,
            self.bytes as f64 / 1e6,
            self.gbs,
            self.pct_copy,
            self.gemm_tflops.map_or(String::from("-"), |t| format!("{t:.1}")),
            self.sets
        )
    }

    fn json(&self) -> String {
        let s = self.shape;
        format!(
            "{{\"batch\": {}, \"dim\": {}, \"seqlen\": {}, \"width\": {}, \"dtype\": \"{}\", \"layout\": \"{}\", \
             \"algorithm\": \"{}\", \"resolved\": \"{}\", \"bias_silu\": {}, \"median_us\": {:.3}, \"min_us\": {:.3}, \"bytes\": {}, \"gbs\": {:.1}, \
             \"pct_copy\": {:.1}, \"gemm_tflops\": {}, \"sets\": {}}}",
            s.batch,
            s.dim,
            s.seqlen,
            s.width,
            self.dtype,
            self.layout,
            self.requested,
            self.algorithm,
            self.bias_silu,
            self.median_us,
            self.min_us,
            self.bytes,
            self.gbs,
            self.pct_copy,
            self.gemm_tflops.map_or(String::from("null"), |t| format!("{t:.2}")),
            self.sets
        )
    }
}

const STAGE_REPEATS: usize = 64;

/// Where the explicit pipeline's time goes at the seed's shape: each stage's median device
/// time in µs.
pub struct Im2colStages {
    seed: Shape,
    input_us: f64,
    weight_us: f64,
    gemm_us: f64,
}

/// Median device time of each explicit-pipeline stage alone (f16) at the seed's shape, from
/// graphs of STAGE_REPEATS back-to-back launches on the same buffers (the shape fits in L2).
pub fn im2col_stages(bench: &Bench) -> hipconv::Result<Im2colStages> {
    let (device, stream, reps) = (&bench.device, &bench.stream, bench.reps);
    let s = Shape::new(1, 64, 2048, 4);
    let x = device.upload(stream, &vec![f16::from_f32(0.5); s.x_len()])?;
    let w = device.upload(stream, &vec![f16::from_f32(0.25); s.w_len()])?;
    let (mut a, mut b, mut y) =
        (device.alloc::<f16>(stages::a_len(&s))?, device.alloc::<f16>(stages::b_len(&s))?, device.alloc(s.x_len())?);
    let time = |stage: &mut dyn FnMut(&Stream) -> hipconv::Result<()>| -> hipconv::Result<f64> {
        let graph = stream.capture(|st| (0..STAGE_REPEATS).try_for_each(|_| stage(st)))?;
        Ok(time_ms(stream, reps, || graph.launch(stream))?.0 * 1e3 / STAGE_REPEATS as f64)
    };
    let input_us = time(&mut |st| stages::preprocess_input(st, &s, &x, &mut a))?;
    let weight_us = time(&mut |st| stages::preprocess_weight(st, &s, &w, &mut b))?;
    let gemm_us = time(&mut |st| stages::gemm_abt(st, &s, &a, &b, &mut y))?;
    Ok(Im2colStages { seed: s, input_us, weight_us, gemm_us })
}

impl Row for Im2colStages {
    fn line(&self) -> String {
        let Im2colStages { seed, input_us, weight_us, gemm_us } = self;
        format!(
            "Im2colGemm stages at {seed:?}: preprocess_input {input_us:.2} us, preprocess_weight {weight_us:.2} us, \
             gemm_abt {gemm_us:.2} us (each: median of graph replays of {STAGE_REPEATS} launches)"
        )
    }

    fn json(&self) -> String {
        let Im2colStages { input_us, weight_us, gemm_us, .. } = self;
        format!(
            "{{\"preprocess_input\": {input_us:.3}, \"preprocess_weight\": {weight_us:.3}, \"gemm_abt\": {gemm_us:.3}}}"
        )
    }
}
