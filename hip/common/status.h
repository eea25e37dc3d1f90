/*
 * Device-side reporting of bad index arguments into the status word (hipconv/runtime.h,
 * HIPCONV_STATUS_WORDS; the codes are the family's): the first error any thread meets
 * claims the word; later ones leave it as it is. The host reads it after waiting for the
 * stream. Only the error path touches the word.
 */
#pragma once

#include "compat.h"
#include "hipconv/runtime.h"

namespace hipconv {

__device__ inline void report_index_error(int32_t *status, int32_t code, int64_t position, int64_t value) {
    if (status == nullptr) return;
    if (atomicCAS(status, HIPCONV_STATUS_OK, code) == HIPCONV_STATUS_OK) {
        status[1] = (int32_t)position;
        status[2] = (int32_t)value;
    }
}

}  // namespace hipconv
