//! Prefill a prompt, then decode token by token with the state API, and check the result
//! against one forward over the whole sequence.
//!
//!     cargo run --release --example decode [-- --batch 8 --dim 2048 --width 4 --prompt 1000 --tokens 32]
//!
//! The prompt runs through `CausalConv1d::forward_with_states`, whose final states become
//! the slots of the decode state cache `[batch, dim, width−1]`; each decode step is one
//! `CausalConv1dUpdate::update` of one token per row. Prints the device time of every step
//! (events around it; the inputs are uploaded before the loop, so nothing in it waits for
//! the host), and the relative error of prefill and decode outputs against the one-shot
//! forward (f16). Options: --host (force the host backend), --silu.

#[path = "common/mod.rs"]
mod common;

use common::{inputs, usize_arg};
use hipconv::conv1d::{self, Activation, CausalConv1d, CausalConv1dUpdate, Shape, StateCache, States, UpdateShape};
use hipconv::half::f16;
use hipconv::testing::{error_stats, tolerance};
use hipconv::{Buffer, Device, Element};
use std::process::ExitCode;

struct Options {
    batch: usize,
    dim: usize,
    width: usize,
    prompt: usize,
    tokens: usize,
    host: bool,
    silu: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut o = Options { batch: 8, dim: 2048, width: 4, prompt: 1000, tokens: 32, host: false, silu: false };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| usize_arg(&mut args, name);
        match flag.as_str() {
            "--batch" => o.batch = value("--batch")?,
            "--dim" => o.dim = value("--dim")?,
            "--width" => o.width = value("--width")?,
            "--prompt" => o.prompt = value("--prompt")?,
            "--tokens" => o.tokens = value("--tokens")?,
            "--host" => o.host = true,
            "--silu" => o.silu = true,
            "-h" | "--help" => {
                return Err(String::from(
                    "usage: decode [--batch N] [--dim N] [--width N] [--prompt N] [--tokens N] [--host] [--silu]",
                ))
            }
            other => return Err(format!("unknown option {other:?} (try --help)")),
        }
    }
    Ok(o)
}

/// Times [from, to) of `x` `[batch, dim, seqlen]` as `[batch, dim, to−from]`.
fn slice_time(x: &[f16], s: &Shape, from: usize, to: usize) -> Vec<f16> {
    x.chunks(s.seqlen).flat_map(|row| row[from..to].iter().copied()).collect()
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run(o: &Options) -> hipconv::Result<bool> {
    let device = if o.host { Device::host() } else { Device::best_available() };
    let stream = device.stream()?;
    let activation = if o.silu { Activation::Silu } else { Activation::Identity };
    let options = conv1d::Options::default().activation(activation);
    let whole = Shape::new(o.batch, o.dim, o.prompt + o.tokens, o.width);
    println!("device: {} ({})", device.properties().name, device.backend());
    println!("whole sequence {whole:?}: prompt {} tokens, then {} decode steps of 1 token", o.prompt, o.tokens);

    let x = inputs(whole.x_len(), 0x5eed);
    let w = device.upload(&stream, &inputs(whole.w_len(), 0x3a7))?;

    // The one-shot forward over the whole sequence: what prefill + decode must reproduce.
    let x_whole = device.upload(&stream, &x)?;
    let mut y_whole = device.alloc::<f16>(whole.x_len())?;
    CausalConv1d::<f16>::with_options(&device, whole, options)?.forward(&stream, &x_whole, &w, &mut y_whole)?;
    let y_whole = y_whole.to_vec(&stream)?;

    // Prefill: the prompt, handing its final states to the cache (slot b = row b).
    let prompt = Shape::new(o.batch, o.dim, o.prompt, o.width);
    let step = UpdateShape::new(o.batch, o.dim, 1, o.width);
    let mut cache = device.alloc::<f16>(step.state_elems())?;
    let x_prompt = device.upload(&stream, &slice_time(&x, &whole, 0, o.prompt))?;
    let mut y_prompt = device.alloc::<f16>(prompt.x_len())?;
    let mut prefill = CausalConv1d::<f16>::with_options(&device, prompt, options)?;
    let states = States { initial: None, final_states: Some(&mut cache) };
    let start = stream.record_event()?;
    prefill.forward_with_states(&stream, &x_prompt, &w, None, states, &mut y_prompt)?;
    let end = stream.record_event()?;
    println!("prefill: {:.1} us ({})", 1e3 * start.elapsed_ms(&end)?, prefill.options().algorithm);

    // Decode: every step's input uploaded first, so the loop only enqueues.
    let x_steps: Vec<Buffer<f16>> = (0..o.tokens)
        .map(|t| device.upload(&stream, &slice_time(&x, &whole, o.prompt + t, o.prompt + t + 1)))
        .collect::<Result<_, _>>()?;
    let mut y_steps: Vec<Buffer<f16>> = (0..o.tokens).map(|_| device.alloc(step.x_len())).collect::<Result<_, _>>()?;
    let mut decode = CausalConv1dUpdate::<f16>::new(&device, step, options)?;
    let mut events = Vec::with_capacity(o.tokens);
    for (x_t, y_t) in x_steps.iter().zip(y_steps.iter_mut()) {
        let start = stream.record_event()?;
        decode.update(&stream, x_t, &w, None, StateCache::new(&mut cache), y_t)?;
        events.push((start, stream.record_event()?));
    }
    decode.wait_and_check(&stream)?;
    let mut times = Vec::with_capacity(o.tokens);
    for (t, (start, end)) in events.iter().enumerate() {
        let us = 1e3 * f64::from(start.elapsed_ms(end)?);
        println!("step {:>4} (time {:>6}): {us:>8.2} us", t + 1, o.prompt + t);
        times.push(us);
    }
    times.sort_by(f64::total_cmp);
    if let Some(median) = times.get(times.len() / 2) {
        println!("decode step: median {median:.2} us, min {:.2} us, max {:.2} us", times[0], times[times.len() - 1]);
    }

    // Prefill and decode outputs side by side, as the whole sequence's layout.
    let y_prompt = y_prompt.to_vec(&stream)?;
    let y_steps: Vec<Vec<f16>> = y_steps.iter().map(|y| y.to_vec(&stream)).collect::<Result<_, _>>()?;
    let mut ours = Vec::with_capacity(whole.x_len());
    for row in 0..o.batch * o.dim {
        ours.extend_from_slice(&y_prompt[row * o.prompt..(row + 1) * o.prompt]);
        ours.extend(y_steps.iter().map(|y| y[row]));
    }
    let reference: Vec<f64> = y_whole.iter().map(|v| v.to_f64()).collect();
    let stats = error_stats(&ours, &reference);
    let ok = stats.rel_norm_error <= tolerance(f16::DTYPE);
    println!(
        "prefill + {} decode steps vs one forward over the whole sequence: rel norm error {:.2e} (max abs {:.2e}) -> {}",
        o.tokens,
        stats.rel_norm_error,
        stats.max_abs_error,
        if ok { "valid" } else { "MISMATCH" }
    );
    Ok(ok)
}
