// A top-down BFS that is given every level's frontier instead of building it: a floor
// for what a level of steps 6 and 7 can cost (issue 26's meshes).
// benchmarks/given_frontiers.py times it against those steps and checks every result;
// tests/test_given_frontiers.py runs it on the emulator.
//
// The host hands over the reached vertices sorted by level (`order`, level l's vertices
// from starts[l] to starts[l + 1]), from the CPU reference. A level is then only what no
// top-down BFS can leave out: read a frontier vertex and where its list lies, read its
// edges, claim each target by its bit in a visited bitmap, and store the winner's level
// and parent; then one grid barrier. Nothing is appended to a queue, counted or handed
// on. The levels and parents it leaves are a BFS's only if every claim of every level
// went right, so the probe checks them as a step's.
//
// built_frontiers, below, makes the same visits and builds each next frontier as a
// textbook queue: what it costs over given_frontiers is what building a frontier costs.
#include "bfs_common.h"
#include "bitmap.h"

#ifndef LOG_LANES
#error "compile with -DLOG_LANES=<log2 of the most threads that share one frontier vertex's list>"
#endif
#ifndef LOCAL_ENTRIES
#error "compile with -DLOCAL_ENTRIES=<entries of a block's queue in shared memory (built_frontiers)>"
#endif

// [given-args-begin]
struct GivenArgs {
    const edge_t* offsets;
    const vertex_t* edges;
    const vertex_t* order;    // the reached vertices, level by level
    const bfs_u32* starts;    // level l's vertices: order[starts[l]] .. order[starts[l + 1] - 1]
    level_t* levels;          // -1 but the source's
    vertex_t* parents;
    bfs_u32* visited;         // the source's bit alone
    GridBarrier* barrier;
    bfs_u32 depth;            // levels of this search (the source's is level 0)
    bfs_u32 visit;            // 0: the barriers alone, one a level
};
// [given-args-end]

// [given-visit-begin]
// Part `part` of 2^k of frontier vertex v's list (every 2^k-th edge): claim each target
// by its bit; the winner stores its level and parent, and hands it to won(u).
template <typename Args, typename Won>
__device__ inline void visit_part(const Args& a, vertex_t v, bfs_u32 part, bfs_u32 k,
                                  bfs_u32 next_level, Won won)
{
    const edge_t end = a.offsets[v + 1];
    for (edge_t e = a.offsets[v] + part; e < end; e += (edge_t)1 << k) {
        const vertex_t u = a.edges[e];
        const bfs_u32 before = atomicOr(&a.visited[(bfs_u32)u >> BITMAP_WORD_SHIFT], bitmap_bit(u));
        if (before & bitmap_bit(u)) continue;  // claimed already
        a.levels[u] = (level_t)next_level;
        a.parents[u] = v;
        won(u);
    }
}

// 2^k neighbouring threads per vertex while the grid has threads to spare (as step 6
// shares a short queue out), at most 2^LOG_LANES.
__device__ inline bfs_u32 lanes_log(bfs_u32 count, bfs_u32 threads)
{
    bfs_u32 k = 0;
    while (k < LOG_LANES && (count << (k + 1)) <= threads) k++;
    return k;
}
// [given-visit-end]

// [given-kernel-begin]
extern "C" __global__ void given_frontiers(const GivenArgs a)
{
    const bfs_u32 threads = gridDim.x * blockDim.x;
    const bfs_u32 me = blockIdx.x * blockDim.x + threadIdx.x;
    for (bfs_u32 l = 0; l + 1 < a.depth; l++) {
        const bfs_u32 first = a.starts[l];
        const bfs_u32 count = a.visit ? a.starts[l + 1] - first : 0;
        const bfs_u32 k = lanes_log(count, threads);
        for (bfs_u32 t = me; t < (count << k); t += threads)
            visit_part(a, a.order[first + (t >> k)], t & ((1u << k) - 1), k, l + 1, [](vertex_t) {});
        if (!grid_sync(a.barrier)) return;  // the host reports a barrier that gave up
    }
}
// [given-kernel-end]

// [built-args-begin]
struct BuiltArgs {
    const edge_t* offsets;
    const vertex_t* edges;
    vertex_t* queue;          // every level's frontier after the last: the source first
    bfs_u32* counts;          // entries appended at level l: counts[l % 3]; [3] levels, [4] 1: runaway
    level_t* levels;          // -1 but the source's
    vertex_t* parents;
    bfs_u32* visited;         // the source's bit alone
    GridBarrier* barrier;
    vertex_t n;
};
// [built-args-end]

