//! The backward's gradients against the f64 reference on every backend present: both
//! layouts, every dtype, widths 1 to 64, bias and SiLU, states and their gradients, fp32 and
//! native parameter gradients, shapes at tile edges; the reference itself against central
//! finite differences and against the library's; and bitwise determinism across runs.

mod common;

use common::backward::{self, assert_deterministic, check_dtype, Case, Inputs, Rows, With, DTYPES, LAYOUTS};
use common::{devices, fresh_seed, gpu_device, Rng};
use hipconv::conv1d::{reference, Activation, Layout, Options, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{DType, Device};

const SEQLENS: [usize; 12] = [1, 2, 3, 7, 8, 9, 255, 1023, 1024, 1025, 2047, 2049];
const DIMS: [usize; 7] = [1, 3, 8, 9, 63, 64, 65];
const WIDTHS: [usize; 9] = [1, 2, 3, 4, 5, 8, 16, 33, 64];
const BATCHES: [usize; 3] = [1, 2, 3];

/// A case of `shape` with random layout, activation and optional parts.
fn random_case(rng: &mut Rng, shape: Shape) -> Case {
    let with = With::from_bits(rng.range(0, 63) as u32);
    Case { rows: Rows::batch(shape), layout: rng.pick(&LAYOUTS), silu: rng.range(0, 1) == 1, with }
}

#[test]
fn gradients_match_the_reference_at_every_edge() {
    let mut rng = Rng::new(fresh_seed("gradients_match_the_reference_at_every_edge"));
    for device in devices("gradients_match_the_reference_at_every_edge") {
        // Each listed size in every dtype once per run, with the other sizes and the options drawn.
        let mut shapes = Vec::new();
        for seqlen in SEQLENS {
            shapes.push(Shape::new(rng.pick(&BATCHES), rng.pick(&DIMS), seqlen, rng.pick(&WIDTHS)));
        }
        for dim in DIMS {
            shapes.push(Shape::new(rng.pick(&BATCHES), dim, rng.pick(&SEQLENS), rng.pick(&WIDTHS)));
        }
        for width in WIDTHS {
            shapes.push(Shape::new(rng.pick(&BATCHES), rng.pick(&DIMS), rng.pick(&SEQLENS), width));
        }
        for batch in BATCHES {
            shapes.push(Shape::new(batch, rng.pick(&DIMS), rng.pick(&SEQLENS), rng.pick(&WIDTHS)));
        }
        for shape in shapes {
            for dtype in DTYPES {
                let case = random_case(&mut rng, shape);
                check_dtype(dtype, &device, &case, &mut rng);
            }
        }
    }
}

#[test]
fn every_dtype_layout_and_option_matches_the_reference() {
    let mut rng = Rng::new(fresh_seed("every_dtype_layout_and_option_matches_the_reference"));
    for device in devices("every_dtype_layout_and_option_matches_the_reference") {
        let small_shape = |rng: &mut Rng| {
            let (dim, seqlen) = (rng.pick(&DIMS[..5]), rng.pick(&SEQLENS[..9]));
            Shape::new(rng.pick(&BATCHES), dim, seqlen, rng.pick(&WIDTHS[..6]))
        };
        // Every combination of bias, states, dbias, dinitial_states and native gradients.
        for bits in 0..64 {
            for (i, layout) in LAYOUTS.into_iter().enumerate() {
                let (shape, silu) = (small_shape(&mut rng), rng.range(0, 1) == 1);
                let case = Case { rows: Rows::batch(shape), layout, silu, with: With::from_bits(bits) };
                check_dtype(DTYPES[(bits as usize + i) % 3], &device, &case, &mut rng);
            }
        }
        // Every dtype, layout and activation with all of them, fp32 and native.
        for dtype in DTYPES {
            for layout in LAYOUTS {
                for silu in [false, true] {
                    for native in [false, true] {
                        let with = With { native, ..With::ALL };
                        let case = Case { rows: Rows::batch(small_shape(&mut rng)), layout, silu, with };
                        check_dtype(dtype, &device, &case, &mut rng);
                    }
                }
            }
        }
    }
}

#[test]
fn channel_first_runs_of_tiles_carry_their_heads() {
    // backward_channel_first.hip walks a channel's (batch row, tile) units from the last, in
    // one run per block (2048 channels of rows of 1100), or in several where there are fewer
    // channels than a round of blocks and rows long enough (200 channels of three rows of
    // 5500 or 6000 times: two runs of 16-bit units, cut inside a row, summed by the
    // reduction; rows of 6000 are whole 16-byte vectors, which on sm_90 the ring feeds at 16
    // units a channel). f32 rows of whole vectors on sm_90 are fed by the ring and split into
    // runs of at least four units where channels are many or long (4100 channels: whole rows
    // of 2100 times, or runs starting inside rows of 1500; 200 channels: 7 or 8 runs). The
    // head of dz comes from the later tile (carried), is zero past a row's end, or is
    // recomputed where a run starts inside a row. GPU only: the host backend has no tiles,
    // and these sizes are slow on it in debug builds.
    let mut rng = Rng::new(fresh_seed("channel_first_runs_of_tiles_carry_their_heads"));
    if let Some(device) = gpu_device("channel_first_runs_of_tiles_carry_their_heads") {
        let shapes = [
            (Shape::new(3, 2048, 1100, 4), true),
            (Shape::new(3, 200, 5500, 4), true),
            (Shape::new(3, 200, 6000, 4), true),
            (Shape::new(2, 4100, 2100, 3), false),
            (Shape::new(3, 4100, 1500, 4), true),
        ];
        check_every_dtype_with_all(&device, Layout::ChannelFirst, &shapes, &mut rng);
    }
}

/// Every dtype of each (shape, silu) in `layout` with every option (`With::ALL`).
fn check_every_dtype_with_all(device: &Device, layout: Layout, shapes: &[(Shape, bool)], rng: &mut Rng) {
    for &(shape, silu) in shapes {
        for dtype in DTYPES {
            let case = Case { rows: Rows::batch(shape), layout, silu, with: With::ALL };
            check_dtype(dtype, device, &case, rng);
        }
    }
}

#[test]
fn channel_last_tiles_cover_channel_groups_and_row_ends() {
    // backward_channel_last_tiled.hip (f16 and bf16, and on sm_90 f32 where the channels
    // fill 16-byte vectors): 128 channels by 16 times per tile (f32 at these sizes too;
    // 24 from 2^24 elements: channel_last_runs_of_tiles_carry_their_heads), partial last
    // groups, rows of tiles ending inside a tile, rows shorter than one tile and than three
    // (the copies run three tiles ahead), initial and final states across tile edges.
    // backward_channel_last.hip: f32 elsewhere (dim 130 everywhere), element-wise where the
    // channels do not fill its vectors.
    let mut rng = Rng::new(fresh_seed("channel_last_tiles_cover_channel_groups_and_row_ends"));
    for device in devices("channel_last_tiles_cover_channel_groups_and_row_ends") {
        let shapes = [
            (Shape::new(3, 200, 1000, 4), true),
            (Shape::new(1, 136, 70, 2), true),
            (Shape::new(2, 264, 130, 1), false),
            (Shape::new(2, 64, 4100, 3), true),
            (Shape::new(2, 130, 300, 4), false),
            (Shape::new(2, 136, 5, 4), true),
            (Shape::new(1, 264, 33, 3), true),
        ];
        check_every_dtype_with_all(&device, Layout::ChannelLast, &shapes, &mut rng);
    }
}

#[test]
fn channel_last_runs_of_tiles_carry_their_heads() {
    // At model sizes a block of backward_channel_last_tiled.hip (f16, bf16; f32 on sm_90)
    // walks several tiles of one row from the latest, carrying each tile's first dz to the
    // tile before, with the next two tiles' copies in flight; f32 elsewhere walks runs of
    // times in backward_channel_last.hip. From 2^24 elements f32 takes its long tiles (24
    // times): the second shape has a partial channel group and rows ending inside a tile
    // there. GPU only.
    let mut rng = Rng::new(fresh_seed("channel_last_runs_of_tiles_carry_their_heads"));
    if let Some(device) = gpu_device("channel_last_runs_of_tiles_carry_their_heads") {
        let shapes = [(Shape::new(8, 4096, 1100, 4), true), (Shape::new(2, 2056, 4100, 3), false)];
        check_every_dtype_with_all(&device, Layout::ChannelLast, &shapes, &mut rng);
    }
}

#[test]
fn channel_last_blocks_past_the_grid_cap_walk_several_runs() {
    // 65536 rows of 17 channel groups, one time each: 1 114 112 runs, more than the grid's
    // 2^20 blocks, so some blocks of backward_channel_last_tiled.hip walk a second run and
    // restage their buffers after the first (f16, bf16; f32 on sm_90). GPU only.
    let mut rng = Rng::new(fresh_seed("channel_last_blocks_past_the_grid_cap_walk_several_runs"));
    if let Some(device) = gpu_device("channel_last_blocks_past_the_grid_cap_walk_several_runs") {
        let case = Case {
            rows: Rows::batch(Shape::new(65536, 2176, 1, 4)),
            layout: Layout::ChannelLast,
            silu: true,
            with: With::ALL,
        };
        check_dtype(DType::F16, &device, &case, &mut rng);
        check_dtype(DType::BF16, &device, &case, &mut rng);
        check_dtype(DType::F32, &device, &case, &mut rng);
    }
}

#[test]
fn backward_determinism_gives_bitwise_equal_gradients_across_runs() {
    let mut rng = Rng::new(fresh_seed("backward_determinism_gives_bitwise_equal_gradients_across_runs"));
    for device in devices("backward_determinism_gives_bitwise_equal_gradients_across_runs") {
        for layout in LAYOUTS {
            // Several tiles of every kind (channel-last: element-wise, then 16-byte tiles); and
            // a wide filter.
            let cases = [
                (Shape::new(3, 130, 4100, 4), false),
                (Shape::new(2, 256, 1500, 4), false),
                (Shape::new(2, 40, 1100, 9), true),
            ];
            for (shape, native) in cases {
                let case = Case { rows: Rows::batch(shape), layout, silu: true, with: With { native, ..With::ALL } };
                assert_deterministic::<f16>(&device, &case, &mut rng);
                assert_deterministic::<bf16>(&device, &case, &mut rng);
                assert_deterministic::<f32>(&device, &case, &mut rng);
            }
        }
    }
}

/// L = Σ dy·y + Σ dfinal·final_states of the test's f64 forward with states.
fn loss(rows: &Rows, layout: Layout, silu: bool, p: &Inputs<f64>) -> f64 {
    let (y, final_states) = backward::forward(rows, layout, silu, p);
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    dot(&y, &p.dy) + p.dfinal.as_deref().map_or(0.0, |d| dot(&final_states, d))
}

/// The central differences of `loss` w.r.t. each element of the parameter `field` picks.
fn finite_differences(
    rows: &Rows,
    layout: Layout,
    silu: bool,
    p: &Inputs<f64>,
    field: fn(&mut Inputs<f64>) -> &mut Vec<f64>,
) -> Vec<f64> {
    const H: f64 = 1e-5;
    let mut q = p.clone();
    (0..field(&mut q).len())
        .map(|i| {
            let v = field(&mut q)[i];
            field(&mut q)[i] = v + H;
            let up = loss(rows, layout, silu, &q);
            field(&mut q)[i] = v - H;
            let down = loss(rows, layout, silu, &q);
            field(&mut q)[i] = v;
            (up - down) / (2.0 * H)
        })
        .collect()
}

fn assert_near(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{what}[{i}]: {g} vs {w}");
    }
}

