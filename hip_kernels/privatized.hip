// Step 3: the privatized frontier queue (PMPP 15.6; Liu et al. 2014).
//
// Step 2's frontier queue with one change: a vertex a block discovers goes first into a
// queue in the block's shared memory, and only at the end of the block does the block
// reserve room for all of them in the global queue, with one atomicAdd, and copy them
// out with coalesced writes. The global counter then sees one atomic per block instead
// of one per discovered vertex. A block that discovers more than its local queue holds
// sends the rest straight to the global queue, as step 2 would.
#include "bfs_common.h"

// Threads per block and entries of the block-local queue, fixed at compile time: the
// local queue is a static __shared__ array, whose size the compiler must know.
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads per block>"
#endif
#ifndef LOCAL_CAPACITY
#error "compile with -DLOCAL_CAPACITY=<entries of the block-local queue>"
#endif
#if LOCAL_CAPACITY < 1
#error "LOCAL_CAPACITY must be at least 1"
#endif

// Built with -DBFS_COUNT_ATOMICS (example 03 does), the kernel also counts its global
// atomics on the queue's counter, in the two bfs_u32 the host then allocates right
// after *next_size and zeroes once per search: vertices that overflowed their block's
// local queue, and block reservations. Without it, COUNT_GLOBAL_ATOMIC is nothing.
#define OVERFLOWED 1
#define RESERVED 2
#ifdef BFS_COUNT_ATOMICS
#define COUNT_GLOBAL_ATOMIC(which) atomicAdd(&next_size[(which)], 1u)
#else
#define COUNT_GLOBAL_ATOMIC(which) \
    do {                           \
    } while (0)
#endif

// [privatized-kernel-begin]
extern "C" __global__ void privatized_expand(const edge_t* offsets, const vertex_t* edges,
                                             level_t* levels, vertex_t* parents,
                                             const vertex_t* frontier, bfs_u32 frontier_size,
                                             vertex_t* next_frontier, bfs_u32* next_size,
                                             level_t next_level)
{
    // [privatized-shared-begin]
    // One copy per block, in shared memory: LOCAL_CAPACITY * 4 bytes plus two counters.
    __shared__ vertex_t local_queue[LOCAL_CAPACITY];
    __shared__ bfs_u32 local_count;
    __shared__ bfs_u32 block_base;
    if (threadIdx.x == 0) local_count = 0;
    __syncthreads();  // nobody enqueues before the counter is zero
    // [privatized-shared-end]

    // [privatized-local-enqueue-begin]
    // Grid-stride loop: a grid capped below the frontier's size still covers all of it.
    // Threads leave it after different numbers of trips, so no barrier may sit inside.
    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;
    for (bfs_u32 i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < frontier_size; i += stride) {
        const vertex_t v = frontier[i];
        for (edge_t e = offsets[v]; e < offsets[v + 1]; e++) {
            const vertex_t u = edges[e];
            // Claiming u is step 2's: a plain read skips the vertices already reached,
            // and atomicCAS lets exactly one thread of the grid win the others.
            if (levels[u] != -1) continue;
            if (atomicCAS(&levels[u], -1, next_level) == -1) {
                parents[u] = v;
                // The local counter keeps counting past the capacity, so the slot alone
                // says which queue u goes to; the copy-out takes min(count, capacity).
                const bfs_u32 slot = atomicAdd(&local_count, 1u);
                if (slot < LOCAL_CAPACITY) {
                    local_queue[slot] = u;
                } else {
                    next_frontier[atomicAdd(next_size, 1u)] = u;  // overflow: step 2's path
                    COUNT_GLOBAL_ATOMIC(OVERFLOWED);
                }
            }
        }
    }
    // [privatized-local-enqueue-end]

    // [privatized-copy-out-begin]
    __syncthreads();  // every thread has enqueued: local_count and local_queue are final
    const bfs_u32 count = local_count < LOCAL_CAPACITY ? local_count : LOCAL_CAPACITY;
    // One global atomic per block reserves [block_base, block_base + count). Overflowing
    // vertices of this and other blocks take single slots from the same counter at any
    // moment: every atomicAdd returns a range no other one overlaps, in any order, so the
    // ranges tile [0, *next_size) without gaps once the kernel has finished.
    if (threadIdx.x == 0 && count > 0) {
        block_base = atomicAdd(next_size, count);
        COUNT_GLOBAL_ATOMIC(RESERVED);
    }
    __syncthreads();  // block_base is visible to every thread of the block
    // Block-strided copy: consecutive threads write consecutive entries (coalesced).
    for (bfs_u32 j = threadIdx.x; j < count; j += BLOCK_SIZE) {
        next_frontier[block_base + j] = local_queue[j];
    }
    // [privatized-copy-out-end]
}
// [privatized-kernel-end]
