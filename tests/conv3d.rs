//! conv3d against an f64 reference written here: every algorithm on every backend present,
//! both layouts, all dtypes, odd sizes at tile edges, stride 2, dilation 2, groups 1/2/C,
//! kernels 1³, 3³, 5³, (3,1,1), (1,3,3), causal padding, bias and SiLU, NaN-poisoned
//! outputs; random shapes; and causal streaming chunk by chunk against one pass.

mod common;

use common::conv3d::{check_forward, index, out_extent, random, reference, upload};
use common::{announce, devices, fresh_seed, gpu_device, rel_norm_error, tolerance, Rng};
use hipconv::conv3d::{Activation, Algorithm, Conv3d, Frames, Layout, Options, Padding, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element};

const LAYOUTS: [Layout; 2] = [Layout::Ncdhw, Layout::Ndhwc];

/// The fixed cases: each a shape, and whether it runs with bias and SiLU.
fn cases() -> Vec<(Shape, bool)> {
    let sym = |p| Padding::Symmetric(p);
    vec![
        (Shape::new(2, 5, 7, [5, 9, 11], [3, 3, 3]).padding(sym([1, 1, 1])), false),
        (Shape::new(1, 4, 6, [7, 10, 9], [3, 3, 3]).stride([2, 2, 2]).padding(sym([1, 0, 2])), true),
        (Shape::new(1, 3, 5, [6, 9, 8], [3, 3, 3]).dilation([2, 2, 2]).padding(sym([2, 2, 2])), false),
        (Shape::new(2, 6, 4, [4, 7, 9], [3, 3, 3]).groups(2).padding(sym([1, 1, 1])), true),
        (Shape::new(2, 8, 8, [5, 9, 10], [3, 3, 3]).groups(8).padding(sym([1, 1, 1])), false),
        (Shape::new(1, 16, 24, [3, 5, 7], [1, 1, 1]), true),
        (Shape::new(1, 3, 4, [6, 8, 7], [5, 5, 5]).padding(sym([2, 2, 2])), false),
        (Shape::new(1, 8, 8, [6, 5, 5], [3, 1, 1]).padding(Padding::Causal), true),
        (Shape::new(1, 9, 10, [2, 7, 13], [1, 3, 3]).padding(sym([0, 1, 1])), false),
        (Shape::new(1, 16, 16, [3, 6, 10], [3, 3, 3]).padding(Padding::Causal), true),
        // GEMM tile edges: m = 270 output positions, cout 72, k = 864.
        (Shape::new(1, 32, 72, [2, 9, 15], [3, 3, 3]).padding(sym([1, 1, 1])), false),
        // Depthwise on 16-byte channel groups, causal; and one with dilation and stride.
        (Shape::new(1, 24, 24, [4, 6, 9], [3, 3, 3]).groups(24).padding(Padding::Causal), true),
        (
            Shape::new(2, 16, 16, [7, 9, 12], [3, 3, 3])
                .groups(16)
                .stride([1, 2, 2])
                .dilation([2, 1, 2])
                .padding(sym([2, 1, 2])),
            false,
        ),
        // Depthwise NCDHW on the matrix cores (f16/bf16, rows of 16-byte vectors): padding 2 on
        // h, two and three row tiles, wide rows (256: two row tiles on NVIDIA), depth in several chunks.
        (Shape::new(2, 8, 8, [5, 7, 24], [3, 3, 3]).groups(8).padding(sym([1, 2, 1])), true),
        (Shape::new(1, 2, 2, [3, 70, 64], [3, 3, 3]).groups(2).padding(sym([1, 1, 1])), false),
        (Shape::new(1, 2, 2, [3, 12, 256], [3, 3, 3]).groups(2).padding(sym([0, 1, 1])), true),
        // Rows of 400: past the 4-warp block's copies, the 8-warp block (NVIDIA).
        (Shape::new(1, 2, 2, [3, 9, 400], [3, 3, 3]).groups(2).padding(sym([1, 1, 1])), false),
        (Shape::new(1, 3, 3, [37, 5, 8], [3, 3, 3]).groups(3).padding(Padding::Causal), false),
        // Depth padding past the taps' reach (outputs of the bias alone at both ends) and one
        // frame: the NCDHW kernel's depth walk from the first plane with data.
        (Shape::new(2, 3, 3, [3, 6, 16], [3, 3, 3]).groups(3).padding(sym([4, 1, 1])), true),
        (Shape::new(2, 3, 3, [1, 7, 16], [3, 3, 3]).groups(3).padding(sym([1, 1, 1])), false),
        // Rows of 56 (pitch 64): the NCDHW kernel's dense output tiles and its plane barrier
        // every two planes with TMA; 57 rows in row tiles of 29 and 28, and causal padding
        // with an even depth (the walk from plane 2).
        (Shape::new(1, 3, 3, [5, 57, 56], [3, 3, 3]).groups(3).padding(sym([1, 1, 1])), true),
        (Shape::new(2, 2, 2, [4, 30, 56], [3, 3, 3]).groups(2).padding(Padding::Causal), false),
        // Depthwise NDHWC on the matrix cores (f16/bf16, channels in groups of 16 on NVIDIA and
        // 8 on AMD): odd width and two channel groups, padding 2 on h and 0 on w with several
        // row tiles, depth in several chunks (causal), and rows too wide for its copies (the
        // vector kernel).
        (Shape::new(2, 32, 32, [5, 9, 13], [3, 3, 3]).groups(32).padding(sym([1, 1, 1])), true),
        (Shape::new(1, 16, 16, [4, 20, 30], [3, 3, 3]).groups(16).padding(sym([1, 2, 0])), false),
        (Shape::new(1, 16, 16, [37, 5, 8], [3, 3, 3]).groups(16).padding(Padding::Causal), true),
        (Shape::new(1, 16, 16, [3, 5, 300], [3, 3, 3]).groups(16).padding(sym([1, 1, 1])), false),
        // Depthwise NDHWC on Hopper's diagonal-operand kernel (f16/bf16, blocks of 64 channels
        // x 8 x 8 outputs, TMA boxes): 72 channels (a partial block) with padding 2 on h and w
        // (partial tiles on both); 7 x 7 planes (one partial tile) with causal padding.
        (Shape::new(2, 72, 72, [5, 9, 11], [3, 3, 3]).groups(72).padding(sym([1, 2, 2])), true),
        (Shape::new(1, 136, 136, [6, 7, 7], [3, 3, 3]).groups(136).padding(Padding::Causal), false),
        // The same kernel at stride 2 on h and w (8 x 4 output tiles of 17 x 9 input positions):
        // odd sizes with padding 1, and causal padding over partial tiles on both axes.
        (Shape::new(2, 72, 72, [4, 9, 11], [3, 3, 3]).groups(72).stride([1, 2, 2]).padding(sym([1, 1, 1])), true),
        (Shape::new(1, 64, 64, [5, 17, 20], [3, 3, 3]).groups(64).stride([1, 2, 2]).padding(Padding::Causal), false),
        // Depthwise geometry without a dedicated kernel (depthwise_generic.hip): 5x5x5 over 24
        // channels (16-byte channel vectors in NDHWC, a channel a thread along w in NCDHW);
        // causal (3, 1, 1) dilated in depth over 12 channels (f16 NDHWC: not whole vectors, a
        // channel a thread); 7x7x7 over 64 channels (343 taps: the staged taps' channel tile
        // halved); a (2, 3, 4) kernel with strides (2, 1, 3) and dilation 2 on h.
        (Shape::new(1, 24, 24, [5, 7, 9], [5, 5, 5]).groups(24).padding(sym([2, 2, 2])), true),
        (Shape::new(2, 12, 12, [6, 5, 11], [3, 1, 1]).groups(12).dilation([2, 1, 1]).padding(Padding::Causal), false),
        (Shape::new(1, 64, 64, [3, 8, 9], [7, 7, 7]).groups(64).padding(sym([3, 3, 3])), false),
        // 136 channels: in f32 NDHWC 34 vectors, tiles of 32 (the second partial).
        (Shape::new(1, 136, 136, [3, 4, 5], [1, 3, 3]).groups(136).padding(sym([0, 1, 1])), true),
        (
            Shape::new(1, 16, 16, [7, 9, 10], [2, 3, 4])
                .groups(16)
                .stride([2, 1, 3])
                .dilation([1, 2, 1])
                .padding(sym([1, 2, 1])),
            true,
        ),
        // Grouped with channel groups of 8 (the implicit GEMM's 16-byte gathers per group).
        (Shape::new(1, 16, 32, [3, 5, 6], [3, 3, 3]).groups(2).padding(sym([1, 1, 1])), true),
        // The implicit GEMM's tap-run path (cin_g a multiple of 32): k-tiles of 64 over taps of
        // 96 channels (a tile straddling two taps; on Hopper in 16 bits A by two TMA im2col
        // boxes of 32 channels a k-tile, as for the 32-channel cases below without frames), of
        // 32 (two taps per tile), grouped, strided and dilated, and a cout past one co tile (96
        // channels with a 3³ kernel, k = 2592: f32_stays_f32_accurate_over_long_reductions).
        (Shape::new(1, 96, 40, [3, 5, 7], [2, 1, 3]).padding(Padding::Causal), true),
        (
            Shape::new(2, 64, 64, [4, 6, 5], [3, 3, 3])
                .groups(2)
                .stride([1, 2, 2])
                .dilation([2, 1, 1])
                .padding(sym([2, 1, 1])),
            false,
        ),
        (Shape::new(1, 32, 136, [3, 4, 5], [1, 3, 3]).padding(sym([0, 1, 1])), true),
        // The widest co tile (128; on Hopper the wgmma kernel's m64n128) over m = 270
        // output positions (a partial last m tile) with causal frames.
        (Shape::new(1, 32, 128, [3, 6, 15], [3, 3, 3]).padding(Padding::Causal), true),
        // cout 184: on Hopper the wgmma kernel's co tile of 192 (8 columns of padding).
        (Shape::new(1, 32, 184, [2, 5, 9], [3, 3, 3]).padding(sym([1, 1, 1])), false),
        // On Hopper, A by TMA im2col boxes (cin_g a multiple of 64, no frames): two groups of
        // 64 channels (the box's channel offset), stride and dilation with padding 2 in depth;
        // then the causal front padding with cout 192 (the register epilogue of the widest co
        // tile) over m = 600 (a partial last m tile crossing planes).
        (
            Shape::new(2, 128, 64, [4, 6, 5], [3, 3, 3])
                .groups(2)
                .stride([1, 2, 2])
                .dilation([2, 1, 1])
                .padding(sym([2, 1, 1])),
            true,
        ),
        (Shape::new(1, 64, 192, [3, 5, 40], [3, 3, 3]).padding(Padding::Causal), false),
        // NCDHW x through the transpose's 16-byte chunk kernel (channels and volume multiples
        // of 8): a partial tile on both of its axes (72 of 64 + 64 rows, 40 of 64 columns).
        (Shape::new(1, 72, 40, [2, 4, 5], [3, 3, 3]).padding(sym([1, 1, 1])), true),
        // ImplicitGemm's halo-tile kernel (16-bit, 32 channels in, at most 32 out, stride 1;
        // output tiles of 2 x 8 x 16): partial tiles on every axis with cout 24, cout 13 (NDHWC
        // y from registers: one 16-byte run and one of 5 elements a position), a 1x3x3 kernel
        // dilated on h and w, and causal padding over whole tiles.
        (Shape::new(2, 32, 24, [5, 11, 19], [3, 3, 3]).padding(sym([1, 1, 1])), true),
        (Shape::new(1, 32, 13, [3, 10, 18], [3, 3, 3]).padding(sym([1, 1, 1])), true),
        (Shape::new(1, 32, 32, [3, 9, 33], [1, 3, 3]).dilation([1, 2, 2]).padding(sym([0, 2, 2])), false),
        (Shape::new(1, 32, 32, [4, 8, 16], [3, 3, 3]).padding(Padding::Causal), true),
        // Tiled's register-slab kernel (NCDHW): 6 of its 9 slabs live, depth stride and
        // dilation 2, an odd number of output rows, a width past one warp, a partial chunk
        // of 8 output channels; then two whole chunks, padding 2 on h and 0 on w.
        (
            Shape::new(2, 2, 5, [7, 9, 37], [3, 3, 3]).stride([2, 1, 1]).dilation([2, 1, 1]).padding(sym([2, 1, 1])),
            true,
        ),
        (Shape::new(1, 3, 16, [3, 6, 5], [3, 3, 3]).padding(sym([1, 2, 0])), false),
        // Grids of more than one block an SM for the staged-strip kernel (162 tiles of 16 x 32
        // at cout 8), where sm_90 devices launch it for small grids in both layouts: NCDHW on
        // the register-slab kernel, NDHWC on the staged-strip kernel launched unchained.
        (Shape::new(2, 3, 8, [9, 40, 70], [3, 3, 3]).padding(sym([1, 1, 1])), true),
        // Tiled's staged-strip kernel (the layouts the register-slab kernel leaves: NDHWC):
        // partial 16 x 32 output tiles on h and w, 12 channels (a whole and a half chunk of 8,
        // y stored through shared memory in 4-channel vectors); then 6 channels (y element by
        // element in NDHWC), padding 0 on h, and a single column tile.
        (Shape::new(2, 3, 12, [4, 19, 35], [3, 3, 3]).padding(sym([1, 1, 1])), true),
        (Shape::new(1, 2, 6, [3, 17, 29], [3, 3, 3]).padding(sym([1, 0, 1])), false),
    ]
}

