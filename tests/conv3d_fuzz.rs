//! conv3d on random shapes around the fast paths' tiles and eligibility edges: depthwise
//! with channel counts around the 8-, 16- and 64-channel groups and planes around the row
//! tiles and 8 x 8 output tiles (widths a multiple of 8 or not, stride 1 or 2 on h and w,
//! padding 0-2 or causal), and dense or grouped convolutions with channels around the
//! implicit GEMM's 32- and 64-channel k-tiles and its co tiles. Each round draws one shape,
//! one layout, dtype, activation and bias, and checks Auto, the shape's fast algorithm and
//! one other algorithm on the same inputs against the f64 reference, by relative norm error
//! and by the largest error anywhere (hipconv::testing::assert_accurate).
//! HIPCONV_TEST_SEED replays a run; HIPCONV_FUZZ_ROUNDS sets the rounds (default 12 on the
//! host, 100 on a GPU).

mod common;

use common::conv3d::{random, reference, run_forward};
use common::{assert_accurate, devices, fresh_seed, Rng};
use hipconv::conv3d::{Activation, Algorithm, Layout, Options, Padding, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element};

/// Multiply-adds of the f64 reference a shape may cost: a GPU round checks larger planes.
const GPU_MACS: usize = 150_000_000;
const HOST_MACS: usize = 3_000_000;

/// One of `anchors`, kept as it is two times in three (the fast paths want multiples of 8),
/// otherwise moved by −2 ..= +2 (at least `min`).
fn near(rng: &mut Rng, anchors: &[usize], min: usize) -> usize {
    let anchor = rng.pick(anchors);
    if rng.range(0, 2) != 0 {
        return anchor.max(min);
    }
    (anchor + rng.range(0, 4)).saturating_sub(2).max(min)
}

fn padding(rng: &mut Rng) -> Padding {
    if rng.range(0, 3) == 0 {
        Padding::Causal
    } else {
        Padding::Symmetric([rng.range(0, 2), rng.range(0, 2), rng.range(0, 2)])
    }
}

/// Depthwise: channels around the 16-byte, 16- and 64-channel groups; planes around the
/// NCDHW kernel's row tiles (rows of 56 and 64) and the NDHWC kernel's 8 x 8 output tiles;
/// mostly 3³ with stride 1 in depth and 1 or 2 on h and w.
fn depthwise_shape(rng: &mut Rng) -> Shape {
    let c = near(rng, &[3, 8, 16, 24, 40, 64, 72, 128, 136, 192], 1);
    let input = [
        near(rng, &[1, 2, 3, 5, 17], 1),
        near(rng, &[5, 8, 9, 16, 29, 30, 56, 57], 1),
        near(rng, &[8, 16, 24, 56, 64, 72, 128], 1),
    ];
    let kernel = match rng.range(0, 5) {
        0 => [[1, 3, 3], [3, 1, 1], [5, 5, 5], [2, 3, 4]][rng.range(0, 3)],
        _ => [3, 3, 3],
    };
    let stride = match rng.range(0, 7) {
        0 => [rng.range(1, 2), rng.range(1, 2), rng.range(1, 2)],
        1 | 2 => [1, 2, 2],
        _ => [1, 1, 1],
    };
    let dilation = if rng.range(0, 9) == 0 { [rng.range(1, 2), rng.range(1, 2), rng.range(1, 2)] } else { [1, 1, 1] };
    Shape::new(rng.range(1, 2), c, c, input, kernel).groups(c).stride(stride).dilation(dilation).padding(padding(rng))
}

