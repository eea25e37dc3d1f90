//! Each stage of the explicit pipeline on its own, on every backend compiled and present and
//! for every dtype: both preprocessing steps must match the reference bit for bit; the GEMM
//! stage must match the f64 product of the same operands within the dtype's tolerance.

mod common;

use common::{devices, fresh_seed, nan, reference_dense_weight, reference_im2col, rel_norm_error, tolerance, Rng};
use hipconv::conv1d::stages;
use hipconv::conv1d::Shape;
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element};

/// Tile edges of preprocess_input (32 t x 32 c x 8 taps) and of the GEMM (64 x 64 x 64;
/// k a multiple of 16 bytes' worth of elements decides the vector path).
fn shapes() -> Vec<Shape> {
    [
        (1, 1, 1, 1),
        (1, 2, 3, 8),
        (1, 31, 33, 8),
        (2, 32, 32, 9),
        (1, 33, 31, 17),
        (3, 65, 63, 3),
        (1, 64, 64, 4),
        (2, 130, 50, 2),
        (1, 8, 100, 1),
        (1, 5, 7, 33),
    ]
    .into_iter()
    .map(|(b, d, s, w)| Shape::new(b, d, s, w))
    .collect()
}

fn mismatches<T: Element>(got: &[T], want: &[T]) -> usize {
    got.iter().zip(want).filter(|(g, w)| g.to_bits_u32() != w.to_bits_u32()).count()
}

fn preprocess_input_case<T: Element>(device: &Device, rng: &mut Rng) {
    let stream = device.stream().unwrap();
    for s in shapes() {
        let x_host: Vec<T> = rng.vec(s.x_len());
        let x = device.upload(&stream, &x_host).unwrap();
        let mut a = device.upload(&stream, &vec![nan::<T>(); stages::a_len(&s)]).unwrap();
        stages::preprocess_input(&stream, &s, &x, &mut a).unwrap();
        let bad = mismatches(&a.to_vec(&stream).unwrap(), &reference_im2col(&s, &x_host));
        assert_eq!(bad, 0, "{} {bad} of {} elements differ for {s:?} on {}", T::DTYPE, stages::a_len(&s), device.id());
    }
}

#[test]
fn preprocess_input_is_exact() {
    let mut rng = Rng::new(fresh_seed("preprocess_input_is_exact"));
    for device in devices("preprocess_input_is_exact") {
        preprocess_input_case::<f16>(&device, &mut rng);
        preprocess_input_case::<bf16>(&device, &mut rng);
        preprocess_input_case::<f32>(&device, &mut rng);
    }
}

fn preprocess_weight_case<T: Element>(device: &Device, rng: &mut Rng) {
    let stream = device.stream().unwrap();
    for s in shapes() {
        let w_host: Vec<T> = rng.vec(s.w_len());
        let w = device.upload(&stream, &w_host).unwrap();
        let mut b = device.upload(&stream, &vec![nan::<T>(); stages::b_len(&s)]).unwrap();
        stages::preprocess_weight(&stream, &s, &w, &mut b).unwrap();
        let bad = mismatches(&b.to_vec(&stream).unwrap(), &reference_dense_weight(&s, &w_host));
        assert_eq!(bad, 0, "{} {bad} of {} elements differ for {s:?} on {}", T::DTYPE, stages::b_len(&s), device.id());
    }
}

#[test]
fn preprocess_weight_is_exact() {
    let mut rng = Rng::new(fresh_seed("preprocess_weight_is_exact"));
    for device in devices("preprocess_weight_is_exact") {
        preprocess_weight_case::<f16>(&device, &mut rng);
        preprocess_weight_case::<bf16>(&device, &mut rng);
        preprocess_weight_case::<f32>(&device, &mut rng);
    }
}

/// Dense random A and B (not the conv's sparse B), so that every k of the product counts.
fn gemm_case<T: Element>(device: &Device, rng: &mut Rng) {
    let stream = device.stream().unwrap();
    for s in shapes() {
        let g = stages::gemm_shape(&s);
        let (a_host, b_host): (Vec<T>, Vec<T>) = (rng.vec(stages::a_len(&s)), rng.vec(stages::b_len(&s)));
        let mut reference = vec![0f64; s.x_len()];
        for row in 0..g.m {
            let (batch, t) = (row / s.seqlen, row % s.seqlen);
            for n in 0..g.n {
                let dot = (0..g.k).map(|k| a_host[row * g.k + k].to_f64() * b_host[n * g.k + k].to_f64());
                reference[(batch * s.dim + n) * s.seqlen + t] = dot.sum();
            }
        }
        let a = device.upload(&stream, &a_host).unwrap();
        let b = device.upload(&stream, &b_host).unwrap();
        let mut y = device.upload(&stream, &vec![nan::<T>(); s.x_len()]).unwrap();
        stages::gemm_abt(&stream, &s, &a, &b, &mut y).unwrap();
        let err = rel_norm_error(&y.to_vec(&stream).unwrap(), &reference);
        let tol = tolerance(T::DTYPE);
        assert!(err <= tol, "{} rel error {err:.3e} > {tol:.0e} for {s:?} ({}) on {}", T::DTYPE, g, device.id());
    }
}

#[test]
fn gemm_stage_matches_f64_product() {
    let mut rng = Rng::new(fresh_seed("gemm_stage_matches_f64_product"));
    for device in devices("gemm_stage_matches_f64_product") {
        gemm_case::<f16>(&device, &mut rng);
        gemm_case::<bf16>(&device, &mut rng);
        gemm_case::<f32>(&device, &mut rng);
    }
}
