//! Random shapes across the sizes at which the kernels' plans change: element counts from 1
//! to 2^25 (the backward's f32 tiles lengthen from 2^24, its runs and reductions change with
//! the number of tiles, the forward's tiles with the rows a wave covers), channels near the
//! 128-channel groups and around 16-byte vectors, rows near tiles and runs. Each round draws
//! one of:
//! - a forward (Auto, Direct or FusedGemm);
//! - a backward (batch or packed, random optional parts; every fifth round also run three
//!   times for bitwise determinism);
//! - a forward with states cut into two chunks, or a packed batch of random lengths;
//! - a decode loop at serving sizes (up to 256 rows of up to 5120 channels, 1-8 tokens a
//!   step, shifting or circular states, a padding row).
//!
//! Each is in a random dtype, layout and activation, and is checked against the f64
//! references. The failure message names the configuration, and HIPCONV_TEST_SEED replays
//! a run. HIPCONV_FUZZ_ROUNDS sets the rounds (default 12 small ones on the host, 60 on a
//! GPU).

mod common;

use common::backward::{assert_deterministic_dtype, check_dtype, Case, Rows, With, DTYPES, LAYOUTS};
use common::forward::{self, assert_accurate};
use common::sequences::{check_chunked, check_decode, check_varlen, DecodeCase, VarlenCase};
use common::{devices, fresh_seed, Rng};
use hipconv::conv1d::{Activation, Algorithm, Options, Shape, UpdateShape};
use hipconv::half::{bf16, f16};
use hipconv::Device;

/// Channel counts near which the kernels' groups and vectors change.
const DIM_ANCHORS: &[usize] = &[1, 8, 64, 128, 256, 768, 1024, 2048, 4096, 5120];
/// Widths: mostly the compiled streaming widths, sometimes a wide one.
const WIDE: &[usize] = &[5, 8, 9, 16, 17, 32, 64];

/// An anchor, exact half the time, else moved by up to ±9.
fn near(rng: &mut Rng, anchor: usize) -> usize {
    match rng.range(0, 1) {
        0 => anchor,
        _ => (anchor + rng.range(0, 18)).saturating_sub(9).max(1),
    }
}

/// A shape of about 2^u elements, u uniform in [0, log2_max] (in the top four one time in
/// four: the large problems' plans): batch 1..8, dim near an anchor, seqlen what is left,
/// moved by up to ±3 half the time.
fn random_shape(rng: &mut Rng, log2_max: usize) -> Shape {
    let low = if rng.range(0, 3) == 0 { log2_max - 3 } else { 0 };
    let elements = 1usize << rng.range(low, log2_max);
    let batch = rng.range(1, 8);
    let anchor = rng.pick(DIM_ANCHORS);
    let dim = near(rng, anchor).min(elements);
    let rows = (elements / (batch * dim)).max(1);
    let seqlen = match rng.range(0, 1) {
        0 => rows,
        _ => (rows + rng.range(0, 6)).saturating_sub(3).max(1),
    };
    let width = match rng.range(0, 9) {
        0..=4 => 4,
        5..=7 => rng.range(1, 3),
        _ => rng.pick(WIDE),
    };
    Shape::new(batch, dim, seqlen, width)
}

/// Calls `check::<T>(args)` for a random dtype T.
macro_rules! in_random_dtype {
    ($rng:expr, $check:ident($($arg:expr),*)) => {
        match $rng.range(0, 2) {
            0 => $check::<f16>($($arg),*),
            1 => $check::<bf16>($($arg),*),
            _ => $check::<f32>($($arg),*),
        }
    };
}

/// Auto twice as often as each of the others, a random layout and activation.
fn random_options(rng: &mut Rng) -> Options {
    let algorithm = rng.pick(&[Algorithm::Auto, Algorithm::Auto, Algorithm::Direct, Algorithm::FusedGemm]);
    let layout = rng.pick(&LAYOUTS);
    let activation = if rng.range(0, 1) == 1 { Activation::Silu } else { Activation::Identity };
    Options { algorithm, layout, activation }
}

fn forward_round(device: &Device, shape: Shape, rng: &mut Rng) {
    let case = forward::Case { shape, options: random_options(rng), bias: rng.range(0, 1) == 1 };
    in_random_dtype!(rng, assert_accurate(device, case, rng));
}

