#!/usr/bin/env bash
# Checks the machine code of a built backend, for every target in ARCHS.
#
# 1. The matrix-core kernels run on matrix instructions, for every dtype (f16, bf16, f32)
#    each one is compiled for:
#      gemm_abt    tiled_gemm_kernel<T, ...>          (hip/conv1d/gemm_abt.hip: Im2colGemm's
#                                                      GEMM, hip/gemm/tiled_gemm.h)
#      fused_gemm  conv1d_fused_gemm_kernel<T, ...>   (hip/conv1d/fused_gemm.hip: FusedGemm)
#      im3col_gemm tiled_gemm_kernel<T, GroupOutput<T>> (hip/conv3d/im3col_gemm.hip: conv3d
#                                                      Im3colGemm's GEMM)
#      implicit_gemm conv3d_implicit_gemm_kernel<T, ...> (hip/conv3d/implicit_gemm.hip)
#    and, f16 and bf16 only:
#      depthwise_toeplitz conv3d_depthwise_toeplitz_kernel<T, ...> (hip/conv3d/depthwise_toeplitz.hip:
#                                                      Depthwise NCDHW on the matrix cores)
#      depthwise_toeplitz_last conv3d_depthwise_toeplitz_last_kernel<T, ...>
#                                                     (hip/conv3d/depthwise_toeplitz_last.hip:
#                                                      Depthwise NDHWC on the matrix cores)
#      implicit_gemm_halo conv3d_implicit_gemm_halo_kernel<T> (hip/conv3d/implicit_gemm_halo.hip:
#                                                      ImplicitGemm's halo tiles, 32 channels)
#    and, on NVIDIA targets only, f16 and bf16 only (HMMA):
#      direct_toeplitz_rows_channel_last conv1d_direct_toeplitz_rows_channel_last_kernel<T, ...>
#                                                     (hip/conv1d/direct_toeplitz_rows_channel_last.hip:
#                                                      Direct channel-last, widths 9-64)
#    and, on NVIDIA targets from sm_90 on, f16 and bf16 only (HGMMA: wgmma):
#      implicit_gemm_sm90 conv3d_implicit_gemm_wgmma_kernel<T, BN, kLoads> (hip/conv3d/implicit_gemm_sm90.hip)
#      implicit_gemm_rows conv3d_implicit_gemm_rows_kernel<T> (hip/conv3d/implicit_gemm_rows.hip:
#                                                      ImplicitGemm's row-reuse kernel, 96 channels)
#    and, on NVIDIA targets from sm_90 on, f16 and bf16 only (HMMA: mma.sync fed by TMA):
#      depthwise_diagonal conv3d_depthwise_diagonal_kernel<T, kSilu> (hip/conv3d/depthwise_diagonal.hip:
#                                                      Depthwise NDHWC on Hopper)
#    build.rs compiles target 90 as sm_90a (wgmma needs it): its SASS is read as sm_90a.
#    A kernel is named by a substring of its mangled name and, where one template serves
#    several objects (tiled_gemm_kernel), a second substring (the epilogue's type).
#    One line per (target, object, dtype) with the count and kinds of matrix instructions in
#    that dtype's kernels; it fails if a dtype has no kernel or no matrix instruction.
#    rocm: v_mfma_* in the object's code object for every AMD target (from the static
#          library build.rs produced under TARGET_DIR);
#    cuda: HMMA/HGMMA in the kernels' SASS for every NVIDIA target of BINARY; kernels the
#          binary does not link (causal_conv1d calls no conv3d kernel) are read from the
#          kernel library beside a cargo-built BINARY (see 2.), and reported NOT CHECKED
#          where there is none.
#    The dtype is the kernel's first template argument (__half; hip_bfloat16 or
#    __nv_bfloat16; float).
#
# 2. The streaming conv1d kernels (hip/conv1d/direct_channel_first.hip,
#    direct_channel_last.hip, direct_wide_channel_first.hip, direct_wide_channel_last.hip,
#    direct_window_channel_last.hip, update.hip) keep everything in registers and, except
#    where listed below, move data in 16-byte accesses (direct_channel_last.hip's
#    small-problem kernel reads and writes one 4-byte word of channels a lane by design,
#    128 contiguous bytes a warp instruction, its taps in 16-byte loads; the file's other
#    kernels carry the object's 16-byte loads and stores. update.hip's grouped kernel moves
#    each lane's contiguous span of 2 words of channels, so its accesses are 8 or 16 bytes:
#    16 where the span is 4 words or more, as the taps at width 2 and 4 and the four-token
#    blocks are); so do the
#    f16/bf16 Toeplitz kernels (direct_toeplitz_channel_first.hip, _last.hip, and on
#    NVIDIA only direct_toeplitz_rows_channel_last.hip, listed in streaming_nvidia), whose
#    matrix instructions are checked as in 1. (f16 and bf16 only). The objects in
#    copy_loads (the channel-last wide kernels) copy their tiles into shared memory with
#    cp.async on NVIDIA (LDGSTS.128) and through generic pointers on AMD
#    (flat_load_dwordx4): their 16-byte loads are counted in those forms. The objects in
#    unchecked_stores write narrower words by design (one or two channels per thread;
#    the channel-first Toeplitz tile's 4- or 8-byte words, 128 or 512 contiguous bytes per
#    wave instruction): their stores are not checked. The objects in unchecked_loads read
#    narrower words by design (direct_window_channel_last.hip: two channels per thread in
#    4- or 8-byte words, 128 or 256 contiguous bytes per warp instruction, each thread's
#    window in registers): their loads are not checked; scratch and local memory are.
#    rocm, every AMD target, per object: global_load_dwordx4 and global_store_dwordx4
#          present; no kernel with scratch: .private_segment_fixed_size 0 and no dynamic
#          stack in the code object's metadata (llvm-readelf --notes), and no
#          scratch_* / buffer_* loads or stores (spills) in its code. The line also counts
#          kernels with static LDS: the narrow kernels declare none, so LDS there would be a
#          private array that the compiler moved out of registers; the wide kernels stage
#          their inputs there (reported, not a failure);
#    cuda, sm_90 (and newer targets) in ARCHS, per source file (kernels named
#          conv1d_direct_channel_first / conv1d_direct_channel_last / conv1d_update):
#          LDG.*.128 and STG.*.128 present (any cache qualifiers), no LDL / STL (local
#          memory: spills, indexed local arrays, or registers saved around a call such as
#          the 64-bit division routine) in any of their kernels, except the measured
#          exceptions named in cuda_local_allowed (every kernel of an object) and
#          cuda_local_allowed_kernels (one kernel) (reported, not a failure). A binary holds
#          only the objects it calls (causal_conv1d has no update kernels); those are read from the
#          kernel library beside a cargo-built BINARY (TARGET/release/build/hipconv-*/out/),
#          and reported NOT CHECKED where there is none (a copied binary, as in dist/).
#    One line per (target, object); kernels that use scratch or local memory are listed.
#
# 3. The conv1d backward's kernels (hip/conv1d/backward*.hip, listed in backward_objects)
#    keep their walk in registers, so a spill there costs as much as in 2.
#    rocm, every AMD target, per object: no kernel with scratch, checked as in 2. (their
#          loads and stores are not checked: several stage through LDS by design). The
#          sixty-eighth session's first build of the channel-last f32 kernel at 128 VGPRs
#          spilled on gfx90a and gfx940 and passed CI, because only 2.'s objects were
#          checked then.
#    cuda: not checked here (`scripts/resource-report.sh` lists their local memory).
#    One line per (target, object).
#
# usage: check-machine-code.sh rocm TARGET_DIR ARCHS   |   check-machine-code.sh cuda BINARY ARCHS
# ARCHS: ';'-separated, as in HIPCONV_AMD_ARCHS / HIPCONV_CUDA_ARCHS.
# Exit status 1 (with a message saying which check) if a check fails.
set -euo pipefail
shopt -s inherit_errexit  # a failing command inside $(...) fails the script too
[ $# -eq 3 ] || { echo "usage: $0 rocm TARGET_DIR ARCHS | $0 cuda BINARY ARCHS" >&2; exit 2; }
backend=$1 artifact=$2 archs=$3
# LLVM 15 comes with Debian's hipcc; older llvm-objdump builds cannot disassemble gfx940.
llvm_bin=${HIPCONV_LLVM_BIN:-/usr/lib/llvm-15/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail_matrix=0 fail_stream=0 fail_backward=0
# "OBJECT KERNEL [FILTER]": kernels whose mangled name holds KERNEL (and FILTER)
matrix_kernels=("gemm_abt tiled_gemm_kernel ChannelFirstOutput" "fused_gemm conv1d_fused_gemm_kernel"
                "im3col_gemm tiled_gemm_kernel GroupOutput" "implicit_gemm conv3d_implicit_gemm_kernel")
matrix_dtypes=(f16 bf16 f32)
# The same check for kernels compiled for f16/bf16 only (the Toeplitz conv1d kernels).
matrix_kernels_16bit=("direct_toeplitz_channel_first conv1d_direct_toeplitz_channel_first_kernel"
                      "direct_toeplitz_channel_last conv1d_direct_toeplitz_channel_last_kernel"
                      "depthwise_toeplitz conv3d_depthwise_toeplitz_kernel"
                      "depthwise_toeplitz_last conv3d_depthwise_toeplitz_last_kernel"
                      "implicit_gemm_halo conv3d_implicit_gemm_halo_kernel")
# The same, NVIDIA only (the object holds no kernel on AMD).
nvidia_kernels_16bit=("direct_toeplitz_rows_channel_last conv1d_direct_toeplitz_rows_channel_last_kernel")
# The same, NVIDIA from sm_90 on only, and HGMMA only (the kernel compiles empty elsewhere).
hopper_kernels_16bit=("implicit_gemm_sm90 conv3d_implicit_gemm_wgmma_kernel"
                      "implicit_gemm_rows conv3d_implicit_gemm_rows_kernel")
# The same with HMMA (mma.sync; the kernel needs sm_90's TMA, not sm_90a's wgmma).
hopper_hmma_kernels_16bit=("depthwise_diagonal conv3d_depthwise_diagonal_kernel")
# objects (rocm); conv1d_<name> kernels (cuda)
streaming=(direct_channel_first direct_channel_last direct_wide_channel_first direct_wide_channel_last
           direct_window_channel_last direct_toeplitz_channel_first direct_toeplitz_channel_last update)
streaming_nvidia=(direct_toeplitz_rows_channel_last)        # cuda only (no kernel on AMD)
backward_objects=(backward backward_channel_first backward_channel_last backward_channel_last_tiled
                  backward_generic)                          # rocm: no scratch (3.)
copy_loads=(direct_wide_channel_last direct_toeplitz_rows_channel_last)  # 16-byte loads as copies (cp.async / flat)
unchecked_stores=(direct_wide_channel_last direct_window_channel_last direct_toeplitz_channel_first)  # narrower stores, by design
unchecked_loads=(direct_window_channel_last)                 # narrower loads, by design
stream_min_sm=90                                             # cuda: the streaming checks' oldest target
# cuda: the objects whose local memory is reported but allowed, each measured:
# - update: the 16-bit four-token kernels of width 4 keep 8-16 bytes in local memory under
#   their 64-register cap (8 blocks an SM, the fastest of 6-10 and of no cap for the
#   four-token steps on an H100: docs/PERFORMANCE.md, thirty-fifth session); every other
#   update kernel has none.
# - direct_window_channel_last: the bf16 pair kernels at 16 taps spill 12-36 bytes (4 at 8
#   taps with SiLU) under their 128-register cap; the spill-free form (each channel widened
#   through the element type) measured slower on an H100 at (4,2048,4096,16): 72% of copy
#   against 77% (docs/PERFORMANCE.md, "Wide kernels, channel-last").
# AMD's kernels have no scratch (checked above).
cuda_local_allowed=(update direct_window_channel_last)
# cuda: single kernels ("OBJECT|KERNEL", the name as the report prints it) whose local
# memory is reported but allowed, each measured:
# - direct_channel_last: the bf16 pack kernel of 8 rows at width 4 with SiLU keeps 4 bytes
#   under its 96-register cap (5 blocks an SM), 4-5% faster than uncapped (110 registers, 4
#   blocks) at the model shapes on an H200 (docs/PERFORMANCE.md, forty-sixth session).
cuda_local_allowed_kernels=("direct_channel_last|conv1d_direct_channel_last_kernel<__nv_bfloat16, 4, 8, 8, true>")

# "MANGLED_KERNEL INSTRUCTION" lines (INSTRUCTION "-" for a kernel's own line) -> per dtype
# "DTYPE KERNELS COUNT KINDS...": the kernels of each dtype, their matrix instructions, kinds.
by_dtype() {
    "$llvm_bin/llvm-cxxfilt" |
        sed -E 's/^[^<]*<(__half|hip_bfloat16|__nv_bfloat16|float)[,>].* ([^ ]+)$/\1 \2/;
                s/^__half /f16 /; s/^(hip_bfloat16|__nv_bfloat16) /bf16 /; s/^float /f32 /' |
        awk '$2 == "-" { kernels[$1]++; next }
             { count[$1]++; kinds[$1] = kinds[$1] " " $2 }
             END { for (d in kernels) print d, kernels[d], count[d] + 0, kinds[d] }' |
        while read -r dtype n_kernels n_matrix kinds; do
            echo "$dtype $n_kernels $n_matrix $(tr ' ' '\n' <<<"$kinds" | sed '/^$/d' | sort -u | tr '\n' ' ')"
        done
}

in_list() { local x=$1; shift; for y in "$@"; do [ "$x" = "$y" ] && return 0; done; return 1; }

report() {  # report BACKEND ARCH OBJECT LINES [DTYPES...]  (LINES from by_dtype)
    local dtype line n_kernels n_matrix kinds backend=$1 arch=$2 object=$3 lines=$4
    shift 4
    local dtypes=("$@")
    [ ${#dtypes[@]} -gt 0 ] || dtypes=("${matrix_dtypes[@]}")
    set -- "$backend" "$arch" "$object" "$lines"
    for dtype in "${dtypes[@]}"; do
        line=$(awk -v d="$dtype" '$1 == d' <<<"$4")
        if [ -z "$line" ]; then
            echo "$1 $2 $3 $dtype: no kernel"
            fail_matrix=1
            continue
        fi
        read -r _ n_kernels n_matrix kinds <<<"$line"
        echo "$1 $2 $3 $dtype: $n_matrix matrix instructions in $n_kernels kernel(s) (${kinds% })"
        [ "$n_matrix" -gt 0 ] || fail_matrix=1
    done
}

count() { grep -cE "$1" <<<"$2" || true; }  # count REGEX TEXT: matching lines
# SASS local-memory accesses (LDL, STL with any suffix or predicate).
local_memory='(^|[^A-Z0-9_.])(LDL|STL)([. ]|$)'

# Mangled names -> short readable ones, one a line.
short_names() {
    "$llvm_bin/llvm-cxxfilt" | sed -E 's/^void //; s/hipconv:://g; s/\(anonymous namespace\):://g; s/\([^()]*\)$//'
}

# --- rocm helpers ------------------------------------------------------------------

# The member of the kernel library built from hip/.../NAME.hip (cc names it HASH-NAME.o).
object_of() {
    local objs=("$work"/*-"$1".o)
    [ -f "${objs[0]}" ] || { echo "no object for $1.hip in $lib" >&2; exit 1; }
    [ ${#objs[@]} -eq 1 ] || { echo "several objects for $1.hip in $lib: ${objs[*]}" >&2; exit 1; }
    echo "${objs[0]}"
}

# The AMD code object of NAME.hip for ARCH (unbundled once from the object's .hip_fatbin).
code_object() {
    local name=$1 arch=$2
    if [ ! -f "$work/$name.fatbin" ]; then
        "$llvm_bin/llvm-objcopy" --dump-section=.hip_fatbin="$work/$name.fatbin" "$(object_of "$name")"
    fi
    if [ ! -f "$work/$name-$arch.co" ]; then
        "$llvm_bin/clang-offload-bundler" --unbundle --type=o --input="$work/$name.fatbin" \
            --targets="hipv4-amdgcn-amd-amdhsa--$arch" --output="$work/$name-$arch.co"
    fi
    echo "$work/$name-$arch.co"
}

# The kernels of a code object, one "NAME SCRATCH_BYTES DYNAMIC_STACK LDS_BYTES" line each,
# from its AMDGPU metadata note (amdhsa.kernels: one "  - " entry per kernel).
kernel_scratch() {
    "$llvm_bin/llvm-readelf" --notes "$1" | awk '
        function flush() { if (name != "") print name, bytes, dynamic, lds
                           name = ""; bytes = 0; dynamic = "false"; lds = 0 }
        /^amdhsa\.kernels:/ { in_kernels = 1; next }
        in_kernels && /^[^ ]/ { flush(); in_kernels = 0 }
        in_kernels && /^  - / { flush(); sub(/^  - /, "    ") }
        in_kernels && $1 == ".name:" { name = $2 }
        in_kernels && $1 == ".private_segment_fixed_size:" { bytes = $2 }
        in_kernels && $1 == ".uses_dynamic_stack:" { dynamic = $2 }
        in_kernels && $1 == ".group_segment_fixed_size:" { lds = $2 }
        END { flush() }'
}

# Scratch (private) memory instructions per kernel of a disassembly: "NAME COUNT" lines.
# gfx90a reaches scratch through buffer_* (MUBUF) accesses, gfx940 through scratch_*; the
# streaming kernels use neither for anything else. buffer_wbl2 / buffer_inv are cache
# maintenance, not memory accesses, and do not match.
scratch_instructions() {
    awk '/^[0-9a-f]+ <.*>:$/ { name = substr($2, 2, length($2) - 3) }
         $1 ~ /^(scratch|buffer)_(load|store|atomic)/ { n[name]++ }
         END { for (k in n) print k, n[k] }' <<<"$1"
}

# The scratch of a code object's kernels (CO, its disassembly ASM), into scratch_summary
# ("K of N kernels with scratch, I scratch instructions; L with LDS") and scratch_failures
# (one "  FAILED: scratch: ..." line per kernel with scratch: metadata bytes, and dynamic
# stack, and instruction count; empty where none has any).
rocm_scratch() {  # rocm_scratch CO ASM
    local kernels scratch_meta scratch_code instructions
    kernels=$(kernel_scratch "$1")
    scratch_meta=$(awk '$2 > 0 || $3 == "true"' <<<"$kernels")
    scratch_code=$(scratch_instructions "$2")
    instructions=$(awk '{ s += $2 } END { print s + 0 }' <<<"$scratch_code")
    scratch_summary="$(grep -c . <<<"$scratch_meta" || true) of $(grep -c . <<<"$kernels" || true) kernels"
    scratch_summary+=" with scratch, $instructions scratch instructions;"
    scratch_summary+=" $(awk '$4 > 0' <<<"$kernels" | grep -c . || true) with LDS"
    scratch_failures=""
    if [ -n "$scratch_meta" ] || [ "$instructions" -gt 0 ]; then
        scratch_failures=$(awk 'FILENAME == ARGV[1] { code[$1] = $2; next }
             { meta[$1] = $2 " bytes" ($3 == "true" ? ", dynamic stack" : "") }
             END { for (k in code) if (!(k in meta)) meta[k] = "0 bytes"
                   for (k in meta) print k, meta[k] ", " (code[k] + 0) " scratch instructions" }' \
            <(printf '%s\n' "$scratch_code" | sed '/^$/d') <(printf '%s\n' "$scratch_meta" | sed '/^$/d') |
            sort | while read -r kernel detail; do
                echo "  FAILED: scratch: $(short_names <<<"$kernel"): $detail"
            done)
    fi
}

check_rocm_streaming() {  # check_rocm_streaming ARCH NAME
    local arch=$1 name=$2 co asm loads stores
    co=$(code_object "$name" "$arch")
    asm=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$co")
    loads=$(count '^\s*global_load_dwordx4\s' "$asm")
    stores=$(count '^\s*global_store_dwordx4\s' "$asm")
    in_list "$name" "${copy_loads[@]}" && loads=$(count '^\s*(global|flat)_load_dwordx4\s' "$asm")
    in_list "$name" "${unchecked_stores[@]}" && stores="unchecked"
    in_list "$name" "${unchecked_loads[@]}" && loads="unchecked"
    rocm_scratch "$co" "$asm"
    echo "rocm $arch $name: $loads global_load_dwordx4, $stores global_store_dwordx4; $scratch_summary"
    [ "$loads" = unchecked ] || [ "$loads" -gt 0 ] || {
        echo "  FAILED: no global_load_dwordx4 (16-byte loads)"
        fail_stream=1
    }
    [ "$stores" = unchecked ] || [ "$stores" -gt 0 ] || {
        echo "  FAILED: no global_store_dwordx4 (16-byte stores)"
        fail_stream=1
    }
    [ -z "$scratch_failures" ] || { echo "$scratch_failures"; fail_stream=1; }
}

check_rocm_backward() {  # check_rocm_backward ARCH NAME
    local arch=$1 name=$2 co asm
    co=$(code_object "$name" "$arch")
    asm=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$co")
    rocm_scratch "$co" "$asm"
    echo "rocm $arch $name: $scratch_summary"
    [ -z "$scratch_failures" ] || { echo "$scratch_failures"; fail_backward=1; }
}

# --- cuda helpers ------------------------------------------------------------------

# The kernel library a cargo-built BINARY was linked from, if it lies beside it
# (TARGET/PROFILE[/examples|/deps]/BINARY -> TARGET/PROFILE/build/hipconv-*/out/).
library_beside() {
    local dir libs
    dir=$(dirname "$artifact")
    libs=$(shopt -s nullglob; echo "$dir"/build/hipconv-*/out/libhipconv_kernels.a \
        "$dir"/../build/hipconv-*/out/libhipconv_kernels.a)
    [ -z "$libs" ] || realpath "$(ls -t $libs | sed -n 1p)"
}

# The SASS of FILE for target SM: sm_SM, or sm_SMa where the build made the
# architecture-specific variant instead (build.rs: 90 -> sm_90a).
cuda_sass() {  # cuda_sass SM FILE
    local code
    code=$(cuobjdump -sass -arch "sm_$1" "$2" 2>/dev/null || true)
    grep -q 'Function : ' <<<"$code" || code=$(cuobjdump -sass -arch "sm_$1a" "$2" 2>/dev/null || true)
    printf '%s\n' "$code"
}

# SASS on stdin -> "MANGLED_KERNEL INSTRUCTION" lines for by_dtype: the kernels whose name
# holds KERNEL and FILTER, and their HMMA/HGMMA instructions.
cuda_matrix_lines() {  # cuda_matrix_lines KERNEL FILTER
    awk -v k="$1" -v x="$2" '/Function : / { name = $NF; f = index(name, k) > 0 && (x == "" || index(name, x) > 0)
                                             if (f) print name, "-"; next }
                             f && match($0, /(HMMA|HGMMA)[.A-Z0-9x]*/) { print name, substr($0, RSTART, RLENGTH) }' |
        by_dtype
}

check_cuda_streaming() {  # check_cuda_streaming SM NAME   (uses $sass, the SASS of BINARY)
    local sm=$1 name=$2 code kernels loads stores local_ops from=""
    # The SASS of every kernel whose (mangled) name contains conv1d_NAME.
    code=$(awk -v k="conv1d_$name" '/Function : /{f = index($0, k) > 0} f' <<<"$sass")
    if ! grep -q 'Function : ' <<<"$code"; then
        # A binary links only the objects it calls (causal_conv1d has no update kernels):
        # read them from the kernel library beside it.
        if [ -z "${library:-}" ]; then
            library=$(library_beside)
            [ -n "$library" ] || {
                echo "cuda sm_$sm $name: NOT CHECKED: no conv1d_$name kernel in $artifact, no kernel library beside it"
                return
            }
        fi
        [ -n "${library_sass[$sm]:-}" ] || library_sass[$sm]=$(cuda_sass "$sm" "$library")
        code=$(awk -v k="conv1d_$name" '/Function : /{f = index($0, k) > 0} f' <<<"${library_sass[$sm]}")
        from=" (from $library: not linked into $(basename "$artifact"))"
    fi
    kernels=$(count 'Function : ' "$code")
    loads=$(count '[^A-Z0-9_.]LDG(\.[A-Z0-9_]+)*\.128[. ]' "$code")
    stores=$(count '[^A-Z0-9_.]STG(\.[A-Z0-9_]+)*\.128[. ]' "$code")
    in_list "$name" "${copy_loads[@]}" && loads=$(count '[^A-Z0-9_.](LDG|LDGSTS)(\.[A-Z0-9_]+)*\.128[. ]' "$code")
    in_list "$name" "${unchecked_stores[@]}" && stores="unchecked"
    in_list "$name" "${unchecked_loads[@]}" && loads="unchecked"
    local_ops=$(count "$local_memory" "$code")
    echo "cuda sm_$sm $name: $loads LDG.128, $stores STG.128 in $kernels kernels; $local_ops LDL/STL$from"
    [ "$kernels" -gt 0 ] || { echo "  FAILED: no kernel named conv1d_$name"; fail_stream=1; return; }
    [ "$loads" = unchecked ] || [ "$loads" -gt 0 ] || { echo "  FAILED: no LDG.128 (16-byte loads)"; fail_stream=1; }
    [ "$stores" = unchecked ] || [ "$stores" -gt 0 ] || { echo "  FAILED: no STG.128 (16-byte stores)"; fail_stream=1; }
    if [ "$local_ops" -gt 0 ]; then
        local kernel n short verdict
        while read -r kernel n; do
            short=$(short_names <<<"$kernel")
            verdict="FAILED"
            if in_list "$name" "${cuda_local_allowed[@]}" || in_list "$name|$short" "${cuda_local_allowed_kernels[@]}"; then
                verdict="allowed"
            else
                fail_stream=1
            fi
            echo "  $verdict: local memory: $short: $n LDL/STL"
        done < <(awk -v re="$local_memory" '/Function : / { name = $NF } $0 ~ re { n[name]++ }
                      END { for (k in n) print k, n[k] }' <<<"$code" | sort)
    fi
}

case $backend in
rocm)
    lib=$(realpath "$(ls -t "$artifact"/build/hipconv-*/out/libhipconv_kernels.a | sed -n 1p)")
    (cd "$work" && ar x "$lib")
    for entry in "${matrix_kernels[@]}"; do
        read -r object kernel filter <<<"$entry"
        for arch in ${archs//;/ }; do
            asm=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$(code_object "$object" "$arch")")
            lines=$(awk -v k="$kernel" -v x="${filter:-}" '/^[0-9a-f]+ <.*>:$/ { name = substr($2, 2, length($2) - 3)
                                                              f = index(name, k) > 0 && (x == "" || index(name, x) > 0)
                                                              if (f) print name, "-"; next }
                                        f && $1 ~ /^v_mfma_/ { print name, $1 }' <<<"$asm" | by_dtype)
            report rocm "$arch" "$object" "$lines"
        done
    done
    for entry in "${matrix_kernels_16bit[@]}"; do
        read -r object kernel <<<"$entry"
        for arch in ${archs//;/ }; do
            asm=$("$llvm_bin/llvm-objdump" -d --mcpu="$arch" "$(code_object "$object" "$arch")")
            lines=$(awk -v k="$kernel" '/^[0-9a-f]+ <.*>:$/ { name = substr($2, 2, length($2) - 3)
                                                              f = index(name, k) > 0; if (f) print name, "-"; next }
                                        f && $1 ~ /^v_mfma_/ { print name, $1 }' <<<"$asm" | by_dtype)
            report rocm "$arch" "$object" "$lines" f16 bf16
        done
    done
    for arch in ${archs//;/ }; do
        for name in "${streaming[@]}"; do
            check_rocm_streaming "$arch" "$name"
        done
        for name in "${backward_objects[@]}"; do
            check_rocm_backward "$arch" "$name"
        done
    done
    ;;
cuda)
    declare -A library_sass=()
    for arch in ${archs//;/ }; do
        sm=${arch#sm_}
        sass=$(cuda_sass "$sm" "$artifact")
        for entry in "${matrix_kernels[@]}"; do
            read -r object kernel filter <<<"$entry"
            lines=$(cuda_matrix_lines "$kernel" "${filter:-}" <<<"$sass")
            from=""
            if [ -z "$lines" ]; then
                # Not linked into BINARY: the kernel library beside it has every object.
                if [ -z "${library:-}" ]; then
                    library=$(library_beside)
                    [ -n "$library" ] || {
                        echo "cuda sm_$sm $object: NOT CHECKED: no $kernel kernel in $artifact, no kernel library beside it"
                        continue
                    }
                fi
                [ -n "${library_sass[$sm]:-}" ] || library_sass[$sm]=$(cuda_sass "$sm" "$library")
                lines=$(cuda_matrix_lines "$kernel" "${filter:-}" <<<"${library_sass[$sm]}")
                from=" (from the kernel library)"
            fi
            report cuda "sm_$sm" "$object$from" "$lines"
        done
        for entry in "${matrix_kernels_16bit[@]}" "${nvidia_kernels_16bit[@]}"; do
            read -r object kernel <<<"$entry"
            [ -n "${library:-}" ] || library=$(library_beside)
            if [ -z "$library" ]; then
                echo "cuda sm_$sm $object: NOT CHECKED: no kernel library beside $artifact"
                continue
            fi
            [ -n "${library_sass[$sm]:-}" ] || library_sass[$sm]=$(cuda_sass "$sm" "$library")
            report cuda "sm_$sm" "$object (from the kernel library)" \
                "$(cuda_matrix_lines "$kernel" "" <<<"${library_sass[$sm]}")" f16 bf16
        done
        if [ "${sm%%[!0-9]*}" -ge 90 ]; then
            for entry in "${hopper_kernels_16bit[@]}" "${hopper_hmma_kernels_16bit[@]}"; do
                read -r object kernel <<<"$entry"
                wgmma=1
                [[ " ${hopper_hmma_kernels_16bit[*]} " == *" $object "* ]] && wgmma=0
                lines=$(cuda_matrix_lines "$kernel" "" <<<"$sass")
                from=""
                if [ -z "$lines" ]; then
                    [ -n "${library:-}" ] || library=$(library_beside)
                    if [ -z "$library" ]; then
                        echo "cuda sm_$sm $object: NOT CHECKED: no kernel library beside $artifact"
                        continue
                    fi
                    [ -n "${library_sass[$sm]:-}" ] || library_sass[$sm]=$(cuda_sass "$sm" "$library")
                    lines=$(cuda_matrix_lines "$kernel" "" <<<"${library_sass[$sm]}")
                    from=" (from the kernel library)"
                fi
                # wgmma or nothing: HMMA alone would mean the kernel was not built for sm_90a.
                if [ $wgmma = 1 ] && grep -q HMMA <<<"$lines"; then
                    echo "cuda sm_$sm $object: HMMA where only HGMMA belongs: $lines"
                    fail_matrix=1
                fi
                report cuda "sm_$sm" "$object$from" "$lines" f16 bf16
            done
        fi
        if [ "${sm%%[!0-9]*}" -ge "$stream_min_sm" ]; then
            for name in "${streaming[@]}" "${streaming_nvidia[@]}"; do
                check_cuda_streaming "$sm" "$name"
            done
        fi
    done
    ;;
*)
    echo "usage: $0 rocm|cuda ARTIFACT ARCHS" >&2
    exit 2
    ;;
esac

status=0
if [ $fail_matrix -ne 0 ]; then
    echo "machine-code check FAILED: a matrix-core kernel without its matrix instructions" >&2
    status=1
fi
if [ $fail_backward -ne 0 ]; then
    echo "machine-code check FAILED: a conv1d backward kernel with scratch (the FAILED lines above name it)" >&2
    status=1
fi
if [ $fail_stream -ne 0 ]; then
    echo "machine-code check FAILED: a streaming conv1d kernel without 16-byte loads/stores, or with" \
        "scratch / local memory (the FAILED lines above name them)" >&2
    status=1
fi
exit $status
