//! The whole forward against the f64 reference, on every backend compiled and present:
//! every algorithm, layout, dtype, bias and activation, random shapes with tile edges,
//! widths 1 to 64, and a forward captured in a graph.

mod common;

use common::forward::{assert_accurate, Case};
use common::{devices, fresh_seed, gpu_device, index, nan, reference_conv, rel_norm_error, tolerance, Rng};
use hipconv::conv1d::{Activation, Algorithm, CausalConv1d, Layout, Options, Shape};
use hipconv::half::{bf16, f16};
use hipconv::Device;

/// The algorithms that take every dtype, layout, bias and activation.
const FAST_PATHS: [Algorithm; 2] = [Algorithm::Direct, Algorithm::FusedGemm];

/// Every fast-path configuration of a shape: both algorithms and layouts, with and
/// without bias + SiLU.
fn fast_cases(shape: Shape) -> impl Iterator<Item = Case> {
    FAST_PATHS.into_iter().flat_map(move |algorithm| {
        [Layout::ChannelFirst, Layout::ChannelLast]
            .into_iter()
            .flat_map(move |layout| [false, true].map(|epilogue| Case::new(shape, algorithm, layout, epilogue)))
    })
}

fn im2col_case(shape: Shape) -> Case {
    Case::new(shape, Algorithm::Im2colGemm, Layout::ChannelFirst, false)
}

/// Shapes at the kernels' tile edges (direct: 64 t x 64 c, runs of 16; fused GEMM: 256 t x
/// 32 c, history steps of 16 so widths 17 / 18; im2col: 32 t x 32 c x 8 taps; GEMM 64 x 64 x
/// 64, vector path when width*dim is a multiple of 16 bytes of elements), degenerate ones,
/// and large aligned ones.
fn edge_shapes() -> Vec<Shape> {
    [
        (1, 1, 1, 1),
        (1, 1, 1, 8),
        (1, 3, 2, 7),
        (2, 1, 5000, 4),
        (1, 300, 1, 4),
        (1, 31, 33, 8),
        (1, 32, 32, 9),
        (3, 33, 31, 3),
        (1, 63, 65, 2),
        (2, 64, 64, 4),
        (1, 65, 63, 5),
        (4, 17, 129, 1),
        (1, 128, 96, 4),
        (2, 200, 333, 6),
        (1, 33, 257, 17),
        (2, 9, 256, 18),
        (3, 31, 255, 16),
        (1, 40, 512, 2),
        // Vector-aligned (dim and seqlen multiples of 8) with more tiles than one resident
        // wave of blocks: the direct kernel's prefetch of the next tile.
        (4, 512, 2048, 3),
        (8, 256, 2048, 4),
        // The streaming kernels: channel-first rows shorter than a 16-byte vector and rows
        // ending inside one (the flat array), waves of 4 vectors per lane ending mid-row and
        // a tail shorter than a vector; channel-last dims of 16-byte packs across lanes.
        (1, 5, 3, 4),
        (2, 3, 11, 4),
        (3, 7, 1001, 4),
        (1, 5, 4100, 2),
        (3, 13, 1027, 3),
        (2, 72, 100, 3),
        (1, 24, 7, 4),
        (2, 40, 4097, 1),
        // Rows between one and one-plus-history vectors long (f16: 8 + 1, f32: 4 + 1): a
        // row boundary inside a vector whose row also starts within the history.
        (2, 6, 9, 4),
        (3, 5, 5, 4),
        // Channel-last's word kernel (4 times of one 4-byte word of channels a thread):
        // more words than one block of 128 across (264 and 1032 f16 channels = 132 and 516
        // words, 136 f32), and rows that end inside a thread's 4 times.
        (3, 264, 37, 4),
        (2, 136, 6, 3),
        (1, 1032, 3, 2),
        // ... and past 2^22 elements in 16-bit (8 times a thread), a partial step, in blocks
        // of 128 words across and of 32 words by 4 steps; f32 there takes 16-byte packs of 8
        // times (rows ending inside a thread's 8).
        (2, 1024, 2051, 4),
        (1, 64, 65601, 3),
    ]
    .into_iter()
    .map(|(b, d, s, w)| Shape::new(b, d, s, w))
    .collect()
}

#[test]
fn seed_shape_matches_reference_with_every_algorithm() {
    let mut rng = Rng::new(fresh_seed("seed_shape_matches_reference_with_every_algorithm"));
    let seed = Shape::new(1, 64, 2048, 4);
    for device in devices("seed_shape_matches_reference_with_every_algorithm") {
        assert_accurate::<f16>(&device, im2col_case(seed), &mut rng);
        for case in fast_cases(seed) {
            assert_accurate::<f16>(&device, case, &mut rng);
        }
    }
}

