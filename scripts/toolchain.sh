#!/usr/bin/env bash
# Installs (if missing) and exports the two GPU compilers, as ../shared/TOOLCHAIN.md
# describes: Debian's hipcc for AMD, nvcc 13.0 from PyPI for NVIDIA.
# Source it:  . scripts/toolchain.sh     (sets CUDA_PATH and PATH; idempotent)

HIPCONV_CUDA_VENV=${HIPCONV_CUDA_VENV:-/opt/hipconv-cuda13}

if ! command -v hipcc >/dev/null 2>&1; then
    echo "toolchain: installing hipcc (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hipcc libamdhip64-dev >/dev/null
fi

hipconv_cuda_root() {
    "$HIPCONV_CUDA_VENV/bin/python3" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))'
}

if [ ! -x "$HIPCONV_CUDA_VENV/bin/python3" ] || [ ! -x "$(hipconv_cuda_root 2>/dev/null)/bin/nvcc" ] \
    || [ ! -x "$(hipconv_cuda_root 2>/dev/null)/bin/cuobjdump" ]; then
    echo "toolchain: installing nvcc 13.0 (PyPI wheels) into $HIPCONV_CUDA_VENV"
    python3 -m venv "$HIPCONV_CUDA_VENV"
    "$HIPCONV_CUDA_VENV/bin/pip" install -q nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 \
        nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85
    "$HIPCONV_CUDA_VENV/bin/pip" install -q --no-deps nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
fi

CUDA_PATH=$(hipconv_cuda_root)
export CUDA_PATH
export PATH="$PATH:$CUDA_PATH/bin"
