// cuda_hip_compat.h: what NVRTC needs to compile the HIP kernels of hip_kernels/.
//
// The cuda backend pre-includes it (--pre-include) before every kernel source. Most of
// what the kernels use is spelled the same in HIP and CUDA (threadIdx.x, __syncthreads,
// __shared__, atomicAdd/atomicCAS on int and unsigned long long, __launch_bounds__),
// and bfs_common.h hides the warp width. What is left is small: the platform macros
// HIP's headers set on NVIDIA, and HIP's warp intrinsics, which CUDA has only as
// *_sync variants. They are defined here the way HIP itself defines them on NVIDIA:
// the whole 32-lane warp takes part, and __ballot returns 64 bits as on AMD.
// Kernels of this project call bfs_common.h's warp_ballot/warp_shfl instead.
#pragma once

#if !defined(__CUDACC_RTC__) && !defined(__CUDACC__)
#error "cuda_hip_compat.h is for NVRTC (the cuda backend); hiprtc needs nothing extra"
#endif

// Set by HIP's headers when HIP runs on NVIDIA; __HIP_PLATFORM_AMD__ is never set here.
#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
// hipcc sets this while compiling device code; NVRTC compiles nothing else.
#ifndef __HIP_DEVICE_COMPILE__
#define __HIP_DEVICE_COMPILE__ 1
#endif

#define HIP_COMPAT_FULL_WARP 0xffffffffu

// NVRTC still knows the pre-Volta __ballot/__any/__all (which ptxas then refuses for
// sm_70 and later), so these three are macros that take the names over.
__device__ inline unsigned long long hip_compat_ballot(int predicate)
{
    return __ballot_sync(HIP_COMPAT_FULL_WARP, predicate);
}
__device__ inline int hip_compat_any(int predicate) { return __any_sync(HIP_COMPAT_FULL_WARP, predicate); }
__device__ inline int hip_compat_all(int predicate) { return __all_sync(HIP_COMPAT_FULL_WARP, predicate); }
#define __ballot(predicate) hip_compat_ballot(predicate)
#define __any(predicate) hip_compat_any(predicate)
#define __all(predicate) hip_compat_all(predicate)

template <typename T>
__device__ inline T __shfl(T var, int src_lane, int width = 32)
{
    return __shfl_sync(HIP_COMPAT_FULL_WARP, var, src_lane, width);
}
template <typename T>
__device__ inline T __shfl_up(T var, unsigned int delta, int width = 32)
{
    return __shfl_up_sync(HIP_COMPAT_FULL_WARP, var, delta, width);
}
template <typename T>
__device__ inline T __shfl_down(T var, unsigned int delta, int width = 32)
{
    return __shfl_down_sync(HIP_COMPAT_FULL_WARP, var, delta, width);
}
template <typename T>
__device__ inline T __shfl_xor(T var, int lane_mask, int width = 32)
{
    return __shfl_xor_sync(HIP_COMPAT_FULL_WARP, var, lane_mask, width);
}

// The lane of the calling thread in its warp.
__device__ inline unsigned int __lane_id()
{
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
