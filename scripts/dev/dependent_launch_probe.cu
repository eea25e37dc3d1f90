// Which code of this build the device runs, and whether dependent_launch.h chains launches
// on it: prints the device's compute capability, the PTX and binary versions of
// dependent_launch_probe (cudaFuncGetAttributes) and device_launches_dependents_early().
// Built as the library builds (sm_90a code and compute_90 PTX) it must say "chains: yes" on
// an sm_90 device; built for sm_80 alone, which such a device runs from compute_80 PTX
// where the waits compile to nothing, "chains: no". Build here, run on the GPU:
//   for a in "arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90" \
//            "arch=compute_80,code=[sm_80,compute_80]"; do
//     nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode $a -Ihip/include \
//       -Ihip/common scripts/dev/dependent_launch_probe.cu -o probe_$(echo $a | cut -c14-15) \
//       -L$(dirname $(which nvcc))/../lib -cudart static; done
#include <cstdio>

#include "dependent_launch.h"

int main() {
    int major = 0, minor = 0;
    cudaFuncAttributes attributes{};
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess ||
        cudaFuncGetAttributes(&attributes, hipconv::dependent_launch_probe<>) != cudaSuccess) {
        printf("no device, or the probe does not load\n");
        return 1;
    }
    printf("device %d.%d, probe ptxVersion %d binaryVersion %d, chains: %s\n", major, minor, attributes.ptxVersion,
           attributes.binaryVersion, hipconv::device_launches_dependents_early() ? "yes" : "no");
    return 0;
}
