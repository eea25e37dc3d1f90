//! Learn a known filter by gradient descent: the forward and the backward used the way a
//! training loop uses them.
//!
//!     cargo run --release --example fit [-- --dtype f32 --layout channel_first --steps 400 --lr 0.05]
//!
//! A "teacher" conv1d (a true filter w_true [dim, width], a true bias, SiLU) makes the
//! targets from fresh random x at every step. A "student" of the same shape starts from a
//! random filter and bias. Each step runs the student's `CausalConv1d::forward_with_bias`,
//! takes the MSE loss `mean((y − target)²)` and its gradient `dy = 2(y − target)/N` on the
//! host (N = batch·dim·seqlen), runs `CausalConv1dBackward` for dweight and dbias (fp32),
//! and updates fp32 master copies of w and bias with Adam (cosine-decayed learning rate)
//! on the host before uploading them in the element type. dy goes to the device scaled by
//! N (loss scaling: unscaled, an f16 dy would sink into f16's subnormals as the loss
//! falls), and the gradients are divided by N again on the host. Prints the loss every few
//! steps and, at the end, the relative distance of the learned w and bias to the true ones;
//! exits with failure if ‖w − w_true‖/‖w_true‖ is not below 1e-2 (f32) or 5e-2 (f16, bf16:
//! the targets and the uploaded weights are rounded to the element type).
//!
//! Options: --batch N --dim N --seqlen N --width N (default 4, 16, 256, 4) --steps N (400)
//! --lr F (Adam's peak learning rate, 0.05) --dtype f32|f16|bf16 (f32) --layout
//! channel_first|channel_last --seed N --host (force the host backend) --gpu N (require GPU
//! N). Default device: GPU 0 if one is usable, else the host backend, which the output says.

#[path = "common/mod.rs"]
mod common;

use common::{f32_arg, usize_arg};
use hipconv::conv1d::{
    Activation, BackwardInputs, CausalConv1d, CausalConv1dBackward, Gradients, Layout, Options, Shape,
};
use hipconv::half::{bf16, f16};
use hipconv::testing::Rng;
use hipconv::{Buffer, DType, Device, Element, Stream};
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    shape: Shape,
    steps: usize,
    lr: f32,
    dtype: DType,
    layout: Layout,
    seed: u64,
    device: Option<Option<u32>>, // None: best available; Some(None): host; Some(Some(n)): GPU n
}

const USAGE: &str = "usage: fit [--batch N] [--dim N] [--seqlen N] [--width N] [--steps N] [--lr F] \
    [--dtype f32|f16|bf16] [--layout channel_first|channel_last] [--seed N] [--host | --gpu N]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        shape: Shape::new(4, 16, 256, 4),
        steps: 400,
        lr: 0.05,
        dtype: DType::F32,
        layout: Layout::ChannelFirst,
        seed: 12,
        device: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let s = &mut a.shape;
        match flag.as_str() {
            "--batch" => s.batch = usize_arg(&mut args, "--batch")?,
            "--dim" => s.dim = usize_arg(&mut args, "--dim")?,
            "--seqlen" => s.seqlen = usize_arg(&mut args, "--seqlen")?,
            "--width" => s.width = usize_arg(&mut args, "--width")?,
            "--steps" => a.steps = usize_arg(&mut args, "--steps")?.max(1),
            "--lr" => a.lr = f32_arg(&mut args, "--lr")?,
            "--seed" => a.seed = usize_arg(&mut args, "--seed")? as u64,
            "--layout" => a.layout = args.next().unwrap_or_default().parse()?,
            "--dtype" => {
                a.dtype = match args.next().as_deref() {
                    Some("f16") => DType::F16,
                    Some("bf16") => DType::BF16,
                    Some("f32") => DType::F32,
                    other => return Err(format!("--dtype {other:?}: expected f16, bf16 or f32")),
                }
            }
            "--host" => a.device = Some(None),
            "--gpu" => a.device = Some(Some(usize_arg(&mut args, "--gpu")? as u32)),
            "-h" | "--help" => return Err(String::from(USAGE)),
            other => return Err(format!("unknown option {other:?} (try --help)")),
        }
    }
    Ok(a)
}

