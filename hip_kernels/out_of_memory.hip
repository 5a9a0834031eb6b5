// Step 9: a graph whose edges stay in host memory.
//
// The vertex arrays (offsets, levels, parents, the frontier queues) are on the device;
// the edge array is not. The host drives the levels, each in one of three ways:
//
// subgraph:  the device writes the degree of each frontier vertex, an exclusive scan
//            turns them into the offsets of the level's subgraph, the host gathers the
//            frontier's out-lists into a small array, copies it over, and one thread
//            per subgraph edge expands it.
// zero_copy: a warp per frontier vertex reads its out-list from pinned host memory
//            through a mapped pointer, its lanes in consecutive addresses, so that each
//            request over the bus carries whole sectors.
// managed:   the same kernel over unified memory, which the driver migrates on demand.
//
// In the last two, a level may also pull (step 6's bottom-up direction): a warp per
// vertex not reached yet reads its in-list, a warp's width at a time, and stops at the
// first in-neighbour on the frontier.
//
// The threads of a launch stride over their work, so a launch of any shape covers it.
#include "bfs_common.h"
#include "out_of_memory_args.h"

// [oom-visit-begin]
__device__ inline edge_t out_degree(const OutOfMemoryArgs& a, vertex_t v)
{
    return a.offsets[v + 1] - a.offsets[v];
}

// The edge v -> u of a level: claim u if no one has (step 2's atomicCAS) and put it in
// the next queue, counting it and its out-edges (the next level's n_f and m_f).
__device__ inline void visit(const OutOfMemoryArgs& a, level_t level, vertex_t v, vertex_t u)
{
    if (a.levels[u] != -1) return;  // a plain read first: most are reached
    if (atomicCAS(&a.levels[u], -1, level + 1) == -1) {
        a.parents[u] = v;
        atomicAdd(&a.counts->edges, (bfs_u64)out_degree(a, u));
        const bfs_u64 slot = atomicAdd(&a.counts->vertices, (bfs_u64)1);
        a.queues[(level + 1) % 2][slot] = u;
    }
}
// [oom-visit-end]

// [oom-degrees-begin]
// subgraph, first: the degree of each frontier vertex, which an exclusive scan
// (graph_prep.hip's scan_tiles...) turns into where its list begins in the subgraph.
extern "C" __global__ void oom_frontier_degrees(const OutOfMemoryArgs a, level_t level,
                                                bfs_u32 frontier_size)
{
    const vertex_t* frontier = a.queues[level % 2];
    const bfs_u32 stride = gridDim.x * blockDim.x;
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < frontier_size; i += stride)
        a.sub_offsets[i] = (bfs_u64)out_degree(a, frontier[i]);
}
// [oom-degrees-end]

// [oom-expand-subgraph-begin]
// subgraph, last: the edges [first, first + count) of the level's subgraph are in
// sub_edges, copied over by the host (one of two buffers: the host fills the other
// meanwhile). One thread per edge finds the frontier vertex the
// edge leaves, the last one whose list begins at or before it (a binary search in the
// scanned offsets; a vertex of degree 0 begins where the next one does, so it is
// passed over), and visits the edge.
extern "C" __global__ void oom_expand_subgraph(const OutOfMemoryArgs a,
                                               const vertex_t* sub_edges, level_t level,
                                               bfs_u32 frontier_size, bfs_u64 first,
                                               bfs_u64 count)
{
    const vertex_t* frontier = a.queues[level % 2];
    const bfs_u64 stride = (bfs_u64)gridDim.x * blockDim.x;
    for (bfs_u64 j = (bfs_u64)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride) {
        const bfs_u64 e = first + j;
        bfs_u32 lo = 0, hi = frontier_size;  // sub_offsets[lo] <= e < sub_offsets[hi]
        while (hi - lo > 1) {
            const bfs_u32 mid = lo + (hi - lo) / 2;
            if (a.sub_offsets[mid] <= e) lo = mid; else hi = mid;
        }
        visit(a, level, frontier[lo], sub_edges[j]);
    }
}
// [oom-expand-subgraph-end]

