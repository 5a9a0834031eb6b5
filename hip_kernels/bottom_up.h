// bottom_up.h: the bottom-up ("pull") sweep of step 6, shared by push_pull.hip and by
// step 8's multi_gpu.hip: the frontier as a bitmap, the sweep over the unvisited
// vertices that looks for one parent each among their in-edges, and the tally of what
// it found (n_f and m_f of the next frontier, for Beamer's rule).
#pragma once
#include "frontier.h"

#if !defined(BU_PROBE) || !defined(BU_WARP_THRESHOLD)
#error "bottom_up.h needs -DBU_PROBE and -DBU_WARP_THRESHOLD (push_pull.py's tunables)"
#endif

// [push-pull-bitmap-begin]
// A bitmap: bit v of word v / BITMAP_WORD_BITS is set when vertex v is in the frontier.
#define BITMAP_WORD_BITS (8 * (int)sizeof(bfs_u32))
#define BITMAP_WORD_SHIFT 5  // log2(BITMAP_WORD_BITS)

__device__ inline bool in_bitmap(const bfs_u32* bits, vertex_t v)
{
    return (bits[v >> BITMAP_WORD_SHIFT] >> (v & (BITMAP_WORD_BITS - 1))) & 1u;
}

__device__ inline void add_to_bitmap(bfs_u32* bits, vertex_t v)
{
    atomicOr(&bits[v >> BITMAP_WORD_SHIFT], 1u << (v & (BITMAP_WORD_BITS - 1)));
}
// [push-pull-bitmap-end]

__device__ inline int lowest_lane(lane_mask_t mask) { return __ffsll((long long)mask) - 1; }

#ifdef BFS_COUNT_PATHS
// For the tests: the vertices bottom-up sweeps looked at, and those they found.
#define COUNT_SWEEP(what, count) atomicAdd(&S.path_counts[2 * QUEUES + (what)], (bfs_u64)(count))
#else
#define COUNT_SWEEP(what, count) \
    do {                         \
    } while (0)
#endif

// [push-pull-tally-begin]
// Add every thread's tally to the global one: a sum across the warp by shuffles, one
// shared-memory atomic per warp, one global atomic per block. Every thread calls it.
__device__ inline void add_tally(Tally found, bfs_u64* block_tally, bfs_u64* tally)
{
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        found.vertices += (bfs_u64)warp_shfl((bfs_i64)found.vertices, (int)(lane_id() ^ offset));
        found.edges += (bfs_u64)warp_shfl((bfs_i64)found.edges, (int)(lane_id() ^ offset));
    }
    if (lane_id() == 0 && found.vertices > 0) {
        atomicAdd(&block_tally[0], found.vertices);
        atomicAdd(&block_tally[1], found.edges);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (block_tally[0] > 0) {
            atomicAdd(&tally[0], block_tally[0]);
            atomicAdd(&tally[1], block_tally[1]);
        }
        block_tally[0] = 0;
        block_tally[1] = 0;
    }
}
// [push-pull-tally-end]

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
// One bottom-up level. The warps take WARP_SIZE consecutive entries of the active list
// at a time (a coalesced read). A lane whose vertex is unvisited checks the first
// BU_PROBE in-edges itself: in the middle levels most vertices find a parent there.
// Lists with BU_WARP_THRESHOLD in-edges or more left are then scanned by the whole warp,
// one list at a time, WARP_SIZE in-edges per step, and a ballot says whether any of
// them is in the frontier. The rest finish alone. Every lane of a warp runs the loops
// below the same number of times, so the warp votes are reached by all lanes.
__device__ inline void bottom_up(const Sweep& S, bfs_u32 first_warp, bfs_u32 warps, Tally& found)
{
    for (bfs_u32 base = first_warp * WARP_SIZE; base < S.active_count; base += warps * WARP_SIZE) {
        const bfs_u32 i = base + lane_id();
        vertex_t v = -1;
        edge_t e = 0, end = 0;
        if (i < S.active_count) {
            const vertex_t candidate = S.active[i];
            if (S.levels[candidate] == -1) {  // not visited yet: look for a parent
                v = candidate;
                e = S.in_offsets[v];
                end = S.in_offsets[v + 1];
            }
        }
        vertex_t parent = -1;
        // 1. Each lane alone, a few in-edges.
        const edge_t probe_end = e + BU_PROBE < end ? e + BU_PROBE : end;
        for (; e < probe_end; e++) {
            const vertex_t u = S.in_edges[e];
            if (in_bitmap(S.frontier, u)) {
                parent = u;
                break;
            }
        }
        // 2. Long lists left: the whole warp, one list at a time.
        lane_mask_t long_lists = warp_ballot(parent < 0 && end - e >= BU_WARP_THRESHOLD);
        while (long_lists != 0) {
            const int owner = lowest_lane(long_lists);
            long_lists &= long_lists - 1;
            const edge_t list_begin = warp_shfl(e, owner);
            const edge_t list_end = warp_shfl(end, owner);
            vertex_t found_parent = -1;
            for (edge_t f = list_begin; f < list_end; f += WARP_SIZE) {
                const vertex_t u = f + lane_id() < list_end ? S.in_edges[f + lane_id()] : -1;
                const lane_mask_t hits = warp_ballot(u >= 0 && in_bitmap(S.frontier, u));
                if (hits != 0) {  // the same in every lane: all leave together
                    found_parent = warp_shfl(u, lowest_lane(hits));
                    break;
                }
            }
            if ((int)lane_id() == owner) {
                parent = found_parent;
                e = end;  // scanned, with or without success
            }
        }
        // 3. Short lists left: each lane alone.
        if (parent < 0) {
            for (; e < end; e++) {
                const vertex_t u = S.in_edges[e];
                if (in_bitmap(S.frontier, u)) {
                    parent = u;
                    break;
                }
            }
        }
        if (i < S.active_count) COUNT_SWEEP(0, 1);
        if (parent >= 0) {
            COUNT_SWEEP(1, 1);
            // Only this thread looks at v in this sweep: no atomics for the claim.
            S.levels[v] = S.next_level;
            S.parents[v] = parent;
            add_to_bitmap(S.next_frontier, v);
            found.vertices += 1;
            found.edges += (bfs_u64)(S.offsets[v + 1] - S.offsets[v]);
        }
    }
}
// [push-pull-bottom-up-end]