fn is_depthwise(s: &Shape) -> bool {
    s.groups == s.cin && s.cin == s.cout
}

/// The algorithms that take `s` (Depthwise only where groups == cin == cout), and Auto.
fn algorithms_for(s: &Shape) -> Vec<Algorithm> {
    let mut list: Vec<Algorithm> =
        Algorithm::ALL.into_iter().filter(|a| *a != Algorithm::Depthwise || is_depthwise(s)).collect();
    list.push(Algorithm::Auto);
    list
}

fn run_all_dtypes(device: &Device, s: Shape, options: Options, bias: bool, rng: &mut Rng) {
    check_forward::<f16>(device, s, options, bias, rng);
    check_forward::<bf16>(device, s, options, bias, rng);
    check_forward::<f32>(device, s, options, bias, rng);
}

#[test]
fn every_algorithm_matches_the_f64_reference() {
    let mut rng = Rng::new(fresh_seed("every_algorithm_matches_the_f64_reference"));
    for device in devices("every_algorithm_matches_the_f64_reference") {
        for (s, bias) in cases() {
            for algorithm in algorithms_for(&s) {
                for layout in LAYOUTS {
                    let activation = if bias { Activation::Silu } else { Activation::Identity };
                    run_all_dtypes(&device, s, Options { algorithm, layout, activation }, bias, &mut rng);
                }
            }
        }
    }
}

