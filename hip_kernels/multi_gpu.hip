// Step 8: BFS over several GPUs, each holding a partition of the edges.
//
// Every GPU keeps the state of every vertex (its level and the parent it found) and
// the edges it owns, as a CSR graph over all vertex ids (rodinia_bfs/partition.py).
// A level takes three kernels per GPU and one collective between them:
//
//   multi_gpu_expand  top-down over the GPU's frontier queues, with step 4's gathers
//                     (frontier.h): a thread, a warp or a block per vertex by degree;
//   multi_gpu_mark    the vertices this GPU discovered, as bits of its block of the
//                     exchange bitmap (or as ids for the GPUs that hold them);
//   -- all-gather of the bitmaps (NCCL / RCCL): every GPU gets every GPU's bits
//      (or: a group of send/receive pairs of the id lists) --
//   multi_gpu_merge   the vertices the others discovered: set their level here, and
//                     queue those this GPU has edges of for the next level
//                     (multi_gpu_merge_list for the id lists).
//
// A direction-optimizing search (direction "auto" or "pull") replaces the expand and
// the mark of some levels by one kernel, multi_gpu_pull: step 6's bottom-up sweep
// (bottom_up.h) over the unvisited vertices this GPU masters, which writes what it
// finds straight into this GPU's block of the bitmap. The merge then also leaves the
// whole next frontier in a bitmap of its own, which the next bottom-up level reads,
// and counts the next frontier's vertices and edges for Beamer's rule.
//
// The queue lengths live in device memory, so the host never needs them to size a
// launch: each kernel runs on a fixed grid and strides over what is there. The host
// reads them once per level, after the merge, only to see whether any GPU found
// anything (and to stop a broken kernel).
#include "frontier.h"
#include "tally.h"  // a direction-optimizing merge counts the next frontier, as step 6 does
#include "bottom_up.h"

// The queue counters: two sets, for this level and the next, swapped every level.
// Each set has a fourth line, after the three queue counters: the tally of the next
// frontier (its vertices and their out-edges) that a direction-optimizing merge counts,
// so that the host reads both with one copy.
#define SET_WORDS ((QUEUES + 1) * COUNTER_STRIDE)
#if COUNTER_STRIDE < 4
#error "COUNTER_STRIDE must leave room for the tally (two bfs_u64) on a counter line"
#endif

__device__ inline bfs_u32* counter_set(bfs_u32* counts, level_t level)
{
    return counts + (level % 2) * SET_WORDS;
}

__device__ inline bfs_u64* tally_of(bfs_u32* counts, level_t level)
{
    return (bfs_u64*)(counter_set(counts, level) + QUEUES * COUNTER_STRIDE);
}

// Every kernel that enqueues starts with its block's local queues empty.
__device__ inline void start_local(LocalQueues& local)
{
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    __syncthreads();  // nobody enqueues before the counters are zero
}

// [multi-gpu-expand-begin]
// Top-down over this GPU's frontier, the three queues one after the other with the
// whole grid. Discoveries go to the next queues, by the degree they have here.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_expand(const edge_t* offsets, const vertex_t* edges, level_t* levels,
                 vertex_t* parents, const vertex_t* small, const vertex_t* medium,
                 const Piece* large, vertex_t* next_small, vertex_t* next_medium,
                 Piece* next_large, bfs_u32* counts, level_t next_level,
                 bfs_u64* path_counts)
{
    __shared__ LocalQueues local;
    start_local(local);
    const bfs_u32* now = counter_set(counts, next_level - 1);  // filled last level
    const Level L = {offsets, edges, levels, parents, next_level, next_small, next_medium,
                     next_large, counter_set(counts, next_level), &local, path_counts};
    expand_large(L, large, now[LARGE * COUNTER_STRIDE], blockIdx.x, gridDim.x);
    expand_medium(L, medium, now[MEDIUM * COUNTER_STRIDE],
                  blockIdx.x * WARPS_PER_BLOCK + warp_id(), gridDim.x * WARPS_PER_BLOCK);
    expand_small(L, small, now[SMALL * COUNTER_STRIDE],
                 blockIdx.x * BLOCK_SIZE + threadIdx.x, gridDim.x * BLOCK_SIZE);
    copy_out(L);
}
// [multi-gpu-expand-end]

