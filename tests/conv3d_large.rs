//! 64-bit offsets: a conv3d whose input is past 2³¹ elements, on the GPU only (the host
//! backend would take minutes). Outputs are checked against the reference at sampled
//! positions, the last ones (the largest offsets) among them.

mod common;

use common::conv3d::{index, out_extent, w_index};
use common::{announce, gpu_device, tolerance, Rng};
use hipconv::conv3d::{Algorithm, Conv3d, Layout, Options, Padding, Shape};
use hipconv::half::f16;
use hipconv::Element;

/// y at logical (n, co, od, oh, ow) in f64, computed from x and w laid out in `layout`.
fn reference_at(s: &Shape, layout: Layout, x: &[f16], w: &[f16], [n, co, od, oh, ow]: [usize; 5]) -> f64 {
    let (cig, cog) = (s.cin / s.groups, s.cout / s.groups);
    let mut acc = 0f64;
    for ci in 0..cig {
        let c = (co / cog) * cig + ci;
        for kd in 0..3 {
            for kh in 0..3 {
                for kw in 0..3 {
                    let (id, ih, iw) =
                        (od as i64 + kd as i64 - 1, oh as i64 + kh as i64 - 1, ow as i64 + kw as i64 - 1);
                    if id < 0
                        || ih < 0
                        || iw < 0
                        || id >= s.input[0] as i64
                        || ih >= s.input[1] as i64
                        || iw >= s.input[2] as i64
                    {
                        continue;
                    }
                    let xi = index(layout, s.cin, s.input, [n, c, id as usize, ih as usize, iw as usize]);
                    acc += w[w_index(s, layout, [co, ci, kd, kh, kw])].to_f64() * x[xi].to_f64();
                }
            }
        }
    }
    acc
}

#[test]
fn an_input_past_two_to_the_31_elements_is_addressed_with_64_bit_offsets() {
    let Some(device) = gpu_device("an_input_past_two_to_the_31_elements_is_addressed_with_64_bit_offsets") else {
        return;
    };
    let stream = device.stream().unwrap();
    let mut rng = Rng::new(31);
    let dense = Shape::new(1, 32, 8, [8, 2048, 4100], [3, 3, 3]).padding(Padding::Symmetric([1, 1, 1]));
    let depthwise = Shape { cout: 32, groups: 32, ..dense };
    assert!(dense.x_len() > 1 << 31);
    // One input for every run (values in ±[1/64, 1), from a cheap per-element hash).
    let x: Vec<f16> = (0..dense.x_len() as u64)
        .map(|i| {
            let h = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f32 / (1u64 << 24) as f32;
            f16::from_f32(if h < 0.5 { -(1.0 / 64.0 + h) } else { h })
        })
        .collect();
    let xd = device.upload(&stream, &x).unwrap();
    for (s, algorithm, layout) in [
        (dense, Algorithm::ImplicitGemm, Layout::Ndhwc),
        (dense, Algorithm::ImplicitGemm, Layout::Ncdhw),
        (dense, Algorithm::Tiled, Layout::Ncdhw),
        (dense, Algorithm::Naive, Layout::Ndhwc),
        (depthwise, Algorithm::Depthwise, Layout::Ncdhw),
        (depthwise, Algorithm::Depthwise, Layout::Ndhwc),
    ] {
        let w: Vec<f16> = rng.vec(s.w_len());
        let wd = device.upload(&stream, &w).unwrap();
        let mut y = device.upload(&stream, &vec![f16::from_f32(f32::NAN); s.y_len()]).unwrap();
        let mut conv = Conv3d::<f16>::new(&device, s, Options::default().algorithm(algorithm).layout(layout)).unwrap();
        conv.forward(&stream, &xd, &wd, None, &mut y).unwrap();
        let got = y.to_vec(&stream).unwrap();
        let out = out_extent(&s);
        let mut positions: Vec<[usize; 5]> = (0..2000)
            .map(|_| {
                [
                    0,
                    rng.range(0, s.cout - 1),
                    rng.range(0, out[0] - 1),
                    rng.range(0, out[1] - 1),
                    rng.range(0, out[2] - 1),
                ]
            })
            .collect();
        // The last element of y in its layout, and the last row of the last frame.
        positions.push([0, s.cout - 1, out[0] - 1, out[1] - 1, out[2] - 1]);
        positions.extend((0..s.cout).map(|co| [0, co, out[0] - 1, out[1] - 1, out[2] - 2]));
        let (mut err2, mut ref2) = (0f64, 0f64);
        for p in &positions {
            let want = reference_at(&s, layout, &x, &w, *p);
            let have = got[index(layout, s.cout, out, *p)].to_f64();
            err2 += (have - want).powi(2);
            ref2 += want * want;
        }
        let err = (err2 / ref2).sqrt();
        let nan_left = got.iter().filter(|v| v.to_f32().is_nan()).count();
        assert!(
            err < tolerance(f16::DTYPE) && nan_left == 0,
            "{algorithm} {layout}: error {err:.3e}, {nan_left} NaN left"
        );
        announce(&format!("conv3d {algorithm} {layout}: x of {} elements, sampled error {err:.2e}", s.x_len()));
    }
}
