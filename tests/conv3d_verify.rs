//! `verify_host`: the GPU's im3col patch matrix matches the host's element by element and
//! the output passes against the f64 result, on every dtype and layout.
#![cfg(feature = "verify_host")]

mod common;

use common::{announce, devices, fresh_seed, Rng};
use hipconv::conv3d::{Algorithm, Conv3d, Layout, Options, Padding, Shape};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element};

fn verify<T: Element>(device: &Device, s: Shape, layout: Layout, rng: &mut Rng) {
    let stream = device.stream().unwrap();
    let x = device.upload(&stream, &rng.vec::<T>(s.x_len())).unwrap();
    let w = device.upload(&stream, &rng.vec::<T>(s.w_len())).unwrap();
    let bias = device.upload(&stream, &rng.vec::<T>(s.cout)).unwrap();
    let mut y = device.upload(&stream, &vec![T::from_f32(f32::NAN); s.y_len()]).unwrap();
    let options = Options::default().algorithm(Algorithm::Im3colGemm).layout(layout);
    let mut conv = Conv3d::<T>::new(device, s, options).unwrap();
    let report = conv.forward_verified(&stream, &x, &w, Some(&bias), &mut y).unwrap_or_else(|e| panic!("{e}"));
    match report.im3col {
        Some(check) => {
            assert_eq!(check.mismatches, 0);
            assert_eq!(check.total, s.output_positions() * s.groups * s.taps());
        }
        None => assert!(!device.is_gpu(), "the GPU pipeline has a patch matrix to check"),
    }
    assert!(report.to_string().contains("valid"), "{report}");
    announce(&format!(
        "conv3d verify_host {:?} {layout} on {}: {}",
        T::DTYPE,
        device.id(),
        report.to_string().replace('\n', "; ")
    ));
}

#[test]
fn the_gpu_patch_matrix_matches_the_host_im3col() {
    let mut rng = Rng::new(fresh_seed("the_gpu_patch_matrix_matches_the_host_im3col"));
    let seed = Shape::new(1, 3, 8, [16, 64, 64], [3, 3, 3]);
    let grouped = Shape::new(2, 6, 4, [5, 7, 9], [3, 3, 3]).groups(2).stride([1, 2, 1]).padding(Padding::Causal);
    for device in devices("the_gpu_patch_matrix_matches_the_host_im3col") {
        for layout in [Layout::Ncdhw, Layout::Ndhwc] {
            verify::<f32>(&device, seed, layout, &mut rng);
            verify::<f16>(&device, grouped, layout, &mut rng);
            verify::<bf16>(&device, grouped, layout, &mut rng);
        }
    }
}