/// A random valid shape: sizes 1-9, kernels 1-3 per axis, stride and dilation 1-2, groups
/// from the channel counts' common divisors, padding symmetric 0-2 or causal.
fn random_shape(rng: &mut Rng) -> Shape {
    loop {
        let groups = [1, 1, 2, 3][rng.range(0, 3)];
        let (cin, cout) = (groups * rng.range(1, 5), groups * rng.range(1, 5));
        let input = [rng.range(1, 6), rng.range(1, 9), rng.range(1, 9)];
        let kernel = [rng.range(1, 3), rng.range(1, 3), rng.range(1, 3)];
        let padding = if rng.range(0, 2) == 0 {
            Padding::Causal
        } else {
            Padding::Symmetric([rng.range(0, 2), rng.range(0, 2), rng.range(0, 2)])
        };
        let s = Shape::new(rng.range(1, 2), cin, cout, input, kernel)
            .groups(groups)
            .stride([rng.range(1, 2), rng.range(1, 2), rng.range(1, 2)])
            .dilation([rng.range(1, 2), rng.range(1, 2), rng.range(1, 2)])
            .padding(padding);
        if s.output().is_some() {
            return s;
        }
    }
}

#[test]
fn register_epilogues_take_each_bias_and_activation() {
    // The 16-bit register epilogues compile the launch's bias and SiLU in (per combination:
    // the wgmma kernel's co tile of 128 on Hopper; the halo-tile kernel's channel-last y),
    // so every combination runs here, in NDHWC, with a partial last m tile.
    let mut rng = Rng::new(fresh_seed("register_epilogues_take_each_bias_and_activation"));
    let sym = Padding::Symmetric([1, 1, 1]);
    let shapes = [
        Shape::new(1, 64, 128, [2, 5, 31], [3, 3, 3]).padding(sym),
        Shape::new(1, 32, 32, [3, 9, 20], [3, 3, 3]).padding(sym),
    ];
    for device in devices("register_epilogues_take_each_bias_and_activation") {
        for s in shapes {
            for activation in [Activation::Identity, Activation::Silu] {
                for bias in [false, true] {
                    let options = Options { algorithm: Algorithm::ImplicitGemm, layout: Layout::Ndhwc, activation };
                    check_forward::<f16>(&device, s, options, bias, &mut rng);
                    check_forward::<bf16>(&device, s, options, bias, &mut rng);
                }
            }
        }
    }
}