// [multi-gpu-mark-begin]
// What this GPU discovered at this level (its next queues, as the expand left them),
// published for the exchange. For the bitmap exchange: one bit per vertex in `bits`,
// this GPU's block of the exchange buffer, which the last merge left zeroed. For the
// queue exchange (`lists` set): the vertex id, appended to the send list of every
// other GPU that holds a copy of the vertex (`holds`: a bitmap per GPU, `capacity`
// ids per send list). A large vertex is in its queue once per piece: piece 0 counts.
__device__ inline void publish(vertex_t v, bfs_u32 lists, bfs_u32* bits, const bfs_u32* holds,
                               bfs_u32 words, bfs_u32 parts, bfs_u32 rank, vertex_t* send,
                               bfs_u32* send_counts, bfs_u32 capacity)
{
    if (!lists) {
        add_to_bitmap(bits, v);
        return;
    }
    for (bfs_u32 q = 0; q < parts; q++) {
        if (q != rank && in_bitmap(holds + (bfs_u64)q * words, v))
            send[(bfs_u64)q * capacity + atomicAdd(&send_counts[q], 1u)] = v;
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_mark(const vertex_t* next_small, const vertex_t* next_medium,
               const Piece* next_large, bfs_u32* counts, level_t next_level, bfs_u32 lists,
               bfs_u32* bits, const bfs_u32* holds, bfs_u32 words, bfs_u32 parts, bfs_u32 rank,
               vertex_t* send, bfs_u32* send_counts, bfs_u32 capacity)
{
    const bfs_u32* found = counter_set(counts, next_level);
    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;
    const bfs_u32 first = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    for (bfs_u32 i = first; i < found[SMALL * COUNTER_STRIDE]; i += stride)
        publish(next_small[i], lists, bits, holds, words, parts, rank, send, send_counts,
                capacity);
    for (bfs_u32 i = first; i < found[MEDIUM * COUNTER_STRIDE]; i += stride)
        publish(next_medium[i], lists, bits, holds, words, parts, rank, send, send_counts,
                capacity);
    for (bfs_u32 i = first; i < found[LARGE * COUNTER_STRIDE]; i += stride)
        if (next_large[i].index == 0)
            publish(next_large[i].vertex, lists, bits, holds, words, parts, rank, send,
                    send_counts, capacity);
}
// [multi-gpu-mark-end]

// [multi-gpu-merge-begin]
// Vertex v joins this GPU's next frontier if this GPU has edges out of it.
__device__ inline void join(const Level& L, vertex_t v)
{
    const edge_t degree = L.offsets[v + 1] - L.offsets[v];
    if (degree > 0) enqueue(L, v, degree);
}

// Vertex v was discovered at this level by another GPU: it takes its level here too
// (its parent is known only there: the host combines the parents at the end), and
// joins this GPU's next frontier. If this GPU found v itself, v is in its queues
// already and the claim fails.
__device__ inline void take(const Level& L, vertex_t v)
{
    if (atomicCAS(&L.levels[v], -1, L.next_level) == -1) join(L, v);
}

// What a merge reads and writes: no edges and no parents, only claims and enqueues.
#define MERGE_LEVEL                                                                         \
    __shared__ LocalQueues local;                                                           \
    start_local(local);                                                                     \
    const Level L = {offsets, 0, levels, 0, next_level, next_small, next_medium, next_large, \
                     counter_set(counts, next_level), &local, path_counts}

// What a merge does besides (its `flags`), in a direction-optimizing search:
#define MERGE_FRONTIER 1u   // keep the next frontier as a bitmap, and count it
#define MERGE_AFTER_PULL 2u // this level was bottom-up: what this GPU found is in
                            // its block of the bitmap only, not in its queues

// After the all-gather, `bits` holds every GPU's block of `words` words, GPU `rank`'s
// own among them. Its own block is zeroed for the next level's mark.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_merge(const edge_t* offsets, level_t* levels, bfs_u32* bits, bfs_u32 words,
                bfs_u32 parts, bfs_u32 rank, vertex_t* next_small, vertex_t* next_medium,
                Piece* next_large, bfs_u32* counts, level_t next_level, bfs_u64* path_counts,
                bfs_u32 flags, bfs_u32* frontier, const edge_t* out_offsets,
                vertex_t first_master, vertex_t end_master)
{
    __shared__ bfs_u64 block_tally[2];
    if (threadIdx.x < 2) block_tally[threadIdx.x] = 0;  // start_local syncs the block
    MERGE_LEVEL;
    Tally found = {0, 0};
    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;
    for (bfs_u32 w = blockIdx.x * BLOCK_SIZE + threadIdx.x; w < words; w += stride) {
        bfs_u32 others = 0;
        for (bfs_u32 q = 0; q < parts; q++)
            if (q != rank) others |= bits[(bfs_u64)q * words + w];
        const bfs_u32 own = bits[(bfs_u64)rank * words + w];
        bits[(bfs_u64)rank * words + w] = 0;
        // [multi-gpu-merge-pull-begin]
        // Direction-optimizing: every GPU keeps the whole next frontier as a bitmap, and
        // counts the vertices of it that it masters (each has one master, so the GPUs'
        // counts add up to n_f and m_f exactly, with no collective of their own).
        bfs_u32 todo = others;
        if (flags & MERGE_FRONTIER) {
            frontier[w] = others | own;
            todo = others | own;
        }
        // [multi-gpu-merge-pull-end]
        while (todo != 0) {
            const bfs_u32 bit = todo & (0u - todo);  // the lowest set bit
            const vertex_t v = (vertex_t)(w * 32 + (__ffs(todo) - 1));
            todo &= todo - 1;
            if ((flags & MERGE_FRONTIER) && v >= first_master && v < end_master) {
                found.vertices += 1;
                found.edges += (bfs_u64)(out_offsets[v + 1] - out_offsets[v]);
            }
            if (others & bit) {
                take(L, v);
            } else if (flags & MERGE_AFTER_PULL) {
                join(L, v);  // found here bottom-up: its level is set, its queue is not
            }
        }
    }
    copy_out(L);
    if (flags & MERGE_FRONTIER) add_tally(found, block_tally, tally_of(counts, next_level));
}
// [multi-gpu-merge-end]

// [multi-gpu-pull-begin]
// A bottom-up level on one GPU: step 6's sweep over the unvisited vertices this GPU
// masters that have in-edges (`active`), looking for a parent in the whole frontier
// (`frontier`, which every GPU's merge left). What it finds goes into `own`, this
// GPU's block of the exchange bitmap, as the mark would have put it. The sweep's own
// tally is not used: the merge counts the whole next frontier.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_pull(const edge_t* out_offsets, const edge_t* in_offsets, const vertex_t* in_edges,
               const vertex_t* active, bfs_u32 active_count, level_t* levels,
               vertex_t* parents, level_t next_level, const bfs_u32* frontier, bfs_u32* own,
               bfs_u64* path_counts)
{
    const Sweep S = {out_offsets, in_offsets, in_edges, active, active_count, levels, parents,
                     next_level, frontier, own, path_counts};
    Tally found = {0, 0};
    bottom_up(S, blockIdx.x * WARPS_PER_BLOCK + warp_id(), gridDim.x * WARPS_PER_BLOCK, found);
}
// [multi-gpu-pull-end]

// [multi-gpu-merge-list-begin]
// The queue exchange's merge: the ids the other GPUs sent here, `received` of them.
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
multi_gpu_merge_list(const edge_t* offsets, level_t* levels, const vertex_t* list,
                     bfs_u32 received, vertex_t* next_small, vertex_t* next_medium,
                     Piece* next_large, bfs_u32* counts, level_t next_level, bfs_u64* path_counts)
{
    MERGE_LEVEL;
    for (bfs_u32 i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < received;
         i += gridDim.x * BLOCK_SIZE)
        take(L, list[i]);
    copy_out(L);
}
// [multi-gpu-merge-list-end]
