//! Initial and final states of the forward: a sequence cut into two chunks, the second
//! continuing from the first's final states, gives the outputs of the whole sequence, and
//! the final states are exactly the last width−1 inputs. Every backend present, both fast
//! paths, layouts and dtypes, widths around the kernels' history steps, awkward cut points.

mod common;

use common::sequences::{check_chunked, download, state_len, upload};
use common::{devices, fresh_seed, Rng};
use hipconv::conv1d::{Activation, Algorithm, CausalConv1d, Layout, Options, Shape, States};
use hipconv::half::{bf16, f16};
use hipconv::Error;

#[test]
fn chunked_prefill_continues_exactly_from_the_final_states() {
    let mut rng = Rng::new(fresh_seed("chunked_prefill_continues_exactly_from_the_final_states"));
    for device in devices("chunked_prefill_continues_exactly_from_the_final_states") {
        for algorithm in [Algorithm::Direct, Algorithm::FusedGemm] {
            for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
                let options = Options { algorithm, layout, activation: Activation::Silu };
                // Widths around the compiled ones and FusedGemm's history steps of 16.
                for width in [1, 2, 4, 5, 17, 18, 33] {
                    let s = Shape::new(2, 37, 300, width);
                    // Cuts shorter than the state, at it, and at FusedGemm's 256-time tiles.
                    for cut in [1, width.saturating_sub(2).max(1), width, 255, 256, 299] {
                        check_chunked::<f16>(&device, s, options, cut, &mut rng);
                    }
                }
                let s = Shape::new(3, 16, 520, 4); // vector paths (dim, seqlen % 8 == 0)
                check_chunked::<bf16>(&device, s, options, 256, &mut rng);
                check_chunked::<f32>(&device, s, options, 3, &mut rng);
                check_chunked::<f32>(&device, Shape::new(1, 9, 40, 65), options, 20, &mut rng);
            }
        }
    }
}

#[test]
fn final_states_without_initial_states_see_zeros_before_the_start() {
    // seqlen 2 < width−1 = 4: the final state is two zeros, then the two inputs.
    let s = Shape::new(1, 2, 2, 5);
    let x = vec![1.0f32, 2.0, 3.0, 4.0];
    let w = vec![1.0f32; s.w_len()];
    for device in devices("final_states_without_initial_states_see_zeros_before_the_start") {
        let stream = device.stream().unwrap();
        let (x, w) = (upload(&device, &stream, &x), upload(&device, &stream, &w));
        let mut y = upload(&device, &stream, &vec![f32::NAN; s.x_len()]);
        let mut final_states = upload(&device, &stream, &vec![f32::NAN; state_len(&s)]);
        let mut conv = CausalConv1d::<f32>::new(&device, s).unwrap();
        let states = States { initial: None, final_states: Some(&mut final_states) };
        conv.forward_with_states(&stream, &x, &w, None, states, &mut y).unwrap();
        assert_eq!(download(&stream, &final_states), [0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0], "on {}", device.id());
        assert_eq!(download(&stream, &y), [1.0, 3.0, 3.0, 7.0], "on {}", device.id());
    }
}

#[test]
fn wrong_states_are_rejected_before_launch() {
    let s = Shape::new(2, 8, 64, 4);
    for device in devices("wrong_states_are_rejected_before_launch") {
        let stream = device.stream().unwrap();
        let x = upload(&device, &stream, &vec![f16::from_f32(1.0); s.x_len()]);
        let w = upload(&device, &stream, &vec![f16::from_f32(1.0); s.w_len()]);
        let short = upload(&device, &stream, &vec![f16::from_f32(1.0); state_len(&s) - 1]);
        let mut y = upload(&device, &stream, &vec![f16::from_f32(-7.25); s.x_len()]);
        let mut conv = CausalConv1d::<f16>::new(&device, s).unwrap();
        let states = States { initial: Some(&short), final_states: None };
        match conv.forward_with_states(&stream, &x, &w, None, states, &mut y) {
            Err(Error::BufferLength { arg: "initial_states", expected, found, .. }) => {
                assert_eq!((expected, found), (state_len(&s), state_len(&s) - 1));
            }
            other => panic!("expected BufferLength for initial_states, got {other:?}"),
        }
        let mut im2col =
            CausalConv1d::<f16>::with_options(&device, s, Options::default().algorithm(Algorithm::Im2colGemm)).unwrap();
        let mut final_states = upload(&device, &stream, &vec![f16::from_f32(0.0); state_len(&s)]);
        let states = States { initial: None, final_states: Some(&mut final_states) };
        let err = im2col.forward_with_states(&stream, &x, &w, None, states, &mut y).unwrap_err();
        assert!(matches!(err, Error::Unsupported { op: "Im2colGemm", .. }), "{err:?}");
        assert!(download(&stream, &y).iter().all(|v| v.to_f32() == -7.25), "y was written on {}", device.id());
    }
}
