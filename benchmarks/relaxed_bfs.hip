// A relaxed (label-correcting) BFS, tried as a rung for wide road-like graphs: several
// levels per grid barrier. benchmarks/relaxed.py times it against steps 6 and 7 and checks
// every result; tests/test_relaxed_probe.py runs it on the emulator.
//
// Every vertex has a label, (level << 32) | parent, which only ever goes down
// (atomicMin on 64 bits: the lowest level wins, and with it the parent that offered it).
// A round takes the global queue, a contiguous share per block; a block relaxes the edges
// of its share, and then, without waiting for the other blocks, LOCAL_LEVELS more levels
// of what it found itself, from a queue in shared memory. What it finds at its last local
// level, or what does not fit, goes to the global queue for the next round, after one
// grid barrier. A vertex reached first by a longer way is reached again by a shorter one
// later, and goes round again: the labels end as the BFS levels (a round moves every
// vertex of the shortest ways at least one level on), and each parent is one level up.
#include "bfs_common.h"

#ifndef LOCAL_CAPACITY
#error "compile with -DLOCAL_CAPACITY=<entries of each of a block's two local queues>"
#endif

// [relaxed-args-begin]
struct RelaxedArgs {
    const edge_t* offsets;
    const vertex_t* edges;
    bfs_u64* labels;        // (level << 32) | parent; all ones: not reached
    vertex_t* queue;        // two halves of `capacity` entries, used in turn
    bfs_u32* counts;        // entries of round r's queue: counts[r % 3]
    bfs_u32* status;        // [0] rounds run, [1] error (1: queue full, 2: runaway)
    GridBarrier* barrier;
    bfs_u32 capacity;
    bfs_u32 local_levels;   // levels a block runs alone after its share of a round
    vertex_t n;
};
// [relaxed-args-end]

#define RELAXED_QUEUE_FULL 1u
#define RELAXED_RUNAWAY 2u

__device__ inline bfs_u64 label_of(bfs_u32 level, vertex_t parent)
{
    return ((bfs_u64)level << 32) | (bfs_u32)parent;
}

// [relaxed-relax-begin]
// Offer v's level + 1 to each of its targets; a target whose label goes down goes to
// the block's local queue `out` while `local` and while it has room, else to the global
// queue `next`.
__device__ inline void relax(const RelaxedArgs& a, vertex_t v, vertex_t* out, bfs_u32* out_count,
                             bool local, vertex_t* next, bfs_u32* next_count)
{
    // Labels change under atomics at any time: read past this SM's cache.
    const bfs_u64 mine = *(const volatile bfs_u64*)&a.labels[v];
    const bfs_u64 offer = label_of((bfs_u32)(mine >> 32) + 1, v);
    const edge_t end = a.offsets[v + 1];
    for (edge_t e = a.offsets[v]; e < end; e++) {
        const vertex_t u = a.edges[e];
        if (atomicMin(&a.labels[u], offer) <= offer) continue;  // no shorter way
        const bfs_u32 slot = local ? atomicAdd(out_count, 1u) : LOCAL_CAPACITY;
        if (slot < LOCAL_CAPACITY) {
            out[slot] = u;
        } else {
            const bfs_u32 g = atomicAdd(next_count, 1u);
            if (g < a.capacity) next[g] = u;
            else atomicExch(&a.status[1], RELAXED_QUEUE_FULL);
        }
    }
}
// [relaxed-relax-end]

// [relaxed-kernel-begin]
extern "C" __global__ void relaxed_bfs(const RelaxedArgs a)
{
    __shared__ vertex_t local[2][LOCAL_CAPACITY];
    __shared__ bfs_u32 local_count[2];
    bfs_u32 round = 0;
    for (;; round++) {
        // Every thread reads the same counts after the same barrier: same branches.
        const bfs_u32 count = *(volatile bfs_u32*)&a.counts[round % 3];
        if (count == 0 || *(volatile bfs_u32*)&a.status[1] != 0) break;
        if (round >= (bfs_u32)a.n) {  // each round moves the BFS on: a bug
            if (blockIdx.x == 0 && threadIdx.x == 0) a.status[1] = RELAXED_RUNAWAY;
            break;
        }
        const vertex_t* now = a.queue + (round % 2) * (edge_t)a.capacity;
        vertex_t* next = a.queue + ((round + 1) % 2) * (edge_t)a.capacity;
        bfs_u32* next_count = &a.counts[(round + 1) % 3];
        if (blockIdx.x == 0 && threadIdx.x == 0) a.counts[(round + 2) % 3] = 0;  // read a round ago
        if (threadIdx.x < 2) local_count[threadIdx.x] = 0;
        __syncthreads();

        // The block's share of the round's queue, in one piece: what it finds is near
        // what it has, and it takes that on alone.
        const bfs_u32 share = (count + gridDim.x - 1) / gridDim.x;
        const bfs_u32 lo = blockIdx.x * share;
        const bfs_u32 hi = lo + share < count ? lo + share : count;
        for (bfs_u32 i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            const vertex_t v = ((const volatile vertex_t*)now)[i];
            relax(a, v, local[0], &local_count[0], a.local_levels > 0, next, next_count);
        }
        __syncthreads();
        // Its own finds, level after level, in shared memory, up to local_levels.
        int in = 0;
        for (bfs_u32 k = 0; k < a.local_levels; k++) {
            const bfs_u32 c = local_count[in] < LOCAL_CAPACITY ? local_count[in] : LOCAL_CAPACITY;
            if (c == 0) break;  // the same in every thread
            if (threadIdx.x == 0) local_count[1 - in] = 0;  // everyone read it a barrier ago
            __syncthreads();
            const bool more = k + 1 < a.local_levels;
            for (bfs_u32 i = threadIdx.x; i < c; i += blockDim.x)
                relax(a, local[in][i], local[1 - in], &local_count[1 - in], more, next, next_count);
            __syncthreads();
            in = 1 - in;
        }
        if (!grid_sync(a.barrier)) return;  // the host reports a barrier that gave up
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) a.status[0] = round;
}
// [relaxed-kernel-end]

// The labels as levels and parents, a thread per vertex.
extern "C" __global__ void relaxed_unpack(const bfs_u64* labels, level_t* levels, vertex_t* parents,
                                          vertex_t n)
{
    for (bfs_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < (bfs_u32)n;
         v += gridDim.x * blockDim.x) {
        const bfs_u64 label = labels[v];
        const bool reached = label != ~(bfs_u64)0;
        levels[v] = reached ? (level_t)(label >> 32) : -1;
        parents[v] = reached ? (vertex_t)(bfs_u32)label : -1;
    }
}
