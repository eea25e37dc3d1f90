//! The 3-D convolution seed's program (seed 000), end to end: its example configuration
//! (N 1, Cin 3, Cout 8, 16×64×64, 3×3×3, f32, no padding) through every algorithm, each
//! with its launch configuration, "valid" against the f64 host reference, and the device
//! time per forward.
//!
//!     cargo run --release --example conv3d
//!     cargo run --release --features verify_host --example conv3d   # + the im3col check
//!
//! Options: --batch N --cin N --cout N --depth N --height N --width N --kernel N (cubic)
//! --stride N --dilation N --padding N|causal --groups N --layout ncdhw|ndhwc
//! --dtype f16|bf16|f32 --algorithm auto|naive|tiled|im3col_gemm|implicit_gemm|depthwise
//! (default: every one that takes the shape) --reps N --host (force the host backend)
//! --gpu N (require GPU N). Default device: GPU 0 if one is usable, else the host backend,
//! which the output then says.

#[path = "common/mod.rs"]
mod common;

use common::usize_arg;
use hipconv::conv3d::reference::conv3d_f64;
use hipconv::conv3d::{Algorithm, Conv3d, Layout, Options, Padding, Shape};
use hipconv::half::{bf16, f16};
use hipconv::testing::{error_stats, tolerance, Rng};
use hipconv::{Backend, DType, Device, Element};
use std::process::ExitCode;

struct Args {
    shape: Shape,
    layout: Layout,
    dtype: DType,
    algorithms: Vec<Algorithm>,
    reps: Option<usize>,
    device: Option<Option<u32>>, // None: best available; Some(None): host; Some(Some(n)): GPU n
}

const USAGE: &str = "usage: conv3d [--batch N] [--cin N] [--cout N] [--depth N] [--height N] [--width N] [--kernel N] \
    [--stride N] [--dilation N] [--padding N|causal] [--groups N] [--layout ncdhw|ndhwc] [--dtype f16|bf16|f32] \
    [--algorithm NAME] [--reps N] [--host | --gpu N]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        shape: Shape::new(1, 3, 8, [16, 64, 64], [3, 3, 3]),
        layout: Layout::Ncdhw,
        dtype: DType::F32,
        algorithms: Vec::new(),
        reps: None,
        device: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let s = &mut a.shape;
        match flag.as_str() {
            "--batch" => s.batch = usize_arg(&mut args, "--batch")?,
            "--cin" => s.cin = usize_arg(&mut args, "--cin")?,
            "--cout" => s.cout = usize_arg(&mut args, "--cout")?,
            "--depth" => s.input[0] = usize_arg(&mut args, "--depth")?,
            "--height" => s.input[1] = usize_arg(&mut args, "--height")?,
            "--width" => s.input[2] = usize_arg(&mut args, "--width")?,
            "--kernel" => s.kernel = [usize_arg(&mut args, "--kernel")?; 3],
            "--stride" => s.stride = [usize_arg(&mut args, "--stride")?; 3],
            "--dilation" => s.dilation = [usize_arg(&mut args, "--dilation")?; 3],
            "--groups" => s.groups = usize_arg(&mut args, "--groups")?,
            "--padding" => {
                s.padding = match args.next().as_deref() {
                    Some("causal") => Padding::Causal,
                    Some(text) => Padding::Symmetric([text.parse().map_err(|_| format!("--padding {text:?}"))?; 3]),
                    None => return Err(String::from("--padding needs a value")),
                }
            }
            "--layout" => a.layout = args.next().unwrap_or_default().parse()?,
            "--dtype" => {
                a.dtype = match args.next().as_deref() {
                    Some("f16") => DType::F16,
                    Some("bf16") => DType::BF16,
                    Some("f32") => DType::F32,
                    other => return Err(format!("--dtype {other:?}: expected f16, bf16 or f32")),
                }
            }
            "--algorithm" => a.algorithms.push(args.next().unwrap_or_default().parse()?),
            "--reps" => a.reps = Some(usize_arg(&mut args, "--reps")?.max(1)),
            "--host" => a.device = Some(None),
            "--gpu" => a.device = Some(Some(usize_arg(&mut args, "--gpu")? as u32)),
            "-h" | "--help" => return Err(String::from(USAGE)),
            other => return Err(format!("unknown option {other:?} (try --help)")),
        }
    }
    if a.algorithms.is_empty() {
        let depthwise = a.shape.groups == a.shape.cin && a.shape.cin == a.shape.cout;
        a.algorithms = Algorithm::ALL.into_iter().filter(|al| *al != Algorithm::Depthwise || depthwise).collect();
        a.algorithms.push(Algorithm::Auto);
    }
    Ok(a)
}

