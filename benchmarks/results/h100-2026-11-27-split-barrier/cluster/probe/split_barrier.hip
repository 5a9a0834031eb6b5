// Probe: where does a grid crossing's cost per block go? Three barriers side by side.
//   flat   bfs_common.h's grid_sync (one word: every block adds, every block polls it)
//   split  K arrival words (block b adds to word b % K, an add with no reply), every
//          block polls all K at once (lane k of warp 0 polls word k); monotonic counts
//   flag   one arrival word (acq_rel add with reply); the block whose add completes the
//          crossing stores the crossing's number to K flag words, block b polls flag b % K
#include "bfs_common.h"

#define LINE 16  // u64 slots of a 128-byte line
#define MAX_SPINS (1u << 26)

__device__ inline void add_release(bfs_u64* w, bfs_u64 v)
{
#if defined(BFS_EMULATOR)
    __atomic_fetch_add(w, v, __ATOMIC_RELEASE);
#else
    asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
#endif
}
__device__ inline bfs_u64 add_acq_rel(bfs_u64* w, bfs_u64 v)
{
#if defined(BFS_EMULATOR)
    return __atomic_fetch_add(w, v, __ATOMIC_ACQ_REL);
#else
    bfs_u64 before;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;" : "=l"(before) : "l"(w), "l"(v) : "memory");
    return before;
#endif
}
__device__ inline void store_release(bfs_u64* w, bfs_u64 v)
{
#if defined(BFS_EMULATOR)
    __atomic_store_n(w, v, __ATOMIC_RELEASE);
#else
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
#endif
}
__device__ inline bfs_u64 load_acquire(bfs_u64* w)
{
#if defined(BFS_EMULATOR)
    return __atomic_load_n(w, __ATOMIC_ACQUIRE);
#else
    bfs_u64 v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    return v;
#endif
}

// Crossing number c (1, 2, ...): every block's add before it is seen after it.
__device__ inline int split_sync(bfs_u64* words, bfs_u32 K, bfs_u64 c, bfs_u32* failed)
{
    __shared__ int passed;
    __syncthreads();
    if (threadIdx.x < 32) {
        const bfs_u32 lane = threadIdx.x;
        if (lane == 0) add_release(&words[(blockIdx.x % K) * LINE], 1);
        const bfs_u32 n = gridDim.x / K + (lane < gridDim.x % K ? 1u : 0u);
        const bfs_u64 target = c * n;
        int ok = 1;
        for (bfs_u32 spins = 0;; spins++) {
            const bool here = lane >= K || load_acquire(&words[lane * LINE]) >= target;
            if (warp_ballot(here) == 0xffffffffu) break;
            if (spins >= MAX_SPINS) { ok = 0; if (lane == 0) atomicExch(failed, 1u); break; }
        }
        if (lane == 0) passed = ok;
    }
    __syncthreads();
    return passed;
}

__device__ inline int flag_sync(bfs_u64* words, bfs_u32 K, bfs_u64 c, bfs_u32* failed)
{
    __shared__ int passed;
    __syncthreads();
    if (threadIdx.x == 0) {
        int ok = 1;
        const bfs_u64 before = add_acq_rel(&words[0], 1);
        if (before == c * gridDim.x - 1) {
            for (bfs_u32 k = 0; k < K; k++) store_release(&words[(k + 1) * LINE], c);
        } else {
            bfs_u64* flag = &words[(blockIdx.x % K + 1) * LINE];
            for (bfs_u32 spins = 0; load_acquire(flag) < c; spins++)
                if (spins >= MAX_SPINS) { ok = 0; atomicExch(failed, 1u); break; }
        }
        passed = ok;
    }
    __syncthreads();
    return passed;
}

#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HARDWARE_CLUSTER 1
__device__ inline bfs_u32 cluster_rank()
{
    bfs_u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ inline void cluster_barrier()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// cluster: the blocks of a cluster meet at the cluster's barrier (hardware), its first
// block alone arrives at the grid's word (gridDim.x / C arrivals) and polls it, and the
// cluster's barrier again lets the others go on.
template <int C>
__device__ inline int cluster_grid_sync(bfs_u64* words, bfs_u64 c, bfs_u32* failed)
{
    cluster_barrier();
    if (cluster_rank() == 0 && threadIdx.x == 0) {
        add_release(&words[0], 1);
        const bfs_u64 target = c * (gridDim.x / C);
        for (bfs_u32 spins = 0; load_acquire(&words[0]) < target; spins++)
            if (spins >= MAX_SPINS) { atomicExch(failed, 1u); break; }
    }
    cluster_barrier();
    return 1;
}
#else
#define HARDWARE_CLUSTER 0
#endif

template <int KIND, int C = 1>
__device__ inline int cross(GridBarrier* barrier, bfs_u64* words, bfs_u32 K, bfs_u64 c)
{
    if (KIND == 0) return grid_sync(barrier);
    if (KIND == 1) return split_sync(words, K, c, &barrier->failed);
#if HARDWARE_CLUSTER
    if (KIND == 3) return cluster_grid_sync<C>(words, c, &barrier->failed);
#endif
    return flag_sync(words, K, c, &barrier->failed);
}

// `rounds` crossings; with `stores`, every thread writes a word before each crossing and
// reads one that a thread of another block wrote (a wrong one counts an error).
template <int KIND, int C = 1>
__device__ inline void crossings(GridBarrier* barrier, bfs_u64* words, bfs_u32 K, bfs_u32 rounds,
                                 bfs_u32* store_words, bfs_u32* errors, bfs_u32 stores)
{
    const bfs_u32 threads = gridDim.x * blockDim.x;
    const bfs_u32 me = blockIdx.x * blockDim.x + threadIdx.x;
    const bfs_u32 other = (blockIdx.x + (gridDim.x + 1) / 2) % gridDim.x * blockDim.x +
                          (threadIdx.x + 1) % blockDim.x;
    bfs_u32 wrong = 0;
    for (bfs_u32 round = 1; round <= rounds; round++) {
        bfs_u32* const buffer = store_words + (round & 1u) * threads;
        if (stores) buffer[me] = round * 2654435761u + me;
        if (!cross<KIND, C>(barrier, words, K, round)) return;
        if (stores && buffer[other] != round * 2654435761u + other) wrong++;
    }
    if (wrong) atomicAdd(errors, wrong);
}

extern "C" __global__ void cross_flat(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<0>(b, w, K, r, s, e, st); }
extern "C" __global__ void cross_split(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<1>(b, w, K, r, s, e, st); }
extern "C" __global__ void cross_flag(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<2>(b, w, K, r, s, e, st); }
#if HARDWARE_CLUSTER
extern "C" __global__ void __cluster_dims__(2, 1, 1) cross_cluster2(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<3, 2>(b, w, K, r, s, e, st); }
extern "C" __global__ void __cluster_dims__(4, 1, 1) cross_cluster4(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<3, 4>(b, w, K, r, s, e, st); }
#else  // no clusters (the emulator, before sm_90): grid_sync under the same names
extern "C" __global__ void cross_cluster2(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<0>(b, w, K, r, s, e, st); }
extern "C" __global__ void cross_cluster4(GridBarrier* b, bfs_u64* w, bfs_u32 K, bfs_u32 r, bfs_u32* s, bfs_u32* e, bfs_u32 st) { crossings<0>(b, w, K, r, s, e, st); }
#endif
