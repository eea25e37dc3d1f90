#!/usr/bin/env bash
# Checks that the matrix-core kernels of a built backend run on matrix instructions:
#   gemm_abt    (Im2colGemm's GEMM, f16):          at least one kind of instruction;
#   fused_gemm  (FusedGemm, f16 / bf16 / f32):      at least three kinds, one per dtype.
#   rocm: v_mfma_* in the kernel's code object for every AMD target (from the static
#         library build.rs produced under TARGET_DIR);
#   cuda: HMMA/HGMMA in the kernel's SASS for every NVIDIA target of BINARY.
# usage: check-machine-code.sh rocm TARGET_DIR ARCHS   |   check-machine-code.sh cuda BINARY ARCHS
# ARCHS: ';'-separated, as in HIPCONV_AMD_ARCHS / HIPCONV_CUDA_ARCHS.
set -euo pipefail
backend=$1 artifact=$2 archs=$3
# LLVM 15 comes with Debian's hipcc; older llvm-objdump builds cannot disassemble gfx940.
llvm_bin=${HIPCONV_LLVM_BIN:-/usr/lib/llvm-15/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
kernels=("gemm_abt 1" "fused_gemm 3")

report() {  # report BACKEND ARCH KERNEL MIN_KINDS COUNT KINDS
    echo "$1 $2 $3: $5 matrix instructions of $(wc -w <<<"$6") kinds ($6)"
    [ "$5" -gt 0 ] && [ "$(wc -w <<<"$6")" -ge "$4" ] || fail=1
}

case $backend in
rocm)
    lib=$(realpath "$(ls -t "$artifact"/build/hipconv-*/out/libhipconv_kernels.a | sed -n 1p)")
    (cd "$work" && ar x "$lib")
    for entry in "${kernels[@]}"; do
        read -r kernel min_kinds <<<"$entry"
        obj=$(ls "$work"/*"$kernel"*.o)
        "$llvm_bin/llvm-objcopy" --dump-section=.hip_fatbin="$work/$kernel.fatbin" "$obj"
        for arch in ${archs//;/ }; do
            "$llvm_bin/clang-offload-bundler" --unbundle --type=o --input="$work/$kernel.fatbin" \
                --targets="hipv4-amdgcn-amd-amdhsa--$arch" --output="$work/$kernel-$arch.co"
            asm=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$work/$kernel-$arch.co")
            count=$(grep -c 'v_mfma_' <<<"$asm" || true)
            kinds=$(grep -o 'v_mfma_[a-z0-9_]*' <<<"$asm" | sort -u | tr '\n' ' ' || true)
            report rocm "$arch" "$kernel" "$min_kinds" "$count" "$kinds"
        done
    done
    ;;
cuda)
    for arch in ${archs//;/ }; do
        sm=${arch#sm_}
        sass=$(cuobjdump -sass -arch "sm_$sm" "$artifact")
        for entry in "${kernels[@]}"; do
            read -r kernel min_kinds <<<"$entry"
            code=$(awk -v k="$kernel" '/Function : /{f = index($0, k) > 0} f' <<<"$sass")
            count=$(grep -cE 'HMMA|HGMMA' <<<"$code" || true)
            kinds=$(grep -oE '(HMMA|HGMMA)[.A-Z0-9]*' <<<"$code" | sort -u | tr '\n' ' ' || true)
            report cuda "sm_$sm" "$kernel" "$min_kinds" "$count" "$kinds"
        done
    done
    ;;
*)
    echo "usage: $0 rocm|cuda ARTIFACT ARCHS" >&2
    exit 2
    ;;
esac

[ $fail -eq 0 ] || { echo "machine-code check FAILED: a matrix-core kernel without its matrix instructions" >&2; exit 1; }