#[test]
fn row_reuse_kernel_matches_the_reference() {
    // Hopper's row-reuse kernel (implicit_gemm_rows.hip) takes the video VAE's convolution:
    // 3x3x3, 96 channels in and 65-96 out, stride and dilation 1, f16/bf16; NDHWC y from its
    // registers, NCDHW y (after the channels-last copies of x and w) through shared memory.
    // Its tiles are 4 output rows x 64 positions, so these have partial tiles along oh and
    // ow, padding 0, 1 and 2 and causal, cout 80, 88 and 70 (zero weights past cout), two
    // batches, and every bias and activation in each layout; and a causal video in chunks
    // (initial frames by their own TMA maps). Elsewhere (other GPUs, the host) the same
    // shapes take the other kernels, against the same reference.
    let mut rng = Rng::new(fresh_seed("row_reuse_kernel_matches_the_reference"));
    let sym = |p| Padding::Symmetric(p);
    let each_epilogue = Shape::new(1, 96, 96, [3, 7, 70], [3, 3, 3]).padding(sym([1, 1, 1]));
    let one_epilogue = [
        Shape::new(1, 96, 80, [4, 10, 67], [3, 3, 3]).padding(sym([0, 0, 0])),
        Shape::new(1, 96, 88, [2, 6, 61], [3, 3, 3]).padding(sym([2, 2, 2])),
        Shape::new(2, 96, 96, [3, 5, 130], [3, 3, 3]).padding(Padding::Causal),
        // cout 70: NDHWC y's positions are not 16-byte aligned (through shared memory too).
        Shape::new(1, 96, 70, [2, 5, 67], [3, 3, 3]).padding(sym([1, 1, 1])),
    ];
    let streamed = Shape::new(1, 96, 96, [5, 6, 70], [3, 3, 3]).padding(Padding::Causal);
    let Some(device) = gpu_device("row_reuse_kernel_matches_the_reference") else { return };
    for layout in LAYOUTS {
        let options = |activation| Options { algorithm: Algorithm::ImplicitGemm, layout, activation };
        for activation in [Activation::Identity, Activation::Silu] {
            for bias in [false, true] {
                check_forward::<f16>(&device, each_epilogue, options(activation), bias, &mut rng);
                check_forward::<bf16>(&device, each_epilogue, options(activation), bias, &mut rng);
            }
        }
        for (i, s) in one_epilogue.into_iter().enumerate() {
            check_forward::<f16>(&device, s, options(Activation::Silu), i % 2 == 0, &mut rng);
            check_forward::<bf16>(&device, s, options(Activation::Identity), i % 2 == 1, &mut rng);
        }
        // Chunks of 2 frames: the rows before depth 0 from the previous chunk's frames.
        check_streaming::<bf16>(&device, streamed, options(Activation::Silu), 2, &mut rng);
    }
}

