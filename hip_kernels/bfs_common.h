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

// Step 5's rows with halves: the top bit of a row's last entry before its upper half says
// that the upper half has entries (a vertex id is below 2^31 - 1, so a marked id is never
// -1, the padding).
#define ROW_MORE_BIT 0x80000000u

// [common-warp-begin]
// The warp (wavefront) width is a compile-time constant: 64 on AMD Instinct (CDNA),
// 32 on RDNA and NVIDIA. Never hard-code 32.
#if defined(BFS_EMULATOR)
#define WARP_SIZE BFS_EMULATOR_WARP_SIZE
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WARP_SIZE 32
#else
// A guess here would silently break every warp-wide operation on a 64-wide target.
#error "unknown warp width: compile with hiprtc (AMD), NVRTC (NVIDIA) or the cpu emulator"
#endif
#if WARP_SIZE != 32 && WARP_SIZE != 64
#error "WARP_SIZE must be 32 or 64"
#endif
// The runtime passes the width the device reports; a kernel built for another width
// would read half a warp's ballot or wait for lanes that do not exist.
#if defined(BFS_DEVICE_WARP_SIZE) && BFS_DEVICE_WARP_SIZE != WARP_SIZE
#error "this kernel is compiled for a warp width that differs from the device's (BFS_DEVICE_WARP_SIZE)"
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

// [common-prefetch-begin]
// A hint that this block will soon read the bytes at p: on NVIDIA, a prefetch into the
// SM's L1 cache, which the later load then finds there; elsewhere nothing (HIP has no
// portable form of it, and the emulator has no cache).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ inline void prefetch_l1(const void* p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }
#else
__device__ inline void prefetch_l1(const void* p) { (void)p; }
#endif
// [common-prefetch-end]

// Dynamic shared memory (the launch's third parameter), declared inside a kernel as
// DYNAMIC_SHARED(vertex_t, queue); the emulator has no extern __shared__ arrays.
#if defined(BFS_EMULATOR)
#define DYNAMIC_SHARED(type, name) type* const name = (type*)bfs_emu_dynamic_shared()
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#else
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

// [common-clock-begin]
// A clock that every block of the grid reads alike, for per-level timing inside one
// kernel. It counts ticks; Device.clock_rate_hz says how many make a second.
#if defined(BFS_EMULATOR)
__device__ inline bfs_u64 device_clock() { return (bfs_u64)bfs_emu_clock_ns(); }
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ inline bfs_u64 device_clock()
{
    bfs_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));  // nanoseconds
    return t;
}
#else
__device__ inline bfs_u64 device_clock() { return (bfs_u64)wall_clock64(); }  // wallClockRate
#endif
// [common-clock-end]

// A span of the clock kept in 32 bits (the Control record's measures), the largest
// 32-bit value where it does not fit.
__device__ inline bfs_u32 clock_u32(bfs_u64 span)
{
    return span < 0xffffffffull ? (bfs_u32)span : 0xffffffffu;
}

// After a barrier, values other blocks wrote: read them past the cache.
__device__ inline bfs_u32 load_fresh(const bfs_u32* p) { return *(const volatile bfs_u32*)p; }
__device__ inline bfs_u64 load_fresh(const bfs_u64* p) { return *(const volatile bfs_u64*)p; }

// [common-grid-barrier-begin]
// A grid-wide barrier for kernels launched cooperatively (Device.launch_cooperative):
// every block is resident at once, so a block may wait for all the others. ROCm's
// hiprtc cannot include hip/hip_cooperative_groups.h, so this is our own, a few atomics
// and fences. The host zeroes the 16 bytes before each launch; one GridBarrier serves
// any number of crossings.
struct GridBarrier {
    bfs_u32 arrived;  // bit 31 flips each time the last block arrives
    bfs_u32 failed;   // set when a wait ran out; the host reports it
    bfs_u32 reserved[2];
};

// How many times a waiting block polls before it gives up (a bug elsewhere, never a
// legitimate wait: tens of seconds on a GPU).
#ifndef GRID_BARRIER_MAX_SPINS
#define GRID_BARRIER_MAX_SPINS (1u << 28)
#endif

#if defined(BFS_EMULATOR)
// The emulator runs each block of a cooperative launch on a thread of its own and
// waits with a condition variable; a block that exits while others wait is reported
// as a deadlock, and the launch fails with that message instead of hanging.
__device__ inline int grid_sync(GridBarrier* barrier)
{
    (void)barrier;
    return bfs_emu_grid_sync();
}

