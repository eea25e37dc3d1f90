//! The whole forward against the f64 reference, on every backend compiled and present:
//! the seed's shape, a random sweep over shapes with tile edges, and the other dtypes.

mod common;

use common::{devices, fresh_seed, nan, reference_conv, rel_norm_error, supports, tolerance, Rng};
use hipconv::half::{bf16, f16};
use hipconv::{CausalConv1d, ConvShape, Device, Element};

/// Runs one forward on fresh random inputs with a NaN-poisoned output and returns the
/// relative error against the reference (infinite if any element was left unwritten).
fn forward_error<T: Element>(device: &Device, shape: ConvShape, rng: &mut Rng) -> f64 {
    let stream = device.stream().unwrap();
    let x_host: Vec<T> = rng.vec(shape.x_len());
    let w_host: Vec<T> = rng.vec(shape.w_len());
    let x = device.upload(&stream, &x_host).unwrap();
    let w = device.upload(&stream, &w_host).unwrap();
    let mut y = device.upload(&stream, &vec![nan::<T>(); shape.x_len()]).unwrap();
    let mut conv = CausalConv1d::<T>::new(device, shape).unwrap();
    conv.forward(&stream, &x, &w, &mut y).unwrap();
    let y_host = y.to_vec(&stream).unwrap();
    rel_norm_error(&y_host, &reference_conv(&shape, &x_host, &w_host))
}

fn assert_accurate<T: Element>(device: &Device, shape: ConvShape, rng: &mut Rng) {
    let err = forward_error::<T>(device, shape, rng);
    let tol = tolerance(T::DTYPE);
    assert!(err <= tol, "{} {:?} on {}: rel error {err:.3e} > {tol:.0e}", T::DTYPE, shape, device.id());
}

/// Shapes at the kernels' tile edges (im2col tiles 32 t x 32 c x 8 taps, GEMM 64 x 64 x 32,
/// 16-byte vector path when width*dim % 8 == 0), plus the degenerate ones.
fn edge_shapes() -> Vec<ConvShape> {
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
    ]
    .into_iter()
    .map(|(b, d, s, w)| ConvShape::new(b, d, s, w))
    .collect()
}

#[test]
fn seed_shape_matches_reference() {
    let mut rng = Rng::new(fresh_seed("seed_shape_matches_reference"));
    for device in devices("seed_shape_matches_reference") {
        assert_accurate::<f16>(&device, ConvShape::new(1, 64, 2048, 4), &mut rng);
    }
}

#[test]
fn edge_shapes_match_reference() {
    let mut rng = Rng::new(fresh_seed("edge_shapes_match_reference"));
    for device in devices("edge_shapes_match_reference") {
        for shape in edge_shapes() {
            assert_accurate::<f16>(&device, shape, &mut rng);
        }
    }
}

#[test]
fn random_shapes_match_reference() {
    let mut rng = Rng::new(fresh_seed("random_shapes_match_reference"));
    for device in devices("random_shapes_match_reference") {
        for _ in 0..24 {
            let shape = ConvShape::new(rng.range(1, 4), rng.range(1, 300), rng.range(1, 5000), rng.range(1, 8));
            assert_accurate::<f16>(&device, shape, &mut rng);
        }
    }
}

#[test]
fn other_dtypes_match_reference_where_supported() {
    let mut rng = Rng::new(fresh_seed("other_dtypes_match_reference_where_supported"));
    for device in devices("other_dtypes_match_reference_where_supported") {
        for shape in edge_shapes() {
            if supports(&device, hipconv::DType::BF16) {
                assert_accurate::<bf16>(&device, shape, &mut rng);
            }
            if supports(&device, hipconv::DType::F32) {
                assert_accurate::<f32>(&device, shape, &mut rng);
            }
        }
    }
}

#[test]
fn hand_computed_values_with_width_beyond_seqlen() {
    // dim 2, seqlen 3, width 5: every output sees the zero history.
    let shape = ConvShape::new(1, 2, 3, 5);
    let x = common::f16s(&[1.0, 2.0, 3.0, -1.0, 0.5, 0.25]);
    let w = common::f16s(&[0.5, 1.0, 2.0, -1.0, 4.0, 1.0, 1.0, 1.0, 2.0, -2.0]);
    // channel 0 taps (.., -1, 4): y0 = 4*1, y1 = -1*1 + 4*2, y2 = 2*1 - 1*2 + 4*3
    // channel 1 taps (.., 2, -2): y0 = -2*-1, y1 = 2*-1 - 2*.5, y2 = 1*-1 + 2*.5 - 2*.25
    let expected = [4.0, 7.0, 12.0, 2.0, -3.0, -0.5];
    for device in devices("hand_computed_values_with_width_beyond_seqlen") {
        let stream = device.stream().unwrap();
        let (xb, wb) = (device.upload(&stream, &x).unwrap(), device.upload(&stream, &w).unwrap());
        let mut y = device.upload(&stream, &[nan::<f16>(); 6]).unwrap();
        CausalConv1d::new(&device, shape).unwrap().forward(&stream, &xb, &wb, &mut y).unwrap();
        let got: Vec<f32> = y.to_vec(&stream).unwrap().iter().map(|v| v.to_f32()).collect();
        assert_eq!(got, expected, "on {}", device.id());
    }
}

#[test]
fn repeated_forwards_reuse_the_workspace() {
    let mut rng = Rng::new(fresh_seed("repeated_forwards_reuse_the_workspace"));
    for device in devices("repeated_forwards_reuse_the_workspace") {
        let shape = ConvShape::new(2, 70, 300, 4);
        let stream = device.stream().unwrap();
        let mut conv = CausalConv1d::<f16>::new(&device, shape).unwrap();
        for _ in 0..3 {
            let (x_host, w_host): (Vec<f16>, Vec<f16>) = (rng.vec(shape.x_len()), rng.vec(shape.w_len()));
            let x = device.upload(&stream, &x_host).unwrap();
            let w = device.upload(&stream, &w_host).unwrap();
            let mut y = device.upload(&stream, &vec![nan::<f16>(); shape.x_len()]).unwrap();
            conv.forward(&stream, &x, &w, &mut y).unwrap();
            let err = rel_norm_error(&y.to_vec(&stream).unwrap(), &reference_conv(&shape, &x_host, &w_host));
            assert!(err <= 1e-3, "rel error {err:.3e} on {}", device.id());
        }
    }
}

#[cfg(feature = "verify_host")]
mod verify_host {
    use super::*;
    use hipconv::verify::{MismatchCount, OutputCheck, PreprocessingCheck, VerificationReport};

    #[test]
    fn verified_forward_reports_exact_preprocessing() {
        let mut rng = Rng::new(fresh_seed("verified_forward_reports_exact_preprocessing"));
        for device in devices("verified_forward_reports_exact_preprocessing") {
            for shape in [ConvShape::new(1, 64, 2048, 4), ConvShape::new(3, 33, 31, 9)] {
                let stream = device.stream().unwrap();
                let x = device.upload(&stream, &rng.vec::<f16>(shape.x_len())).unwrap();
                let w = device.upload(&stream, &rng.vec::<f16>(shape.w_len())).unwrap();
                let mut y = device.upload(&stream, &vec![nan::<f16>(); shape.x_len()]).unwrap();
                let mut conv = CausalConv1d::new(&device, shape).unwrap();
                let report = conv.forward_verified(&stream, &x, &w, &mut y).unwrap();
                assert!(report.passed(), "{report}");
                assert!(report.output.rel_norm_error <= 1e-3, "{report}");
                match report.preprocessing {
                    Some(p) => {
                        assert!(device.is_gpu());
                        assert_eq!(p.input, MismatchCount { mismatches: 0, total: shape.a_len() });
                        assert_eq!(p.weight, MismatchCount { mismatches: 0, total: shape.b_len() });
                    }
                    None => assert!(!device.is_gpu(), "a GPU forward must check its preprocessing"),
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
