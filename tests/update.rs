//! The decode-step update: loops of many steps against state slots (shifting and
//! circular, padding rows, several tokens per step, state longer than the window) checked
//! against the f64 reference of each row's whole sequence; a step captured in a graph; bad
//! indices as typed errors before launch (host) or reported by the device, never a fault.

mod common;

use common::sequences::{check_decode, download, upload, DecodeCase};
use common::{devices, fresh_seed, gpu_device, nan, Rng};
use hipconv::conv1d::{Activation, Algorithm, CausalConv1dUpdate, Layout, Options, StateCache, UpdateShape};
use hipconv::half::{bf16, f16};
use hipconv::{Device, Element, Error};

#[test]
fn decode_loops_match_the_whole_sequence() {
    let mut rng = Rng::new(fresh_seed("decode_loops_match_the_whole_sequence"));
    for device in devices("decode_loops_match_the_whole_sequence") {
        for layout in [Layout::ChannelFirst, Layout::ChannelLast] {
            for circular in [false, true] {
                let case = |shape, steps, padding, silu| DecodeCase { shape, steps, circular, padding, layout, silu };
                for (width, tokens, extra) in [(4, 1, 0), (4, 4, 0), (2, 1, 3), (1, 2, 0), (5, 3, 6), (33, 7, 1)] {
                    let shape = UpdateShape::new(5, 37, tokens, width).slots(9, width - 1 + extra);
                    check_decode::<f16>(&device, case(shape, 12, true, true), &mut rng);
                }
                // More tokens per step than the state holds.
                check_decode::<f32>(
                    &device,
                    case(UpdateShape::new(3, 16, 9, 4).slots(3, 3), 5, false, false),
                    &mut rng,
                );
                check_decode::<bf16>(
                    &device,
                    case(UpdateShape::new(4, 64, 1, 4).slots(6, 4), 20, true, true),
                    &mut rng,
                );
                // The grouped kernel's groups past one block of 128 (520 f16 channels are
                // 130 groups of 4), one to four tokens a step.
                for tokens in [1, 3, 4] {
                    let shape = UpdateShape::new(3, 520, tokens, 4).slots(5, 3);
                    check_decode::<f16>(&device, case(shape, 6, true, false), &mut rng);
                }
                // Channels past the grouped kernel's last whole group, which the generic
                // kernel takes after it (state_len 4, four-token channel-first blocks: 38 f16
                // channels are 9 groups of 4 and 2 more, 37 f32 are 18 groups of 2 and 1).
                check_decode::<f16>(&device, case(UpdateShape::new(5, 38, 4, 4).slots(7, 4), 6, true, true), &mut rng);
                check_decode::<f32>(&device, case(UpdateShape::new(5, 37, 4, 4).slots(7, 4), 6, true, true), &mut rng);
            }
        }
    }
}

#[test]
fn decode_step_captured_in_a_graph_advances_the_states_on_each_replay() {
    let test = "decode_step_captured_in_a_graph_advances_the_states_on_each_replay";
    let Some(gpu) = gpu_device(test) else { return };
    let mut rng = Rng::new(fresh_seed(test));
    let u = UpdateShape::new(8, 96, 1, 4).slots(8, 3);
    let (x, w, state0): (Vec<f16>, Vec<f16>, Vec<f16>) =
        (rng.vec(u.x_len()), rng.vec(u.w_len()), rng.vec(u.state_elems()));
    // The same three steps on the host backend and as three replays of one captured step.
    let run = |device: &Device, captured: bool| -> (Vec<f16>, Vec<f16>) {
        let stream = device.stream().unwrap();
        let (x, w) = (upload(device, &stream, &x), upload(device, &stream, &w));
        let mut state = upload(device, &stream, &state0);
        let mut y = upload(device, &stream, &vec![nan::<f16>(); u.x_len()]);
        let mut op = CausalConv1dUpdate::<f16>::new(device, u, Options::default()).unwrap();
        let mut step = |stream: &hipconv::Stream| op.update(stream, &x, &w, None, StateCache::new(&mut state), &mut y);
        if captured {
            let graph = stream.capture(|s| step(s)).unwrap();
            (0..3).for_each(|_| graph.launch(&stream).unwrap());
        } else {
            (0..3).for_each(|_| step(&stream).unwrap());
        }
        op.wait_and_check(&stream).unwrap();
        (download(&stream, &y), download(&stream, &state))
    };
    let (host_y, host_state) = run(&Device::host(), false);
    let (gpu_y, gpu_state) = run(&gpu, true);
    assert_eq!(gpu_state, host_state, "states after three replays");
    let err = common::rel_norm_error(&gpu_y, &host_y.iter().map(|v| v.to_f64()).collect::<Vec<_>>());
    assert!(err <= 1e-3, "outputs of the third replay: rel error {err:.3e}");
}

/// Buffers of one small update, with `slots` and `positions` as the indices.
fn update_with<T: Element>(
    device: &Device,
    slots: &[i32],
    positions: Option<&[i32]>,
) -> (hipconv::Result<()>, Vec<T>, Vec<T>, CausalConv1dUpdate<T>, hipconv::Stream) {
    let u = UpdateShape::new(slots.len(), 8, 2, 4).slots(4, 3);
    let stream = device.stream().unwrap();
    let ones = |n| vec![T::from_f32(1.0); n];
    let (x, w) = (upload(device, &stream, &ones(u.x_len())), upload(device, &stream, &ones(u.w_len())));
    let mut state = upload(device, &stream, &vec![T::from_f32(0.5); u.state_elems()]);
    let mut y = upload(device, &stream, &vec![T::from_f32(-7.25); u.x_len()]);
    let indices = upload(device, &stream, slots);
    let positions = positions.map(|p| upload(device, &stream, p));
    let mut op = CausalConv1dUpdate::<T>::new(device, u, Options::default()).unwrap();
    let cache = StateCache { conv_state: &mut state, state_indices: Some(&indices), cache_seqlens: positions.as_ref() };
    let result = op.update(&stream, &x, &w, None, cache, &mut y);
    (result, download(&stream, &y), download(&stream, &state), op, stream)
}

