// Step 2: the frontier queue.
//
// The frontier is a list of vertex ids, not a mask over every vertex: the host launches
// one thread per frontier vertex, and each thread appends the vertices it discovers to
// the next frontier. Two atomics make that safe: atomicCAS on the level array lets
// exactly one thread claim a vertex, and atomicAdd on a counter gives the winner its
// slot in the next frontier. The counter's final value is the next frontier's size; the
// host reads it back and sizes the next launch with it. No visited flag, no g_over:
// a vertex is visited when its level is set, and the search ends when the counter is 0.
#include "bfs_common.h"

// Threads per block, a compile-time constant as in step 1 (-DBLOCK_SIZE=...).
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads per block>"
#endif

// [queue-kernel-begin]
extern "C" __global__ void queue_expand(const edge_t* offsets, const vertex_t* edges,
                                        level_t* levels, vertex_t* parents,
                                        const vertex_t* frontier, bfs_u32 frontier_size,
                                        vertex_t* next_frontier, bfs_u32* next_size,
                                        level_t next_level)
{
    // Grid-stride loop: the host may launch fewer threads than the frontier has
    // vertices (its grid is capped), so each thread takes every stride-th vertex.
    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;
    for (bfs_u32 i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < frontier_size; i += stride) {
        const vertex_t v = frontier[i];
        for (edge_t e = offsets[v]; e < offsets[v + 1]; e++) {
            const vertex_t u = edges[e];
            // A plain read first: most neighbours are already reached, and a read is
            // far cheaper than an atomic. A level never goes back to -1 during a BFS,
            // so a value other than -1 is final; a stale -1 only means the atomicCAS
            // below decides.
            if (levels[u] != -1) continue;
            // Many threads may reach u in this level; exactly one sees -1 come back
            // from atomicCAS. It owns u: it records itself as u's parent and enqueues u.
            if (atomicCAS(&levels[u], -1, next_level) == -1) {
                parents[u] = v;
                next_frontier[atomicAdd(next_size, 1u)] = u;
            }
        }
    }
}
// [queue-kernel-end]
