// Step 4: load-balanced expansion (Merrill & Garland 2012; PMPP 15.7; Liu et al.).
//
// Steps 2 and 3 give each frontier vertex one thread, which walks the vertex's whole
// adjacency list. On a graph with hubs the threads of a warp then finish at very
// different times, and the warp (and its block) waits for its slowest lane; a frontier
// of a few hundred vertices with a million edges between them gets a handful of blocks.
// Here the frontier is kept in three queues, by the degree of each vertex, and each
// queue is expanded by the unit of work that fits it (frontier.h has the queues, the
// three gathers and the copy-out, which step 5 uses too). One launch expands a whole
// level: its grid has a section for each queue.
#include "frontier.h"

// [balanced-kernel-begin]
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
balanced_expand(const edge_t* offsets, const vertex_t* edges, level_t* levels,
                vertex_t* parents,
                const vertex_t* small, bfs_u32 small_count,
                const vertex_t* medium, bfs_u32 medium_count,
                const Piece* large, bfs_u32 large_count,
                bfs_u32 large_blocks, bfs_u32 medium_blocks,
                vertex_t* next_small, vertex_t* next_medium, Piece* next_large,
                bfs_u32* counts, level_t next_level, bfs_u64* path_counts)
{
    // [balanced-local-start-begin]
    __shared__ LocalQueues local;
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    __syncthreads();  // nobody enqueues before the counters are zero
    // [balanced-local-start-end]

    // [balanced-counters-begin]
    // Two sets of counters, used by alternate levels: this launch counts the next
    // level's queues into one and clears the other, which held this level's lengths
    // (the host has read them: they sized this launch) and will count the level after.
    // That saves a memset per level.
    bfs_u32* next_counts = counts + (next_level % 2) * QUEUES * COUNTER_STRIDE;
    bfs_u32* spare_counts = counts + (1 - next_level % 2) * QUEUES * COUNTER_STRIDE;
    if (blockIdx.x == 0 && threadIdx.x < QUEUES) spare_counts[threadIdx.x * COUNTER_STRIDE] = 0;
    // [balanced-counters-end]

    const Level L = {offsets, edges, levels, parents, next_level, next_small, next_medium,
                     next_large, next_counts, &local, path_counts};

    // [balanced-sections-begin]
    // The grid has three sections, [large | medium | small], sized by the host. The
    // blocks with the most edges come first, so they also start first.
    const bfs_u32 small_first_block = large_blocks + medium_blocks;
    if (blockIdx.x < large_blocks) {
        expand_large(L, large, large_count, blockIdx.x, large_blocks);
    } else if (blockIdx.x < small_first_block) {
        expand_medium(L, medium, medium_count,
                      (blockIdx.x - large_blocks) * WARPS_PER_BLOCK + warp_id(),
                      medium_blocks * WARPS_PER_BLOCK);
    } else {
        expand_small(L, small, small_count,
                     (blockIdx.x - small_first_block) * BLOCK_SIZE + threadIdx.x,
                     (gridDim.x - small_first_block) * BLOCK_SIZE);
    }
    // Every thread of the block gets here, whichever section it was in.
    copy_out(L);
    // [balanced-sections-end]
}
// [balanced-kernel-end]
