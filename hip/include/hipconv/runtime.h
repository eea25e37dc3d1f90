/*
 * hipconv C ABI, the part every op family shares: status codes, stream / event / graph
 * handles, devices, memory, streams, events, graphs, the device status word, and the one
 * list of element types that per-dtype entry points are declared (and exported) for.
 *
 * - Plain C, no HIP or CUDA types: handles are opaque (hipStream_t / cudaStream_t
 *   underneath), so bindgen sees one definition that serves both backends.
 * - Every entry point returns the runtime's own error code (0 = success) and never prints
 *   or exits. Kernel launchers take a stream and are asynchronous.
 */
#ifndef HIPCONV_RUNTIME_H
#define HIPCONV_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's error code (hipError_t or cudaError_t), 0 on success. */
typedef int32_t hipconv_status_t;
/* Opaque handles, each its own pointer type, so that one cannot be passed for another
 * (bindgen gives Rust distinct types too). */
/* hipStream_t / cudaStream_t; NULL is the default stream. */
typedef struct hipconv_stream_opaque *hipconv_stream_t;
/* hipEvent_t / cudaEvent_t. */
typedef struct hipconv_event_opaque *hipconv_event_t;
/* An executable graph: hipGraphExec_t / cudaGraphExec_t. */
typedef struct hipconv_graph_exec_opaque *hipconv_graph_exec_t;

/* ------------------------------------------------------------ element types */

/*
 * The element types of the per-dtype entry points, as name suffixes: X(suffix, ...) once
 * per type, the extra arguments passed along. The kernels' export macro (hip/common/
 * launch.h) walks the same list, so a declared entry point is an exported one.
 *   f16 IEEE binary16, bf16 bfloat16, f32 IEEE binary32; fp32 accumulation throughout.
 */
#define HIPCONV_FOR_EACH_DTYPE(X, ...) X(f16, __VA_ARGS__) X(bf16, __VA_ARGS__) X(f32, __VA_ARGS__)

#define HIPCONV_DECLARE_ONE_DTYPE_(dtype, name, params_type) \
    hipconv_status_t name##_##dtype(const params_type *params, hipconv_stream_t stream);

/* Declares name_f16, name_bf16 and name_f32, each (const params_type *, stream). */
#define HIPCONV_DECLARE_PER_DTYPE(name, params_type) \
    HIPCONV_FOR_EACH_DTYPE(HIPCONV_DECLARE_ONE_DTYPE_, name, params_type)

/* ------------------------------------------------------------------ devices */

typedef struct hipconv_device_info {
    char name[256];
    /* gcnArchName on AMD ("gfx90a:sramecc+:xnack-"), "sm_90" on NVIDIA. */
    char arch[64];
    int64_t total_memory_bytes;
    int32_t multiprocessors;
    int32_t warp_size;
    int32_t major;
    int32_t minor;
    int64_t l2_cache_bytes;
} hipconv_device_info;

/* "rocm" or "cuda": the backend this library was compiled for. */
const char *hipconv_backend_name(void);
/* Symbolic name and description of a runtime error code. */
const char *hipconv_error_name(hipconv_status_t status);
const char *hipconv_error_string(hipconv_status_t status);

hipconv_status_t hipconv_device_count(int32_t *count);
hipconv_status_t hipconv_set_device(int32_t ordinal);
hipconv_status_t hipconv_device_info_get(int32_t ordinal, hipconv_device_info *info);

/* ------------------------------------------------------------------- memory */

hipconv_status_t hipconv_malloc(void **ptr, size_t bytes);
hipconv_status_t hipconv_free(void *ptr);
hipconv_status_t hipconv_memcpy_htod_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream);
hipconv_status_t hipconv_memcpy_dtoh_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream);
hipconv_status_t hipconv_memcpy_dtod_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream);
/* Sets `bytes` bytes at dst to `byte`, in stream order. */
hipconv_status_t hipconv_memset_async(void *dst, int32_t byte, size_t bytes, hipconv_stream_t stream);

/* ------------------------------------------------------- streams and events */

hipconv_status_t hipconv_stream_create(hipconv_stream_t *stream);
hipconv_status_t hipconv_stream_destroy(hipconv_stream_t stream);
hipconv_status_t hipconv_stream_synchronize(hipconv_stream_t stream);

hipconv_status_t hipconv_event_create(hipconv_event_t *event);
hipconv_status_t hipconv_event_destroy(hipconv_event_t event);
hipconv_status_t hipconv_event_record(hipconv_event_t event, hipconv_stream_t stream);
hipconv_status_t hipconv_event_synchronize(hipconv_event_t event);
hipconv_status_t hipconv_event_elapsed_ms(float *ms, hipconv_event_t start, hipconv_event_t end);

/* ------------------------------------------------------------------- graphs */

/* Stream capture into an executable graph. */
hipconv_status_t hipconv_stream_begin_capture(hipconv_stream_t stream);
/* Ends the capture and instantiates it; the captured graph itself is released. */
hipconv_status_t hipconv_stream_end_capture(hipconv_stream_t stream, hipconv_graph_exec_t *exec);
hipconv_status_t hipconv_graph_launch(hipconv_graph_exec_t exec, hipconv_stream_t stream);
hipconv_status_t hipconv_graph_exec_destroy(hipconv_graph_exec_t exec);

/* ------------------------------------------------------ device status word */

/*
 * Index arguments that live on the device (an op family's index arrays) are checked by the
 * kernels that read them. A bad one is never used to address memory: the work it belongs
 * to is skipped, and the first such error is kept in a status word,
 * int32_t[HIPCONV_STATUS_WORDS] on the device = {code, position, value, 0}, code
 * HIPCONV_STATUS_OK = none. The codes are the family's (hipconv/conv1d.h). The caller
 * reads the word when it next waits for the stream, and zeroes it.
 */
#define HIPCONV_STATUS_WORDS 4
#define HIPCONV_STATUS_OK 0

#ifdef __cplusplus
}
#endif

#endif /* HIPCONV_RUNTIME_H */