#[test]
fn random_shapes_match_the_reference() {
    let mut rng = Rng::new(fresh_seed("random_shapes_match_the_reference"));
    for device in devices("random_shapes_match_the_reference") {
        for _ in 0..12 {
            let s = random_shape(&mut rng);
            for algorithm in algorithms_for(&s) {
                let layout = LAYOUTS[rng.range(0, 1)];
                let options = Options { algorithm, layout, activation: Activation::Silu };
                match rng.range(0, 2) {
                    0 => check_forward::<f16>(&device, s, options, true, &mut rng),
                    1 => check_forward::<bf16>(&device, s, options, false, &mut rng),
                    _ => check_forward::<f32>(&device, s, options, true, &mut rng),
                };
            }
        }
    }
}

/// Frames `start .. start + len` of a `channels × [D, H, W]` tensor, in `layout`.
fn frames_of<T: Copy>(
    layout: Layout,
    batch: usize,
    channels: usize,
    e: [usize; 3],
    v: &[T],
    start: usize,
    len: usize,
) -> Vec<T> {
    let mut out = Vec::with_capacity(batch * channels * len * e[1] * e[2]);
    let sub = [len, e[1], e[2]];
    out.resize(batch * channels * len * e[1] * e[2], v[0]);
    for n in 0..batch {
        for c in 0..channels {
            for d in 0..len {
                for h in 0..e[1] {
                    for w in 0..e[2] {
                        out[index(layout, channels, sub, [n, c, d, h, w])] =
                            v[index(layout, channels, e, [n, c, start + d, h, w])];
                    }
                }
            }
        }
    }
    out
}

