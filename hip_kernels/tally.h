// tally.h: what a level of step 6 found, the next frontier's n_f and m_f, which Beamer's
// rule needs to choose the next direction. Each thread counts what it claims into a
// Tally of its own, top-down (top_down.h) or bottom-up (bottom_up.h), and add_tally sums
// the threads' tallies over the grid. Step 8's merge counts with them too.
#pragma once
#include "bfs_common.h"

// [push-pull-tally-begin]
// What a thread claimed: the vertices and their out-edges.
struct Tally {
    bfs_u64 vertices;
    bfs_u64 edges;
};

// Add every thread's tally to the global one: a sum across the warp by shuffles, one
// shared-memory atomic per warp, one global atomic per block. A warp none of whose
// threads found anything, most of the grid's in a narrow level, skips the sum after one
// vote: its shuffles would take the multiprocessor's shuffle unit from the warps that
// did find something (chapter 6, "What every warp does at every level").
//
// In two halves, with a __syncthreads between them: every thread adds its warp's sum to
// the block's (sum_in_block), then thread 0 adds the block's to the global tally and
// zeroes the block's (send_block_tally). add_tally does both; step 6's top-down level
// sends the block's tally from copy_out, between the two __syncthreads it has anyway.
__device__ inline void sum_in_block(Tally found, bfs_u64* block_tally)
{
    if (warp_any(found.vertices > 0)) {  // the same for every lane of the warp
        for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
            found.vertices += (bfs_u64)warp_shfl((bfs_i64)found.vertices, (int)(lane_id() ^ offset));
            found.edges += (bfs_u64)warp_shfl((bfs_i64)found.edges, (int)(lane_id() ^ offset));
        }
        if (lane_id() == 0) {
            atomicAdd(&block_tally[0], found.vertices);
            atomicAdd(&block_tally[1], found.edges);
        }
    }
}

__device__ inline void send_block_tally(bfs_u64* block_tally, bfs_u64* tally)  // thread 0
{
    if (block_tally[0] > 0) {
        atomicAdd(&tally[0], block_tally[0]);
        atomicAdd(&tally[1], block_tally[1]);
    }
    block_tally[0] = 0;
    block_tally[1] = 0;
}

__device__ inline void add_tally(Tally found, bfs_u64* block_tally, bfs_u64* tally)
{
    sum_in_block(found, block_tally);
    __syncthreads();
    if (threadIdx.x == 0) send_block_tally(block_tally, tally);
}
// [push-pull-tally-end]
