/*
 * hipconv C ABI: the shared tiled GEMM (hip/gemm/tiled_gemm.h), C = A * B^T on matrix
 * cores, fp32 accumulation, generic over the element type and over the epilogue that
 * writes its result. It has no entry point of its own: each op family exports its GEMMs
 * with its own epilogue and params (hipconv/conv1d.h: hipconv_conv1d_gemm_abt_*). This
 * header reports the compile-time tiles they all share.
 */
#ifndef HIPCONV_GEMM_H
#define HIPCONV_GEMM_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The tile configuration, the same for every element type:
 *   block_m x block_n   outputs per block, k-step block_k
 *   waves_m x waves_n   waves (AMD, 64 lanes) / warps (NVIDIA, 32 lanes) per block
 *   inst_m x inst_n x inst_k   one step of the matrix-core layer (hip/common/matrix_core.h):
 *                       a 16x16x16 product, which is one or more instructions by dtype
 *                       and vendor (e.g. 4 x v_mfma_f32_16x16x4f32 for f32 on AMD)
 *   wave_size           lanes per wave / warp
 */
typedef struct hipconv_gemm_config {
    int32_t block_m;
    int32_t block_n;
    int32_t block_k;
    int32_t waves_m;
    int32_t waves_n;
    int32_t inst_m;
    int32_t inst_n;
    int32_t inst_k;
    int32_t wave_size;
} hipconv_gemm_config;

void hipconv_gemm_config_get(hipconv_gemm_config *config);

#ifdef __cplusplus
}
#endif

#endif /* HIPCONV_GEMM_H */