#[test]
fn bad_slot_indices_are_errors_never_faults() {
    for device in devices("bad_slot_indices_are_errors_never_faults") {
        let (result, y, state, mut op, stream) = update_with::<f16>(&device, &[0, 4, 2], None);
        let err = match result {
            Err(err) => {
                assert!(!device.is_gpu(), "the GPU path checks indices on the device");
                assert!(y.iter().all(|v| v.to_f32() == -7.25), "y was written before the error");
                err
            }
            Ok(()) => op.wait_and_check(&stream).unwrap_err(),
        };
        match &err {
            Error::BadIndex { arg: "state_indices", position: 1, value: 4, .. } => {}
            other => panic!("expected BadIndex for state_indices[1] = 4, got {other:?}"),
        }
        assert!(err.to_string().contains("below n_slots = 4"), "{err}");
        // Slot 1 and 3 are nobody's; slot 4 does not exist: no state but rows 0 and 2's changed.
        let slot = |k: usize| &state[k * 8 * 3..(k + 1) * 8 * 3];
        assert!(slot(1).iter().chain(slot(3)).all(|v| v.to_f32() == 0.5), "{}", device.id());
        if device.is_gpu() {
            let advanced = slot(0).chunks(3).all(|c| c.iter().map(|v| v.to_f32()).eq([0.5, 1.0, 1.0]));
            assert!(advanced, "row 0's state advanced by its two tokens");
            let row1 = &y[16..32];
            assert!(row1.iter().all(|v| v.to_f32().is_nan()), "the bad row's outputs are NaN");
            op.wait_and_check(&stream).expect("the status is cleared once reported");
        }
        let (result, _, _, mut op, stream) = update_with::<f32>(&device, &[0, 1], Some(&[3, -2]));
        let err = result.and_then(|()| op.wait_and_check(&stream)).unwrap_err();
        assert!(matches!(err, Error::BadIndex { arg: "cache_seqlens", position: 1, value: -2, .. }), "{err:?}");
        // A padding row is not an error.
        let (result, y, _, mut op, stream) = update_with::<f32>(&device, &[-1, 3], None);
        result.and_then(|()| op.wait_and_check(&stream)).unwrap();
        // Row 1: three 0.5s of history and a 1 at t = 0; two and two at t = 1.
        assert!(y[..16].iter().all(|&v| v == 0.0), "{y:?}");
        assert!(y[16..].chunks(2).all(|t| t == [2.5, 3.0]), "{y:?}");
    }
}

#[test]
fn wrong_update_arguments_are_rejected_before_launch() {
    for device in devices("wrong_update_arguments_are_rejected_before_launch") {
        let stream = device.stream().unwrap();
        let u = UpdateShape::new(4, 8, 1, 4);
        let x = upload(&device, &stream, &vec![1.0f32; u.x_len()]);
        let w = upload(&device, &stream, &vec![1.0f32; u.w_len()]);
        let mut y = upload(&device, &stream, &vec![-7.25f32; u.x_len()]);
        let mut short = upload(&device, &stream, &vec![0.0f32; u.state_elems() - 1]);
        let mut op = CausalConv1dUpdate::<f32>::new(&device, u, Options::default()).unwrap();
        let err = op.update(&stream, &x, &w, None, StateCache::new(&mut short), &mut y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "conv_state", .. }), "{err:?}");
        // Fewer slots than rows, and no indices to say which rows use them.
        let few = u.slots(3, 3);
        let mut state = upload(&device, &stream, &vec![0.0f32; few.state_elems()]);
        let mut op = CausalConv1dUpdate::<f32>::new(&device, few, Options::default()).unwrap();
        let err = op.update(&stream, &x, &w, None, StateCache::new(&mut state), &mut y).unwrap_err();
        assert!(matches!(err, Error::InvalidDimension { arg: "n_slots", value: 3, .. }), "{err:?}");
        let indices = upload(&device, &stream, &[0i32, 1, 2]);
        let cache = StateCache { conv_state: &mut state, state_indices: Some(&indices), cache_seqlens: None };
        let err = op.update(&stream, &x, &w, None, cache, &mut y).unwrap_err();
        assert!(matches!(err, Error::BufferLength { arg: "state_indices", expected: 4, found: 3, .. }), "{err:?}");
        assert!(download(&stream, &y).iter().all(|&v| v == -7.25), "y was written on {}", device.id());
        // A state shorter than the window, and an algorithm the update does not have.
        let err = CausalConv1dUpdate::<f32>::new(&device, u.slots(4, 2), Options::default()).unwrap_err();
        assert!(matches!(err, Error::InvalidDimension { arg: "state_len", value: 2, .. }), "{err:?}");
        let options = Options::default().algorithm(Algorithm::FusedGemm).activation(Activation::Silu);
        let err = CausalConv1dUpdate::<f32>::new(&device, u, options).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    }
}