/// Dense or grouped: channels a group around the implicit GEMM's 8-channel gathers and its
/// 32- and 64-channel k-tiles, output channels around its co tiles (32 … 192).
fn dense_shape(rng: &mut Rng) -> Shape {
    let groups = [1, 1, 1, 2][rng.range(0, 3)];
    let cin_g = near(rng, &[3, 8, 16, 32, 64, 96], 1);
    let cout_g = near(rng, &[8, 13, 24, 32, 48, 64, 96, 128, 184, 192], 1);
    let input = [near(rng, &[1, 2, 3, 5], 1), near(rng, &[4, 6, 9, 16], 1), near(rng, &[5, 15, 16, 33, 40, 64, 70], 1)];
    let kernel = match rng.range(0, 4) {
        0 => [[1, 1, 1], [1, 3, 3], [3, 1, 1], [2, 1, 3]][rng.range(0, 3)],
        _ => [3, 3, 3],
    };
    let stride = if rng.range(0, 3) == 0 { [rng.range(1, 2), rng.range(1, 2), rng.range(1, 2)] } else { [1, 1, 1] };
    let dilation = if rng.range(0, 4) == 0 { [rng.range(1, 2), rng.range(1, 2), rng.range(1, 2)] } else { [1, 1, 1] };
    Shape::new(rng.range(1, 2), groups * cin_g, groups * cout_g, input, kernel)
        .groups(groups)
        .stride(stride)
        .dilation(dilation)
        .padding(padding(rng))
}

/// A valid shape of either family whose reference costs at most `macs` multiply-adds.
fn random_shape(rng: &mut Rng, macs: usize) -> Shape {
    loop {
        let s = if rng.range(0, 1) == 0 { depthwise_shape(rng) } else { dense_shape(rng) };
        let Some(out) = s.output() else { continue };
        let cost = s.batch * s.cout * out.iter().product::<usize>() * s.cin_per_group() * s.taps();
        if cost <= macs {
            return s;
        }
    }
}

/// Auto, the shape's fast algorithm (Depthwise where groups == cin == cout, else
/// ImplicitGemm) and one of the others.
fn algorithms(s: &Shape, rng: &mut Rng) -> [Algorithm; 3] {
    let depthwise = s.groups == s.cin && s.cin == s.cout;
    let fast = if depthwise { Algorithm::Depthwise } else { Algorithm::ImplicitGemm };
    let other = [Algorithm::Naive, Algorithm::Tiled, Algorithm::Im3colGemm][rng.range(0, 2)];
    [Algorithm::Auto, fast, other]
}

fn round<T: Element>(device: &Device, macs: usize, rng: &mut Rng) {
    let s = random_shape(rng, macs);
    let layout = [Layout::Ncdhw, Layout::Ndhwc][rng.range(0, 1)];
    let activation = [Activation::Identity, Activation::Silu][rng.range(0, 1)];
    let bias = rng.range(0, 1) == 1;
    let x: Vec<T> = random(rng, s.x_len());
    let w: Vec<T> = random(rng, s.w_len());
    let b: Vec<T> = random(rng, s.cout);
    let b = bias.then_some(&b[..]);
    let want = reference(&s, layout, &x, &w, b, None, activation == Activation::Silu);
    for algorithm in algorithms(&s, rng) {
        let options = Options { algorithm, layout, activation };
        let got = run_forward(device, s, options, &x, &w, b);
        let what = format_args!("{algorithm} on {} ({s:?} {layout:?} {activation:?}, bias {bias})", device.id());
        assert_accurate(&got, &want, what);
    }
}

#[test]
fn random_shapes_around_the_fast_paths() {
    let mut rng = Rng::new(fresh_seed("random_shapes_around_the_fast_paths"));
    let rounds_env = std::env::var("HIPCONV_FUZZ_ROUNDS").ok().and_then(|v| v.parse::<usize>().ok());
    for device in devices("random_shapes_around_the_fast_paths") {
        let gpu = device.is_gpu();
        let rounds = rounds_env.unwrap_or(if gpu { 100 } else { 12 });
        let macs = if gpu { GPU_MACS } else { HOST_MACS };
        for _ in 0..rounds {
            match rng.range(0, 2) {
                0 => round::<f16>(&device, macs, &mut rng),
                1 => round::<bf16>(&device, macs, &mut rng),
                _ => round::<f32>(&device, macs, &mut rng),
            }
        }
    }
}
