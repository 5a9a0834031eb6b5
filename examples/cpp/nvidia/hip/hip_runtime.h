// hip/hip_runtime.h for NVIDIA without HIP installed: the HIP runtime calls that
// rodinia_bfs_step1.hip makes, spelled as the CUDA runtime calls they are. HIP's own
// headers do the same on NVIDIA (with many more calls); where HIP is installed, `hipcc`
// on an NVIDIA machine uses those instead. Kernel code needs nothing from here: the
// nvcc build pre-includes rodinia_bfs/runtime/include/cuda_hip_compat.h, as the NVRTC
// path does.
#pragma once

#include <cuda_runtime.h>

typedef cudaError_t hipError_t;
typedef cudaDeviceProp hipDeviceProp_t;
#define hipSuccess cudaSuccess
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipHostMallocDefault cudaHostAllocDefault

#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipMemcpy cudaMemcpy
#define hipMemset cudaMemset

// The launch HIP offers besides <<<...>>>; on NVIDIA it is the triple-chevron launch.
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
    kernel<<<(grid), (block), (shared), (stream)>>>(__VA_ARGS__)