/// Whether Tiled runs its staged-strip kernel as a chained launch of one wave on `device`
/// (hip/conv3d/direct_staged.hip): sm_90 or newer, chained launches not switched off by
/// HIPCONV_CHAINED_LAUNCH=0, and at most one block (a 16 x 32 output tile of up to 8
/// channels) per SM.
fn staged_one_wave(s: &Shape, device: &Device) -> bool {
    let p = device.properties();
    let sm90 = p.backend == Backend::Cuda
        && p.arch.strip_prefix("sm_").and_then(|v| v.trim_end_matches(char::is_alphabetic).parse::<u32>().ok())
            >= Some(90);
    let chained = std::env::var("HIPCONV_CHAINED_LAUNCH").map_or(true, |v| v != "0");
    let [od, oh, ow] = s.output().unwrap_or([0; 3]);
    let chunk = if s.cout_per_group() > 4 { 8 } else { 4 };
    let blocks = oh.div_ceil(16) * ow.div_ceil(32) * s.batch * od * s.groups * s.cout_per_group().div_ceil(chunk);
    sm90 && chained && blocks <= p.compute_units as usize
}

/// How `algorithm` lays the work out for this shape on `device`.
fn launch_configuration(s: &Shape, algorithm: Algorithm, layout: Layout, device: &Device) -> String {
    let gpu = device.is_gpu();
    let m = s.output_positions();
    let gemm = format!("{} group(s) x GEMM [m {m} x n {} x k {}]", s.groups, s.cout_per_group(), s.taps());
    let on = if gpu { "" } else { " (host backend: the same decomposition on CPU threads)" };
    // Tiled's direct kernels for 3x3 taps on h and w (stride and dilation 1 there) and at most
    // 9 (input channel, kernel depth) slabs: direct_slabs.hip (NCDHW), direct_staged.hip (other layouts).
    let slab_kernels = s.kernel[1..] == [3, 3]
        && s.stride[1..] == [1, 1]
        && s.dilation[1..] == [1, 1]
        && s.cin_per_group() * s.kernel[0] <= 9;
    match algorithm {
        Algorithm::Naive => format!("one thread per output: {} threads, {} taps each{on}", s.y_len(), s.taps()),
        // hip/conv3d/tiled.hip takes its direct path for few taps, its shared-memory path otherwise.
        Algorithm::Tiled if s.cout_per_group() <= 16 && slab_kernels && gpu && staged_one_wave(s, device) => format!(
            "tiled, direct path (staged strip, one wave chained to the launch before it): a block per 16 x 32 \
             output tile x up to 8 channels, its strip of x and the taps staged in shared memory, a thread per 4 \
             columns x 4 channels; {} outputs",
            s.y_len()
        ),
        Algorithm::Tiled if s.cout_per_group() <= 16 && slab_kernels && layout == Layout::Ncdhw => format!(
            "tiled, direct path (register slabs): a thread per 2 output rows x up to 8 channels, all its inputs \
             loaded at once, taps staged in shared memory; {} outputs{on}",
            s.y_len()
        ),
        Algorithm::Tiled if s.cout_per_group() <= 16 && slab_kernels => format!(
            "tiled, direct path (staged strip): a block per 16 x 32 output tile x up to 8 channels, its strip of x \
             and the taps staged in shared memory, a thread per 4 columns x 4 channels; {} outputs{on}",
            s.y_len()
        ),
        Algorithm::Tiled if s.taps() <= 128 && s.cout_per_group() <= 16 => format!(
            "tiled, direct path: a thread per 2 output rows x up to 8 channels, taps staged in shared memory; {} outputs{on}",
            s.y_len()
        ),
        Algorithm::Tiled => format!(
            "output tiles per block, input tile + halo staged in shared memory per input channel; {} outputs{on}",
            s.y_len()
        ),
        Algorithm::Im3colGemm => format!(
            "im3col: patch matrix {m} x {} ({:.1} MB), then {gemm} on matrix cores, epilogue writes y{on}",
            s.groups * s.taps(),
            (m * s.groups * s.taps()) as f64 * 4.0 / 1e6
        ),
        Algorithm::ImplicitGemm => format!("implicit {gemm} on matrix cores, patches gathered into shared memory{on}"),
        Algorithm::Depthwise => format!("streaming depthwise: {} outputs, {} taps each{on}", s.y_len(), s.taps()),
        Algorithm::Auto => String::from("auto"),
    }
}