/// A causal video cut into chunks of `chunk` frames, each continuing from the previous
/// chunk's final frames, gives exactly the one-pass output; the last final frames are the
/// video's last frames.
fn check_streaming<T: Element>(device: &Device, s: Shape, options: Options, chunk: usize, rng: &mut Rng) {
    let stream = device.stream().unwrap();
    let [depth, h, w] = s.input;
    let x: Vec<T> = random(rng, s.x_len());
    let wt: Vec<T> = random(rng, s.w_len());
    let b: Vec<T> = random(rng, s.cout);
    let (wd, bd) = (upload(device, &stream, &wt), upload(device, &stream, &b));
    let out = out_extent(&s);
    assert_eq!(out[0], depth, "causal, depth stride 1: one output frame per input frame");

    let mut whole = upload(device, &stream, &vec![common::nan::<T>(); s.y_len()]);
    let mut conv = Conv3d::<T>::new(device, s, options).unwrap();
    conv.forward(&stream, &upload(device, &stream, &x), &wd, Some(&bd), &mut whole).unwrap();
    let whole = whole.to_vec(&stream).unwrap();
    let silu = options.activation == Activation::Silu;
    let err = rel_norm_error(&whole, &reference(&s, options.layout, &x, &wt, Some(&b), None, silu));
    assert!(err < tolerance(T::DTYPE), "one pass {} on {}: {err:.3e}", options.algorithm, device.id());

    let history = s.history_frames();
    let mut initial: Option<hipconv::Buffer<T>> = None;
    let mut chunked = vec![common::nan::<T>(); s.y_len()];
    let mut start = 0;
    while start < depth {
        let len = chunk.min(depth - start);
        let cs = Shape { input: [len, h, w], ..s };
        let xc = upload(device, &stream, &frames_of(options.layout, s.batch, s.cin, s.input, &x, start, len));
        let mut yc = upload(device, &stream, &vec![common::nan::<T>(); cs.y_len()]);
        let mut final_frames = upload(device, &stream, &vec![common::nan::<T>(); cs.frames_len()]);
        let mut conv = Conv3d::<T>::new(device, cs, options).unwrap();
        let frames = Frames { initial: initial.as_ref(), final_frames: Some(&mut final_frames) };
        conv.forward_chunk(&stream, &xc, &wd, Some(&bd), frames, &mut yc).unwrap();
        let yc = yc.to_vec(&stream).unwrap();
        let oe = out_extent(&cs);
        for n in 0..s.batch {
            for c in 0..s.cout {
                for d in 0..len {
                    for i in 0..out[1] {
                        for j in 0..out[2] {
                            chunked[index(options.layout, s.cout, out, [n, c, start + d, i, j])] =
                                yc[index(options.layout, s.cout, oe, [n, c, d, i, j])];
                        }
                    }
                }
            }
        }
        initial = Some(final_frames);
        start += len;
    }
    let same = whole.iter().zip(&chunked).filter(|(a, b)| a.to_bits_u32() == b.to_bits_u32()).count();
    assert_eq!(
        same,
        whole.len(),
        "{} {:?} on {} {:?}: chunks of {chunk} differ from one pass in {} of {} outputs",
        options.algorithm,
        T::DTYPE,
        device.id(),
        options.layout,
        whole.len() - same,
        whole.len()
    );
    // The last chunk's final frames are the video's last `history` frames (zeros before it).
    let last = initial.unwrap().to_vec(&stream).unwrap();
    let want: Vec<T> = if depth >= history {
        frames_of(options.layout, s.batch, s.cin, s.input, &x, depth - history, history)
    } else {
        let mut v = vec![T::from_f32(0.0); s.frames_len()];
        let fe = [history, h, w];
        for n in 0..s.batch {
            for c in 0..s.cin {
                for d in 0..depth {
                    for i in 0..h {
                        for j in 0..w {
                            v[index(options.layout, s.cin, fe, [n, c, history - depth + d, i, j])] =
                                x[index(options.layout, s.cin, s.input, [n, c, d, i, j])];
                        }
                    }
                }
            }
        }
        v
    };
    assert!(last.iter().zip(&want).all(|(a, b)| a.to_bits_u32() == b.to_bits_u32()), "final frames on {}", device.id());
}

#[test]
fn causal_streaming_chunk_by_chunk_equals_one_pass() {
    let mut rng = Rng::new(fresh_seed("causal_streaming_chunk_by_chunk_equals_one_pass"));
    for device in devices("causal_streaming_chunk_by_chunk_equals_one_pass") {
        let dense = Shape::new(2, 16, 8, [7, 5, 9], [3, 3, 3]).padding(Padding::Causal);
        let dilated = Shape::new(1, 5, 6, [8, 6, 5], [3, 3, 3]).dilation([2, 1, 1]).padding(Padding::Causal);
        let depthwise = Shape::new(1, 16, 16, [6, 5, 8], [3, 3, 3]).groups(16).padding(Padding::Causal);
        let wide = Shape::new(1, 32, 8, [6, 5, 7], [3, 3, 3]).dilation([2, 1, 1]).padding(Padding::Causal);
        // Depthwise (3, 1, 1), 12 channels: frames through depthwise_generic.hip's channel
        // vectors (f32 NDHWC) and its channel-a-thread kernel (f32 NCDHW; 16-bit in both
        // layouts, channel fastest in NDHWC).
        let temporal =
            Shape::new(2, 12, 12, [7, 4, 6], [3, 1, 1]).groups(12).dilation([2, 1, 1]).padding(Padding::Causal);
        for s in [dense, dilated, depthwise, wide, temporal] {
            for algorithm in algorithms_for(&s) {
                for layout in LAYOUTS {
                    let options = Options { algorithm, layout, activation: Activation::Silu };
                    for chunk in [1, 2, 5] {
                        check_streaming::<f16>(&device, s, options, chunk, &mut rng);
                    }
                    check_streaming::<bf16>(&device, s, options, 2, &mut rng);
                    check_streaming::<f32>(&device, s, options, 5, &mut rng);
                }
            }
        }
        announce(&format!("conv3d streaming: chunks of 1, 2, 5 frames equal one pass on {}", device.id()));
    }
}