#[test]
fn edge_shapes_match_reference_f16() {
    let mut rng = Rng::new(fresh_seed("edge_shapes_match_reference_f16"));
    for device in devices("edge_shapes_match_reference_f16") {
        for shape in edge_shapes() {
            // The host runs Im2colGemm as a naive dense GEMM: skip the large ones there.
            let g = hipconv::conv1d::stages::gemm_shape(&shape);
            if device.is_gpu() || g.m * g.n * g.k <= 200_000_000 {
                assert_accurate::<f16>(&device, im2col_case(shape), &mut rng);
            }
            for case in fast_cases(shape) {
                assert_accurate::<f16>(&device, case, &mut rng);
            }
        }
    }
}

#[test]
fn edge_shapes_match_reference_bf16_f32() {
    let mut rng = Rng::new(fresh_seed("edge_shapes_match_reference_bf16_f32"));
    for device in devices("edge_shapes_match_reference_bf16_f32") {
        for shape in edge_shapes() {
            // The host runs Im2colGemm as a naive dense GEMM: skip the large ones there.
            let g = hipconv::conv1d::stages::gemm_shape(&shape);
            let im2col = (device.is_gpu() || g.m * g.n * g.k <= 200_000_000).then(|| im2col_case(shape));
            for case in im2col.into_iter().chain(fast_cases(shape)) {
                assert_accurate::<bf16>(&device, case, &mut rng);
                assert_accurate::<f32>(&device, case, &mut rng);
            }
        }
    }
}

#[test]
fn random_shapes_match_reference() {
    let mut rng = Rng::new(fresh_seed("random_shapes_match_reference"));
    for device in devices("random_shapes_match_reference") {
        for i in 0..24 {
            let shape = Shape::new(rng.range(1, 4), rng.range(1, 300), rng.range(1, 5000), rng.range(1, 8));
            let layout = if rng.range(0, 1) == 0 { Layout::ChannelFirst } else { Layout::ChannelLast };
            let epilogue = rng.range(0, 1) == 1;
            assert_accurate::<f16>(&device, Case::new(shape, Algorithm::Direct, layout, epilogue), &mut rng);
            let fused = Case::new(shape, Algorithm::FusedGemm, layout, epilogue);
            match i % 3 {
                0 => assert_accurate::<f16>(&device, fused, &mut rng),
                1 => assert_accurate::<bf16>(&device, fused, &mut rng),
                _ => assert_accurate::<f32>(&device, fused, &mut rng),
            }
            match i % 3 {
                0 => assert_accurate::<bf16>(&device, Case::new(shape, Algorithm::Auto, layout, epilogue), &mut rng),
                1 => assert_accurate::<f32>(&device, Case::new(shape, Algorithm::Auto, layout, epilogue), &mut rng),
                // The host runs Im2colGemm as a naive dense GEMM: GPU only at these sizes.
                _ if device.is_gpu() => assert_accurate::<f16>(&device, im2col_case(shape), &mut rng),
                _ => {}
            }
        }
    }
}

