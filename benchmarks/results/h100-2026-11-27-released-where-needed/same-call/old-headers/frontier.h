// frontier.h: the degree-sorted frontier queues of step 4, for every kernel that
// expands them (balanced.hip launches once per level; persistent.hip loops over levels).
//
// The frontier is kept in three queues, by the degree of each vertex, and each queue is
// expanded by the unit of work that fits it:
//
//   small   degree < WARP_THRESHOLD           one thread per vertex
//   medium  degree < BLOCK_THRESHOLD          one warp per vertex
//   large   degree >= BLOCK_THRESHOLD         one block per piece of BLOCK_PIECE edges
//
// The queue a vertex goes to is decided when it is discovered: the thread that claims it
// reads its degree. A large vertex is cut into pieces there and then, so a hub of a
// hundred thousand edges is expanded by many blocks at once. What a block discovers is
// collected in block-local queues in shared memory and copied out at the end of the
// level, as in step 3.
//
// Steps 5 and 8 expand with these gathers as they are; step 6's top-down levels extend
// them (top_down.h).
#pragma once
#include "bfs_common.h"

// The tunables, fixed at compile time; tunables() in rodinia_bfs/variants/balanced.py
// derives them from the device's warp size.
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
#ifndef LOCAL_SMALL
#error "compile with -DLOCAL_SMALL=<entries of the block-local small queue>"
#endif
#ifndef LOCAL_MEDIUM
#error "compile with -DLOCAL_MEDIUM=<entries of the block-local medium queue>"
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
#if LOCAL_SMALL < 1 || LOCAL_MEDIUM < 1
#error "the block-local queues need at least one entry each"
#endif

#define WARPS_PER_BLOCK (BLOCK_SIZE / WARP_SIZE)

// [balanced-queues-begin]
// The queues, in the order of their counters. Each counter sits on a 128-byte line of
// its own (COUNTER_STRIDE slots apart), so atomics on one do not queue behind another's.
#define SMALL 0
#define MEDIUM 1
#define LARGE 2
#define QUEUES 3

__device__ inline bfs_u32 at_most(bfs_u32 a, bfs_u32 b) { return a < b ? a : b; }

// An entry of the large queue: a piece of `vertex`'s list, BLOCK_PIECE edges long
// (the last piece may be shorter).
struct Piece {
    vertex_t vertex;
    bfs_u32 index;
};
// [balanced-queues-end]

// [balanced-local-begin]
// A block's local queues, declared __shared__ by the kernel: one copy per block.
struct LocalQueues {
    vertex_t small[LOCAL_SMALL];
    vertex_t medium[LOCAL_MEDIUM];
    bfs_u32 counts[2];        // SMALL and MEDIUM: slots taken, counting past the capacity
    bfs_u32 global_first[2];  // where copy_out puts them in the global queues
};
// [balanced-local-end]

// What every thread of a level reads and writes, gathered so the device functions
// below take one argument instead of twenty.
struct Level {
    const edge_t* offsets;
    const vertex_t* edges;
    level_t* levels;
    vertex_t* parents;
    level_t next_level;
    vertex_t* next_small;
    vertex_t* next_medium;
    Piece* next_large;
    bfs_u32* next_counts;  // SMALL, MEDIUM and LARGE, COUNTER_STRIDE apart
    LocalQueues* local;    // this block's, in shared memory
    bfs_u64* path_counts;  // what each path expanded (BFS_COUNT_PATHS builds only)
    bfs_u32* visited = nullptr;  // step 6's claims by bit (CLAIM_BITS in top_down.h)
    bfs_u64* crossing = nullptr;  // step 6's counting crossing: its queue word
    GridBarrier* barrier = nullptr;  // and the flag its waits set when they give up
};

// [balanced-enqueue-begin]
// Append u to a block-local queue; when it is full, straight to the global queue.
// The local counter counts on past the capacity, so the slot alone says which.
__device__ inline void push(vertex_t u, vertex_t* local, bfs_u32* local_count, bfs_u32 capacity,
                            vertex_t* global, bfs_u32* global_count)
{
    const bfs_u32 slot = atomicAdd(local_count, 1u);
    if (slot < capacity) {
        local[slot] = u;
    } else {
        global[atomicAdd(global_count, 1u)] = u;
    }
}

// u was just claimed and has `degree` edges: put it in the queue of its size.
__device__ inline void enqueue(const Level& L, vertex_t u, edge_t degree)
{
    if (degree < WARP_THRESHOLD) {
        push(u, L.local->small, &L.local->counts[SMALL], LOCAL_SMALL, L.next_small,
             &L.next_counts[SMALL * COUNTER_STRIDE]);
    } else if (degree < BLOCK_THRESHOLD) {
        push(u, L.local->medium, &L.local->counts[MEDIUM], LOCAL_MEDIUM, L.next_medium,
             &L.next_counts[MEDIUM * COUNTER_STRIDE]);
    } else {
        // Large vertices are few: each takes one global atomicAdd, for all its pieces.
        const bfs_u32 pieces = (bfs_u32)((degree + BLOCK_PIECE - 1) / BLOCK_PIECE);
        const bfs_u32 first = atomicAdd(&L.next_counts[LARGE * COUNTER_STRIDE], pieces);
        for (bfs_u32 p = 0; p < pieces; p++) L.next_large[first + p] = Piece{u, p};
    }
}
// [balanced-enqueue-end]