/// The largest problem (multiply-adds) the example checks against the f64 host reference.
const REFERENCE_MAX_MACS: f64 = 4e8;

fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

/// Runs every requested algorithm; false if one is invalid.
fn run<T: Element>(args: &Args, device: &Device) -> hipconv::Result<bool> {
    let s = args.shape;
    let stream = device.stream()?;
    let mut rng = Rng::new(0x3d);
    let (x_host, w_host) = (rng.vec::<T>(s.x_len()), rng.vec::<T>(s.w_len()));
    let x = device.upload(&stream, &x_host)?;
    let w = device.upload(&stream, &w_host)?;
    let reps = args.reps.unwrap_or(if device.is_gpu() { 100 } else { 3 });
    let mut all_valid = true;
    for &algorithm in &args.algorithms {
        let options = Options::default().algorithm(algorithm).layout(args.layout);
        let mut conv = Conv3d::<T>::new(device, s, options)?;
        let ran = conv.options().algorithm;
        println!("\n== {algorithm}{}", if algorithm == ran { String::new() } else { format!(" -> {ran}") });
        println!("launch: {}", launch_configuration(&s, ran, args.layout, device));
        let mut y = device.upload(&stream, &vec![T::from_f32(f32::NAN); s.y_len()])?;
        // The f64 reference runs on one host thread: past REFERENCE_MAX_MACS it would take minutes.
        let macs = s.y_len() as f64 * s.taps() as f64;
        let checked = macs <= REFERENCE_MAX_MACS;
        #[cfg(feature = "verify_host")]
        if checked {
            match conv.forward_verified(&stream, &x, &w, None, &mut y) {
                Ok(report) => println!("verify_host: {}", report.to_string().replace('\n', "\nverify_host: ")),
                Err(hipconv::Error::VerificationFailed { report, .. }) => println!("verify_host: {report}"),
                Err(other) => return Err(other),
            }
        }
        conv.forward(&stream, &x, &w, None, &mut y)?;
        if checked {
            let reference = conv3d_f64(&s, &conv.options(), &x_host, &w_host, None, None);
            let stats = error_stats(&y.to_vec(&stream)?, &reference);
            let valid = stats.rel_norm_error <= tolerance(T::DTYPE);
            all_valid &= valid;
            println!(
                "{}: rel norm error {:.3e} vs the f64 host reference (tolerance {:.0e})",
                if valid { "valid" } else { "INVALID" },
                stats.rel_norm_error,
                tolerance(T::DTYPE)
            );
        } else {
            println!("not checked: {macs:.1e} multiply-adds is past the f64 host reference's limit ({REFERENCE_MAX_MACS:.0e})");
        }
        let graph = device.is_gpu().then(|| stream.capture(|st| conv.forward(st, &x, &w, None, &mut y))).transpose()?;
        let mut times = Vec::with_capacity(reps);
        for i in 0..reps + 3 {
            let start = stream.record_event()?;
            match &graph {
                Some(g) => g.launch(&stream)?,
                None => conv.forward(&stream, &x, &w, None, &mut y)?,
            }
            let end = stream.record_event()?;
            if i >= 3 {
                times.push(start.elapsed_ms(&end)?);
            }
        }
        let how = if device.is_gpu() { "graph replays, device events" } else { "wall clock" };
        println!("time per forward: {:.2} us (median of {reps} after 3 warm-ups, {how})", median(times) * 1e3);
    }
    Ok(all_valid)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let device = match common::choose_device(args.device) {
        Ok(device) => device,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    let s = args.shape;
    println!(
        "conv3d: N {}, Cin {}, Cout {}, groups {}, input {:?}, kernel {:?}, stride {:?}, dilation {:?}, padding {:?}, {} {}; output {:?}",
        s.batch, s.cin, s.cout, s.groups, s.input, s.kernel, s.stride, s.dilation, s.padding, args.layout, args.dtype,
        s.output()
    );
    let result = match args.dtype {
        DType::F16 => run::<f16>(&args, &device),
        DType::BF16 => run::<bf16>(&args, &device),
        DType::F32 => run::<f32>(&args, &device),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
