//! Variable-length batches: sequences of length 0, 1, width−1, width and thousands packed
//! together, with and without initial states, both fast paths and layouts, every dtype,
//! against the f64 reference of each sequence alone; bad cu_seqlens as typed errors before
//! launch (host) or reported by the device, never a fault.

mod common;

use common::sequences::{assert_bad_cu_seqlens, check_varlen, download, upload, VarlenCase, BAD_CU_SEQLENS};
use common::{devices, fresh_seed, Rng};
use hipconv::conv1d::{Algorithm, CausalConv1dVarlen, Layout, Options, States, VarlenShape};
use hipconv::half::{bf16, f16};
use hipconv::Error;

#[test]
fn packed_sequences_match_each_sequence_alone() {
    let mut rng = Rng::new(fresh_seed("packed_sequences_match_each_sequence_alone"));
    for device in devices("packed_sequences_match_each_sequence_alone") {
        for algorithm in [Algorithm::Direct, Algorithm::FusedGemm] {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                for initial in [false, true] {
                    for width in [1, 2, 4, 17] {
                        let lengths = vec![1, width - 1, 0, 300, width, 2, 257, 3000, 1];
                        let case = VarlenCase { lengths, dim: 40, width, algorithm, layout, initial, silu: true };
                        check_varlen::<f16>(&device, &case, &mut rng);
                    }
                    let case = VarlenCase {
                        lengths: vec![5, 1, 515, 8],
                        dim: 64,
                        width: 4,
                        algorithm,
                        layout,
                        initial,
                        silu: false,
                    };
                    check_varlen::<bf16>(&device, &case, &mut rng);
                    check_varlen::<f32>(&device, &case, &mut rng);
                }
            }
        }
    }
}

#[test]
fn bad_cu_seqlens_are_errors_never_faults() {
    let v = VarlenShape::new(3, 8, 20, 4);
    for device in devices("bad_cu_seqlens_are_errors_never_faults") {
        let stream = device.stream().unwrap();
        let x = upload(&device, &stream, &vec![1.0f32; v.x_len()]);
        let w = upload(&device, &stream, &[1.0f32; 8 * 4]);
        let mut op = CausalConv1dVarlen::<f32>::new(&device, v, Options::default()).unwrap();
        for &bad in BAD_CU_SEQLENS {
            let cu = upload(&device, &stream, bad.0);
            let mut y = upload(&device, &stream, &vec![-7.25f32; v.x_len()]);
            let mut final_states = upload(&device, &stream, &vec![-7.25f32; v.state_elems()]);
            let states = States { initial: None, final_states: Some(&mut final_states) };
            let call = op.forward(&stream, &x, &cu, &w, None, states, &mut y);
            let untouched = || download(&stream, &y).iter().all(|&v| v == -7.25);
            assert_bad_cu_seqlens(&device, bad, call, untouched, || op.wait_and_check(&stream));
        }
        op.wait_and_check(&stream).expect("the status is cleared once reported");
        let short = upload(&device, &stream, &[0i32, 20]);
        let mut y = upload(&device, &stream, &vec![0.0f32; v.x_len()]);
        let err = op.forward(&stream, &x, &short, &w, None, States::default(), &mut y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "cu_seqlens", expected: 4, found: 2, .. }), "{err:?}");
        let im2col = Options::default().algorithm(Algorithm::Im2colGemm);
        let err = CausalConv1dVarlen::<f16>::new(&device, v, im2col).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    }
}
