//! conv3d's table (JSON key "conv3d_rows", the row format `compare_conv3d.py` of the
//! anchors kit reads): the kit's cases — the seed's example, video-VAE causal convs, 3-D
//! U-Nets, depthwise 3-D — in both layouts, one `auto` row and one row per algorithm that
//! takes the shape, each with TFLOP/s and % of copy bandwidth. Rows are timed over about
//! two seconds of replays (at least 3); `Naive` is left out above NAIVE_MAX_FLOPS (it runs
//! at well under 1 TFLOP/s: a VAE row would take a second per forward), and says so.

use crate::report::{Row, Table};
use crate::timing::{gbs_and_pct_copy, sets_for, time_ms};
use crate::Bench;
use hipconv::conv3d::{Algorithm, Conv3d, Layout, Options, Padding, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Buffer, DType, Element};

/// name, batch, cin, cout, [d, h, w], kernel, groups, causal, dtypes (compare_conv3d.py's CASES).
type Case = (&'static str, usize, usize, usize, [usize; 3], usize, usize, bool, &'static [DType]);

const CASES: &[Case] = &[
    ("seed example", 1, 3, 8, [16, 64, 64], 3, 1, false, &[DType::F32]),
    ("video VAE 96ch full res", 1, 96, 96, [4, 480, 832], 3, 1, true, &[DType::BF16, DType::F16]),
    ("video VAE 192ch half res", 1, 192, 192, [4, 240, 416], 3, 1, true, &[DType::BF16]),
    ("video VAE 384ch quarter res", 1, 384, 384, [4, 120, 208], 3, 1, true, &[DType::BF16]),
    ("3-D U-Net 32ch 64^3", 2, 32, 32, [64, 64, 64], 3, 1, false, &[DType::F16]),
    ("3-D U-Net 128ch 32^3", 2, 128, 128, [32, 32, 32], 3, 1, false, &[DType::F16]),
    ("depthwise 3-D 192ch", 8, 192, 192, [16, 56, 56], 3, 192, false, &[DType::F16]),
];

/// The time a row's timed replays aim for, and the fewest timed replays.
const ROW_BUDGET_MS: f64 = 2000.0;
const MIN_REPS: usize = 3;
/// The largest problem `Naive` is timed on (FLOPs).
const NAIVE_MAX_FLOPS: f64 = 5e10;

pub struct Conv3dRow {
    name: &'static str,
    shape: Shape,
    causal: bool,
    dtype: DType,
    layout: Layout,
    requested: Algorithm,
    algorithm: Algorithm,
    sets: usize,
    reps: usize,
    median_us: f64,
    min_us: f64,
    flops: f64,
    bytes: usize,
    tflops: f64,
    pct_copy: f64,
}

/// The shape of a case: padding k/2 (causal: time at the front only).
fn case_shape(&(_, n, cin, cout, input, k, groups, causal, _): &Case) -> Shape {
    let padding = if causal { Padding::Causal } else { Padding::Symmetric([k / 2; 3]) };
    Shape::new(n, cin, cout, input, [k; 3]).groups(groups).padding(padding)
}

/// Every case's rows: `auto` first, then each algorithm that takes the shape.
pub fn table(bench: &Bench) -> hipconv::Result<Table<Conv3dRow>> {
    let mut rows = Vec::new();
    for case in CASES.iter().take(if bench.quick { 2 } else { CASES.len() }) {
        let shape = case_shape(case);
        let depthwise = shape.groups == shape.cin && shape.cin == shape.cout;
        let mut algorithms = vec![Algorithm::Auto];
        if !bench.auto_only {
            algorithms.extend(Algorithm::ALL.into_iter().filter(|a| *a != Algorithm::Depthwise || depthwise));
        }
        for &dtype in case.8 {
            for layout in [Layout::Ncdhw, Layout::Ndhwc] {
                for &algorithm in &algorithms {
                    let flops = 2.0 * shape.y_len() as f64 * shape.taps() as f64;
                    if algorithm == Algorithm::Naive && flops > NAIVE_MAX_FLOPS {
                        println!("{} {dtype} {layout}: naive not timed ({:.0} GFLOP)", case.0, flops / 1e9);
                        continue;
                    }
                    let options = Options::default().algorithm(algorithm).layout(layout);
                    let row = match dtype {
                        DType::F16 => conv3d_row::<f16>(bench, case, shape, options),
                        DType::BF16 => conv3d_row::<bf16>(bench, case, shape, options),
                        DType::F32 => conv3d_row::<f32>(bench, case, shape, options),
                    };
                    match row {
                        Ok(row) => {
                            println!("{}", row.line()); // as it comes: the table prints at the end
                            rows.push(row)
                        }
                        // A workspace past device memory is a measured fact, not a failure.
                        Err(err @ hipconv::Error::WorkspaceTooLarge { .. }) => println!("{}: {err}", case.0),
                        Err(err) => return Err(err),
                    }
                }
            }
        }
    }
    let header = format!(
        "{:<28} {:<5} {:<6} {:<26} {:>11} {:>9} {:>8} {:>5} {:>5}",
        "case", "dtype", "layout", "algorithm", "median us", "TFLOP/s", "% copy", "sets", "reps"
    );
    Ok(Table { key: "conv3d_rows", header, rows })
}

