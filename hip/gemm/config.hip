/*
 * The shared tiled GEMM's compile-time tile configuration (hipconv/gemm.h), for reports.
 * Every instantiation of tiled_gemm.h (any element type, any epilogue) uses these tiles.
 */
#include "hipconv/gemm.h"
#include "tiled_gemm.h"

extern "C" void hipconv_gemm_config_get(hipconv_gemm_config *config) {
    if (config == nullptr) return;
    config->block_m = hipconv::kGemmBlockM;
    config->block_n = hipconv::kGemmBlockN;
    config->block_k = hipconv::kGemmBlockK;
    config->waves_m = hipconv::kGemmWavesM;
    config->waves_n = hipconv::kGemmWavesN;
    config->inst_m = hipconv::mc::kStep;
    config->inst_n = hipconv::mc::kStep;
    config->inst_k = hipconv::mc::kStep;
    config->wave_size = hipconv::mc::kWaveSize;
}
