//! Random shapes around the kernels' tile and chunk sizes: chunked prefill cut anywhere,
//! packed batches of random lengths (empty sequences included), and decode loops of
//! random slots, state lengths and tokens per step; every dtype, layout and fast path.
//! Each round prints its configuration in the failure message; HIPCONV_TEST_SEED replays
//! a run, HIPCONV_FUZZ_ROUNDS sets the rounds (default 12 on the host, 80 on a GPU).

mod common;

use common::sequences::{check_chunked, check_decode, check_varlen, DecodeCase, VarlenCase};
use common::{devices, fresh_seed, Rng};
use hipconv::conv1d::{Activation, Algorithm, Layout, Options, Shape, UpdateShape};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element};

/// Widths around the compiled Direct widths and FusedGemm's history steps of 16.
const WIDTHS: &[usize] = &[1, 2, 3, 4, 5, 8, 16, 17, 32, 33, 64];
/// Channels around FusedGemm's channel tiles (32/16/8/4) and the 8-wide vector rows.
const DIMS: &[usize] = &[1, 8, 16, 32, 64, 128];
/// Times around FusedGemm's 256-time tiles and its strips of several tiles.
const SEQLENS: &[usize] = &[1, 8, 256, 512, 1024, 2048];

/// One of `anchors`, moved by −2 ..= +2 (at least `min`).
fn near(rng: &mut Rng, anchors: &[usize], min: usize) -> usize {
    let anchor = rng.pick(anchors);
    (anchor + rng.range(0, 4)).saturating_sub(2).max(min)
}

fn round<T: Element>(device: &Device, rng: &mut Rng) {
    let layout = [Layout::ChannelFirst, Layout::ChannelLast][rng.range(0, 1)];
    let algorithm = [Algorithm::Auto, Algorithm::Direct, Algorithm::FusedGemm][rng.range(0, 2)];
    let silu = rng.range(0, 1) == 1;
    let (width, dim) = (near(rng, WIDTHS, 1), near(rng, DIMS, 1));
    match rng.range(0, 2) {
        0 => {
            let s = Shape::new(rng.range(1, 3), dim, near(rng, SEQLENS, 2), width);
            let activation = if silu { Activation::Silu } else { Activation::Identity };
            let cut = rng.range(1, s.seqlen - 1);
            check_chunked::<T>(device, s, Options { algorithm, layout, activation }, cut, rng);
        }
        1 => {
            let n_seqs = rng.range(1, 6);
            let mut lengths: Vec<usize> =
                (0..n_seqs).map(|_| if rng.range(0, 5) == 0 { 0 } else { near(rng, SEQLENS, 1) }).collect();
            lengths[0] = lengths[0].max(1); // a batch of at least one token
            let initial = rng.range(0, 1) == 1;
            check_varlen::<T>(device, &VarlenCase { lengths, dim, width, algorithm, layout, initial, silu }, rng);
        }
        _ => {
            let batch = rng.range(1, 9);
            let shape = UpdateShape::new(batch, dim, rng.range(1, 5), width)
                .slots(batch + rng.range(0, 3), width - 1 + rng.range(0, 3));
            let (circular, padding) = (rng.range(0, 1) == 1, rng.range(0, 1) == 1);
            let case = DecodeCase { shape, steps: rng.range(1, 6), circular, padding, layout, silu };
            check_decode::<T>(device, case, rng);
        }
    }
}

#[test]
fn random_boundaries_around_tiles_and_chunks() {
    let mut rng = Rng::new(fresh_seed("random_boundaries_around_tiles_and_chunks"));
    let rounds_env = std::env::var("HIPCONV_FUZZ_ROUNDS").ok().and_then(|v| v.parse::<usize>().ok());
    for device in devices("random_boundaries_around_tiles_and_chunks") {
        let rounds = rounds_env.unwrap_or(if device.is_gpu() { 80 } else { 12 });
        for _ in 0..rounds {
            match rng.range(0, 2) {
                0 => round::<f16>(&device, &mut rng),
                1 => round::<bf16>(&device, &mut rng),
                _ => round::<f32>(&device, &mut rng),
            }
        }
    }
}
