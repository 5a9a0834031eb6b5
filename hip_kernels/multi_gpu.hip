// Step 8: BFS over several GPUs, each holding a partition of the edges.
//
// Every GPU keeps the state of every vertex (its level and the parent it found) and
// the edges it owns, as a CSR graph over all vertex ids (rodinia_bfs/partition.py).
// A level takes three kernels per GPU and one collective between them:
//
//   multi_gpu_expand  top-down over the GPU's frontier queues, with step 4's gathers
//                     (frontier.h): a thread, a warp or a block per vertex by degree;
//   multi_gpu_mark    the vertices this GPU discovered, as bits of its block of the
//                     exchange bitmap;
//   -- all-gather of the bitmaps (NCCL / RCCL): every GPU gets every GPU's bits --
//   multi_gpu_merge   the vertices the others discovered: set their level here, and
//                     queue those this GPU has edges of for the next level.
//
// The queue lengths live in device memory, so the host never needs them to size a
// launch: each kernel runs on a fixed grid and strides over what is there. The host
// reads them once per level, after the merge, only to see whether any GPU found
// anything (and to stop a broken kernel).
#include "frontier.h"

// The queue counters: two sets, for this level and the next, swapped every level.
__device__ inline bfs_u32* counter_set(bfs_u32* counts, level_t level)
{
    return counts + (level % 2) * QUEUES * COUNTER_STRIDE;
}

// [multi-gpu-expand-begin]
// Top-down over this GPU's frontier, the three queues one after the other with the
// whole grid. Discoveries go to the next queues, by the degree they have here.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_expand(const edge_t* offsets, const vertex_t* edges, level_t* levels,
                 vertex_t* parents, const vertex_t* small, const vertex_t* medium,
                 const Piece* large, vertex_t* next_small, vertex_t* next_medium,
                 Piece* next_large, bfs_u32* counts, level_t next_level,
                 bfs_u64* path_counts)
{
    __shared__ LocalQueues local;
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    __syncthreads();

    const bfs_u32* now = counter_set(counts, next_level - 1);  // filled last level
    const Level L = {offsets, edges, levels, parents, next_level, next_small, next_medium,
                     next_large, counter_set(counts, next_level), &local, path_counts};
    expand_large(L, large, now[LARGE * COUNTER_STRIDE], blockIdx.x, gridDim.x);
    expand_medium(L, medium, now[MEDIUM * COUNTER_STRIDE],
                  blockIdx.x * WARPS_PER_BLOCK + warp_id(), gridDim.x * WARPS_PER_BLOCK);
    expand_small(L, small, now[SMALL * COUNTER_STRIDE],
                 blockIdx.x * BLOCK_SIZE + threadIdx.x, gridDim.x * BLOCK_SIZE);
    copy_out(L);
}
// [multi-gpu-expand-end]

// [multi-gpu-mark-begin]
__device__ inline void set_bit(bfs_u32* bits, vertex_t v)
{
    atomicOr(&bits[v / 32], 1u << (v % 32));
}

// What this GPU discovered at this level (its next queues, as the expand left them):
// one bit per vertex in `bits`, its own block of the exchange buffer, which the last
// merge left zeroed. A large vertex is in its queue once per piece: piece 0 marks it.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_mark(const vertex_t* next_small, const vertex_t* next_medium,
               const Piece* next_large, bfs_u32* counts, level_t next_level, bfs_u32* bits)
{
    const bfs_u32* found = counter_set(counts, next_level);
    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;
    const bfs_u32 first = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    for (bfs_u32 i = first; i < found[SMALL * COUNTER_STRIDE]; i += stride)
        set_bit(bits, next_small[i]);
    for (bfs_u32 i = first; i < found[MEDIUM * COUNTER_STRIDE]; i += stride)
        set_bit(bits, next_medium[i]);
    for (bfs_u32 i = first; i < found[LARGE * COUNTER_STRIDE]; i += stride)
        if (next_large[i].index == 0) set_bit(bits, next_large[i].vertex);
}
// [multi-gpu-mark-end]

// [multi-gpu-merge-begin]
// After the all-gather, `bits` holds every GPU's block of `words` words, GPU `rank`'s
// own among them. A vertex another GPU discovered takes its level here too (its
// parent is known only there: the host combines the parents at the end), and joins
// this GPU's next frontier if this GPU has edges out of it. What this GPU discovered
// itself is in its queues already, and its level set. Its block is zeroed for the
// next level's mark.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_merge(const edge_t* offsets, level_t* levels, bfs_u32* bits, bfs_u32 words,
                bfs_u32 parts, bfs_u32 rank, vertex_t* next_small, vertex_t* next_medium,
                Piece* next_large, bfs_u32* counts, level_t next_level, bfs_u64* path_counts)
{
    __shared__ LocalQueues local;
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    __syncthreads();

    const Level L = {offsets, 0, levels, 0, next_level, next_small, next_medium, next_large,
                     counter_set(counts, next_level), &local, path_counts};
    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;
    for (bfs_u32 w = blockIdx.x * BLOCK_SIZE + threadIdx.x; w < words; w += stride) {
        bfs_u32 others = 0;
        for (bfs_u32 q = 0; q < parts; q++)
            if (q != rank) others |= bits[(bfs_u64)q * words + w];
        bits[(bfs_u64)rank * words + w] = 0;
        while (others != 0) {
            const vertex_t v = (vertex_t)(w * 32 + (__ffs(others) - 1));
            others &= others - 1;  // the lowest set bit, done
            if (atomicCAS(&levels[v], -1, next_level) == -1) {
                const edge_t degree = offsets[v + 1] - offsets[v];
                if (degree > 0) enqueue(L, v, degree);
            }
        }
    }
    copy_out(L);
}
// [multi-gpu-merge-end]
