// bottom_up.h: the bottom-up ("pull") sweep of step 6, shared by push_pull.hip and by
// step 8's multi_gpu.hip: the frontier as a bitmap, and the sweep over the unvisited
// vertices that looks for one parent each among their in-edges and counts what it
// found (n_f and m_f of the next frontier, for Beamer's rule) in a Tally.
#pragma once
#include "frontier.h"  // QUEUES: where the sweep's path counts go, after the queues'
#include "tally.h"

#if !defined(BU_PROBE) || !defined(BU_WARP_THRESHOLD)
#error "bottom_up.h needs -DBU_PROBE and -DBU_WARP_THRESHOLD (push_pull.py's tunables)"
#endif

#include "bitmap.h"  // the frontier as a bitmap: in_bitmap, add_to_bitmap

__device__ inline int lowest_lane(lane_mask_t mask) { return __ffsll((long long)mask) - 1; }

#ifdef BFS_COUNT_PATHS
// For the tests: the vertices bottom-up sweeps looked at, and those they found.
#define COUNT_SWEEP(what, count) atomicAdd(&S.path_counts[2 * QUEUES + (what)], (bfs_u64)(count))
#else
#define COUNT_SWEEP(what, count) \
    do {                         \
    } while (0)
#endif

// What the bottom-up sweep reads and writes.
struct Sweep {
    const edge_t* offsets;     // out-edges: the degree of a vertex found, for m_f
    const edge_t* in_offsets;  // in-edges: where a vertex looks for its parent
    const vertex_t* in_edges;
    const vertex_t* active;    // the vertices that have in-edges, in increasing order
    bfs_u32 active_count;
    level_t* levels;
    vertex_t* parents;
    level_t next_level;
    const bfs_u32* frontier;   // bitmap of this level's frontier
    bfs_u32* next_frontier;    // bitmap of the next one, all zero at the start
    bfs_u64* path_counts;
};

// [push-pull-bottom-up-begin]
// A sweep is a chain of loads, each waiting for the one before: the vertex, its level
// and lists, its in-edges, their frontier bits. Loads that do not depend on each other
// are issued together: a lane looks at BU_BATCH in-edges at a time (their loads, then
// their bits), and a warp at BU_BATCH * WARP_SIZE.
#define BU_BATCH 4

// The first in-edge of e..stop in the frontier, or -1; e stops at the batch that found
// it (or at stop). One lane alone.
__device__ inline vertex_t scan_alone(const Sweep& S, edge_t& e, edge_t stop)
{
    while (e < stop) {  // at most ceil((stop - e) / BU_BATCH) trips
        vertex_t u[BU_BATCH];
        bool hit[BU_BATCH];
        for (int k = 0; k < BU_BATCH; k++) u[k] = e + k < stop ? S.in_edges[e + k] : -1;
        for (int k = 0; k < BU_BATCH; k++) hit[k] = u[k] >= 0 && in_bitmap(S.frontier, u[k]);
        for (int k = 0; k < BU_BATCH; k++)
            if (hit[k]) return u[k];
        e = e + BU_BATCH < stop ? e + BU_BATCH : stop;
    }
    return -1;
}

// The same for a list the whole warp scans: BU_BATCH * WARP_SIZE in-edges a trip, a
// ballot for each WARP_SIZE of them. Every lane calls it with the same list.
__device__ inline vertex_t scan_together(const Sweep& S, edge_t begin, edge_t end)
{
    for (edge_t f = begin; f < end; f += BU_BATCH * WARP_SIZE) {
        vertex_t u[BU_BATCH];
        for (int k = 0; k < BU_BATCH; k++) {
            const edge_t at = f + k * WARP_SIZE + lane_id();
            u[k] = at < end ? S.in_edges[at] : -1;
        }
        for (int k = 0; k < BU_BATCH; k++) {
            const lane_mask_t hits = warp_ballot(u[k] >= 0 && in_bitmap(S.frontier, u[k]));
            if (hits != 0) return warp_shfl(u[k], lowest_lane(hits));  // the same in every lane
        }
    }
    return -1;
}

// One bottom-up level. The warps take WARP_SIZE consecutive entries of the active list
// at a time (a coalesced read). A lane whose vertex is unvisited checks the first
// BU_PROBE in-edges itself: in the middle levels most vertices find a parent there.
// Lists with BU_WARP_THRESHOLD in-edges or more left are then scanned by the whole warp,
// one list at a time, and a ballot says whether any of them is in the frontier. The rest
// finish alone. Every lane of a warp runs the loops below the same number of times, so
// the warp votes are reached by all lanes.
__device__ inline void bottom_up(const Sweep& S, bfs_u32 first_warp, bfs_u32 warps, Tally& found)
{
    for (bfs_u32 base = first_warp * WARP_SIZE; base < S.active_count; base += warps * WARP_SIZE) {
        const bfs_u32 i = base + lane_id();
        vertex_t v = -1;
        edge_t e = 0, end = 0, out_degree = 0;
        if (i < S.active_count) {
            const vertex_t candidate = S.active[i];
            const level_t level = S.levels[candidate];  // these five loads: together
            const edge_t in_begin = S.in_offsets[candidate], in_end = S.in_offsets[candidate + 1];
            out_degree = S.offsets[candidate + 1] - S.offsets[candidate];
            if (level == -1) {  // not visited yet: look for a parent
                v = candidate;
                e = in_begin;
                end = in_end;
            }
        }
        // 1. Each lane alone, a few in-edges.
        vertex_t parent = scan_alone(S, e, e + BU_PROBE < end ? e + BU_PROBE : end);
        // 2. Long lists left: the whole warp, one list at a time.
        lane_mask_t long_lists = warp_ballot(parent < 0 && end - e >= BU_WARP_THRESHOLD);
        while (long_lists != 0) {
            const int owner = lowest_lane(long_lists);
            long_lists &= long_lists - 1;
            const vertex_t found_parent = scan_together(S, warp_shfl(e, owner), warp_shfl(end, owner));
            if ((int)lane_id() == owner) {
                parent = found_parent;
                e = end;  // scanned, with or without success
            }
        }
        // 3. Short lists left: each lane alone.
        if (parent < 0) parent = scan_alone(S, e, end);
        if (i < S.active_count) COUNT_SWEEP(0, 1);
        if (parent >= 0) {
            COUNT_SWEEP(1, 1);
            // Only this thread looks at v in this sweep: no atomics for the claim.
            S.levels[v] = S.next_level;
            S.parents[v] = parent;
            add_to_bitmap(S.next_frontier, v);
            found.vertices += 1;
            found.edges += (bfs_u64)out_degree;
        }
    }
}
// [push-pull-bottom-up-end]
