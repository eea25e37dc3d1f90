// Dev only: when each block of a chained kernel starts and ends, in %globaltimer
// nanoseconds, to see where a graph of back-to-back launches spends its time per launch
// (the release after griddepcontrol.wait, the blocks' own spans, the gap to the next
// launch's release). The kernels are instrumented by copies of their sources built with
// timeline_begin() after begin_chained_kernel() and timeline_end() as their last statement
// (scripts/dev/timeline_build.sh); every block appends one record at its end.
#pragma once
#include <cstdint>

struct TimelineRecord {
    unsigned long long start, end;  // %globaltimer after the wait; after the block's last store
    long long cycles;               // clock64 between the two (thread 0's SM)
    unsigned smid, pad;
};

constexpr int kTimelineCapacity = 1 << 20;
// Defined once, in the bench (TIMELINE_DEFINE); built with -rdc=true so every object
// shares them. TIMELINE_TYPES_ONLY: the record type alone (a bench that reads the records
// through host functions of the instrumented object, scripts/dev/timeline_backward.sh).
#if defined(TIMELINE_TYPES_ONLY)
#elif defined(TIMELINE_DEFINE)
__device__ TimelineRecord g_timeline[kTimelineCapacity];
__device__ unsigned g_timeline_count;
#else
extern __device__ TimelineRecord g_timeline[kTimelineCapacity];
extern __device__ unsigned g_timeline_count;
#endif

__device__ inline unsigned long long timeline_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#define timeline_begin()                                                   \
    const unsigned long long timeline_start_ = timeline_now();            \
    const long long timeline_clock_ = clock64()

#define timeline_end()                                                                         \
    do {                                                                                       \
        __syncthreads();                                                                       \
        if (threadIdx.x == 0 && threadIdx.y == 0) {                                            \
            const unsigned long long end_ = timeline_now();                                    \
            const long long cycles_ = clock64() - timeline_clock_;                             \
            unsigned sm_;                                                                      \
            asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_));                                  \
            const unsigned slot_ = atomicAdd(&g_timeline_count, 1u);                           \
            if (slot_ < kTimelineCapacity)                                                     \
                g_timeline[slot_] = TimelineRecord{timeline_start_, end_, cycles_, sm_, 0u};   \
        }                                                                                      \
    } while (0)
