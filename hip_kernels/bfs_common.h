// bfs_common.h: the one header every kernel of the tutorial includes.
//
// The kernels are HIP C++ and compile unchanged with three compilers:
//   * hiprtc (AMD GPUs): HIP's own built-ins are there already;
//   * NVRTC (NVIDIA GPUs): the cuda backend pre-includes cuda_hip_compat.h;
//   * the system C++ compiler (cpu emulator): the cpu backend pre-includes hip_emulator.h.
// No standard header is included: run-time compilers do not ship one. What differs
// between the platforms (integer types, warp width, warp votes and shuffles) is hidden here.
#pragma once

// [common-types-begin]
// Fixed-width integers without <stdint.h>.
typedef signed char bfs_i8;
typedef unsigned char bfs_u8;
typedef int bfs_i32;
typedef unsigned int bfs_u32;
typedef long long bfs_i64;
typedef unsigned long long bfs_u64;

// The CSR graph: 32-bit vertex ids, 64-bit edge offsets (graphs past 2^31 edges).
typedef bfs_i32 vertex_t;
typedef bfs_i64 edge_t;
// A BFS level ("cost" in Rodinia); -1 means not reached yet.
typedef bfs_i32 level_t;
// [common-types-end]

// [common-warp-begin]
// The warp (wavefront) width is a compile-time constant: 64 on AMD Instinct (CDNA),
// 32 on RDNA and NVIDIA. Never hard-code 32.
#if defined(BFS_EMULATOR)
#define WARP_SIZE BFS_EMULATOR_WARP_SIZE
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define WARP_SIZE 32
#endif

// A mask with one bit per lane: 64-bit where the warp is 64 wide.
#if WARP_SIZE == 64
typedef bfs_u64 lane_mask_t;
#else
typedef bfs_u32 lane_mask_t;
#endif

__device__ inline unsigned lane_id() { return threadIdx.x % WARP_SIZE; }
__device__ inline unsigned warp_id() { return threadIdx.x / WARP_SIZE; }

// Votes and shuffles over the whole warp. Every lane of the warp must call them.
#if defined(BFS_EMULATOR)
__device__ inline lane_mask_t warp_ballot(int predicate) { return (lane_mask_t)bfs_emu_ballot(predicate); }
__device__ inline bfs_i32 warp_shfl(bfs_i32 v, int src) { return (bfs_i32)bfs_emu_shfl((bfs_i64)v, src); }
__device__ inline bfs_i64 warp_shfl(bfs_i64 v, int src) { return bfs_emu_shfl(v, src); }
__device__ inline void warp_sync() { bfs_emu_syncwarp(); }
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ inline lane_mask_t warp_ballot(int predicate) { return __ballot_sync(0xffffffffu, predicate); }
__device__ inline bfs_i32 warp_shfl(bfs_i32 v, int src) { return __shfl_sync(0xffffffffu, v, src); }
__device__ inline bfs_i64 warp_shfl(bfs_i64 v, int src) { return __shfl_sync(0xffffffffu, v, src); }
__device__ inline void warp_sync() { __syncwarp(); }
#else
__device__ inline lane_mask_t warp_ballot(int predicate) { return (lane_mask_t)__ballot(predicate); }
__device__ inline bfs_i32 warp_shfl(bfs_i32 v, int src) { return __shfl(v, src); }
__device__ inline bfs_i64 warp_shfl(bfs_i64 v, int src) { return __shfl(v, src); }
__device__ inline void warp_sync() { __builtin_amdgcn_wave_barrier(); }
#endif

__device__ inline int warp_any(int predicate) { return warp_ballot(predicate) != 0; }
__device__ inline int warp_all(int predicate) { return warp_ballot(!predicate) == 0; }
// [common-warp-end]

// Dynamic shared memory (the launch's third parameter), declared inside a kernel as
// DYNAMIC_SHARED(vertex_t, queue); the emulator has no extern __shared__ arrays.
#if defined(BFS_EMULATOR)
#define DYNAMIC_SHARED(type, name) type* const name = (type*)bfs_emu_dynamic_shared()
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#else
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif
