// A cluster of blocks as a tier between step 5's single block and the whole grid, tried
// for issue 26's wide road-like levels (thousands of vertices a level for hundreds of
// levels): benchmarks/cluster.py times it against steps 5 and 7 and checks every result;
// tests/test_cluster_probe.py runs it on the emulator.
//
// The single block keeps its visited bitmap and both queues in shared memory and ends a
// level with __syncthreads; it has one multiprocessor's threads. The grid has them all,
// and pays a grid barrier and global atomics every level. A cluster (NVIDIA sm_90) is
// CLUSTER_BLOCKS blocks on neighbouring multiprocessors that can read, write and update
// each other's shared memory, and wait for each other with a barrier of the hardware:
//
//   the bitmap     is split into CLUSTER_BLOCKS slices, one in each block's shared
//                  memory: the claim of vertex u is an atomicOr in the slice that holds
//                  u's word, wherever it is;
//   the queues     each block appends what it claims to its own queue, in its own shared
//                  memory; the next level reads every block's queue as one list (the
//                  blocks' counts, summed, say where each block's part begins), and
//                  shares it out evenly: thread t of block r takes entries r * BLOCK_SIZE
//                  + t, then every CLUSTER_BLOCKS * BLOCK_SIZE-th;
//   the barrier    barrier.cluster ends a level.
//
// Where there are no clusters (HIP, the emulator, NVIDIA before sm_90) the same code runs
// with each block's slice in global memory and the grid barrier of bfs_common.h between
// levels, the blocks launched cooperatively: the algorithm is the same, only where the
// slices live and what waits differs.
#include "bfs_common.h"
#include "bitmap.h"

#ifndef CLUSTER_BLOCKS
#error "compile with -DCLUSTER_BLOCKS=<blocks that share the search>"
#endif
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads of each block>"
#endif
#ifndef QUEUE_CAPACITY
#error "compile with -DQUEUE_CAPACITY=<entries of each of a block's two queues>"
#endif
#ifndef EDGE_BATCH
#define EDGE_BATCH 4
#endif
// The rungs tried on top of the basic cluster (each 0 or 1, ROW_WIDTH 0 or a width):
//   WARP_APPEND   a warp appends its claims with one atomicAdd on the block's count,
//                 not one per claim (a level's claims all land on one shared word);
//   SPREAD_BY_WARPS  the level's entries go to the blocks a warp at a time, not a block
//                 at a time: a level of a few hundred vertices is not all one block's;
//   LOCAL_QUEUES  a block expands the queue it filled itself, instead of its share of
//                 every block's: no reads of other blocks' queues, and what it prefetched
//                 is in its own multiprocessor's cache;
//   ROW_WIDTH     the graph as rows (step 5's Row: a vertex's targets padded with -1),
//                 a row asked into the L1 cache when its vertex is claimed;
//   SOLO_LIMIT    a level of at most this many vertices (0: none) is block 0's alone,
//                 and so are the levels after it while they stay as narrow: each ends
//                 with __syncthreads, as step 5's single block's do, while the other
//                 blocks wait at the cluster's barrier;
//   CHECK_FIRST   a claim reads the bitmap word first and sends the atomicOr only when
//                 the bit is clear (most edges of a mesh lead to vertices reached already).
#ifndef LOCAL_QUEUES
#define LOCAL_QUEUES 0
#endif
#ifndef ROW_WIDTH
#define ROW_WIDTH 0
#endif
#ifndef CHECK_FIRST
#define CHECK_FIRST 0
#endif
#ifndef WARP_APPEND
#define WARP_APPEND 0
#endif
#ifndef SPREAD_BY_WARPS
#define SPREAD_BY_WARPS 0
#endif
#ifndef SOLO_LIMIT
#define SOLO_LIMIT 0
#endif
#if ROW_WIDTH % EDGE_BATCH != 0
#error "ROW_WIDTH must be a multiple of EDGE_BATCH"
#endif
#if CLUSTER_BLOCKS < 1 || CLUSTER_BLOCKS > WARP_SIZE
#error "CLUSTER_BLOCKS must be between 1 and the warp width (one warp sums the counts)"
#endif

// [cluster-hardware-begin]
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HARDWARE_CLUSTER 1
#else
#define HARDWARE_CLUSTER 0
#endif

#if HARDWARE_CLUSTER
// This block's place in its cluster.
__device__ inline bfs_u32 cluster_rank()
{
    bfs_u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// The address of the same word of shared memory in block `rank` of the cluster: an
// address that loads, stores and atomics take like any other.
__device__ inline bfs_u32* in_block(bfs_u32* mine, bfs_u32 rank)
{
    bfs_u64 theirs;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(theirs) : "l"((bfs_u64)mine), "r"(rank));
    return (bfs_u32*)theirs;
}
// Every thread of every block of the cluster: what each wrote before is seen by all after.
__device__ inline bool cluster_sync(GridBarrier*)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    return true;
}
#else
__device__ inline bfs_u32 cluster_rank() { return blockIdx.x; }
// (Here `mine` is block 0's slice: the slices lie one after another in global memory.)
__device__ inline bool cluster_sync(GridBarrier* barrier) { return grid_sync(barrier) != 0; }
#endif
// [cluster-hardware-end]

// [cluster-args-begin]
struct ClusterArgs {
    const edge_t* offsets;
    const vertex_t* edges;
    const vertex_t* rows;  // with ROW_WIDTH: ROW_WIDTH entries a vertex
    level_t* levels;       // all -1 but the source's 0, written by the host
    vertex_t* parents;     // likewise, the source its own parent
    bfs_u32* slices;       // without hardware clusters: the blocks' slices, one after another
    bfs_u32* status;       // [0] levels run, [1] error
    GridBarrier* barrier;  // without hardware clusters
    bfs_u32 slice_words;   // a slice: its bitmap words, two queues and three counts
    bfs_u32 bitmap_words;  // the bitmap words of each slice
    vertex_t n;
    vertex_t source;
};
// [cluster-args-end]

#define CLUSTER_QUEUE_FULL 1u
#define CLUSTER_RUNAWAY 2u
#define CLUSTER_BARRIER_FAILED 3u

// A slice: bitmap words, queue 0, queue 1, counts[5] (the length of the queue a block
// filled for level L is counts[L % 3]; with SOLO_LIMIT, block 0's counts[3] is the level
// its solo levels stopped at and counts[4] that level's length).
__device__ inline bfs_u32* queue_of(bfs_u32* slice, const ClusterArgs& a, int q)
{
    return slice + a.bitmap_words + (bfs_u32)q * QUEUE_CAPACITY;
}
__device__ inline bfs_u32* counts_of(bfs_u32* slice, const ClusterArgs& a)
{
    return slice + a.bitmap_words + 2 * QUEUE_CAPACITY;
}


// Block `rank`'s slice, from this block's.
__device__ inline bfs_u32* slice_of(const ClusterArgs& a, bfs_u32* mine, bfs_u32 rank)
{
#if HARDWARE_CLUSTER
    (void)a;
    return in_block(mine, rank);
#else
    (void)mine;
    return a.slices + (bfs_u64)rank * a.slice_words;
#endif
}

// [cluster-claim-begin]
// Claim the targets u[0..EDGE_BATCH) (-1: none) for the next level: one atomicOr each in
// the slice that holds its bitmap word, all sent before any answer is looked at. Sets
// won[k] where this thread set the bit.
__device__ inline void claim(const ClusterArgs& a, bfs_u32* mine, const vertex_t* u, bool* won)
{
    bfs_u32* word[EDGE_BATCH];
    for (int k = 0; k < EDGE_BATCH; k++) {
        won[k] = false;
        if (u[k] < 0) continue;
        const bfs_u32 w = (bfs_u32)u[k] / BITMAP_WORD_BITS;
        word[k] = &slice_of(a, mine, w / a.bitmap_words)[w % a.bitmap_words];
        won[k] = true;
    }
    if (CHECK_FIRST)  // a plain read first: the bits of most targets are set already
        for (int k = 0; k < EDGE_BATCH; k++)
            if (won[k] && (*(volatile bfs_u32*)word[k] & bitmap_bit(u[k]))) won[k] = false;
    bfs_u32 before[EDGE_BATCH];
    for (int k = 0; k < EDGE_BATCH; k++)
        before[k] = won[k] ? atomicOr(word[k], bitmap_bit(u[k])) : 0u;
    for (int k = 0; k < EDGE_BATCH; k++)
        if (won[k] && (before[k] & bitmap_bit(u[k]))) won[k] = false;
}
// [cluster-claim-end]

// The source's bit, set by one thread before the first level.
__device__ inline void claim_source(const ClusterArgs& a, bfs_u32* mine, vertex_t u)
{
    const bfs_u32 w = (bfs_u32)u / BITMAP_WORD_BITS;
    atomicOr(&slice_of(a, mine, w / a.bitmap_words)[w % a.bitmap_words], bitmap_bit(u));
}

// [cluster-visit-begin]
// Visit the targets of v (-1: this lane has none), EDGE_BATCH at a time, loaded, then
// claimed, together. What the lane claims gets its level and parent and goes to this
// block's queue `next`. Every lane of the warp calls it and stays in its loop while any
// lane has targets left (a warp-wide bound), so that the warp can append together.
__device__ inline void visit(const ClusterArgs& a, bfs_u32* mine, vertex_t v, level_t level,
                             bfs_u32* next, bfs_u32* found)
{
#if ROW_WIDTH > 0
    const vertex_t* const row = a.rows + (edge_t)(v >= 0 ? v : 0) * ROW_WIDTH;
    const edge_t begin = 0;
    edge_t end = 0;  // the row's first -1, found batch by batch below
    if (v >= 0) end = ROW_WIDTH;
#else
    const edge_t begin = v >= 0 ? a.offsets[v] : 0;
    const edge_t end = v >= 0 ? a.offsets[v + 1] : 0;
#endif
    for (edge_t e = begin; warp_any(e < end); e += EDGE_BATCH) {
        vertex_t u[EDGE_BATCH];
#if ROW_WIDTH > 0
        for (int k = 0; k < EDGE_BATCH; k++) u[k] = e + k < end ? row[e + k] : -1;
        if (u[EDGE_BATCH - 1] < 0) end = e;  // the padding has begun: no batch after this one
#else
        for (int k = 0; k < EDGE_BATCH; k++) u[k] = e + k < end ? a.edges[e + k] : -1;
#endif
        bool won[EDGE_BATCH];
        claim(a, mine, u, won);
        bfs_u32 slot[EDGE_BATCH];
#if WARP_APPEND
        // One atomicAdd per warp for all its claims of this batch: a ballot per target
        // says which lanes claimed one, and a lane's slots follow from the ballots.
        bfs_u32 taken = 0;
        for (int k = 0; k < EDGE_BATCH; k++) {
            const lane_mask_t lanes = warp_ballot(won[k]);
            const lane_mask_t below = (lane_mask_t)((((bfs_u64)1) << lane_id()) - 1);
            slot[k] = taken + (bfs_u32)__popcll((bfs_u64)(lanes & below));
            taken += (bfs_u32)__popcll((bfs_u64)lanes);
        }
        bfs_u32 first = 0;
        if (lane_id() == 0 && taken > 0) first = atomicAdd(found, taken);
        first = (bfs_u32)warp_shfl((bfs_i32)first, 0);
        for (int k = 0; k < EDGE_BATCH; k++) slot[k] += first;
#else
        for (int k = 0; k < EDGE_BATCH; k++) slot[k] = won[k] ? atomicAdd(found, 1u) : 0u;
#endif
        for (int k = 0; k < EDGE_BATCH; k++) {
            if (!won[k]) continue;
            a.levels[u[k]] = level + 1;
            a.parents[u[k]] = v;
            if (slot[k] < QUEUE_CAPACITY) next[slot[k]] = (bfs_u32)u[k];
#if ROW_WIDTH > 0
            prefetch_l1(a.rows + (edge_t)u[k] * ROW_WIDTH);  // its row, for the next level
#endif
        }
    }
}
// [cluster-visit-end]

