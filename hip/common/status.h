/*
 * Device-side reporting of bad index arguments (hipconv.h, HIPCONV_STATUS_*): the first
 * error any thread meets claims the status word; later ones leave it as it is. The host
 * reads it after waiting for the stream. Only the error path touches the word.
 */
#pragma once

#include "compat.h"
#include "hipconv.h"

namespace hipconv {

__device__ inline void report_index_error(int32_t *status, int32_t code, int64_t position, int64_t value) {
    if (status == nullptr) return;
    if (atomicCAS(status, HIPCONV_STATUS_OK, code) == HIPCONV_STATUS_OK) {
        status[1] = (int32_t)position;
        status[2] = (int32_t)value;
    }
}

}  // namespace hipconv
