//! Benchmark of the op families on a GPU: tables and a JSON file.
//!
//!     cargo run --release --example bench [-- --json bench.json --reps 50 --quick --auto-only]
//!
//! `--quick`: the first three shapes and f16 state rows; `--auto-only`: only what `Auto`
//! runs (with the bias + SiLU rows), not every algorithm; `--shape b,d,s,w` (repeatable):
//! these forward shapes instead of conv1d's list (conv1d/forward.rs).
//!
//! This file is the driver: it reads the options, measures the device-to-device copy
//! bandwidth (timing.rs, which also states the method), runs each family in FAMILIES and
//! writes one JSON file. A family's module measures its tables and hands them to
//! report.rs's `Report`, which prints each and adds it to the JSON file under its own key.

mod conv1d;
mod report;
mod timing;

use hipconv::{Device, Stream};
use report::Report;
use std::process::ExitCode;

/// A family's bench: measures its tables and hands each to the report as it is done.
type Family = fn(&Bench, &mut Report) -> hipconv::Result<()>;

/// The families, in the order they run, print and appear in the JSON file.
const FAMILIES: &[Family] = &[conv1d::tables];

/// What every family measures with: the GPU, a stream on it, the copy bandwidth and the options.
pub struct Bench {
    pub device: Device,
    pub stream: Stream,
    /// Device-to-device copy bandwidth in bytes/s (read + written); rows give their % of it.
    pub copy_bandwidth: f64,
    pub reps: usize,
    pub quick: bool,
    pub auto_only: bool,
    /// `--shape` arguments (b,d,s,w) in order; empty: the family's own list.
    pub shapes: Vec<(usize, usize, usize, usize)>,
}

fn main() -> ExitCode {
    let mut json_path = String::from("bench.json");
    let mut reps = 50usize;
    let mut quick = false;
    let mut auto_only = false;
    let mut shapes: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json_path = args.next().unwrap_or(json_path),
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(reps).max(50),
            "--quick" => quick = true,
            "--auto-only" => auto_only = true,
            "--shape" => match args.next().as_deref().map(parse_shape) {
                Some(Some(shape)) => shapes.push(shape),
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
    match run(&json_path, reps, quick, auto_only, shapes) {
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
    quick: bool,
    auto_only: bool,
    shapes: Vec<(usize, usize, usize, usize)>,
) -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::gpu(0)?; // timings of the host backend are not what this measures
    let stream = device.stream()?;
    let copy_bandwidth = timing::copy_bandwidth(&device, &stream, reps)?;
    let props = device.properties();
    println!(
        "device: {} ({}, {} SMs, L2 {} MiB); device-to-device copy: {:.0} GB/s (read + write)",
        props.name,
        props.arch,
        props.compute_units,
        props.l2_cache_bytes >> 20,
        copy_bandwidth / 1e9
    );
    let mut report = Report::default();
    report.value("device", format!("\"{}\"", props.name));
    report.value("arch", format!("\"{}\"", props.arch));
    report.value("copy_bandwidth_gbs", format!("{:.1}", copy_bandwidth / 1e9));
    report.value("reps", reps);

    let bench = Bench { device, stream, copy_bandwidth, reps, quick, auto_only, shapes };
    for family in FAMILIES {
        family(&bench, &mut report)?;
    }
    report.write(json_path).map_err(|err| format!("writing {json_path}: {err}"))?;
    println!("wrote {json_path}");
    Ok(())
}