// [cluster-kernel-begin]
#if HARDWARE_CLUSTER
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE) __cluster_dims__(CLUSTER_BLOCKS, 1, 1)
cluster_bfs(const ClusterArgs a)
#else
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
cluster_bfs(const ClusterArgs a)
#endif
{
#if HARDWARE_CLUSTER
    DYNAMIC_SHARED(bfs_u32, shared);  // this block's slice
    bfs_u32* const mine = shared;
#else
    bfs_u32* const mine = a.slices + (bfs_u64)cluster_rank() * a.slice_words;
#endif
    __shared__ bfs_u32 starts[CLUSTER_BLOCKS + 1];  // where each block's part of the level begins
    __shared__ bfs_u32 found;                       // what this block claimed this level
    __shared__ bfs_u32 solo_found[3];               // the same for block 0's solo levels, in turn
    const bfs_u32 rank = cluster_rank();
    bfs_u32* const counts = counts_of(mine, a);

    // The start: every slice empty, then the source in block 0's queue 0.
    for (bfs_u32 w = threadIdx.x; w < a.bitmap_words; w += BLOCK_SIZE) mine[w] = 0;
    if (threadIdx.x < 3) counts[threadIdx.x] = 0;
    if (threadIdx.x == 0) found = 0;
    if (!cluster_sync(a.barrier)) goto failed;
    if (rank == 0 && threadIdx.x == 0) {
        claim_source(a, mine, a.source);
        queue_of(mine, a, 0)[0] = (bfs_u32)a.source;
        counts[0] = 1;
    }
    if (!cluster_sync(a.barrier)) goto failed;

    {
        level_t level = 0;
        bool after_solo = false;  // block 0 ran the levels before this one alone
        for (;;) {
            // [cluster-level-begin]
            // The blocks' counts of this level, summed by one warp: starts[r] is where
            // block r's part begins in the level's list, starts[CLUSTER_BLOCKS] its length.
            if (warp_id() == 0) {
                const bfs_u32 lane = lane_id();
                bfs_u32 c = 0;
                // (After block 0's solo levels the level is all in block 0's queue, its
                // length in block 0's counts[4]: not in counts[level % 3], which a block
                // still summing the level before the solo ones may be reading.)
                if (after_solo && lane == 0)
                    c = *(volatile bfs_u32*)&counts_of(slice_of(a, mine, 0), a)[4];
                else if (!after_solo && lane < CLUSTER_BLOCKS)
                    c = *(volatile bfs_u32*)&counts_of(slice_of(a, mine, lane), a)[level % 3];
                bfs_u32 inclusive = c;
                for (int d = 1; d < WARP_SIZE; d *= 2) {
                    const bfs_u32 below = (bfs_u32)warp_shfl((bfs_i32)inclusive, lane >= (bfs_u32)d ? (int)lane - d : (int)lane);
                    if (lane >= (bfs_u32)d) inclusive += below;
                }
                // A count past the queue's capacity (what did not fit was dropped) marks
                // the level with an impossible length, the same in every block.
                const bool full = warp_any(c > QUEUE_CAPACITY);
                if (lane < CLUSTER_BLOCKS) starts[lane] = inclusive - c;
                if (lane == CLUSTER_BLOCKS - 1) starts[CLUSTER_BLOCKS] = full ? 0xffffffffu : inclusive;
            }
            __syncthreads();
            const bfs_u32 total = starts[CLUSTER_BLOCKS];  // the same in every thread of the cluster
            if (total == 0) break;
            if (total == 0xffffffffu || level >= a.n) {
                if (rank == 0 && threadIdx.x == 0)
                    a.status[1] = total == 0xffffffffu ? CLUSTER_QUEUE_FULL : CLUSTER_RUNAWAY;
                break;
            }
            after_solo = false;
#if SOLO_LIMIT > 0
            // [cluster-solo-begin]
            if (total <= SOLO_LIMIT) {
                if (rank == 0) {
                    if (threadIdx.x < 3) solo_found[threadIdx.x] = 0;
                    __syncthreads();
                    bfs_u32 width = total;
                    level_t l = level;
                    for (;;) {
                        const int sq = l % 2;
                        bfs_u32* const solo_next = queue_of(mine, a, 1 - sq);
                        for (bfs_u32 base = warp_id() * WARP_SIZE; base < width; base += BLOCK_SIZE) {
                            const bfs_u32 i = base + lane_id();
                            vertex_t v = -1;
                            if (i < width && l == level) {  // the first: every block's queue
                                bfs_u32 owner = 0;
                                while (owner + 1 < CLUSTER_BLOCKS && starts[owner + 1] <= i) owner++;
                                v = (vertex_t)queue_of(slice_of(a, mine, owner), a, sq)[i - starts[owner]];
                            } else if (i < width) {
                                v = (vertex_t)queue_of(mine, a, sq)[i];
                            }
                            visit(a, mine, v, l, solo_next, &solo_found[l % 3]);
                        }
                        __syncthreads();  // the level is done
                        width = solo_found[l % 3];
                        if (threadIdx.x == 0) solo_found[(l + 2) % 3] = 0;  // for level l + 2
                        l++;
                        // Back to the whole cluster when the level is wide again, done,
                        // or wrong (a full queue, too many levels: the check above says so).
                        if (width == 0 || width > SOLO_LIMIT || l >= a.n) break;
                    }
                    if (threadIdx.x == 0) {
                        counts[3] = (bfs_u32)l;
                        counts[4] = width;
                    }
                }
                if (!cluster_sync(a.barrier)) goto failed;
                level = (level_t)*(volatile bfs_u32*)&counts_of(slice_of(a, mine, 0), a)[3];
                after_solo = true;
                continue;
            }
            // [cluster-solo-end]
#endif
            const int q = level % 2;
            bfs_u32* const next = queue_of(mine, a, 1 - q);
#if LOCAL_QUEUES
            // This block's own queue: a lane per entry.
            const bfs_u32 own = counts[level % 3];
            const bfs_u32* const current = queue_of(mine, a, q);
            for (bfs_u32 base = warp_id() * WARP_SIZE; base < own; base += BLOCK_SIZE) {
                const bfs_u32 i = base + lane_id();
                visit(a, mine, i < own ? (vertex_t)current[i] : -1, level, next, &found);
            }
#else
            // Every block's queue as one list, shared out evenly: block by block
            // (entries rank * BLOCK_SIZE on), or with SPREAD_BY_WARPS warp by warp (the
            // warps of all blocks in turn), so that a level narrower than a block still
            // spreads over every block.
            const bfs_u32 first = SPREAD_BY_WARPS ? (warp_id() * CLUSTER_BLOCKS + rank) * WARP_SIZE
                                                  : rank * BLOCK_SIZE + warp_id() * WARP_SIZE;
            for (bfs_u32 base = first; base < total; base += CLUSTER_BLOCKS * BLOCK_SIZE) {
                const bfs_u32 i = base + lane_id();
                vertex_t v = -1;
                if (i < total) {
                    bfs_u32 owner = 0;
                    while (owner + 1 < CLUSTER_BLOCKS && starts[owner + 1] <= i) owner++;
                    v = (vertex_t)queue_of(slice_of(a, mine, owner), a, q)[i - starts[owner]];
                }
                visit(a, mine, v, level, next, &found);
            }
#endif
            __syncthreads();  // every claim of this block is counted
            if (threadIdx.x == 0) {
                counts[(level + 1) % 3] = found;
                found = 0;
            }
            if (!cluster_sync(a.barrier)) goto failed;
            level++;
            // [cluster-level-end]
        }
        if (rank == 0 && threadIdx.x == 0) a.status[0] = (bfs_u32)level;
    }
    // No block leaves while another may still read its slice.
    if (cluster_sync(a.barrier)) return;
failed:
    if (threadIdx.x == 0) a.status[1] = CLUSTER_BARRIER_FAILED;
}
// [cluster-kernel-end]

