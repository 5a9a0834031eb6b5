// Step 4: load-balanced expansion (Merrill & Garland 2012; PMPP 15.7; Liu et al. 2015).
//
// Steps 2 and 3 give each frontier vertex one thread, which walks the vertex's whole
// adjacency list. On a graph with hubs the threads of a warp then finish at very
// different times, and the warp (and its block) waits for its slowest lane. Here the
// frontier is kept in three queues, by the degree of each vertex, and each queue is
// expanded by the unit of work that fits it:
//
//   small   degree < WARP_THRESHOLD           one thread per vertex
//   medium  degree < BLOCK_THRESHOLD          one warp per vertex
//   large   degree >= BLOCK_THRESHOLD         one block per piece of BLOCK_PIECE edges
//
// A large vertex is cut into pieces when it is enqueued, so a hub of a hundred thousand
// edges is expanded by many blocks at once instead of by one. The queue a vertex goes to
// is decided when it is discovered (the thread that claims it reads its degree), so the
// next level starts with its work already sorted. One launch expands a whole level:
// its grid is three sections, one per queue.
#include "bfs_common.h"

// The tunables, fixed at compile time; default_defines() in
// rodinia_bfs/variants/balanced.py derives them from the device's warp size.
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads per block>"
#endif
#ifndef WARP_THRESHOLD
#error "compile with -DWARP_THRESHOLD=<smallest degree a warp expands>"
#endif
#ifndef BLOCK_THRESHOLD
#error "compile with -DBLOCK_THRESHOLD=<smallest degree a block expands>"
#endif
#ifndef BLOCK_PIECE
#error "compile with -DBLOCK_PIECE=<edges per piece of a large vertex>"
#endif
#ifndef COUNTER_STRIDE
#error "compile with -DCOUNTER_STRIDE=<bfs_u32 slots between two queue counters>"
#endif
#if BLOCK_SIZE % WARP_SIZE != 0
#error "BLOCK_SIZE must be a multiple of WARP_SIZE: the medium queue gives whole warps"
#endif
#if WARP_THRESHOLD < 1 || BLOCK_THRESHOLD < WARP_THRESHOLD || BLOCK_PIECE < 1
#error "need 1 <= WARP_THRESHOLD <= BLOCK_THRESHOLD and BLOCK_PIECE >= 1"
#endif

#define WARPS_PER_BLOCK (BLOCK_SIZE / WARP_SIZE)

// The three queue counters, each on its own 128-byte line: the warps that enqueue into
// different queues then do not fight over one cache line.
#define SMALL 0
#define MEDIUM 1
#define LARGE 2

// Lane masks are 32 or 64 bits wide (lane_mask_t): count and find bits at that width.
__device__ inline int mask_popc(lane_mask_t mask)
{
#if WARP_SIZE == 64
    return __popcll(mask);
#else
    return __popc(mask);
#endif
}

__device__ inline int mask_lowest_lane(lane_mask_t mask)  // mask != 0
{
#if WARP_SIZE == 64
    return __ffsll((long long)mask) - 1;
#else
    return __ffs((int)mask) - 1;
#endif
}

// Everything one launch reads and writes, gathered so the device functions below take
// one argument instead of twenty.
struct Level {
    const edge_t* offsets;
    const vertex_t* edges;
    level_t* levels;
    vertex_t* parents;
    vertex_t* next_small;
    vertex_t* next_medium;
    vertex_t* next_large;        // vertex of each piece
    bfs_u32* next_large_piece;   // which piece of it
    bfs_u32* next_counts;        // SMALL, MEDIUM, LARGE, COUNTER_STRIDE apart
    bfs_u64* path_counts;        // only with BFS_COUNT_PATHS
    level_t next_level;
};

// [balanced-enqueue-begin]
// Append u to a queue, one atomicAdd per warp: the lanes that have a vertex vote, the
// lowest of them reserves room for all, and each writes at its rank among the voters.
// Every lane of the warp calls this (the vote is a warp operation).
__device__ inline void warp_push(bool mine, vertex_t u, vertex_t* queue, bfs_u32* count)
{
    const lane_mask_t voters = warp_ballot(mine);
    if (voters == 0) return;  // the same answer in every lane
    const int leader = mask_lowest_lane(voters);
    bfs_u32 first = 0;
    if (lane_id() == leader) first = atomicAdd(count, (bfs_u32)mask_popc(voters));
    first = (bfs_u32)warp_shfl((bfs_i32)first, leader);
    const lane_mask_t below = ((lane_mask_t)1 << lane_id()) - 1;
    if (mine) queue[first + mask_popc(voters & below)] = u;
}

// u was just claimed (found) and has `degree` edges: put it in the queue of its size.
__device__ inline void enqueue(const Level& L, bool found, vertex_t u, edge_t degree)
{
    warp_push(found && degree < WARP_THRESHOLD, u, L.next_small,
              &L.next_counts[SMALL * COUNTER_STRIDE]);
    warp_push(found && degree >= WARP_THRESHOLD && degree < BLOCK_THRESHOLD, u,
              L.next_medium, &L.next_counts[MEDIUM * COUNTER_STRIDE]);
    if (found && degree >= BLOCK_THRESHOLD) {
        // Hubs are rare: each takes its own atomicAdd, for all its pieces at once.
        const bfs_u32 pieces = (bfs_u32)((degree + BLOCK_PIECE - 1) / BLOCK_PIECE);
        const bfs_u32 first = atomicAdd(&L.next_counts[LARGE * COUNTER_STRIDE], pieces);
        for (bfs_u32 p = 0; p < pieces; p++) {
            L.next_large[first + p] = u;
            L.next_large_piece[first + p] = p;
        }
    }
}
// [balanced-enqueue-end]