/// One forward over K rotating (x, y) sets. FLOPs: 2 per multiply-add of the conv; bytes:
/// x and w read once, y written once.
fn conv3d_row<T: Element>(bench: &Bench, case: &Case, shape: Shape, options: Options) -> hipconv::Result<Conv3dRow> {
    let (device, stream) = (&bench.device, &bench.stream);
    let elem = std::mem::size_of::<T>();
    let mut conv = Conv3d::<T>::new(device, shape, options)?;
    let bytes = (shape.x_len() + shape.w_len() + shape.y_len()) * elem;
    let flops = 2.0 * shape.y_len() as f64 * shape.taps() as f64; // as compare_conv3d.py counts
    let sets = sets_for(device, (shape.x_len() + shape.y_len()) * elem);
    let values: Vec<T> = (0..shape.x_len()).map(|i| T::from_f32(((i * 7919) % 2003) as f32 / 1001.0 - 1.0)).collect();
    let weights: Vec<T> = (0..shape.w_len()).map(|i| T::from_f32(((i * 31) % 17) as f32 / 64.0 - 0.125)).collect();
    let x: Vec<Buffer<T>> = (0..sets).map(|_| device.upload(stream, &values)).collect::<Result<_, _>>()?;
    let mut y: Vec<Buffer<T>> = (0..sets).map(|_| device.alloc(shape.y_len())).collect::<Result<_, _>>()?;
    let w = device.upload(stream, &weights)?;
    let graph =
        stream.capture(|s| x.iter().zip(y.iter_mut()).try_for_each(|(x, y)| conv.forward(s, x, &w, None, y)))?;
    // One untimed replay and one timed to size the rest: about ROW_BUDGET_MS of timed
    // replays (after time_ms's 3 warm-ups), at least MIN_REPS.
    graph.launch(stream)?;
    let start = stream.record_event()?;
    graph.launch(stream)?;
    let probe_ms = f64::from(start.elapsed_ms(&stream.record_event()?)?);
    let reps = ((ROW_BUDGET_MS / probe_ms.max(1e-3)) as usize).clamp(MIN_REPS, bench.reps);
    let (ms, min_ms) = time_ms(stream, reps, || graph.launch(stream))?;
    let median_us = ms * 1e3 / sets as f64;
    let (_, pct_copy) = gbs_and_pct_copy(bytes, median_us, bench.copy_bandwidth);
    Ok(Conv3dRow {
        name: case.0,
        shape,
        causal: case.7,
        dtype: T::DTYPE,
        layout: options.layout,
        requested: options.algorithm,
        algorithm: conv.options().algorithm,
        sets,
        reps,
        median_us,
        min_us: min_ms * 1e3 / sets as f64,
        flops,
        bytes,
        tflops: flops / (median_us * 1e-6) / 1e12,
        pct_copy,
    })
}

impl Row for Conv3dRow {
    fn line(&self) -> String {
        format!(
            "{:<28} {:<5} {:<6} {:<26} {:>11.1} {:>9.1} {:>7.1}% {:>5} {:>5}",
            self.name,
            self.dtype.to_string(),
            self.layout.to_string(),
            if self.requested == self.algorithm {
                self.algorithm.to_string()
            } else {
                format!("{}->{}", self.requested, self.algorithm)
            },
            self.median_us,
            self.tflops,
            self.pct_copy,
            self.sets,
            self.reps
        )
    }

    fn json(&self) -> String {
        let s = self.shape;
        format!(
            "{{\"name\": \"{}\", \"batch\": {}, \"cin\": {}, \"cout\": {}, \"depth\": {}, \"height\": {}, \"width\": {}, \
             \"kernel\": {}, \"groups\": {}, \"causal\": {}, \"dtype\": \"{}\", \"layout\": \"{}\", \"algorithm\": \"{}\", \
             \"resolved\": \"{}\", \"median_us\": {:.3}, \"min_us\": {:.3}, \"flops\": {}, \"bytes\": {}, \"tflops\": {:.2}, \
             \"pct_copy\": {:.1}, \"sets\": {}, \"reps\": {}}}",
            self.name,
            s.batch,
            s.cin,
            s.cout,
            s.input[0],
            s.input[1],
            s.input[2],
            s.kernel[0],
            s.groups,
            self.causal,
            self.dtype,
            self.layout,
            self.requested,
            self.algorithm,
            self.median_us,
            self.min_us,
            self.flops,
            self.bytes,
            self.tflops,
            self.pct_copy,
            self.sets,
            self.reps
        )
    }
}

/// The JSON key of conv3d's one table (`--table` picks it).
pub const TABLES: &[&str] = &["conv3d_rows"];

/// conv3d's one table, unless `--table` leaves it out.
pub fn tables(bench: &Bench, report: &mut crate::report::Report) -> hipconv::Result<()> {
    if bench.wants("conv3d_rows") {
        report.table(&table(bench)?);
    }
    Ok(())
}