// The 32-byte sectors that the edges [begin, end) of a host array span.
__device__ inline bfs_u64 sectors_of(edge_t begin, edge_t end)
{
    const bfs_u64 per_sector = 32 / sizeof(vertex_t);
    return end > begin ? (bfs_u64)(end + per_sector - 1) / per_sector - (bfs_u64)begin / per_sector
                       : 0;
}

// [oom-expand-mapped-begin]
// zero_copy and managed: a warp per frontier vertex reads its out-list straight from
// host memory, lane k the k-th edge of each WARP_SIZE, so that the warp's reads are
// consecutive and the bus carries whole sectors. Lane 0 counts the edges and the
// 32-byte sectors the list spans: what crosses the bus, at the least, for this vertex.
extern "C" __global__ void oom_expand_mapped(const OutOfMemoryArgs a, level_t level,
                                             bfs_u32 frontier_size)
{
    const vertex_t* frontier = a.queues[level % 2];
    const bfs_u32 warps = gridDim.x * (blockDim.x / WARP_SIZE);
    const bfs_u32 lane = lane_id();
    for (bfs_u32 w = blockIdx.x * (blockDim.x / WARP_SIZE) + warp_id(); w < frontier_size;
         w += warps) {
        const vertex_t v = frontier[w];
        const edge_t begin = a.offsets[v], end = a.offsets[v + 1];
        for (edge_t e = begin + lane; e < end; e += WARP_SIZE)
            visit(a, level, v, a.host_edges[e]);
        if (lane == 0 && end > begin) {
            atomicAdd(&a.counts->read, (bfs_u64)(end - begin));
            atomicAdd(&a.counts->sectors, sectors_of(begin, end));
        }
    }
}
// [oom-expand-mapped-end]

// [oom-pull-mapped-begin]
// zero_copy and managed, a pull level: a warp per vertex not reached yet reads its
// in-list from host memory, a warp's width of edges at a time, and stops at the first
// chunk that holds an in-neighbour on the frontier (levels[u] == level: no bitmap is
// needed, the device has the levels). Only this warp looks at v: no atomic claims it.
extern "C" __global__ void oom_pull_mapped(const OutOfMemoryArgs a, level_t level)
{
    const bfs_u32 n = (bfs_u32)a.num_vertices, warps = gridDim.x * (blockDim.x / WARP_SIZE);
    const bfs_u32 lane = lane_id();
    for (bfs_u32 w = blockIdx.x * (blockDim.x / WARP_SIZE) + warp_id(); w < n; w += warps) {
        const vertex_t v = (vertex_t)w;
        if (a.levels[v] != -1) continue;  // the whole warp: it is the same v
        const edge_t begin = a.in_offsets[v], end = a.in_offsets[v + 1];
        edge_t chunk = begin;
        vertex_t parent = -1;
        for (; chunk < end; chunk += WARP_SIZE) {
            const edge_t e = chunk + lane;
            const vertex_t u = e < end ? a.host_in_edges[e] : -1;
            const lane_mask_t hits = warp_ballot(u != -1 && a.levels[u] == level);
            if (hits) {  // the lowest lane that hit gives the parent
                int first = 0;
                while (!((hits >> first) & 1)) first++;
                parent = warp_shfl(u, first);
                break;  // the early exit that makes pulling cheap
            }
        }
        if (lane == 0) {
            const edge_t stop = parent != -1 && chunk + WARP_SIZE < end ? chunk + WARP_SIZE : end;
            if (stop > begin) {
                atomicAdd(&a.counts->read, (bfs_u64)(stop - begin));
                atomicAdd(&a.counts->sectors, sectors_of(begin, stop));
            }
            if (parent != -1) {
                a.levels[v] = level + 1;
                a.parents[v] = parent;
                atomicAdd(&a.counts->edges, (bfs_u64)out_degree(a, v));
                const bfs_u64 slot = atomicAdd(&a.counts->vertices, (bfs_u64)1);
                a.queues[(level + 1) % 2][slot] = v;
            }
        }
    }
}
// [oom-pull-mapped-end]