// [cluster-barrier-cost-begin]
// What a level costs with no work in it: `rounds` times, warp 0 reads every block's
// count (with `read_counts`), the block waits at __syncthreads, thread 0 writes its
// count, and the cluster (or the grid) waits at its barrier. benchmarks/cluster.py
// --barrier-cost times it for each cluster size.
#if HARDWARE_CLUSTER
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE) __cluster_dims__(CLUSTER_BLOCKS, 1, 1)
cluster_barrier_cost(const ClusterArgs a, bfs_u32 rounds, bfs_u32 read_counts)
#else
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
cluster_barrier_cost(const ClusterArgs a, bfs_u32 rounds, bfs_u32 read_counts)
#endif
{
#if HARDWARE_CLUSTER
    DYNAMIC_SHARED(bfs_u32, shared);
    bfs_u32* const mine = shared;
#else
    bfs_u32* const mine = a.slices + (bfs_u64)cluster_rank() * a.slice_words;
#endif
    __shared__ bfs_u32 seen;
    bfs_u32* const counts = counts_of(mine, a);
    if (threadIdx.x < 3) counts[threadIdx.x] = 0;
    if (threadIdx.x == 0) seen = 0;
    if (!cluster_sync(a.barrier)) goto failed;
    for (bfs_u32 r = 0; r < rounds; r++) {
        if (read_counts && warp_id() == 0) {
            bfs_u32 c = lane_id() < CLUSTER_BLOCKS
                            ? *(volatile bfs_u32*)&counts_of(slice_of(a, mine, lane_id()), a)[r % 3] : 0u;
            for (int d = WARP_SIZE / 2; d > 0; d /= 2)
                c += (bfs_u32)warp_shfl((bfs_i32)c, (int)(lane_id() ^ (unsigned)d));
            if (lane_id() == 0) seen += c;
        }
        __syncthreads();
        if (threadIdx.x == 0) counts[(r + 1) % 3] = r;
        if (!cluster_sync(a.barrier)) goto failed;
    }
    if (cluster_rank() == 0 && threadIdx.x == 0) a.status[0] = seen;
    if (cluster_sync(a.barrier)) return;
failed:
    if (threadIdx.x == 0) a.status[1] = CLUSTER_BARRIER_FAILED;
}
// [cluster-barrier-cost-end]