// [balanced-visit-begin]
// Edge e of v, for the lanes with `valid`: claim its target as steps 2 and 3 do, and
// enqueue it. The target's degree is read before the atomicCAS, so that both loads
// are in flight while the claim waits. Every lane of the warp calls this.
__device__ inline void visit(const Level& L, bool valid, vertex_t v, edge_t e)
{
    bool found = false;
    vertex_t u = 0;
    edge_t degree = 0;
    if (valid) {
        u = L.edges[e];
        if (L.levels[u] == -1) {
            degree = L.offsets[u + 1] - L.offsets[u];
            if (atomicCAS(&L.levels[u], -1, L.next_level) == -1) {
                L.parents[u] = v;
                found = true;
            }
        }
    }
    enqueue(L, found, u, degree);
}
// [balanced-visit-end]

#ifdef BFS_COUNT_PATHS
// For the tests: how many queue entries and edges each path expanded.
#define COUNT_PATH(path, edge_count)                                                       \
    do {                                                                                   \
        atomicAdd(&L.path_counts[(path)], 1ull);                                           \
        atomicAdd(&L.path_counts[3 + (path)], (bfs_u64)(edge_count));                      \
    } while (0)
#else
#define COUNT_PATH(path, edge_count) \
    do {                             \
    } while (0)
#endif

// [balanced-kernel-begin]
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
balanced_expand(const edge_t* offsets, const vertex_t* edges, level_t* levels,
                vertex_t* parents,
                const vertex_t* small, bfs_u32 small_count,
                const vertex_t* medium, bfs_u32 medium_count,
                const vertex_t* large, const bfs_u32* large_piece, bfs_u32 large_count,
                bfs_u32 large_blocks, bfs_u32 medium_blocks,
                vertex_t* next_small, vertex_t* next_medium,
                vertex_t* next_large, bfs_u32* next_large_piece,
                bfs_u32* next_counts, bfs_u32* spare_counts, level_t next_level,
                bfs_u64* path_counts)
{
    const Level L = {offsets, edges, levels, parents, next_small, next_medium,
                     next_large, next_large_piece, next_counts, path_counts, next_level};

    // The counters the launch after next will count into: the host has read them
    // already (they sized this launch), so clearing them here saves a memset per level.
    if (blockIdx.x == 0 && threadIdx.x <= LARGE) spare_counts[threadIdx.x * COUNTER_STRIDE] = 0;

    // The grid is three sections, largest work first, so that the blocks with the most
    // edges start first: [large | medium | small]. The host sizes each section.
    const bfs_u32 small_first_block = large_blocks + medium_blocks;
    if (blockIdx.x < large_blocks) {
        // [balanced-block-begin]
        // A whole block per piece of a large adjacency list. Every thread reads the same
        // piece, so the edge loop has the same trips in every thread, and neighbouring
        // threads read neighbouring edges: one coalesced read per warp per trip.
        for (bfs_u32 p = blockIdx.x; p < large_count; p += large_blocks) {
            const vertex_t v = large[p];
            const edge_t list_end = offsets[v + 1];
            const edge_t begin = offsets[v] + (edge_t)large_piece[p] * BLOCK_PIECE;
            const edge_t end = begin + BLOCK_PIECE < list_end ? begin + BLOCK_PIECE : list_end;
            if (threadIdx.x == 0) COUNT_PATH(LARGE, end - begin);
            for (edge_t base = begin; base < end; base += BLOCK_SIZE) {
                const edge_t e = base + threadIdx.x;
                visit(L, e < end, v, e);
            }
        }
        // [balanced-block-end]
    } else if (blockIdx.x < small_first_block) {
        // [balanced-warp-begin]
        // A whole warp per medium vertex: the lanes stride over its list together.
        const bfs_u32 first_warp = (blockIdx.x - large_blocks) * WARPS_PER_BLOCK + warp_id();
        const bfs_u32 warps = medium_blocks * WARPS_PER_BLOCK;
        for (bfs_u32 i = first_warp; i < medium_count; i += warps) {
            const vertex_t v = medium[i];  // the same i, so the same v, in every lane
            const edge_t begin = offsets[v];
            const edge_t end = offsets[v + 1];
            if (lane_id() == 0) COUNT_PATH(MEDIUM, end - begin);
            for (edge_t base = begin; base < end; base += WARP_SIZE) {
                const edge_t e = base + lane_id();
                visit(L, e < end, v, e);
            }
        }
        // [balanced-warp-end]
    } else {
        // [balanced-thread-begin]
        // A thread per small vertex, as in steps 2 and 3; its list is shorter than a warp.
        // The loops run the same trips in every lane of a warp (visit() votes), and
        // lanes without a vertex, or past the end of theirs, come along with valid false.
        const bfs_u32 stride = (gridDim.x - small_first_block) * BLOCK_SIZE;
        for (bfs_u32 base = (blockIdx.x - small_first_block) * BLOCK_SIZE; base < small_count;
             base += stride) {
            const bfs_u32 i = base + threadIdx.x;
            vertex_t v = 0;
            edge_t begin = 0, end = 0;
            if (i < small_count) {
                v = small[i];
                begin = offsets[v];
                end = offsets[v + 1];
                COUNT_PATH(SMALL, end - begin);
            }
            for (edge_t e = begin; warp_any(e < end); e++) visit(L, e < end, v, e);
        }
        // [balanced-thread-end]
    }
}
// [balanced-kernel-end]
