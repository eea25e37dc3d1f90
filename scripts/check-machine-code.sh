#!/usr/bin/env bash
# Checks that the GEMM kernel of a built backend runs on matrix instructions:
#   rocm: v_mfma_* in the gemm_abt code object of every AMD target (from the static
#         library build.rs produced under TARGET_DIR);
#   cuda: HMMA/HGMMA in the gemm_abt kernel's SASS for every NVIDIA target of BINARY.
# usage: check-machine-code.sh rocm TARGET_DIR ARCHS   |   check-machine-code.sh cuda BINARY ARCHS
# ARCHS: ';'-separated, as in HIPCONV_AMD_ARCHS / HIPCONV_CUDA_ARCHS.
set -euo pipefail
backend=$1 artifact=$2 archs=$3
# LLVM 15 comes with Debian's hipcc; older llvm-objdump builds cannot disassemble gfx940.
llvm_bin=${HIPCONV_LLVM_BIN:-/usr/lib/llvm-15/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

case $backend in
rocm)
    lib=$(realpath "$(ls -t "$artifact"/build/hipconv-*/out/libhipconv_kernels.a | sed -n 1p)")
    (cd "$work" && ar x "$lib")
    obj=$(ls "$work"/*gemm_abt*.o)
    "$llvm_bin/llvm-objcopy" --dump-section=.hip_fatbin="$work/fatbin" "$obj"
    for arch in ${archs//;/ }; do
        "$llvm_bin/clang-offload-bundler" --unbundle --type=o --input="$work/fatbin" \
            --targets="hipv4-amdgcn-amd-amdhsa--$arch" --output="$work/$arch.co"
        count=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$work/$arch.co" | grep -c 'v_mfma_' || true)
        kinds=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$work/$arch.co" | grep -o 'v_mfma_[a-z0-9_]*' | sort -u | tr '\n' ' ')
        echo "rocm $arch gemm_abt: $count MFMA instructions ($kinds)"
        [ "$count" -gt 0 ] || fail=1
    done
    ;;
cuda)
    for arch in ${archs//;/ }; do
        sm=${arch#sm_}
        sass=$(cuobjdump -sass -arch "sm_$sm" "$artifact")
        count=$(awk '/Function : /{f = /gemm_abt/} f' <<<"$sass" | grep -cE 'HMMA|HGMMA' || true)
        kinds=$(awk '/Function : /{f = /gemm_abt/} f' <<<"$sass" | grep -oE '(HMMA|HGMMA)[.A-Z0-9]*' | sort -u | tr '\n' ' ')
        echo "cuda sm_$sm gemm_abt: $count tensor-core instructions ($kinds)"
        [ "$count" -gt 0 ] || fail=1
    done
    ;;
*)
    echo "usage: $0 rocm|cuda ARTIFACT ARCHS" >&2
    exit 2
    ;;
esac

[ $fail -eq 0 ] || { echo "machine-code check FAILED: gemm_abt without matrix instructions" >&2; exit 1; }
