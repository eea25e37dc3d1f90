//! The seed's program, end to end: causal depthwise conv1d as input preprocessing +
//! weight preprocessing + matrix-core GEMM, checked against an f64 host result.
//!
//!     cargo run --release --example causal_conv1d [-- --batch 1 --dim 64 --seqlen 2048 --width 4]
//!     cargo run --release --features verify_host --example causal_conv1d   # + preprocessing checks
//!
//! Options: --batch N --dim N --seqlen N --width N --reps N (timed forwards) --host (force
//! the host backend) --gpu N (require GPU N; fail if absent) --algorithm im2col_gemm|fused_gemm|direct|auto
//! (default im2col_gemm, the seed's pipeline) --layout channel_first|channel_last (x and y). Default device: GPU 0 if one is usable, else
//! the host backend, which the output then says.

#[path = "common/mod.rs"]
mod common;

use common::{inputs, usize_arg};
use hipconv::conv1d::reference::causal_conv1d_f64;
use hipconv::conv1d::{self, Algorithm, CausalConv1d, Layout, Shape};
use hipconv::half::f16;
use hipconv::testing::{error_stats, tolerance};
use hipconv::{Device, Element, GemmTileConfig};
use std::process::ExitCode;

struct Options {
    shape: Shape,
    /// Timed forwards; default 100 on a GPU, 5 on the host.
    reps: Option<usize>,
    device: DeviceChoice,
    algorithm: Algorithm,
    layout: Layout,
}

enum DeviceChoice {
    Best,
    Host,
    Gpu(u32),
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        shape: Shape::new(1, 64, 2048, 4),
        reps: None,
        device: DeviceChoice::Best,
        algorithm: Algorithm::Im2colGemm,
        layout: Layout::ChannelFirst,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| usize_arg(&mut args, name);
        match flag.as_str() {
            "--batch" => options.shape.batch = value("--batch")?,
            "--dim" => options.shape.dim = value("--dim")?,
            "--seqlen" => options.shape.seqlen = value("--seqlen")?,
            "--width" => options.shape.width = value("--width")?,
            "--reps" => options.reps = Some(value("--reps")?.max(1)),
            "--host" => options.device = DeviceChoice::Host,
            "--gpu" => options.device = DeviceChoice::Gpu(value("--gpu")? as u32),
            "--algorithm" => {
                options.algorithm = args.next().unwrap_or_default().parse()?;
            }
            "--layout" => {
                options.layout = args.next().unwrap_or_default().parse()?;
            }
            "-h" | "--help" => return Err(String::from(
                "usage: causal_conv1d [--batch N] [--dim N] [--seqlen N] [--width N] [--reps N] [--host | --gpu N] \
                     [--algorithm im2col_gemm|fused_gemm|direct|auto] [--layout channel_first|channel_last]",
            )),
            other => return Err(format!("unknown option {other:?} (try --help)")),
        }
    }
    Ok(options)
}

fn median(mut values: Vec<f32>) -> f32 {
    values.sort_by(f32::total_cmp);
    values[values.len() / 2]
}

fn run(options: Options) -> hipconv::Result<bool> {
    let device = match options.device {
        DeviceChoice::Best => Device::best_available(),
        DeviceChoice::Host => Device::host(),
        DeviceChoice::Gpu(ordinal) => Device::gpu(ordinal)?,
    };
    let props = device.properties();
    if device.is_gpu() {
        println!(
            "backend: {}, device: {} ({}, {} compute units)",
            props.backend, props.name, props.arch, props.compute_units
        );
    } else {
        let why = match Device::gpu(0) {
            Err(err) => format!("no GPU: {err}"),
            Ok(_) => String::from("requested with --host"),
        };
        println!("backend: host, {} threads ({why})", props.compute_units);
    }
    let shape = options.shape;
    let reps = options.reps.unwrap_or(if device.is_gpu() { 100 } else { 5 });
    println!("shape: batch {}, dim {}, seqlen {}, width {} (f16)", shape.batch, shape.dim, shape.seqlen, shape.width);

    let stream = device.stream()?;
    let (x_host, w_host) = (inputs(shape.x_len(), 0x5eed), inputs(shape.w_len(), 0xbeef));
    let x = device.upload(&stream, &x_host)?;
    let w = device.upload(&stream, &w_host)?;
    let mut y = device.upload(&stream, &vec![f16::NAN; shape.x_len()])?;
    let options = conv1d::Options::default().algorithm(options.algorithm).layout(options.layout);
    let mut conv = CausalConv1d::<f16>::with_options(&device, shape, options)?;
    println!("algorithm: {}, layout: {}", conv.options().algorithm, conv.options().layout);

    #[cfg(feature = "verify_host")]
    {
        println!("verify_host: redoing transpose + padding + im2col and the weight transform on the host");
        let report = conv.forward_verified(&stream, &x, &w, &mut y);
        match &report {
            Ok(report) => println!("{report}"),
            Err(hipconv::Error::VerificationFailed { report, .. }) => println!("{report}"),
            Err(_) => {}
        }
        report.map(|_| ()).or_else(|err| match err {
            hipconv::Error::VerificationFailed { .. } => Ok(()), // judged below, like the seed
            other => Err(other),
        })?;
    }
    #[cfg(not(feature = "verify_host"))]
    {
        println!("verify_host off: pure GPU path, no host preprocessing");
        conv.forward(&stream, &x, &w, &mut y)?;
    }

    let gemm = hipconv::conv1d::stages::gemm_shape(&shape);
    println!("{gemm}");
    let reference = causal_conv1d_f64(&shape, &conv.options(), &x_host, &w_host, None);
    let stats = error_stats(&y.to_vec(&stream)?, &reference);
    let valid = stats.rel_norm_error <= tolerance(f16::DTYPE);
    let tile = match (conv.options().algorithm, device.is_gpu(), GemmTileConfig::compiled()) {
        (Algorithm::Im2colGemm, true, Some(config)) => config.to_string(),
        (Algorithm::Im2colGemm, _, _) => String::from("host im2col + host GEMM"),
        (Algorithm::FusedGemm, _, _) => String::from("fused_gemm: implicit im2col, 16x16xK tiles per channel"),
        (algorithm, _, _) => format!("{algorithm} kernel, no GEMM"),
    };
    println!("[{}x{}x{}, {tile}], {}", gemm.m, gemm.n, gemm.k, if valid { "valid" } else { "INVALID" });
    println!(
        "vs f64 reference: rel norm error {:.3e}, max abs error {:.3e} (tolerance {:.0e})",
        stats.rel_norm_error,
        stats.max_abs_error,
        tolerance(f16::DTYPE)
    );

    for _ in 0..5 {
        conv.forward(&stream, &x, &w, &mut y)?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = stream.record_event()?;
        conv.forward(&stream, &x, &w, &mut y)?;
        let end = stream.record_event()?;
        times.push(start.elapsed_ms(&end)?);
    }
    let clock = if device.is_gpu() { "device events" } else { "wall clock" };
    println!("time per forward: {:.2} us (median of {reps} after 5 warm-ups, {clock})", median(times) * 1e3);
    Ok(valid)
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