#[test]
fn auto_follows_the_measured_crossovers() {
    // docs/PERFORMANCE.md, "Auto": Direct's streaming kernels up to width 32 everywhere and up
    // to STREAM_MAX_WIDTH in f16/bf16 and channel-last; FusedGemm channel-first f32 from
    // width 33 to its maximum, and f16/bf16 past STREAM_MAX_WIDTH; else Direct.
    let max = hipconv::conv1d::FUSED_GEMM_MAX_WIDTH;
    let (small, large) = ((2, 64, 300), (8, 4096, 1024)); // 38 400 and 2^25 elements
    let (cf, cl) = (Layout::ChannelFirst, Layout::ChannelLast);
    for device in devices("auto_follows_the_measured_crossovers") {
        let resolved = |(b, d, s): (usize, usize, usize), width: usize, layout: Layout, dtype: hipconv::DType| {
            let shape = Shape::new(b, d, s, width);
            let options = Options::default().layout(layout);
            match dtype {
                hipconv::DType::F32 => CausalConv1d::<f32>::with_options(&device, shape, options).map(|c| c.options()),
                _ => CausalConv1d::<f16>::with_options(&device, shape, options).map(|c| c.options()),
            }
            .unwrap()
            .algorithm
        };
        let (f16, f32) = (hipconv::DType::F16, hipconv::DType::F32);
        for (size, width, layout, dtype, expected) in [
            (small, 1, cf, f16, Algorithm::Direct),
            (small, 4, cf, f16, Algorithm::Direct),
            (large, 4, cf, f16, Algorithm::Direct),
            (large, 4, cf, f32, Algorithm::Direct),
            (large, 4, cl, f16, Algorithm::Direct),
            (small, 5, cf, f16, Algorithm::Direct),
            (large, 16, cf, f16, Algorithm::Direct),
            (large, 16, cl, f16, Algorithm::Direct),
            (large, 32, cf, f16, Algorithm::Direct),
            (large, 32, cf, f32, Algorithm::Direct),
            (small, 33, cf, f16, Algorithm::Direct),
            (small, 64, cf, f16, Algorithm::Direct),
            (small, 33, cf, f32, Algorithm::FusedGemm),
            (large, 32, cl, f16, Algorithm::Direct),
            (small, 64, cl, f16, Algorithm::Direct),
            (small, 64, cl, f32, Algorithm::Direct),
            (small, 65, cf, f16, Algorithm::FusedGemm),
            (small, max, cf, f16, Algorithm::FusedGemm),
            (small, max + 1, cf, f16, Algorithm::Direct),
            (small, 65, cl, f16, Algorithm::FusedGemm),
            (small, 65, cl, f32, Algorithm::Direct),
            (small, max + 1, cl, f16, Algorithm::Direct),
        ] {
            assert_eq!(resolved(size, width, layout, dtype), expected, "{size:?} width {width}, {layout}, {dtype}");
        }
    }
}

#[test]
fn fused_gemm_pipelines_strips_of_several_tiles() {
    // FusedGemm gives each block a strip of up to 8 tiles of 256 times once there are more
    // than 2048 tiles; seqlen 1784 = 7 tiles, so strips of 4 end in a partial one. Vector
    // paths (dim and seqlen multiples of 8), both layouts, f16 (tile_c 32) and f32 (16).
    let Some(device) = gpu_device("fused_gemm_pipelines_strips_of_several_tiles") else { return };
    let mut rng = Rng::new(fresh_seed("fused_gemm_pipelines_strips_of_several_tiles"));
    let shape = Shape::new(4, 4800, 1784, 4);
    for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
        let case = Case::new(shape, Algorithm::FusedGemm, layout, true);
        assert_accurate::<f16>(&device, case, &mut rng);
        assert_accurate::<f32>(&device, case, &mut rng);
    }
}

#[test]
fn small_problems_with_more_rows_than_a_grid_axis_holds() {
    // Channel-last small problems run on a grid whose z axis is the batch row, which holds
    // at most 65535: a larger batch of short rows takes the flat kernel instead.
    let mut rng = Rng::new(fresh_seed("small_problems_with_more_rows_than_a_grid_axis_holds"));
    for device in devices("small_problems_with_more_rows_than_a_grid_axis_holds") {
        let shape = Shape::new(70_000, 16, 3, 4);
        let case = Case::new(shape, Algorithm::Direct, Layout::ChannelLast, true);
        assert_accurate::<f16>(&device, case, &mut rng);
        assert_accurate::<f32>(&device, case, &mut rng);
    }
}

