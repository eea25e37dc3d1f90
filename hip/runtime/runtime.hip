/*
 * Runtime entry points of the C ABI (hipconv/runtime.h): devices, memory, streams,
 * events. Thin pass-throughs that return the runtime's own error code, so the
 * Rust side needs no second binding crate and serves AMD and NVIDIA alike.
 */
#include <stdio.h>
#include <string.h>  // memset

#include "compat.h"
#include "hipconv/runtime.h"

#define HIPCONV_STATUS(expr) ((hipconv_status_t)(expr))

extern "C" {

const char *hipconv_backend_name(void) {
#if defined(HIPCONV_PLATFORM_AMD)
    return "rocm";
#else
    return "cuda";
#endif
}

const char *hipconv_error_name(hipconv_status_t status) {
    return hipGetErrorName((hipError_t)status);
}

const char *hipconv_error_string(hipconv_status_t status) {
    return hipGetErrorString((hipError_t)status);
}

hipconv_status_t hipconv_device_count(int32_t *count) {
    int n = 0;
    const hipError_t err = hipGetDeviceCount(&n);
    *count = (err == hipSuccess) ? n : 0;
    return HIPCONV_STATUS(err);
}

hipconv_status_t hipconv_set_device(int32_t ordinal) { return HIPCONV_STATUS(hipSetDevice(ordinal)); }

hipconv_status_t hipconv_device_info_get(int32_t ordinal, hipconv_device_info *info) {
    hipDeviceProp_t prop;
    const hipError_t err = hipGetDeviceProperties(&prop, ordinal);
    if (err != hipSuccess) return HIPCONV_STATUS(err);
    memset(info, 0, sizeof(*info));
    snprintf(info->name, sizeof(info->name), "%s", prop.name);
#if defined(HIPCONV_PLATFORM_AMD)
    snprintf(info->arch, sizeof(info->arch), "%s", prop.gcnArchName);
#else
    snprintf(info->arch, sizeof(info->arch), "sm_%d%d", prop.major, prop.minor);
#endif
    info->total_memory_bytes = (int64_t)prop.totalGlobalMem;
    info->multiprocessors = prop.multiProcessorCount;
    info->warp_size = prop.warpSize;
    info->major = prop.major;
    info->minor = prop.minor;
    info->l2_cache_bytes = prop.l2CacheSize;
    return HIPCONV_STATUS(hipSuccess);
}

hipconv_status_t hipconv_malloc(void **ptr, size_t bytes) { return HIPCONV_STATUS(hipMalloc(ptr, bytes)); }

hipconv_status_t hipconv_free(void *ptr) { return HIPCONV_STATUS(hipFree(ptr)); }

hipconv_status_t hipconv_memcpy_htod_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, (hipStream_t)stream));
}

hipconv_status_t hipconv_memcpy_dtoh_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, (hipStream_t)stream));
}

hipconv_status_t hipconv_memcpy_dtod_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream) {
    return HIPCONV_STATUS(
        hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, (hipStream_t)stream));
}

hipconv_status_t hipconv_memset_async(void *dst, int32_t byte, size_t bytes, hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipMemsetAsync(dst, byte, bytes, (hipStream_t)stream));
}

hipconv_status_t hipconv_stream_create(hipconv_stream_t *stream) {
    hipStream_t s = nullptr;
    const hipError_t err = hipStreamCreateWithFlags(&s, hipStreamNonBlocking);
    *stream = (hipconv_stream_t)s;
    return HIPCONV_STATUS(err);
}

hipconv_status_t hipconv_stream_destroy(hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipStreamDestroy((hipStream_t)stream));
}

hipconv_status_t hipconv_stream_synchronize(hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipStreamSynchronize((hipStream_t)stream));
}

hipconv_status_t hipconv_event_create(hipconv_event_t *event) {
    hipEvent_t e = nullptr;
    const hipError_t err = hipEventCreate(&e);
    *event = (hipconv_event_t)e;
    return HIPCONV_STATUS(err);
}

hipconv_status_t hipconv_event_destroy(hipconv_event_t event) {
    return HIPCONV_STATUS(hipEventDestroy((hipEvent_t)event));
}

hipconv_status_t hipconv_event_record(hipconv_event_t event, hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipEventRecord((hipEvent_t)event, (hipStream_t)stream));
}

hipconv_status_t hipconv_event_synchronize(hipconv_event_t event) {
    return HIPCONV_STATUS(hipEventSynchronize((hipEvent_t)event));
}

hipconv_status_t hipconv_event_elapsed_ms(float *ms, hipconv_event_t start, hipconv_event_t end) {
    return HIPCONV_STATUS(hipEventElapsedTime(ms, (hipEvent_t)start, (hipEvent_t)end));
}

hipconv_status_t hipconv_stream_begin_capture(hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipStreamBeginCapture((hipStream_t)stream, hipStreamCaptureModeThreadLocal));
}

hipconv_status_t hipconv_stream_end_capture(hipconv_stream_t stream, hipconv_graph_exec_t *exec) {
    hipGraph_t graph = nullptr;
    *exec = nullptr;
    hipError_t err = hipStreamEndCapture((hipStream_t)stream, &graph);
    if (err != hipSuccess) return HIPCONV_STATUS(err);
    hipGraphExec_t instance = nullptr;
    err = hipGraphInstantiateWithFlags(&instance, graph, 0);
    const hipError_t destroyed = hipGraphDestroy(graph);
    if (err != hipSuccess) return HIPCONV_STATUS(err);
    *exec = (hipconv_graph_exec_t)instance;
    return HIPCONV_STATUS(destroyed);
}

hipconv_status_t hipconv_graph_launch(hipconv_graph_exec_t exec, hipconv_stream_t stream) {
    return HIPCONV_STATUS(hipGraphLaunch((hipGraphExec_t)exec, (hipStream_t)stream));
}

hipconv_status_t hipconv_graph_exec_destroy(hipconv_graph_exec_t exec) {
    return HIPCONV_STATUS(hipGraphExecDestroy((hipGraphExec_t)exec));
}

}  // extern "C"
