#!/usr/bin/env bash
# Builds the test binaries and the example with the NVIDIA backend and gathers them, with
# scripts/gpu-run.sh, in dist/ (git-ignored). The accelerator machine has no Rust; run
# the whole suite there with one device call:  carry ["dist"], command "bash dist/run.sh";
# or, for the record against the reference kernel (scripts/gpu-anchors.sh), carry
# ["dist", ".anchors"], command "bash dist/anchors.sh".
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
export HIPCONV_GPU=cuda CARGO_TARGET_DIR=target/cuda
rm -rf dist && mkdir -p dist/tests dist/examples

# Test executables, as cargo lists them.
cargo test --release --features verify_host --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["profile"]["test"]:
        print(msg["executable"])' |
    while read -r exe; do cp "$exe" dist/tests/; done

# The examples twice: with host verification, and as a production build without it.
cargo build --release --features verify_host --example causal_conv1d --example conv3d
cp "$CARGO_TARGET_DIR/release/examples/causal_conv1d" dist/examples/causal_conv1d_verify_host
cp "$CARGO_TARGET_DIR/release/examples/conv3d" dist/examples/conv3d_verify_host
cargo build --release --example causal_conv1d --example bench --example decode --example conv3d --example fit
cp "$CARGO_TARGET_DIR/release/examples/"{causal_conv1d,bench,decode,conv3d,fit} dist/examples/

strip dist/tests/* dist/examples/*
cp scripts/gpu-run.sh dist/run.sh
cp scripts/gpu-anchors.sh dist/anchors.sh
cp scripts/gpu-conv3d.sh dist/conv3d.sh
cp bench/compare_torch.py dist/
scripts/check-machine-code.sh cuda dist/examples/causal_conv1d "${HIPCONV_CUDA_ARCHS:-80;90}"
du -sh dist
ls -l dist/tests dist/examples