/// Adam on fp32 master parameters.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPS: f32 = 1e-8;

    fn new(len: usize) -> Adam {
        Adam { m: vec![0.0; len], v: vec![0.0; len], t: 0 }
    }

    /// One step of `params` against `grads`, at learning rate `lr`.
    fn step(&mut self, params: &mut [f32], grads: &[f32], lr: f32) {
        self.t += 1;
        let (c1, c2) = (1.0 - Self::BETA1.powi(self.t), 1.0 - Self::BETA2.powi(self.t));
        for (((p, &g), m), v) in params.iter_mut().zip(grads).zip(&mut self.m).zip(&mut self.v) {
            *m = Self::BETA1 * *m + (1.0 - Self::BETA1) * g;
            *v = Self::BETA2 * *v + (1.0 - Self::BETA2) * g * g;
            *p -= lr * (*m / c1) / ((*v / c2).sqrt() + Self::EPS);
        }
    }
}

/// The learning rate of `step` of `steps`: cosine decay from `peak` to 0.
fn learning_rate(peak: f32, step: usize, steps: usize) -> f32 {
    0.5 * peak * (1.0 + (std::f32::consts::PI * step as f32 / steps as f32).cos())
}

/// ‖a − b‖ / ‖b‖.
fn relative_distance(a: &[f32], b: &[f32]) -> f64 {
    let diff: f64 = a.iter().zip(b).map(|(&a, &b)| f64::from(a - b).powi(2)).sum();
    let norm: f64 = b.iter().map(|&b| f64::from(b).powi(2)).sum();
    (diff / norm).sqrt()
}

fn to_elements<T: Element>(values: &[f32]) -> Vec<T> {
    values.iter().map(|&v| T::from_f32(v)).collect()
}

/// Overwrites `buffer` with `values` rounded to T.
fn upload<T: Element>(stream: &Stream, buffer: &mut Buffer<T>, values: &[f32]) -> hipconv::Result<()> {
    buffer.copy_from_host(stream, &to_elements::<T>(values))
}