template <typename AfterWait>
__device__ inline int grid_sync(GridBarrier* barrier, AfterWait after_wait)
{
    if (!grid_sync(barrier)) return 0;
    if (threadIdx.x == 0) after_wait();
    __syncthreads();
    return 1;
}
#else
__device__ inline bfs_u32 grid_barrier_load(bfs_u32* word)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return *(volatile bfs_u32*)word;  // ld.volatile: not served from a stale L1 line
#else
    return __atomic_load_n(word, __ATOMIC_RELAXED);
#endif
}

// [common-grid-barrier-ordering-begin]
// The two halves of a crossing, with the memory ordering that makes it a barrier. A
// block arrives with a *release* add: everything its threads wrote before (they met at
// __syncthreads first) is visible to whoever sees the add. It waits with *acquire*
// loads: once one of them sees the last block's add, everything written before every
// block's add is visible to this block (its threads meet at __syncthreads after). A
// fence on each side would do the same (__threadfence before a plain atomicAdd, and
// after the wait); the one after the wait is a trip to memory of its own, at every
// crossing, where an acquire load is the poll itself (benchmarks/grid_barrier.hip keeps
// that fenced barrier, and benchmarks/barrier_cost.py times both).
__device__ inline bfs_u32 grid_barrier_arrive(bfs_u32* word, bfs_u32 add)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    bfs_u32 before;
    asm volatile("atom.release.gpu.add.u32 %0, [%1], %2;" : "=r"(before) : "l"(word), "r"(add) : "memory");
    return before;
#else
    return __hip_atomic_fetch_add(word, add, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
#endif
}

__device__ inline bfs_u32 grid_barrier_acquire(bfs_u32* word)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    bfs_u32 value;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(value) : "l"(word) : "memory");
    return value;
#else
    return __hip_atomic_load(word, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
#endif
}
// [common-grid-barrier-ordering-end]

// The same two halves on a 64-bit word: step 6's counting crossing (counting_crossing.h)
// carries counts beside the arrivals.
__device__ inline bfs_u64 grid_barrier_arrive(bfs_u64* word, bfs_u64 add)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    bfs_u64 before;
    asm volatile("atom.release.gpu.add.u64 %0, [%1], %2;" : "=l"(before) : "l"(word), "l"(add) : "memory");
    return before;
#else
    return __hip_atomic_fetch_add(word, add, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
#endif
}

__device__ inline bfs_u64 grid_barrier_acquire(bfs_u64* word)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    bfs_u64 value;
    asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
    return value;
#else
    return __hip_atomic_load(word, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
#endif
}

// Every thread of every block calls it, as it would __syncthreads. What any thread wrote
// to global memory before it is visible to every thread after it. Returns 1, or 0 if
// the wait ran out (then barrier->failed is set): the kernel must return at once.
// after_wait runs in thread 0 of each block once the last block has arrived, before the
// block's threads go on: what it reads of other blocks' writes into shared memory, the
// block's last __syncthreads hands to all its threads (push_pull_parts.h's read_phase).
template <typename AfterWait>
__device__ inline int grid_sync(GridBarrier* barrier, AfterWait after_wait)
{
    __shared__ int passed;
    __syncthreads();  // the whole block has arrived
    if (threadIdx.x == 0) {
        // The blocks add up to exactly 2^31 per crossing: block 0 adds 2^31 - (blocks - 1),
        // every other block 1. So bit 31 flips when, and only when, the last one arrives,
        // and nobody has to reset the counter for the next crossing.
        const bfs_u32 blocks = gridDim.x * gridDim.y * gridDim.z;
        const bool first = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
        const bfs_u32 add = first ? 0x80000000u - (blocks - 1u) : 1u;
        const bfs_u32 before = grid_barrier_arrive(&barrier->arrived, add);
        int ok = 1;
        bfs_u32 spins = 0;
        while (((before ^ grid_barrier_acquire(&barrier->arrived)) & 0x80000000u) == 0) {
            if ((++spins & 1023u) == 0 &&
                (grid_barrier_load(&barrier->failed) || spins >= GRID_BARRIER_MAX_SPINS)) {
                atomicExch(&barrier->failed, 1u);
                ok = 0;
                break;
            }
        }
        if (ok) after_wait();
        passed = ok;
    }
    __syncthreads();
    return passed;
}

__device__ inline int grid_sync(GridBarrier* barrier)
{
    return grid_sync(barrier, [] {});
}
#endif

// [common-grid-barrier-end]