// [balanced-visit-begin]
// Edge e of frontier vertex v: claim its target as steps 2 and 3 do, then enqueue it.
// The target's degree decides its queue. It is read before the atomicCAS, so that the
// loads and the claim are in flight together.
__device__ inline void visit(const Level& L, vertex_t v, edge_t e)
{
    const vertex_t u = L.edges[e];
    if (L.levels[u] != -1) return;  // reached already: no atomic needed
    const edge_t degree = L.offsets[u + 1] - L.offsets[u];
    if (atomicCAS(&L.levels[u], -1, L.next_level) == -1) {
        L.parents[u] = v;
        enqueue(L, u, degree);
    }
}
// [balanced-visit-end]

#ifdef BFS_COUNT_PATHS
// For the tests: how many queue entries each path expanded, and their edges.
#define COUNT_PATH(path, edge_count)                                        \
    do {                                                                    \
        atomicAdd(&L.path_counts[(path)], 1ull);                            \
        atomicAdd(&L.path_counts[QUEUES + (path)], (bfs_u64)(edge_count));  \
    } while (0)
#else
#define COUNT_PATH(path, edge_count) \
    do {                             \
    } while (0)
#endif

// The three gathers. Each takes its part of the grid as a first unit and a stride (in
// blocks, warps or threads), so a kernel may give each queue a section of the grid of
// its own (balanced.hip) or run all three with the whole grid, one after the other
// (persistent.hip). None contains a barrier or a warp vote: the threads of a block may
// leave them after different numbers of trips.

// [balanced-block-begin]
// A whole block per piece of a large list: neighbouring threads take neighbouring
// edges, so each warp reads its edges with one coalesced load.
__device__ inline void expand_large(const Level& L, const Piece* large, bfs_u32 count,
                                    bfs_u32 first_block, bfs_u32 blocks)
{
    for (bfs_u32 p = first_block; p < count; p += blocks) {
        const vertex_t v = large[p].vertex;  // the same p, so the same v, in every thread
        const edge_t list_end = L.offsets[v + 1];
        const edge_t begin = L.offsets[v] + (edge_t)large[p].index * BLOCK_PIECE;
        const edge_t end = begin + BLOCK_PIECE < list_end ? begin + BLOCK_PIECE : list_end;
        if (threadIdx.x == 0) COUNT_PATH(LARGE, end - begin);
        for (edge_t e = begin + threadIdx.x; e < end; e += BLOCK_SIZE) visit(L, v, e);
    }
}
// [balanced-block-end]

// [balanced-warp-begin]
// A whole warp per medium vertex: the lanes stride over its list together.
__device__ inline void expand_medium(const Level& L, const vertex_t* medium, bfs_u32 count,
                                     bfs_u32 first_warp, bfs_u32 warps)
{
    for (bfs_u32 w = first_warp; w < count; w += warps) {
        const vertex_t v = medium[w];  // the same w, so the same v, in every lane
        const edge_t end = L.offsets[v + 1];
        if (lane_id() == 0) COUNT_PATH(MEDIUM, end - L.offsets[v]);
        for (edge_t e = L.offsets[v] + lane_id(); e < end; e += WARP_SIZE) visit(L, v, e);
    }
}
// [balanced-warp-end]

// [balanced-thread-begin]
// A thread per small vertex, as in steps 2 and 3: its list is shorter than a warp is
// wide, so its warp waits at most WARP_THRESHOLD - 1 trips for it.
__device__ inline void expand_small(const Level& L, const vertex_t* small, bfs_u32 count,
                                    bfs_u32 first_thread, bfs_u32 threads)
{
    for (bfs_u32 t = first_thread; t < count; t += threads) {
        const vertex_t v = small[t];
        const edge_t end = L.offsets[v + 1];
        COUNT_PATH(SMALL, end - L.offsets[v]);
        for (edge_t e = L.offsets[v]; e < end; e++) visit(L, v, e);
    }
}
// [balanced-thread-end]

// [balanced-copy-out-begin]
// Every thread of the block calls it, after its last enqueue. One atomicAdd per local
// queue reserves room in the global queue; the copy is coalesced. (The copy strides by
// blockDim.x: step 5 calls it from a block wider than BLOCK_SIZE.) Thread 0 runs
// while_reserving() beside its atomics: step 6 sends the block's tally there, between
// the same two __syncthreads, instead of between two of its own.
template <typename WhileReserving>
__device__ inline void copy_out(const Level& L, WhileReserving while_reserving)
{
    LocalQueues& local = *L.local;
    __syncthreads();  // every local enqueue is done
    if (threadIdx.x == 0) {
        // What overflowed went to the global queue already; the rest is copied now.
        local.counts[SMALL] = at_most(local.counts[SMALL], LOCAL_SMALL);
        local.counts[MEDIUM] = at_most(local.counts[MEDIUM], LOCAL_MEDIUM);
        if (local.counts[SMALL] > 0)
            local.global_first[SMALL] = atomicAdd(&L.next_counts[SMALL * COUNTER_STRIDE], local.counts[SMALL]);
        if (local.counts[MEDIUM] > 0)
            local.global_first[MEDIUM] = atomicAdd(&L.next_counts[MEDIUM * COUNTER_STRIDE], local.counts[MEDIUM]);
        while_reserving();
    }
    __syncthreads();  // the room is reserved
    for (bfs_u32 i = threadIdx.x; i < local.counts[SMALL]; i += blockDim.x)
        L.next_small[local.global_first[SMALL] + i] = local.small[i];
    for (bfs_u32 i = threadIdx.x; i < local.counts[MEDIUM]; i += blockDim.x)
        L.next_medium[local.global_first[MEDIUM] + i] = local.medium[i];
}

__device__ inline void copy_out(const Level& L) { copy_out(L, [] {}); }
// [balanced-copy-out-end]
