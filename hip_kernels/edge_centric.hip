// Step 4's sidebar: the edge-centric BFS (PMPP 15.4).
//
// Steps 1-4 give threads to vertices, and step 4 works hard to even out the adjacency
// lists that land on one thread. Here there are no lists: every thread takes arcs of
// the graph, one at a time, and the work is the same for every thread whatever the
// degrees. The price: every level looks at every arc of the graph, whether its source
// is in the frontier or not. The arcs are in coordinate form: arc e goes from
// arc_sources[e] to edges[e] (the CSR targets, with each arc's source spelled out).
#include "bfs_common.h"

// Threads per block, a compile-time constant as in steps 1-3 (-DBLOCK_SIZE=...).
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads per block>"
#endif

// [edge-centric-kernel-begin]
extern "C" __global__ void edge_centric_expand(const vertex_t* arc_sources,
                                               const vertex_t* edges, edge_t num_arcs,
                                               level_t* levels, vertex_t* parents,
                                               level_t level, bfs_u32* changed)
{
    // Grid-stride loop over all the arcs: the host caps the grid, so a thread may take
    // several arcs, each a stride apart (neighbouring threads read neighbouring arcs).
    const edge_t stride = (edge_t)gridDim.x * BLOCK_SIZE;
    for (edge_t e = (edge_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; e < num_arcs; e += stride) {
        const vertex_t u = arc_sources[e];
        // Only arcs out of this level's frontier expand. A vertex this launch discovers
        // gets level + 1, never level, so it cannot expand before the next launch.
        if (levels[u] != level) continue;
        const vertex_t v = edges[e];
        if (levels[v] != -1) continue;  // a plain read first, as in step 2
        // Several arcs may reach v in this level: the one that sees -1 come back owns v.
        if (atomicCAS(&levels[v], -1, level + 1) == -1) {
            parents[v] = u;
            *changed = 1;  // every writer writes 1: no atomic needed
        }
    }
}
// [edge-centric-kernel-end]