#[test]
fn tensors_past_2_pow_31_elements_are_addressed_in_64_bits() {
    // 2 x 32768 x 32800 = 2 149 580 800 elements (> 2^31) per tensor, 4.3 GB each in f16:
    // every offset past 2^31 must be computed in 64 bits. Inputs follow a hashed pattern so
    // that any output can be recomputed on the host; the check samples the first and last
    // rows of each layout and 4000 random outputs. y starts as NaN.
    let Some(device) = gpu_device("tensors_past_2_pow_31_elements_are_addressed_in_64_bits") else { return };
    let mut rng = Rng::new(fresh_seed("tensors_past_2_pow_31_elements_are_addressed_in_64_bits"));
    let s = Shape::new(2, 32768, 32800, 4);
    assert!(s.x_len() > 1 << 31);
    let value = |i: usize| f16::from_f32(((i.wrapping_mul(2_654_435_761) >> 7) % 2001) as f32 / 1000.0 - 1.0);
    let stream = device.stream().unwrap();
    let mut host: Vec<f16> = (0..s.x_len()).map(value).collect();
    let x = device.upload(&stream, &host).unwrap();
    let w_host: Vec<f16> = rng.vec(s.w_len());
    let w = device.upload(&stream, &w_host).unwrap();
    host.iter_mut().for_each(|v| *v = f16::NAN);
    let mut y = device.upload(&stream, &host).unwrap();
    drop(host);
    for (algorithm, layout) in [
        (Algorithm::Direct, Layout::ChannelFirst),
        (Algorithm::Direct, Layout::ChannelLast),
        (Algorithm::FusedGemm, Layout::ChannelFirst),
        (Algorithm::FusedGemm, Layout::ChannelLast),
    ] {
        let options = Options::default().algorithm(algorithm).layout(layout);
        CausalConv1d::with_options(&device, s, options).unwrap().forward(&stream, &x, &w, &mut y).unwrap();
        let out = y.to_vec(&stream).unwrap();
        let mut samples: Vec<(usize, usize, usize)> = (0..4000)
            .map(|_| (rng.range(0, s.batch - 1), rng.range(0, s.dim - 1), rng.range(0, s.seqlen - 1)))
            .collect();
        samples.extend((0..64).flat_map(|t| [(0, 0, t), (s.batch - 1, s.dim - 1, s.seqlen - 1 - t)]));
        samples.extend((0..64).map(|c| (s.batch - 1, s.dim - 1 - c, s.seqlen - 1)));
        let (got, want): (Vec<f16>, Vec<f64>) = samples
            .iter()
            .map(|&(b, c, t)| {
                let conv = (0..s.width)
                    .filter(|&tap| t + tap + 1 >= s.width)
                    .map(|tap| {
                        let x = value(index(&s, layout, b, c, t + tap + 1 - s.width)).to_f64();
                        w_host[c * s.width + tap].to_f64() * x
                    })
                    .sum::<f64>();
                (out[index(&s, layout, b, c, t)], conv)
            })
            .unzip();
        let err = rel_norm_error(&got, &want);
        assert!(err <= tolerance(hipconv::DType::F16), "{algorithm} {layout}: rel error {err:.3e} at sampled outputs");
    }
}

#[test]
fn every_width_from_1_to_64_matches_reference() {
    let mut rng = Rng::new(fresh_seed("every_width_from_1_to_64_matches_reference"));
    for device in devices("every_width_from_1_to_64_matches_reference") {
        for width in 1..=64 {
            let shape = Shape::new(2, 37, 150, width);
            for case in fast_cases(shape) {
                assert_accurate::<f16>(&device, case, &mut rng);
            }
        }
        // Widths past one 32-tap chunk and past the sequence, in f32 (tight tolerance), up to
        // FusedGemm's widest.
        for width in [65, 100, 257, hipconv::conv1d::FUSED_GEMM_MAX_WIDTH] {
            for case in fast_cases(Shape::new(1, 70, 200, width)) {
                assert_accurate::<f32>(&device, case, &mut rng);
            }
        }
    }
}