/// Packed lengths that add up to about `shape`'s tokens: `shape.batch` sequences, some
/// empty, some shorter than the history.
fn packed_lengths(rng: &mut Rng, shape: Shape) -> Vec<usize> {
    let mean = shape.seqlen;
    let mut lengths: Vec<usize> = (0..shape.batch)
        .map(|_| match rng.range(0, 5) {
            0 => 0,
            1 => rng.range(1, shape.width),
            _ => rng.range(1, 2 * mean),
        })
        .collect();
    lengths[0] = lengths[0].max(1); // at least one token
    lengths
}

/// A forward with states cut into two chunks at a random time, or `shape.batch` packed
/// sequences of random lengths.
fn sequences_round(device: &Device, shape: Shape, rng: &mut Rng) {
    let options = random_options(rng);
    if rng.range(0, 1) == 0 && shape.seqlen >= 2 {
        let cut = rng.range(1, shape.seqlen - 1);
        in_random_dtype!(rng, check_chunked(device, shape, options, cut, rng));
    } else {
        let case = VarlenCase {
            lengths: packed_lengths(rng, shape),
            dim: shape.dim,
            width: shape.width,
            algorithm: options.algorithm,
            layout: options.layout,
            initial: rng.range(0, 1) == 1,
            silu: options.activation == Activation::Silu,
        };
        in_random_dtype!(rng, check_varlen(device, &case, rng));
    }
}

/// A decode loop at serving sizes: up to `max_batch` rows (more slots than rows, states
/// longer than the history), `shape`'s dim and width, 1-8 tokens a step.
fn decode_round(device: &Device, shape: Shape, max_batch: usize, rng: &mut Rng) {
    let batch = rng.range(1, max_batch);
    let tokens = if rng.range(0, 3) == 0 { rng.range(5, 8) } else { rng.range(1, 4) };
    let update = UpdateShape::new(batch, shape.dim, tokens, shape.width)
        .slots(batch + rng.range(0, 3), shape.width - 1 + rng.range(0, 3));
    let case = DecodeCase {
        shape: update,
        steps: rng.range(1, 3),
        circular: rng.range(0, 1) == 1,
        padding: rng.range(0, 1) == 1,
        layout: rng.pick(&LAYOUTS),
        silu: rng.range(0, 1) == 1,
    };
    in_random_dtype!(rng, check_decode(device, case, rng));
}

fn backward_round(device: &Device, shape: Shape, deterministic: bool, rng: &mut Rng) {
    let rows = match rng.range(0, 4) {
        0 => Rows::packed(&packed_lengths(rng, shape), shape.dim, shape.width),
        _ => Rows::batch(shape),
    };
    let case = Case {
        rows,
        layout: rng.pick(&LAYOUTS),
        silu: rng.range(0, 1) == 1,
        with: With::from_bits(rng.range(0, 63) as u32),
    };
    let dtype = rng.pick(&DTYPES);
    check_dtype(dtype, device, &case, rng);
    if deterministic {
        assert_deterministic_dtype(dtype, device, &case, rng);
    }
}

#[test]
fn random_sizes_across_the_plans_match_the_references() {
    let mut rng = Rng::new(fresh_seed("random_sizes_across_the_plans_match_the_references"));
    let rounds_env = std::env::var("HIPCONV_FUZZ_ROUNDS").ok().and_then(|v| v.parse::<usize>().ok());
    for device in devices("random_sizes_across_the_plans_match_the_references") {
        // The host backend is far slower than a GPU: smaller shapes and batches there.
        let (rounds, log2_max, max_batch) =
            if device.is_gpu() { (rounds_env.unwrap_or(60), 25, 256) } else { (rounds_env.unwrap_or(12), 20, 32) };
        for round in 0..rounds {
            let shape = random_shape(&mut rng, log2_max);
            match rng.range(0, 3) {
                0 => forward_round(&device, shape, &mut rng),
                1 => backward_round(&device, shape, round % 5 == 0, &mut rng),
                2 => sequences_round(&device, shape, &mut rng),
                _ => decode_round(&device, shape, max_batch, &mut rng),
            }
        }
    }
}