/// Four forwards of `s` with `algorithm` back to back in one stream on every device, each
/// reading the previous one's output (all outputs NaN-poisoned first), checked step by step
/// against the reference of what the step read (cin == cout; each weight set scaled by 0.2
/// so that the values stay in range over the four steps). A chained launch whose wait for the kernel
/// before it came after its first read would read NaN or a stale output here.
fn check_dependent_forwards<T: Element>(test: &str, s: Shape, algorithm: Algorithm, rng: &mut Rng) {
    assert_eq!(s.cin, s.cout);
    for device in devices(test) {
        for layout in LAYOUTS {
            let options = Options { algorithm, layout, activation: Activation::Identity };
            let stream = device.stream().unwrap();
            let mut conv = Conv3d::<T>::new(&device, s, options).unwrap();
            let x: Vec<T> = random(rng, s.x_len());
            let weights: Vec<Vec<T>> = (0..4)
                .map(|_| random::<T>(rng, s.w_len()).into_iter().map(|v| T::from_f32(v.to_f32() * 0.2)).collect())
                .collect();
            let w_device: Vec<_> = weights.iter().map(|w| upload(&device, &stream, w)).collect();
            let mut steps = vec![upload(&device, &stream, &x)];
            for w in &w_device {
                let mut y = upload(&device, &stream, &vec![common::nan::<T>(); s.x_len()]);
                conv.forward_chunk(&stream, steps.last().unwrap(), w, None, Frames::default(), &mut y).unwrap();
                steps.push(y);
            }
            let values: Vec<Vec<T>> = steps.iter().map(|b| b.to_vec(&stream).unwrap()).collect();
            for (k, w) in weights.iter().enumerate() {
                let want = reference(&s, layout, &values[k], w, None, None, false);
                let err = rel_norm_error(&values[k + 1], &want);
                assert!(
                    err < tolerance(T::DTYPE),
                    "{algorithm} forward {} of 4 ({layout:?}) on {}: rel norm error {err:.3e}; NaN left: {}",
                    k + 1,
                    device.id(),
                    values[k + 1].iter().any(|v| v.to_f32().is_nan())
                );
            }
        }
        announce(&format!(
            "conv3d {algorithm}: four dependent forwards in one stream each read the one before on {}",
            device.id()
        ));
    }
}

#[test]
fn each_forward_reads_the_output_of_the_forward_before_it() {
    // The seed's shape with 3 channels out, so that Tiled runs its staged-strip kernel in one
    // wave in both layouts: on sm_90 and newer a chained launch whose blocks are placed while
    // the forward before it runs and wait for it with their addresses computed.
    let test = "each_forward_reads_the_output_of_the_forward_before_it";
    let mut rng = Rng::new(fresh_seed(test));
    let s = Shape::new(1, 3, 3, [16, 64, 64], [3, 3, 3]).padding(Padding::Symmetric([1, 1, 1]));
    check_dependent_forwards::<f32>(test, s, Algorithm::Tiled, &mut rng);
}

#[test]
fn each_depthwise_forward_reads_the_output_of_the_forward_before_it() {
    // f16 depthwise 3³ on the matrix-core kernels (NCDHW: rows of whole 16-byte vectors;
    // NDHWC: channels in groups of 8), launched chained on sm_90 and newer. Each forward is
    // one wave of blocks, so the next one's blocks are placed at once and wait for it.
    let test = "each_depthwise_forward_reads_the_output_of_the_forward_before_it";
    let mut rng = Rng::new(fresh_seed(test));
    let s = Shape::new(1, 32, 32, [5, 24, 40], [3, 3, 3]).groups(32).padding(Padding::Symmetric([1, 1, 1]));
    check_dependent_forwards::<f16>(test, s, Algorithm::Depthwise, &mut rng);
}