#[test]
fn wide_streaming_kernels_match_reference_at_tile_edges() {
    // Direct's streaming kernels for widths 5 to 64, compiled as 8, 16, 32 and 64 taps with
    // zeros in front. direct_wide_channel_first.hip: segments of 256 x 4 vectors ending
    // mid-row, histories of up to 8 (16-bit) or 16 (f32) vectors, rows shorter than the
    // history and rows ending inside a vector; channel-last widths to 16:
    // direct_window_channel_last.hip (below, and its own test); past 16:
    // direct_wide_channel_last.hip, tiles of 32 channels x 128 or 256 times, partial in
    // both, with 16-byte rows (dim a multiple of 8) and without.
    let mut rng = Rng::new(fresh_seed("wide_streaming_kernels_match_reference_at_tile_edges"));
    let shapes = [(2, 64, 300), (1, 96, 1030), (3, 5, 37), (2, 40, 4100)];
    for device in devices("wide_streaming_kernels_match_reference_at_tile_edges") {
        for (i, width) in [5, 8, 9, 15, 16, 17, 31, 32, 33, 48, 63, 64].into_iter().enumerate() {
            for (j, &(b, d, s)) in shapes.iter().enumerate() {
                for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                    for epilogue in [false, true] {
                        let case = Case::new(Shape::new(b, d, s, width), Algorithm::Direct, layout, epilogue);
                        match (i + j) % 3 {
                            0 => assert_accurate::<f16>(&device, case, &mut rng),
                            1 => assert_accurate::<bf16>(&device, case, &mut rng),
                            _ => assert_accurate::<f32>(&device, case, &mut rng),
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn window_kernel_matches_reference_at_chunk_edges() {
    // direct_window_channel_last.hip (channel-last widths 5 to 16, compiled as 8 and 16
    // taps): groups of 16 rows, chunks of up to 8 groups per thread (fewer where the grid
    // would be small), two channels per thread where dim is even, else one. Sequences
    // ending inside a group and inside a chunk, shorter than the window, histories that
    // reach back across chunks and warps, dims odd, even and past a warp's 64 channels.
    let mut rng = Rng::new(fresh_seed("window_kernel_matches_reference_at_chunk_edges"));
    let shapes = [(2, 130, 257), (1, 66, 16), (5, 3, 33), (1, 2, 1), (3, 1021, 611)];
    for device in devices("window_kernel_matches_reference_at_chunk_edges") {
        for (i, width) in [5, 7, 8, 9, 12, 16].into_iter().enumerate() {
            for (j, &(b, d, s)) in shapes.iter().enumerate() {
                let case =
                    Case::new(Shape::new(b, d, s, width), Algorithm::Direct, Layout::ChannelLast, (i + j) % 2 == 0);
                assert_accurate::<f16>(&device, case, &mut rng);
                assert_accurate::<bf16>(&device, case, &mut rng);
                assert_accurate::<f32>(&device, case, &mut rng);
            }
        }
        // Grids large enough for 8 groups per chunk (2176 warps of 64 channels, 17 chunks
        // of 128 rows, the last one and its last group partial) and 4 (one channel per
        // thread: odd dim).
        let large = [(Shape::new(4, 2048, 2100, 9), true), (Shape::new(3, 1021, 2051, 16), false)];
        for (shape, epilogue) in large {
            let case = Case::new(shape, Algorithm::Direct, Layout::ChannelLast, epilogue);
            assert_accurate::<bf16>(&device, case, &mut rng);
            assert_accurate::<f32>(&device, case, &mut rng);
        }
    }
}

#[test]
fn matrix_core_wide_kernels_match_reference_at_tile_edges() {
    // The f16/bf16 Toeplitz kernels for widths 5 to 64 (tiles of 128 outputs on NVIDIA, 256
    // on AMD). direct_toeplitz_channel_first.hip (seqlen at least a tile): rows exactly one
    // tile long and one past it, rows ending inside a tile (a tile's products split by
    // row), rows starting inside a tile, segments of 8192 elements whose window reaches back
    // into the previous segment, and a tensor ending mid-tile. Channel-last with dim a
    // multiple of 8: direct_toeplitz_rows_channel_last.hip on NVIDIA (widths 9 to 64, every
    // step count 1..5; tiles of 64 channels x 256 times) and direct_toeplitz_channel_last.hip
    // on AMD (widths 33 to 64; the narrower ones run the FMA kernels): channel tiles full and
    // partial, time tiles ending mid-tile and mid-product, sequences shorter than the history.
    let mut rng = Rng::new(fresh_seed("matrix_core_wide_kernels_match_reference_at_tile_edges"));
    let channel_first = [(1, 3, 128), (2, 3, 129), (1, 70, 255), (3, 7, 257), (1, 9, 2047), (2, 5, 4096)];
    let channel_last = [(1, 8, 100), (2, 64, 129), (1, 72, 255), (3, 136, 257), (1, 16, 2047), (2, 8, 20)];
    for device in devices("matrix_core_wide_kernels_match_reference_at_tile_edges") {
        for width in [5, 8, 9, 12, 16, 24, 25, 32, 33, 40, 41, 57, 64] {
            let layouts = [(Layout::ChannelFirst, &channel_first), (Layout::ChannelLast, &channel_last)];
            for (layout, shapes) in layouts {
                for &(b, d, s) in shapes.iter() {
                    for epilogue in [false, true] {
                        let case = Case::new(Shape::new(b, d, s, width), Algorithm::Direct, layout, epilogue);
                        assert_accurate::<f16>(&device, case, &mut rng);
                        assert_accurate::<bf16>(&device, case, &mut rng);
                    }
                }
            }
        }
    }
}

#[test]
fn matrix_core_wide_kernels_cover_large_grids() {
    // Past one resident wave of blocks: direct_toeplitz_channel_first.hip's grid-stride
    // loop gives each block several segments, and the last segment ends mid-vector;
    // direct_toeplitz_rows_channel_last.hip's gives each block several tiles of its channel
    // tile (1024 channels: 16 channel tiles), in both of its forms (stepped addresses from
    // three steps on or with SiLU: widths 40, and 24 with bias + SiLU; per-row addresses:
    // width 16 without), and with more channel tiles than a wave holds (17024 channels:
    // 266) a block's channel tile changes from tile to tile (width 12 without SiLU: with
    // it, Direct runs the register-window kernel there).
    let mut rng = Rng::new(fresh_seed("matrix_core_wide_kernels_cover_large_grids"));
    for device in devices("matrix_core_wide_kernels_cover_large_grids") {
        let cases = [
            ((3, 1021, 2051, 7), Layout::ChannelFirst, true),
            ((3, 1021, 2051, 33), Layout::ChannelFirst, true),
            ((3, 1021, 2051, 48), Layout::ChannelLast, true),
            ((2, 1024, 2051, 40), Layout::ChannelLast, false),
            ((2, 1024, 2051, 24), Layout::ChannelLast, true),
            ((2, 1024, 2051, 16), Layout::ChannelLast, false),
            ((1, 17024, 300, 12), Layout::ChannelLast, false),
        ];
        for ((b, d, s, width), layout, epilogue) in cases {
            let case = Case::new(Shape::new(b, d, s, width), Algorithm::Direct, layout, epilogue);
            assert_accurate::<f16>(&device, case, &mut rng);
        }
    }
}

#[test]
fn hand_computed_values_with_width_beyond_seqlen() {
    // dim 2, seqlen 3, width 5: every output sees the zero history.
    let shape = Shape::new(1, 2, 3, 5);
    let x = common::f16s(&[1.0, 2.0, 3.0, -1.0, 0.5, 0.25]);
    let w = common::f16s(&[0.5, 1.0, 2.0, -1.0, 4.0, 1.0, 1.0, 1.0, 2.0, -2.0]);
    // channel 0 taps (.., -1, 4): y0 = 4*1, y1 = -1*1 + 4*2, y2 = 2*1 - 1*2 + 4*3
    // channel 1 taps (.., 2, -2): y0 = -2*-1, y1 = 2*-1 - 2*.5, y2 = 1*-1 + 2*.5 - 2*.25
    let expected = [4.0, 7.0, 12.0, 2.0, -3.0, -0.5];
    for device in devices("hand_computed_values_with_width_beyond_seqlen") {
        for algorithm in [Algorithm::Im2colGemm, Algorithm::FusedGemm, Algorithm::Direct] {
            let stream = device.stream().unwrap();
            let (xb, wb) = (device.upload(&stream, &x).unwrap(), device.upload(&stream, &w).unwrap());
            let mut y = device.upload(&stream, &[nan::<f16>(); 6]).unwrap();
            let options = Options::default().algorithm(algorithm);
            CausalConv1d::with_options(&device, shape, options).unwrap().forward(&stream, &xb, &wb, &mut y).unwrap();
            let got: Vec<f32> = y.to_vec(&stream).unwrap().iter().map(|v| v.to_f32()).collect();
            assert_eq!(got, expected, "{algorithm} on {}", device.id());
        }
    }
}

#[test]
fn repeated_forwards_reuse_the_workspace() {
    let mut rng = Rng::new(fresh_seed("repeated_forwards_reuse_the_workspace"));
    for device in devices("repeated_forwards_reuse_the_workspace") {
        let shape = Shape::new(2, 70, 300, 4);
        let stream = device.stream().unwrap();
        let options = Options::default().algorithm(Algorithm::Im2colGemm);
        let mut conv = CausalConv1d::<f16>::with_options(&device, shape, options).unwrap();
        for _ in 0..3 {
            let (x_host, w_host): (Vec<f16>, Vec<f16>) = (rng.vec(shape.x_len()), rng.vec(shape.w_len()));
            let x = device.upload(&stream, &x_host).unwrap();
            let w = device.upload(&stream, &w_host).unwrap();
            let mut y = device.upload(&stream, &vec![nan::<f16>(); shape.x_len()]).unwrap();
            conv.forward(&stream, &x, &w, &mut y).unwrap();
            let reference = reference_conv(&shape, Layout::ChannelFirst, &x_host, &w_host, None, false);
            let err = rel_norm_error(&y.to_vec(&stream).unwrap(), &reference);
            assert!(err <= 1e-3, "rel error {err:.3e} on {}", device.id());
        }
    }
}

/// Forwards launched back to back on one stream, each reading the y the one before wrote,
/// with no host wait between them: on sm_90 and newer the streaming kernels' launches
/// overlap (hip/common/dependent_launch.h), and each must still read its input whole. Each
/// step is checked against the reference of the step's own input as read back. Shapes for
/// the streaming kernels' small, mid-size and large launches (16-byte vectors) and their
/// element path, in both layouts; the large one on GPUs only.
#[test]
fn back_to_back_forwards_read_what_the_one_before_wrote() {
    const STEPS: usize = 6;
    let mut rng = Rng::new(fresh_seed("back_to_back_forwards_read_what_the_one_before_wrote"));
    let shapes = [
        Shape::new(1, 64, 2048, 4),
        Shape::new(2, 2000, 37, 4),
        Shape::new(3, 100, 1001, 3),
        Shape::new(4, 256, 4096, 4),
        Shape::new(1, 1024, 33000, 2),
    ];
    for device in devices("back_to_back_forwards_read_what_the_one_before_wrote") {
        let stream = device.stream().unwrap();
        for s in shapes.into_iter().filter(|s| device.is_gpu() || s.x_len() < 1 << 24) {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let mut conv =
                    CausalConv1d::<f32>::with_options(&device, s, Options::default().layout(layout)).unwrap();
                let w_host: Vec<f32> = rng.vec(s.w_len());
                let w = device.upload(&stream, &w_host).unwrap();
                let mut ys = vec![device.upload(&stream, &rng.vec::<f32>(s.x_len())).unwrap()];
                for _ in 0..STEPS {
                    ys.push(device.upload(&stream, &vec![f32::NAN; s.x_len()]).unwrap());
                }
                for k in 0..STEPS {
                    let (done, next) = ys.split_at_mut(k + 1);
                    conv.forward(&stream, &done[k], &w, &mut next[0]).unwrap();
                }
                let host: Vec<Vec<f32>> = ys.iter().map(|y| y.to_vec(&stream).unwrap()).collect();
                for k in 1..=STEPS {
                    let reference = reference_conv(&s, layout, &host[k - 1], &w_host, None, false);
                    let err = rel_norm_error(&host[k], &reference);
                    let tol = tolerance(hipconv::DType::F32);
                    assert!(
                        err <= tol,
                        "{s:?} {layout:?} step {k} on {}: rel error {err:.3e} > {tol:.0e}",
                        device.id()
                    );
                }
            }
        }
    }
}

#[test]
fn channel_last_is_the_same_function_as_channel_first() {
    let mut rng = Rng::new(fresh_seed("channel_last_is_the_same_function_as_channel_first"));
    let s = Shape::new(2, 45, 77, 4);
    let (x_cf, w): (Vec<f32>, Vec<f32>) = (rng.vec(s.x_len()), rng.vec(s.w_len()));
    let mut x_cl = vec![0f32; s.x_len()];
    for (b, c, t) in (0..s.batch).flat_map(|b| (0..s.dim).flat_map(move |c| (0..s.seqlen).map(move |t| (b, c, t)))) {
        x_cl[index(&s, Layout::ChannelLast, b, c, t)] = x_cf[index(&s, Layout::ChannelFirst, b, c, t)];
    }
    for device in devices("channel_last_is_the_same_function_as_channel_first") {
        let stream = device.stream().unwrap();
        for algorithm in FAST_PATHS {
            let run = |layout: Layout, x: &[f32]| {
                let x = device.upload(&stream, x).unwrap();
                let w = device.upload(&stream, &w).unwrap();
                let mut y = device.upload(&stream, &vec![f32::NAN; s.x_len()]).unwrap();
                let options = Options::default().layout(layout).algorithm(algorithm);
                CausalConv1d::with_options(&device, s, options).unwrap().forward(&stream, &x, &w, &mut y).unwrap();
                y.to_vec(&stream).unwrap()
            };
            let (y_cf, y_cl) = (run(Layout::ChannelFirst, &x_cf), run(Layout::ChannelLast, &x_cl));
            let all = (0..s.batch).flat_map(|b| (0..s.dim).flat_map(move |c| (0..s.seqlen).map(move |t| (b, c, t))));
            for (b, c, t) in all {
                let (cf, cl) =
                    (y_cf[index(&s, Layout::ChannelFirst, b, c, t)], y_cl[index(&s, Layout::ChannelLast, b, c, t)]);
                assert_eq!(cf.to_bits(), cl.to_bits(), "{algorithm}: y[{b},{c},{t}] on {}", device.id());
            }
        }
    }
}

#[test]
fn forward_captured_in_a_graph_replays_with_new_inputs() {
    let Some(device) = gpu_device("forward_captured_in_a_graph_replays_with_new_inputs") else { return };
    let mut rng = Rng::new(fresh_seed("forward_captured_in_a_graph_replays_with_new_inputs"));
    let s = Shape::new(3, 130, 1000, 4);
    for algorithm in [Algorithm::Auto, Algorithm::FusedGemm] {
        replay_forward_graph(&device, s, algorithm, &mut rng);
    }
}

fn replay_forward_graph(device: &Device, s: Shape, algorithm: Algorithm, rng: &mut Rng) {
    let options = Options { algorithm, layout: Layout::ChannelLast, activation: Activation::Silu };
    let stream = device.stream().unwrap();
    let mut conv = CausalConv1d::<bf16>::with_options(device, s, options).unwrap();
    let mut x = device.alloc::<bf16>(s.x_len()).unwrap();
    let mut w = device.alloc::<bf16>(s.w_len()).unwrap();
    let mut bias = device.alloc::<bf16>(s.dim).unwrap();
    let mut y = device.alloc::<bf16>(s.x_len()).unwrap();
    let graph = stream.capture(|stream| conv.forward_with_bias(stream, &x, &w, &bias, &mut y)).unwrap();
    for _ in 0..3 {
        let (x_host, w_host, b_host): (Vec<bf16>, Vec<bf16>, Vec<bf16>) =
            (rng.vec(s.x_len()), rng.vec(s.w_len()), rng.vec(s.dim));
        x.copy_from_host(&stream, &x_host).unwrap();
        w.copy_from_host(&stream, &w_host).unwrap();
        bias.copy_from_host(&stream, &b_host).unwrap();
        y.copy_from_host(&stream, &vec![nan::<bf16>(); s.x_len()]).unwrap();
        graph.launch(&stream).unwrap();
        let reference = reference_conv(&s, Layout::ChannelLast, &x_host, &w_host, Some(&b_host), true);
        let err = rel_norm_error(&y.to_vec(&stream).unwrap(), &reference);
        assert!(err <= tolerance(hipconv::DType::BF16), "{algorithm} graph replay rel error {err:.3e}");
    }
}

#[test]
fn host_streams_cannot_be_captured() {
    let stream = Device::host().stream().unwrap();
    let err = stream.capture(|_| Ok(())).unwrap_err();
    assert!(matches!(err, hipconv::Error::Unsupported { op: "graph capture", .. }), "{err:?}");
}

#[cfg(feature = "verify_host")]
mod verify_host {
    use super::*;
    use hipconv::conv1d::{MismatchCount, OutputCheck, PreprocessingCheck, VerificationReport};

    #[test]
    fn verified_forward_reports_exact_preprocessing() {
        let mut rng = Rng::new(fresh_seed("verified_forward_reports_exact_preprocessing"));
        for device in devices("verified_forward_reports_exact_preprocessing") {
            for shape in [Shape::new(1, 64, 2048, 4), Shape::new(3, 33, 31, 9)] {
                let stream = device.stream().unwrap();
                let x = device.upload(&stream, &rng.vec::<f16>(shape.x_len())).unwrap();
                let w = device.upload(&stream, &rng.vec::<f16>(shape.w_len())).unwrap();
                let mut y = device.upload(&stream, &vec![nan::<f16>(); shape.x_len()]).unwrap();
                let options = Options::default().algorithm(Algorithm::Im2colGemm);
                let mut conv = CausalConv1d::with_options(&device, shape, options).unwrap();
                let report = conv.forward_verified(&stream, &x, &w, &mut y).unwrap();
                assert!(report.passed(), "{report}");
                assert!(report.output.rel_norm_error <= 1e-3, "{report}");
                match report.preprocessing {
                    Some(p) => {
                        assert!(device.is_gpu());
                        assert_eq!(
                            p.input,
                            MismatchCount { mismatches: 0, total: hipconv::conv1d::stages::a_len(&shape) }
                        );
                        assert_eq!(
                            p.weight,
                            MismatchCount { mismatches: 0, total: hipconv::conv1d::stages::b_len(&shape) }
                        );
                    }
                    None => assert!(!device.is_gpu(), "a GPU Im2colGemm forward must check its preprocessing"),
                }
            }
        }
    }

    #[test]
    fn a_mismatch_or_large_error_fails_the_report() {
        let output = OutputCheck { max_abs_error: 1e-4, max_rel_error: 1e-4, rel_norm_error: 1e-4, tolerance: 1e-3 };
        let clean = MismatchCount { mismatches: 0, total: 10 };
        let report = |input, rel_norm_error| VerificationReport {
            backend: hipconv::Backend::Cuda,
            preprocessing: Some(PreprocessingCheck { input, weight: clean }),
            output: OutputCheck { rel_norm_error, ..output },
        };
        assert!(report(clean, 1e-4).passed());
        assert!(!report(MismatchCount { mismatches: 1, total: 10 }, 1e-4).passed());
        assert!(!report(clean, 2e-3).passed());
        assert!(!report(clean, f64::NAN).passed(), "NaN error must fail");
        let text = report(MismatchCount { mismatches: 1, total: 10 }, 1e-4).to_string();
        assert!(text.contains("FAILED (1 mismatches of 10)"), "{text}");
    }
}
