#!/usr/bin/env bash
# Prints, as markdown tables, the per-kernel resources of the conv1d, conv3d and GEMM kernels (every
# kernel of the objects built from hip/conv1d, hip/conv3d and hip/gemm) in both GPU builds:
#
#   NVIDIA sm_90 (cuobjdump -res-usage on CUDA_BINARY): registers per thread, static shared
#     memory, stack frame and local memory bytes per thread. A binary holds only the objects
#     it calls (causal_conv1d has no update kernels): kernels of the other sources are read
#     from the kernel library beside it (TARGET/release/build/hipconv-*/out/), if there is one.
#     A kernel's source is the hip/conv1d or hip/gemm file that defines its name (the tiled
#     GEMM's kernel template lives in hip/gemm/tiled_gemm.h).
#   AMD gfx90a, gfx940 (the code objects in ROCM_TARGET_DIR's libhipconv_kernels.a, metadata
#     from llvm-readelf --notes): VGPRs (arch + acc, as allocated), AGPRs, SGPRs, static LDS
#     bytes, scratch bytes per lane, VGPR / SGPR spill counts, and waves per SIMD: the
#     smallest of 8, 512 / VGPRs (granule 8), the SGPR limit, and what LDS allows (64 KiB per
#     CU for 4 SIMDs, workgroups of the kernel's maximum size). Like the compiler's own
#     figure, it counts static LDS only: dynamic shared memory (fused_gemm) is not in it.
#
# Names are demangled and shortened: no namespaces or parameters, no "_kernel" suffix, and
# element types as f16 / bf16 / f32. Scratch or local memory other than 0 is in bold.
#
# usage: resource-report.sh ROCM_TARGET_DIR CUDA_BINARY     ("-" for either skips that build)
# env:   HIPCONV_REPORT_AMD_ARCHS ("gfx90a;gfx940"), HIPCONV_REPORT_SM (90),
#        HIPCONV_LLVM_BIN (/usr/lib/llvm-15/bin)
set -euo pipefail
shopt -s inherit_errexit
[ $# -eq 2 ] || { echo "usage: $0 ROCM_TARGET_DIR|- CUDA_BINARY|-" >&2; exit 2; }
rocm_dir=$1 cuda_binary=$2
amd_archs=${HIPCONV_REPORT_AMD_ARCHS:-gfx90a;gfx940}
sm=${HIPCONV_REPORT_SM:-90}
sm=${sm#sm_}
llvm_bin=${HIPCONV_LLVM_BIN:-/usr/lib/llvm-15/bin}
repo=$(cd "$(dirname "$0")/.." && pwd)
sources=$(cd "$repo" && ls hip/conv1d/*.hip hip/conv3d/*.hip hip/gemm/*.hip)
definers=$(cd "$repo" && ls hip/conv1d/*.hip hip/conv3d/*.hip hip/conv3d/*.h hip/gemm/*.hip hip/gemm/*.h)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A file of "MANGLED REST..." lines -> "SHORT<TAB>REST..." lines.
shorten() {
    awk '{ print $1 }' <"$1" | "$llvm_bin/llvm-cxxfilt" |
        sed -E 's/^void //; s/hipconv:://g; s/\(anonymous namespace\):://g; s/\([^()]*\)$//;
                s/_kernel(<|$)/\1/; s/\<(__half|half)\>/f16/g; s/\<(hip_bfloat16|__nv_bfloat16)\>/bf16/g;
                s/\<float\>/f32/g' >"$work/short"
    cut -d' ' -f2- <"$1" | paste "$work/short" -
}

# The hip/ source that defines a kernel (by its unqualified name), or "?".
source_of() {
    local base file
    base=$(sed -E 's/<.*//; s/.*:://' <<<"$1")
    file=$(cd "$repo" && grep -lE "\<${base}_kernel\s*\(|\<${base}\s*\(" $definers 2>/dev/null | sed -n 1p || true)
    echo "${file:-?}"
}

bold_if_set() { [ "$1" = 0 ] && echo "$1" || echo "**$1**"; }

# --------------------------------------------------------------------------- NVIDIA
cuda_report() {
    local library="" dir libs
    command -v cuobjdump >/dev/null || { echo "cuobjdump not found (. scripts/toolchain.sh)" >&2; exit 1; }
    dir=$(dirname "$cuda_binary")
    libs=$(shopt -s nullglob; echo "$dir"/build/hipconv-*/out/libhipconv_kernels.a \
        "$dir"/../build/hipconv-*/out/libhipconv_kernels.a)
    [ -z "$libs" ] || library=$(realpath "$(ls -t $libs | sed -n 1p)")
    # "MANGLED REG SHARED STACK LOCAL" per kernel: the binary's first, then the library's others.
    for artifact in "$cuda_binary" $library; do
        cuobjdump -res-usage -arch "sm_$sm" "$artifact" 2>/dev/null |
            awk '/^ Function / { name = $2; sub(/:$/, "", name); next }
                 name != "" && /REG:/ { r = s = st = l = 0
                     for (i = 1; i <= NF; i++) { split($i, kv, ":")
                         if (kv[1] == "REG") r = kv[2]; else if (kv[1] == "SHARED") s = kv[2]
                         else if (kv[1] == "STACK") st = kv[2]; else if (kv[1] == "LOCAL") l = kv[2] }
                     print name, r, s, st, l; name = "" }'
    done | awk '!seen[$1]++' >"$work/cuda.raw"
    [ -s "$work/cuda.raw" ] || { echo "no sm_$sm kernels in $cuda_binary" >&2; exit 1; }
    shorten "$work/cuda.raw" >"$work/cuda.short"

    echo "## NVIDIA sm_$sm"
    echo
    echo "From \`cuobjdump -res-usage\` of \`$cuda_binary\`${library:+ and, for kernels not linked into it, \`$library\`}."
    echo "Registers per thread; shared memory is static (per block); stack and local bytes per thread."
    echo
    echo "| source | kernel | registers | shared B | stack B | local B |"
    echo "|---|---|--:|--:|--:|--:|"
    local kernel reg shared stack local_bytes src rows=0 with_local=0
    while IFS=$'\t' read -r kernel rest; do
        read -r reg shared stack local_bytes <<<"$rest"
        src=$(source_of "$kernel")
        [ "$src" != "?" ] || continue  # not a kernel of these families
        echo "$src|$kernel|$reg|$shared|$(bold_if_set "$stack")|$(bold_if_set "$local_bytes")"
    done <"$work/cuda.short" | sort -t'|' -k1,1 -k2,2V >"$work/cuda.rows"
    while IFS='|' read -r src kernel reg shared stack local_bytes; do
        echo "| $(basename "$src") | \`$kernel\` | $reg | $shared | $stack | $local_bytes |"
        rows=$((rows + 1))
        [ "$stack$local_bytes" = "00" ] || with_local=$((with_local + 1))
    done <"$work/cuda.rows"
    echo
    echo "$rows kernels, $with_local with stack or local memory."
    echo
}

# --------------------------------------------------------------------------- AMD
# The metadata note of a code object -> "MANGLED VGPR AGPR SGPR LDS SCRATCH VSPILL SSPILL WAVES LIMIT"
amd_kernels() {
    "$llvm_bin/llvm-readelf" --notes "$1" | awk '
        function ceil(x) { return x == int(x) ? x : int(x) + 1 }
        function flush(   v, ov, os, ol, o, lim) {
            if (name == "") return
            v = vg < 1 ? 1 : vg; ov = int(512 / (ceil(v / 8) * 8)); if (ov > 8) ov = 8
            os = sg <= 80 ? 10 : sg <= 88 ? 9 : sg <= 100 ? 8 : 7
            ol = 8
            if (lds > 0) { ol = int(int(65536 / (ceil(lds / 512) * 512)) * ceil(wg / 64) / 4); if (ol < 1) ol = 1 }
            o = 8; lim = "-"
            if (ov < o) { o = ov; lim = "VGPR" }
            if (os < o) { o = os; lim = "SGPR" }
            if (ol < o) { o = ol; lim = "LDS" }
            print name, vg, (ag == "" ? "-" : ag), sg, lds, priv, vsp, ssp, o, lim
            name = ""; vg = sg = lds = priv = vsp = ssp = 0; ag = ""; wg = 1024
        }
        /^amdhsa\.kernels:/ { on = 1; wg = 1024; next }
        on && /^[^ ]/ { flush(); on = 0 }
        on && /^  - / { flush(); sub(/^  - /, "    ") }
        on && $1 == ".name:" { name = $2 }
        on && $1 == ".vgpr_count:" { vg = $2 }
        on && $1 == ".agpr_count:" { ag = $2 }
        on && $1 == ".sgpr_count:" { sg = $2 }
        on && $1 == ".group_segment_fixed_size:" { lds = $2 }
        on && $1 == ".private_segment_fixed_size:" { priv = $2 }
        on && $1 == ".vgpr_spill_count:" { vsp = $2 }
        on && $1 == ".sgpr_spill_count:" { ssp = $2 }
        on && $1 == ".max_flat_workgroup_size:" { wg = $2 }
        END { flush() }'
}

amd_report() {
    local lib src stem obj arch name
    lib=$(realpath "$(ls -t "$rocm_dir"/build/hipconv-*/out/libhipconv_kernels.a | sed -n 1p)")
    mkdir -p "$work/ar" && (cd "$work/ar" && ar x "$lib")
    for arch in ${amd_archs//;/ }; do
        : >"$work/amd.rows"
        local missing=""
        for src in $sources; do
            stem=$(basename "$src" .hip)
            obj=$(shopt -s nullglob; echo "$work"/ar/*-"$stem".o)
            [ -n "$obj" ] || { missing+=" $src"; continue; }
            name="$work/$stem"
            # An object without device code (hip/gemm/config.hip: host functions only) has no
            # .hip_fatbin section, and no kernels to report.
            [[ $("$llvm_bin/llvm-readelf" -S "$obj") == *.hip_fatbin* ]] || continue
            [ -f "$name.fatbin" ] || "$llvm_bin/llvm-objcopy" --dump-section=.hip_fatbin="$name.fatbin" "$obj"
            "$llvm_bin/clang-offload-bundler" --unbundle --type=o --input="$name.fatbin" \
                --targets="hipv4-amdgcn-amd-amdhsa--$arch" --output="$name-$arch.co"
            amd_kernels "$name-$arch.co" >"$work/amd.raw"
            shorten "$work/amd.raw" | awk -v src="$src" -F'\t' '{ print src "\t" $0 }' >>"$work/amd.rows"
        done
        echo "## AMD $arch"
        echo
        echo "From the code objects in \`$lib\`.${missing:+ Not in the library:$missing.}"
        echo "VGPRs as allocated (arch + acc on this target); LDS static, per workgroup; scratch per lane;"
        echo "waves per SIMD estimated (limit: what bounds it)."
        echo
        echo "| source | kernel | VGPRs | AGPRs | SGPRs | LDS B | scratch B | spills v/s | waves/SIMD |"
        echo "|---|---|--:|--:|--:|--:|--:|--:|--:|"
        local rows=0 with_scratch=0 kernel vg ag sg lds priv vsp ssp waves limit
        while IFS=$'\t' read -r src kernel rest; do
            read -r vg ag sg lds priv vsp ssp waves limit <<<"$rest"
            echo "$src|$kernel|$vg|$ag|$sg|$lds|$priv|$vsp/$ssp|$waves${limit:+ ($limit)}"
        done <"$work/amd.rows" | sed 's/ (-)$//' | sort -t'|' -k1,1 -k2,2V >"$work/amd.sorted"
        while IFS='|' read -r src kernel vg ag sg lds priv spills waves; do
            echo "| $(basename "$src") | \`$kernel\` | $vg | $ag | $sg | $lds | $(bold_if_set "$priv") | $spills | $waves |"
            rows=$((rows + 1))
            [ "$priv" = 0 ] || with_scratch=$((with_scratch + 1))
        done <"$work/amd.sorted"
        echo
        echo "$rows kernels, $with_scratch with scratch."
        echo
    done
}

echo "# Kernel resources: hip/conv1d, hip/conv3d and hip/gemm"
echo
[ "$cuda_binary" = - ] || cuda_report
[ "$rocm_dir" = - ] || amd_report