// [built-kernel-begin]
// The same levels, each frontier built by the level before it as a textbook queue: a
// block appends what it claims to a queue in its shared memory, takes room in the global
// queue with one atomicAdd and copies its entries there before the barrier; after it,
// the level's count says where the next frontier ends. (A count of its own a level, of
// three in turn: a block that has crossed may add to the next level's count while a
// slower one still reads this level's.) What this costs over given_frontiers is what
// building a frontier costs at the least.
extern "C" __global__ void built_frontiers(const BuiltArgs a)
{
    __shared__ vertex_t local[LOCAL_ENTRIES];
    __shared__ bfs_u32 local_count, base;
    const bfs_u32 threads = gridDim.x * blockDim.x;
    const bfs_u32 me = blockIdx.x * blockDim.x + threadIdx.x;
    bfs_u32 first = 0, end = 1;  // this level's frontier: queue[first] .. queue[end - 1]
    bfs_u32 l = 0;
    for (; first < end; l++) {
        if (l >= (bfs_u32)a.n) {  // a level per vertex at most: a bug
            if (blockIdx.x == 0 && threadIdx.x == 0) a.counts[4] = 1;
            break;
        }
        bfs_u32* added = &a.counts[l % 3];
        if (threadIdx.x == 0) local_count = 0;
        // Read at the start of level l - 1 (two crossings ago), added to at level l + 1.
        if (blockIdx.x == 0 && threadIdx.x == 0) a.counts[(l + 1) % 3] = 0;
        __syncthreads();
        const bfs_u32 count = end - first;
        const bfs_u32 k = lanes_log(count, threads);
        for (bfs_u32 t = me; t < (count << k); t += threads) {
            // Written by other blocks before the barrier: read past this SM's cache.
            const vertex_t v = (vertex_t)load_fresh((const bfs_u32*)&a.queue[first + (t >> k)]);
            visit_part(a, v, t & ((1u << k) - 1), k, l + 1, [&](vertex_t u) {
                const bfs_u32 slot = atomicAdd(&local_count, 1u);
                if (slot < LOCAL_ENTRIES) local[slot] = u;
                else a.queue[end + atomicAdd(added, 1u)] = u;  // the block's queue is full
            });
        }
        __syncthreads();
        const bfs_u32 mine = local_count < LOCAL_ENTRIES ? local_count : LOCAL_ENTRIES;
        if (threadIdx.x == 0 && mine > 0) base = end + atomicAdd(added, mine);
        __syncthreads();
        for (bfs_u32 i = threadIdx.x; i < mine; i += blockDim.x) a.queue[base + i] = local[i];
        if (!grid_sync(a.barrier)) return;  // the host reports a barrier that gave up
        first = end;
        end += load_fresh(added);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) a.counts[3] = l;
}
// [built-kernel-end]

// [kept-args-begin]
struct KeptArgs {
    const edge_t* offsets;
    const vertex_t* edges;
    vertex_t* queue;          // what blocks could not keep, every level's after the last
    bfs_u32* counts;          // spilled at level l: counts[l % 3]; [3] the most a block found
                              // at one level, [4] entries spilled in all
    level_t* levels;          // -1 but the source's
    vertex_t* parents;
    bfs_u32* visited;         // the source's bit alone
    GridBarrier* barrier;
    bfs_u32 depth;            // levels of this search (the source's is level 0)
    vertex_t source;
    bfs_u32 keep;             // the most a block keeps at a level (at most LOCAL_ENTRIES)
};
// [kept-args-end]

// [kept-kernel-begin]
// The same levels, each block keeping what it claims for itself: its next level reads
// those vertices from its own shared memory, and nothing goes to global memory or takes
// room there, but what does not fit (LOCAL_ENTRIES a block), which goes to a global queue
// that the whole grid reads, as built_frontiers' does. A block's share of a frontier is
// what its threads happened to claim: nothing evens the shares out but the spill, past
// `keep` vertices a block (LOCAL_ENTRIES, or fewer). Like given_frontiers, it is told
// how many levels the search has.
extern "C" __global__ void kept_frontiers(const KeptArgs a)
{
    __shared__ vertex_t kept[2][LOCAL_ENTRIES];
    __shared__ bfs_u32 kept_count[2];
    const bfs_u32 threads = gridDim.x * blockDim.x;
    const bfs_u32 me = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        kept_count[0] = blockIdx.x == 0 ? 1u : 0u;  // block 0 keeps the source
        kept[0][0] = a.source;
    }
    bfs_u32 first = 0, end = 0;  // the spilled part of this level's frontier
    for (bfs_u32 l = 0; l + 1 < a.depth; l++) {
        const bfs_u32 now = l & 1u, next = now ^ 1u;
        bfs_u32* spilled = &a.counts[l % 3];
        if (threadIdx.x == 0) kept_count[next] = 0;
        // Read at the start of level l - 1 (two crossings ago), added to at level l + 1.
        if (blockIdx.x == 0 && threadIdx.x == 0) a.counts[(l + 1) % 3] = 0;
        __syncthreads();
        const auto keep = [&](vertex_t u) {
            const bfs_u32 slot = atomicAdd(&kept_count[next], 1u);
            if (slot < a.keep) kept[next][slot] = u;
            else a.queue[end + atomicAdd(spilled, 1u)] = u;  // the block's part is full
        };
        // The block's own vertices, by its threads alone; then the spilled ones, by all.
        const bfs_u32 own = kept_count[now] < a.keep ? kept_count[now] : a.keep;
        const bfs_u32 k = lanes_log(own, blockDim.x);
        for (bfs_u32 t = threadIdx.x; t < (own << k); t += blockDim.x)
            visit_part(a, kept[now][t >> k], t & ((1u << k) - 1), k, l + 1, keep);
        const bfs_u32 count = end - first;
        const bfs_u32 ks = lanes_log(count, threads);
        for (bfs_u32 t = me; t < (count << ks); t += threads) {
            const vertex_t v = (vertex_t)load_fresh((const bfs_u32*)&a.queue[first + (t >> ks)]);
            visit_part(a, v, t & ((1u << ks) - 1), ks, l + 1, keep);
        }
        const bool crossed = grid_sync(a.barrier, [&] {
            const bfs_u32 found = kept_count[next];
            atomicMax(&a.counts[3], found);
            if (found > a.keep) atomicAdd(&a.counts[4], found - a.keep);
        });
        if (!crossed) return;  // the host reports a barrier that gave up
        first = end;
        end += load_fresh(spilled);
    }
}
// [kept-kernel-end]
