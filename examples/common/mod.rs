#![allow(dead_code)] // each example uses its own subset
//! Shared by the examples (each includes this file with `#[path]`): deterministic inputs and
//! the parsing of numeric options.

use hipconv::half::f16;

/// Deterministic inputs in [-1, 1) (never all zero), xorshift from `seed`.
pub fn inputs(len: usize, seed: u64) -> Vec<f16> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f16::from_f32((state >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
        })
        .collect()
}

/// The value after option `name` as a non-negative integer.
pub fn usize_arg(args: &mut impl Iterator<Item = String>, name: &str) -> Result<usize, String> {
    let text = args.next().ok_or(format!("{name} needs a value"))?;
    text.parse().map_err(|_| format!("{name} expects a non-negative integer, got {text:?}"))
}

/// The value after option `name` as a positive number.
pub fn f32_arg(args: &mut impl Iterator<Item = String>, name: &str) -> Result<f32, String> {
    let text = args.next().ok_or(format!("{name} needs a value"))?;
    text.parse().ok().filter(|v: &f32| *v > 0.0).ok_or(format!("{name} expects a positive number, got {text:?}"))
}

/// The device of `--host` / `--gpu N` (`Some(None)` / `Some(Some(n))`), else the best
/// available, with a line saying which backend runs and, on the host, why.
pub fn choose_device(choice: Option<Option<u32>>) -> Result<hipconv::Device, hipconv::Error> {
    let device = match choice {
        None => hipconv::Device::best_available(),
        Some(None) => hipconv::Device::host(),
        Some(Some(n)) => hipconv::Device::gpu(n)?,
    };
    let p = device.properties();
    if device.is_gpu() {
        println!("backend: {}, device: {} ({}, {} compute units)", p.backend, p.name, p.arch, p.compute_units);
    } else {
        let why = match hipconv::Device::gpu(0) {
            Err(err) => format!("no GPU: {err}"),
            Ok(_) => String::from("requested with --host"),
        };
        println!("backend: host, {} threads ({why}); running on the host backend", p.compute_units);
    }
    Ok(device)
}