/// The training loop; true when the learned filter is within the dtype's tolerance.
fn run<T: Element>(a: &Args, device: &Device) -> hipconv::Result<bool> {
    let s = a.shape;
    let stream = device.stream()?;
    let options = Options::default().layout(a.layout).activation(Activation::Silu);
    let mut rng = Rng::new(a.seed);

    // The teacher: true filter and bias, held as T on the device.
    let w_true: Vec<f32> = rng.vec(s.w_len());
    let bias_true: Vec<f32> = (0..s.dim).map(|_| 0.5 * rng.unit()).collect();
    let (w_true_dev, bias_true_dev) =
        (device.upload(&stream, &to_elements::<T>(&w_true))?, device.upload(&stream, &to_elements::<T>(&bias_true))?);
    // The student: fp32 master copies on the host, T on the device.
    let mut w: Vec<f32> = (0..s.w_len()).map(|_| 0.3 * rng.unit()).collect();
    let mut bias: Vec<f32> = vec![0.0; s.dim];
    let (mut w_dev, mut bias_dev) = (device.alloc::<T>(s.w_len())?, device.alloc::<T>(s.dim)?);
    upload(&stream, &mut w_dev, &w)?;
    upload(&stream, &mut bias_dev, &bias)?;

    let mut x = device.alloc::<T>(s.x_len())?;
    let (mut target, mut y, mut dy, mut dx) = (
        device.alloc::<T>(s.x_len())?,
        device.alloc::<T>(s.x_len())?,
        device.alloc::<T>(s.x_len())?,
        device.alloc::<T>(s.x_len())?,
    );
    let (mut dweight, mut dbias) = (device.alloc::<f32>(s.w_len())?, device.alloc::<f32>(s.dim)?);
    let mut conv = CausalConv1d::<T>::with_options(device, s, options)?;
    let mut backward = CausalConv1dBackward::<T>::new(device, s, options)?;
    let (mut adam_w, mut adam_bias) = (Adam::new(s.w_len()), Adam::new(s.dim));

    let n = s.x_len() as f32;
    let loss_scale = n;
    let report_every = (a.steps / 10).max(1);
    let started = Instant::now();
    let mut loss = f64::NAN;
    for step in 0..a.steps {
        // A fresh batch: x, and the teacher's outputs for it.
        let x_host: Vec<f32> = (0..s.x_len()).map(|_| rng.unit()).collect();
        upload(&stream, &mut x, &x_host)?;
        conv.forward_with_bias(&stream, &x, &w_true_dev, &bias_true_dev, &mut target)?;
        // The student's forward, the loss and its gradient dy (times the loss scale).
        conv.forward_with_bias(&stream, &x, &w_dev, &bias_dev, &mut y)?;
        let (y_host, target_host) = (y.to_vec(&stream)?, target.to_vec(&stream)?);
        let mut sum = 0f64;
        let dy_host: Vec<T> = y_host
            .iter()
            .zip(&target_host)
            .map(|(&y, &t)| {
                let err = y.to_f32() - t.to_f32();
                sum += f64::from(err) * f64::from(err);
                T::from_f32(2.0 * err / n * loss_scale)
            })
            .collect();
        loss = sum / f64::from(n);
        dy.copy_from_host(&stream, &dy_host)?;
        // The backward: dweight and dbias in fp32 (dx is not needed here, but always written).
        let inputs = BackwardInputs::new(&x, &w_dev, &dy).bias(&bias_dev);
        let grads = Gradients::new(&mut dx, &mut dweight).dbias(&mut dbias);
        backward.backward(&stream, inputs, grads)?;
        let unscale = |g: Vec<f32>| -> Vec<f32> { g.into_iter().map(|g| g / loss_scale).collect() };
        let (dw_host, db_host) = (unscale(dweight.to_vec(&stream)?), unscale(dbias.to_vec(&stream)?));
        // The update, on the host; the new parameters go back to the device.
        let lr = learning_rate(a.lr, step, a.steps);
        adam_w.step(&mut w, &dw_host, lr);
        adam_bias.step(&mut bias, &db_host, lr);
        upload(&stream, &mut w_dev, &w)?;
        upload(&stream, &mut bias_dev, &bias)?;
        if step % report_every == 0 || step + 1 == a.steps {
            println!(
                "step {step:>5}: loss {loss:.3e}, lr {lr:.4}, |w - w_true|/|w_true| {:.3e}",
                relative_distance(&w, &w_true)
            );
        }
    }
    stream.synchronize()?;
    let seconds = started.elapsed().as_secs_f64();

    let (w_distance, bias_distance) = (relative_distance(&w, &w_true), relative_distance(&bias, &bias_true));
    let tolerance = if T::DTYPE == DType::F32 { 1e-2 } else { 5e-2 };
    let converged = w_distance < tolerance;
    println!(
        "{} steps in {seconds:.2} s ({:.2} ms per step: upload, 2 forwards, download, backward, Adam)",
        a.steps,
        1e3 * seconds / a.steps as f64
    );
    println!("final loss {loss:.3e}");
    println!("|w - w_true|/|w_true| = {w_distance:.3e}, |bias - bias_true|/|bias_true| = {bias_distance:.3e}");
    println!(
        "{} (tolerance {tolerance:.0e} for {})",
        if converged { "converged" } else { "DID NOT CONVERGE" },
        T::DTYPE
    );
    Ok(converged)
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
        "fit: batch {}, dim {}, seqlen {}, width {}, {} {}, bias + SiLU; {} steps of Adam, peak lr {}",
        s.batch, s.dim, s.seqlen, s.width, args.dtype, args.layout, args.steps, args.lr
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