#[test]
fn test_reference_matches_central_finite_differences() {
    let mut rng = Rng::new(fresh_seed("test_reference_matches_central_finite_differences"));
    let all = || [Shape::new(2, 3, 7, 4), Shape::new(1, 2, 2, 5), Shape::new(2, 2, 3, 1)].map(Rows::batch);
    // Packed sequences, an empty one and ones shorter than the history among them.
    let rows_list: Vec<Rows> = all().into_iter().chain([Rows::packed(&[3, 0, 1, 6, 2], 2, 4)]).collect();
    for rows in &rows_list {
        for layout in LAYOUTS {
            for silu in [false, true] {
                let p = Inputs::<f32>::random(&mut rng, rows, With::ALL).to_f64();
                let g = backward::backward(rows, layout, silu, &p);
                let what = format!("{rows:?} {layout:?} silu {silu}");
                let fd = |field| finite_differences(rows, layout, silu, &p, field);
                assert_near(&g.dx, &fd(|p| &mut p.x), 1e-7, &format!("dx {what}"));
                assert_near(&g.dweight, &fd(|p| &mut p.w), 1e-7, &format!("dweight {what}"));
                assert_near(&g.dbias, &fd(|p| p.bias.as_mut().unwrap()), 1e-7, &format!("dbias {what}"));
                let dinitial = fd(|p| p.initial.as_mut().unwrap());
                assert_near(&g.dinitial, &dinitial, 1e-7, &format!("dinitial {what}"));
            }
        }
    }
}

