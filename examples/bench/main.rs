//! Benchmark of the op families on a GPU: tables and a JSON file.
//!
//!     cargo run --release --example bench [-- --json bench.json --reps 50 --quick --auto-only]
//!
//! `--quick`: the first shapes of each table (conv1d: three, f16 state rows and one backward
//! shape; conv3d: two cases); `--auto-only`: only what `Auto` runs (with conv1d's bias + SiLU
//! rows), not every algorithm; `--family conv1d|conv3d` (repeatable): only these families;
//! `--table KEY` (repeatable): only the tables under these JSON keys (`rows`, `state_rows`,
//! `seed_im2col_stages_us`, `backward_rows`, `conv3d_rows`), e.g. `--table backward_rows`
//! for the conv1d backward alone; `--shape b,d,s,w` (repeatable): these shapes instead of
//! conv1d's forward and backward lists (conv1d/forward.rs, conv1d/backward.rs), each with
//! bias + SiLU forward rows too.
//!
//! This file is the driver: it reads the options, measures the device-to-device copy
//! bandwidth (timing.rs, which also states the method), runs each family in FAMILIES and
//! writes one JSON file. A family's module measures its tables and hands them to
//! report.rs's `Report`, which prints each and adds it to the JSON file under its own key.

mod conv1d;
mod conv3d;
mod report;
mod timing;

use hipconv::{Device, Stream};
use report::Report;
use std::process::ExitCode;

/// A family's bench: measures its tables and hands each to the report as it is done.
type Family = fn(&Bench, &mut Report) -> hipconv::Result<()>;

/// The families by name with their tables' JSON keys, in the order they run, print and
/// appear in the JSON file.
const FAMILIES: &[(&str, &[&str], Family)] =
    &[("conv1d", conv1d::TABLES, conv1d::tables), ("conv3d", conv3d::TABLES, conv3d::tables)];

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
    /// `--table` keys; empty: every table.
    pub tables: Vec<String>,
}

impl Bench {
    /// Whether the table under JSON key `key` is to be measured.
    pub fn wants(&self, key: &str) -> bool {
        self.tables.is_empty() || self.tables.iter().any(|t| t == key)
    }
}

/// What `run` measures, from the command line.
struct Selection {
    json_path: String,
    reps: usize,
    quick: bool,
    auto_only: bool,
    shapes: Vec<(usize, usize, usize, usize)>,
    /// `--family` names; empty: every family.
    families: Vec<String>,
    /// `--table` keys; empty: every table of the selected families.
    tables: Vec<String>,
}

fn main() -> ExitCode {
    let mut sel = Selection {
        json_path: String::from("bench.json"),
        reps: 50,
        quick: false,
        auto_only: false,
        shapes: Vec::new(),
        families: Vec::new(),
        tables: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => sel.json_path = args.next().unwrap_or(sel.json_path),
            "--reps" => sel.reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(sel.reps).max(50),
            "--quick" => sel.quick = true,
            "--auto-only" => sel.auto_only = true,
            "--family" => match args.next() {
                Some(name) if FAMILIES.iter().any(|(n, _, _)| *n == name) => sel.families.push(name),
                other => {
                    let names: Vec<&str> = FAMILIES.iter().map(|(n, _, _)| *n).collect();
                    eprintln!("--family {other:?}: expected one of {}", names.join(", "));
                    return ExitCode::from(2);
                }
            },
            "--table" => match args.next() {
                Some(key) if FAMILIES.iter().any(|(_, keys, _)| keys.contains(&key.as_str())) => sel.tables.push(key),
                other => {
                    let keys: Vec<&str> = FAMILIES.iter().flat_map(|(_, keys, _)| keys.iter().copied()).collect();
                    eprintln!("--table {other:?}: expected one of {}", keys.join(", "));
                    return ExitCode::from(2);
                }
            },
            "--shape" => match args.next().as_deref().map(parse_shape) {
                Some(Some(shape)) => sel.shapes.push(shape),
                _ => {
                    eprintln!("--shape takes batch,dim,seqlen,width");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "unknown option {other:?}; usage: bench [--json PATH] [--reps N>=50] [--quick] [--auto-only] \
                     [--family NAME]... [--table KEY]... [--shape b,d,s,w]..."
                );
                return ExitCode::from(2);
            }
        }
    }
    match run(sel) {
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

fn run(sel: Selection) -> Result<(), Box<dyn std::error::Error>> {
    let Selection { json_path, reps, quick, auto_only, shapes, families, tables } = sel;
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

    let bench = Bench { device, stream, copy_bandwidth, reps, quick, auto_only, shapes, tables };
    for (name, _, family) in FAMILIES {
        if families.is_empty() || families.iter().any(|f| f == name) {
            family(&bench, &mut report)?;
        }
    }
    report.write(&json_path).map_err(|err| format!("writing {json_path}: {err}"))?;
    println!("wrote {json_path}");
    Ok(())
}