#[test]
fn f32_stays_f32_accurate_over_long_reductions() {
    // k = 96 channels × 27 taps = 2592 products per output: the matrix paths (3xTF32 on
    // NVIDIA) must meet fp32's tolerance as the vector units do.
    let mut rng = Rng::new(fresh_seed("f32_stays_f32_accurate_over_long_reductions"));
    let s = Shape::new(1, 96, 40, [3, 6, 10], [3, 3, 3]).padding(Padding::Symmetric([1, 1, 1]));
    for device in devices("f32_stays_f32_accurate_over_long_reductions") {
        for algorithm in [Algorithm::Im3colGemm, Algorithm::ImplicitGemm, Algorithm::Tiled] {
            for layout in LAYOUTS {
                let err = check_forward::<f32>(
                    &device,
                    s,
                    Options { algorithm, layout, activation: Activation::Identity },
                    true,
                    &mut rng,
                );
                announce(&format!(
                    "conv3d f32 k=2592 {algorithm} {layout} on {}: rel norm error {err:.2e}",
                    device.id()
                ));
            }
        }
    }
}

#[test]
fn every_kernel_path_once_for_the_sanitizers() {
    // One small case per kernel path, so that compute-sanitizer's racecheck (which slows
    // shared-memory kernels by orders of magnitude) covers them all in seconds: Tiled's
    // direct path (few taps; its register-slab kernel with 9 and 3 slabs in NCDHW, its
    // staged-strip kernel with 8 and 3 output channels in NDHWC) and shared-memory path,
    // ImplicitGemm's tap-run path (cin_g a multiple of 32; on Hopper the wgmma kernel, its
    // widest co tile with A by two 32-channel TMA im2col boxes a k-tile, then A by one
    // 64-channel box), 16-byte path and element path, the
    // explicit pipeline, Depthwise's channel-last and channel-first paths
    // (the [4, 6, 16] case on the matrix cores in f16: NDHWC on Hopper's diagonal-operand
    // kernel, and [3, 7, 9] its stride-2 form; [3, 5, 56] NCDHW's dense output tiles with TMA,
    // rows of 56; the [2, 3, 2] kernel and the 3-channel (3, 1, 1)
    // one on depthwise_generic.hip's channel-vector and channel-a-thread kernels), ImplicitGemm's halo tiles (32
    // channels in and out, f16), causal frames, groups; NCDHW x relaid by the transpose's
    // 16-byte chunk kernel ([3, 5, 8]: 32 x 120, partial tiles) and its element kernel.
    let mut rng = Rng::new(fresh_seed("every_kernel_path_once_for_the_sanitizers"));
    let sym = Padding::Symmetric([1, 1, 1]);
    let cases = [
        Shape::new(1, 3, 8, [4, 9, 17], [3, 3, 3]).padding(sym),
        Shape::new(2, 1, 3, [5, 7, 10], [3, 3, 3]).stride([2, 1, 1]).padding(sym),
        Shape::new(1, 8, 12, [3, 7, 9], [3, 3, 3]).padding(Padding::Causal),
        Shape::new(1, 32, 40, [3, 5, 8], [3, 3, 3]).padding(Padding::Causal),
        Shape::new(1, 16, 16, [2, 5, 7], [3, 3, 3]).groups(2).padding(sym),
        Shape::new(1, 5, 6, [3, 4, 5], [3, 3, 3]).padding(sym),
        Shape::new(1, 16, 16, [4, 6, 16], [3, 3, 3]).groups(16).padding(sym),
        Shape::new(1, 2, 2, [3, 5, 56], [3, 3, 3]).groups(2).padding(sym),
        Shape::new(1, 16, 16, [3, 7, 9], [3, 3, 3]).groups(16).stride([1, 2, 2]).padding(sym),
        Shape::new(1, 16, 16, [3, 5, 6], [2, 3, 2]).groups(16).padding(sym),
        Shape::new(1, 3, 3, [4, 3, 5], [3, 1, 1]).groups(3).padding(Padding::Causal),
        Shape::new(1, 32, 184, [2, 3, 9], [3, 3, 3]).padding(sym),
        Shape::new(1, 64, 64, [2, 5, 9], [3, 3, 3]).padding(Padding::Causal),
        Shape::new(1, 32, 32, [3, 9, 20], [3, 3, 3]).padding(Padding::Causal),
    ];
    for device in devices("every_kernel_path_once_for_the_sanitizers") {
        for s in cases {
            for algorithm in algorithms_for(&s) {
                for layout in LAYOUTS {
                    let options = Options { algorithm, layout, activation: Activation::Silu };
                    check_forward::<f16>(&device, s, options, true, &mut rng);
                    check_forward::<f32>(&device, s, options, false, &mut rng);
                }
            }
        }
    }
}