#[test]
fn library_reference_matches_the_test_reference() {
    let mut rng = Rng::new(fresh_seed("library_reference_matches_the_test_reference"));
    for shape in [Shape::new(2, 5, 9, 4), Shape::new(1, 3, 2, 5), Shape::new(2, 4, 30, 1), Shape::new(3, 2, 40, 9)] {
        let rows = Rows::batch(shape);
        for layout in LAYOUTS {
            // Bias, initial states, dfinal_states: none, each, all.
            for bits in [0b000, 0b001, 0b010, 0b100, 0b111] {
                for silu in [false, true] {
                    let with = With::from_bits(bits);
                    let inputs = Inputs::<bf16>::random(&mut rng, &rows, with);
                    let activation = if silu { Activation::Silu } else { Activation::Identity };
                    let options = Options::default().layout(layout).activation(activation);
                    let lib = reference::causal_conv1d_backward_f64(
                        &shape,
                        &options,
                        &inputs.x,
                        &inputs.w,
                        inputs.bias.as_deref(),
                        &inputs.dy,
                        inputs.initial.as_deref(),
                        inputs.dfinal.as_deref(),
                    );
                    let ours = backward::backward(&rows, layout, silu, &inputs.to_f64());
                    let what = format!("{shape:?} {layout:?} silu {silu} {with:?}");
                    assert_near(&lib.dx, &ours.dx, 1e-12, &format!("dx {what}"));
                    assert_near(&lib.dweight, &ours.dweight, 1e-12, &format!("dweight {what}"));
                    assert_near(&lib.dbias, &ours.dbias, 1e-12, &format!("dbias {what}"));
                    assert_near(&lib.dinitial_states, &ours.dinitial, 1e-12, &format!("dinitial {what}"));
                }
            }
        }
    }
}
