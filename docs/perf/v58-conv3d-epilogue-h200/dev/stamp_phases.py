# Adds clock64 phase stamps to a copy of hip/conv3d/implicit_gemm_sm90.hip (dev probe only).
import sys
f = sys.argv[1]
s = open(f).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('namespace hipconv {\nnamespace conv3d {\n', '__device__ unsigned long long g_phase[8];\n'
    'extern "C" void ig_phase_read(unsigned long long *out) { cudaMemcpyFromSymbol(out, g_phase, sizeof(g_phase)); }\n'
    'extern "C" void ig_phase_reset() { unsigned long long z[8] = {}; cudaMemcpyToSymbol(g_phase, z, sizeof z); }\n'
    'namespace hipconv {\nnamespace conv3d {\n')
rep('        const TileOrigin origin = tile_origin<BN>(tile, geo, p.groups);\n',
    '        const TileOrigin origin = tile_origin<BN>(tile, geo, p.groups);\n        long long ph0 = clock64(), ph1 = 0, ph2 = 0, ph3 = 0;\n')
rep('                b_parity ^= 1u << read_stage;\n            }\n',
    '                b_parity ^= 1u << read_stage;\n            }\n            if (kt == 0) ph1 = clock64();\n')
rep('        __syncthreads();  // every warpgroup\'s reads of the stages done\n',
    '        __syncthreads();  // every warpgroup\'s reads of the stages done\n        ph2 = clock64();\n')
i = s.index('begin_tile(tile + gridDim.x);\n            store_accumulators')
j = s.index('\n', i)
s = s[:j] + '\n            ph3 = clock64();' + s[j:]
i = s.index('geo.cout_g - origin.n0);\n            continue;')
j = s.index('\n', i)
s = s[:j] + '''
            {
                const long long ph4 = clock64();
                if (threadIdx.x == 0) {
                    atomicAdd(&g_phase[0], 1ull); atomicAdd(&g_phase[1], (unsigned long long)(ph1 - ph0));
                    atomicAdd(&g_phase[2], (unsigned long long)(ph2 - ph1)); atomicAdd(&g_phase[3], (unsigned long long)(ph3 - ph2));
                    atomicAdd(&g_phase[4], (unsigned long long)(ph4 - ph3));
                }
                if (threadIdx.x == 128) {
                    atomicAdd(&g_phase[5], (unsigned long long)(ph4 - ph2)); atomicAdd(&g_phase[6], (unsigned long long)(ph1 - ph0));
                }
            }''' + s[j:]
open(f, 'w').write(s)
