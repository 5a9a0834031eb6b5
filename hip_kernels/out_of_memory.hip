// Step 9: a graph whose edges stay in host memory.
//
// The vertex arrays (offsets, levels, parents, the frontier queues) are on the device;
// the edge array is not. The host drives the levels, each in one of three ways:
//
// subgraph:  the device writes the degree of each frontier vertex, an exclusive scan
//            turns them into the offsets of the level's subgraph, the host gathers the
//            frontier's out-lists into a small array, copies it over, and one thread
//            per subgraph edge expands it.
// zero_copy: the kernels read the edges from pinned host memory through a mapped
//            pointer, a warp's lanes in consecutive addresses, so that each request
//            over the bus carries whole sectors.
// managed:   the same kernels over unified memory, which the driver migrates on demand.
//
// In every mode a level may also pull (step 6's bottom-up direction): in the last two a
// warp per vertex not reached yet reads its in-list, a warp's width at a time, and stops
// at the first in-neighbour on the frontier; the subgraph mode gathers the first edges
// of those in-lists, then the rest for the vertices not found (oom_pull_candidates,
// oom_pull_subgraph). And while the frontier is small, one block runs level after
// level in one launch (oom_single, chapter 5's single block).
//
// The threads of a launch stride over their work, so a launch of any shape covers it.
// The rungs of the step (chapter 9), each a macro that the host sets:
//   OOM_AGGREGATE  1: a warp reserves its queue slots with one atomic, and a block adds
//                  its counts once; 0: an atomic per vertex found and per list read.
//   OOM_EDGE_PUSH  1: a mapped push level gives each thread one edge of the frontier's
//                  lists (the subgraph's scan says whose); 0: a warp per vertex.
//   OOM_ALIGNED    1: a warp reads a list in runs that begin at a multiple of its width
//                  (whole 128-byte lines); 0: runs that begin where the list does.
#include "bfs_common.h"
#include "out_of_memory_args.h"

#ifndef OOM_AGGREGATE
#define OOM_AGGREGATE 1
#endif
#ifndef OOM_EDGE_PUSH
#define OOM_EDGE_PUSH 1
#endif
#ifndef OOM_ALIGNED
#define OOM_ALIGNED 1
#endif
// Edges the single block's thread reads at once: the loads go out together.
#ifndef OOM_SB_BATCH
#define OOM_SB_BATCH 4
#endif

// [oom-visit-begin]
__device__ inline edge_t out_degree(const OutOfMemoryArgs& a, vertex_t v)
{
    return a.offsets[v + 1] - a.offsets[v];
}

// The edge v -> u of a level: claim u if no one has (step 2's atomicCAS; a plain read
// first, since most are reached) and record v as its parent. True if this thread won.
__device__ inline bool claim(const OutOfMemoryArgs& a, level_t level, vertex_t v, vertex_t u)
{
    if (a.levels[u] != -1 || atomicCAS(&a.levels[u], -1, level + 1) != -1) return false;
    a.parents[u] = v;
    return true;
}

// The slot of this lane's item among the warp's (the lanes where `mine`), reserved for
// them all with one atomicAdd on `counter`: a ballot says which lanes have one, and
// lane k's comes after those of the lanes below it. Every lane of the warp calls it.
__device__ inline bfs_u64 warp_slot(bool mine, bfs_u64* counter)
{
    const lane_mask_t lanes = warp_ballot(mine);
    if (!lanes) return 0;
    bfs_u64 first = 0;
    if (lane_id() == 0) first = atomicAdd(counter, (bfs_u64)__popcll((bfs_u64)lanes));
    first = (bfs_u64)warp_shfl((bfs_i64)first, 0);
    const lane_mask_t below = (lane_mask_t)((((bfs_u64)1) << lane_id()) - 1);
    return first + (bfs_u64)__popcll((bfs_u64)(lanes & below));
}

// Put what this warp claimed (u, in the lanes where `claimed`) in the next queue: with
// OOM_AGGREGATE in slots warp_slot reserves with one atomic, else an atomic each.
// Every lane calls it.
__device__ inline void append(const OutOfMemoryArgs& a, level_t level, bool claimed, vertex_t u)
{
    vertex_t* next = a.queues[(level + 1) % 2];
#if OOM_AGGREGATE
    const bfs_u64 slot = warp_slot(claimed, &a.counts->vertices);
    if (claimed) next[slot] = u;
#else
    if (claimed) next[atomicAdd(&a.counts->vertices, (bfs_u64)1)] = u;
#endif
}
// [oom-visit-end]

// [oom-tally-begin]
// What a thread counted over its share of a level: the out-edges of what it claimed
// (the next level's m_f), and the edges it read from host memory and the 32-byte
// sectors they span.
struct OomTally {
    bfs_u64 edges, read, sectors;
};

// The warp's tallies summed by shuffles, in every lane. Every lane of the warp calls it.
__device__ inline OomTally warp_tally(OomTally t)
{
    for (int d = WARP_SIZE / 2; d > 0; d /= 2) {
        const int other = (int)(lane_id() ^ (unsigned)d);
        t.edges += (bfs_u64)warp_shfl((bfs_i64)t.edges, other);
        t.read += (bfs_u64)warp_shfl((bfs_i64)t.read, other);
        t.sectors += (bfs_u64)warp_shfl((bfs_i64)t.sectors, other);
    }
    return t;
}

// Lane 0 adds the warp's tally to `sums` (three counters in shared memory), if any.
__device__ inline void add_warp_tally(OomTally t, bfs_u64* sums)
{
    t = warp_tally(t);
    if (lane_id() == 0 && (t.edges | t.read | t.sectors)) {
        atomicAdd(&sums[0], t.edges);
        atomicAdd(&sums[1], t.read);
        atomicAdd(&sums[2], t.sectors);
    }
}

// Add every thread's tally to the level's counts: with OOM_AGGREGATE a sum across the
// warp by shuffles, one shared atomic per warp and one global atomic per block (`sums`,
// three zeros in shared memory); else an atomic per thread. Every thread calls it once.
__device__ inline void add_tally(OomTally t, bfs_u64* sums, OomCounts* counts)
{
#if OOM_AGGREGATE
    add_warp_tally(t, sums);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&counts->edges, sums[0]);
        atomicAdd(&counts->read, sums[1]);
        atomicAdd(&counts->sectors, sums[2]);
    }
#else
    (void)sums;
    if (t.edges) atomicAdd(&counts->edges, t.edges);
    if (t.read) atomicAdd(&counts->read, t.read);
    if (t.sectors) atomicAdd(&counts->sectors, t.sectors);
#endif
}

// The shared sums of add_tally, zeroed before any thread adds to them.
#define OOM_SHARED_SUMS(name)                          \
    __shared__ bfs_u64 name[3];                        \
    if (threadIdx.x < 3) name[threadIdx.x] = 0;        \
    __syncthreads()

// The 32-byte sectors that the edges [begin, end) of a host array span.
__device__ inline bfs_u64 sectors_of(edge_t begin, edge_t end)
{
    const bfs_u64 per_sector = 32 / sizeof(vertex_t);
    return end > begin ? (bfs_u64)(end + per_sector - 1) / per_sector - (bfs_u64)begin / per_sector
                       : 0;
}

// Where a warp's first run over the list beginning at `begin` starts: at a multiple of
// the warp's width with OOM_ALIGNED (lanes before `begin` read nothing), so that each
// run is one whole line of the host array.
__device__ inline edge_t first_run(edge_t begin)
{
    return OOM_ALIGNED ? begin - begin % WARP_SIZE : begin;
}
// [oom-tally-end]

// [oom-degrees-begin]
// A push level, first (subgraph mode, and zero_copy and managed with OOM_EDGE_PUSH):
// the degree of each frontier vertex, which an exclusive scan (graph_prep.hip's
// scan_tiles...) turns into where its list begins in the level's subgraph. In the
// mapped modes the lists will be read in place: each is counted here.
extern "C" __global__ void oom_frontier_degrees(const OutOfMemoryArgs a, level_t level,
                                                bfs_u32 frontier_size)
{
    OOM_SHARED_SUMS(sums);
    const vertex_t* frontier = a.queues[level % 2];
    const bfs_u32 stride = gridDim.x * blockDim.x;
    OomTally mine = {0, 0, 0};
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < frontier_size; i += stride) {
        const vertex_t v = frontier[i];
        const edge_t begin = a.offsets[v], end = a.offsets[v + 1];
        a.sub_offsets[i] = (bfs_u64)(end - begin);
        if (a.host_edges) {
            mine.read += (bfs_u64)(end - begin);
            mine.sectors += sectors_of(begin, end);
        }
    }
    add_tally(mine, sums, a.counts);
}
// [oom-degrees-end]

// [oom-expand-edges-begin]
// The list that edge `e` of a level's subgraph belongs to: the last of the `count` lists
// whose start (`starts`, scanned) is at or before it. A list of no edges starts where
// the next one does, so the search passes over it.
__device__ inline bfs_u32 list_of(const bfs_u64* starts, bfs_u32 count, bfs_u64 e)
{
    bfs_u32 lo = 0, hi = count;  // starts[lo] <= e < starts[hi]
    while (hi - lo > 1) {
        const bfs_u32 mid = lo + (hi - lo) / 2;
        if (starts[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

// A push level, last: one thread per edge [first, first + count) of the level's
// subgraph. The thread finds the frontier vertex the edge leaves (list_of: a binary
// search in the scanned offsets), reads the edge from
// `sub_edges` (subgraph mode: the chunk the host copied over) or from host memory in
// place (the mapped modes, which have host_edges), and visits it. Neighbouring threads read
// neighbouring edges of a list, so a hub's list is read by many warps at once.
extern "C" __global__ void oom_expand_edges(const OutOfMemoryArgs a, const vertex_t* sub_edges,
                                            level_t level, bfs_u32 frontier_size,
                                            bfs_u64 first, bfs_u64 count)
{
    OOM_SHARED_SUMS(sums);
    const vertex_t* frontier = a.queues[level % 2];
    const bfs_u64 stride = (bfs_u64)gridDim.x * blockDim.x;
    OomTally mine = {0, 0, 0};
    // The bound is the same for the whole warp: every lane takes part in append's ballot.
    const bfs_u64 warp_first = (bfs_u64)blockIdx.x * blockDim.x + warp_id() * WARP_SIZE;
    for (bfs_u64 base = warp_first; base < count; base += stride) {
        const bfs_u64 j = base + lane_id();
        bool claimed = false;
        vertex_t u = -1;
        if (j < count) {
            const bfs_u64 e = first + j;
            const bfs_u32 lo = list_of(a.sub_offsets, frontier_size, e);
            const vertex_t v = frontier[lo];
            u = a.host_edges ? a.host_edges[a.offsets[v] + (edge_t)(e - a.sub_offsets[lo])]
                             : sub_edges[j];
            claimed = claim(a, level, v, u);
            if (claimed) mine.edges += (bfs_u64)out_degree(a, u);
        }
        append(a, level, claimed, u);
    }
    add_tally(mine, sums, a.counts);
}
// [oom-expand-edges-end]

// [oom-subgraph-pull-kernels-begin]
__device__ inline edge_t in_degree(const OutOfMemoryArgs& a, vertex_t v)
{
    return a.in_offsets[v + 1] - a.in_offsets[v];
}

// subgraph, a pull level, first: the vertices not reached yet whose in-lists go on past
// `skip` edges, each with how many of its in-edges the host is to gather next (at most
// `limit`), listed in the level's own queue (a pull level does not read it) and in
// sub_offsets, for the scan; counts->candidates gets how many. A warp lists its
// vertices with one atomic.
extern "C" __global__ void oom_pull_candidates(const OutOfMemoryArgs a, level_t level,
                                               bfs_u64 skip, bfs_u64 limit)
{
    const bfs_u64 n = (bfs_u64)a.num_vertices;
    const bfs_u64 stride = (bfs_u64)gridDim.x * blockDim.x;
    const bfs_u64 warp_first = (bfs_u64)blockIdx.x * blockDim.x + warp_id() * WARP_SIZE;
    for (bfs_u64 base = warp_first; base < n; base += stride) {
        const vertex_t v = (vertex_t)(base + lane_id());
        const bool listed = base + lane_id() < n && a.levels[v] == -1
                            && (bfs_u64)in_degree(a, v) > skip;
        const bfs_u64 slot = warp_slot(listed, &a.counts->candidates);
        if (listed) {
            const bfs_u64 rest = (bfs_u64)in_degree(a, v) - skip;
            a.queues[level % 2][slot] = v;
            a.sub_offsets[slot] = rest < limit ? rest : limit;
        }
    }
}

// subgraph, a pull level, last: one thread per gathered in-edge u -> v (v's in the
// candidate list, found by a binary search as in oom_expand_edges): when u is on the
// frontier, v is claimed (atomicCAS: several of its in-edges may hit) with u as its
// parent, and appended to the next queue.
extern "C" __global__ void oom_pull_subgraph(const OutOfMemoryArgs a, const vertex_t* sub_edges,
                                             level_t level, bfs_u32 listed, bfs_u64 first,
                                             bfs_u64 count)
{
    OOM_SHARED_SUMS(sums);
    const vertex_t* candidates = a.queues[level % 2];
    const bfs_u64 stride = (bfs_u64)gridDim.x * blockDim.x;
    OomTally mine = {0, 0, 0};
    const bfs_u64 warp_first = (bfs_u64)blockIdx.x * blockDim.x + warp_id() * WARP_SIZE;
    for (bfs_u64 base = warp_first; base < count; base += stride) {
        const bfs_u64 j = base + lane_id();
        bool claimed = false;
        vertex_t v = -1;
        if (j < count) {
            const bfs_u32 lo = list_of(a.sub_offsets, listed, first + j);
            v = candidates[lo];
            const vertex_t u = sub_edges[j];
            claimed = a.levels[u] == level && atomicCAS(&a.levels[v], -1, level + 1) == -1;
            if (claimed) {
                a.parents[v] = u;
                mine.edges += (bfs_u64)out_degree(a, v);
            }
        }
        append(a, level, claimed, v);
    }
    add_tally(mine, sums, a.counts);
}
// [oom-subgraph-pull-kernels-end]

// [oom-expand-mapped-begin]
// zero_copy and managed, a push level without OOM_EDGE_PUSH: a warp per frontier vertex
// reads its out-list straight from host memory, lane k the k-th edge of each run of
// WARP_SIZE, so that the warp's reads are consecutive and the bus carries whole
// sectors. Lane 0 counts the edges and the 32-byte sectors the list spans: what crosses
// the bus, at the least, for this vertex.
extern "C" __global__ void oom_expand_mapped(const OutOfMemoryArgs a, level_t level,
                                             bfs_u32 frontier_size)
{
    OOM_SHARED_SUMS(sums);
    const vertex_t* frontier = a.queues[level % 2];
    const bfs_u32 warps = gridDim.x * (blockDim.x / WARP_SIZE);
    OomTally mine = {0, 0, 0};
    for (bfs_u32 w = blockIdx.x * (blockDim.x / WARP_SIZE) + warp_id(); w < frontier_size;
         w += warps) {
        const vertex_t v = frontier[w];
        const edge_t begin = a.offsets[v], end = a.offsets[v + 1];
        for (edge_t run = first_run(begin); run < end; run += WARP_SIZE) {
            const edge_t e = run + (edge_t)lane_id();
            bool claimed = false;
            vertex_t u = -1;
            if (e >= begin && e < end) {
                u = a.host_edges[e];
                claimed = claim(a, level, v, u);
                if (claimed) mine.edges += (bfs_u64)out_degree(a, u);
            }
            append(a, level, claimed, u);
        }
        if (lane_id() == 0) {
            mine.read += (bfs_u64)(end - begin);
            mine.sectors += sectors_of(begin, end);
        }
    }
    add_tally(mine, sums, a.counts);
}
// [oom-expand-mapped-end]

// [oom-pull-mapped-begin]
// zero_copy and managed, a pull level: each warp takes WARP_SIZE vertices in a row, one
// a lane, and the lanes whose vertex is not reached yet (and has in-edges) are served in
// turn by the whole warp, which reads the vertex's in-list from host memory a warp's
// width at a time and stops at the first run that holds an in-neighbour on the frontier
// (levels[u] == level: no bitmap is needed, the device has the levels). Only this warp
// looks at v, so no atomic claims it; the warp appends what it found at once.
extern "C" __global__ void oom_pull_mapped(const OutOfMemoryArgs a, level_t level)
{
    OOM_SHARED_SUMS(sums);
    const bfs_u64 n = (bfs_u64)a.num_vertices;
    const bfs_u64 stride = (bfs_u64)gridDim.x * blockDim.x;
    const unsigned lane = lane_id();
    OomTally mine = {0, 0, 0};
    const bfs_u64 warp_first = (bfs_u64)blockIdx.x * blockDim.x + warp_id() * WARP_SIZE;
    for (bfs_u64 base = warp_first; base < n; base += stride) {
        const vertex_t v = (vertex_t)(base + lane);
        edge_t begin = 0, end = 0;
        if (base + lane < n && a.levels[v] == -1) {
            begin = a.in_offsets[v];
            end = a.in_offsets[v + 1];
        }
        vertex_t parent = -1;  // of this lane's vertex
        for (lane_mask_t open = warp_ballot(end > begin); open; open &= open - 1) {
            const int owner = __ffsll((bfs_u64)open) - 1;  // the lowest lane still open
            const edge_t b = warp_shfl((bfs_i64)begin, owner);
            const edge_t stop_at = warp_shfl((bfs_i64)end, owner);
            vertex_t found = -1;
            edge_t stop = stop_at;
            for (edge_t run = first_run(b); run < stop_at; run += WARP_SIZE) {
                const edge_t e = run + (edge_t)lane;
                const vertex_t u = e >= b && e < stop_at ? a.host_in_edges[e] : -1;
                const lane_mask_t hits = warp_ballot(u != -1 && a.levels[u] == level);
                if (hits) {  // the lowest lane that hit gives the parent
                    found = warp_shfl(u, __ffsll((bfs_u64)hits) - 1);
                    stop = run + WARP_SIZE < stop_at ? run + WARP_SIZE : stop_at;
                    break;  // the early exit that makes pulling cheap
                }
            }
            if (lane == 0) {
                mine.read += (bfs_u64)(stop - b);
                mine.sectors += sectors_of(b, stop);
            }
            if ((int)lane == owner) parent = found;
        }
        const bool claimed = parent != -1;
        if (claimed) {
            a.levels[v] = level + 1;
            a.parents[v] = parent;
            mine.edges += (bfs_u64)out_degree(a, v);
        }
        append(a, level, claimed, v);
    }
    add_tally(mine, sums, a.counts);
}
// [oom-pull-mapped-end]

// [oom-single-begin]
// One vertex of the single block's frontier, in shared memory: where its out-list lies.
struct SbEntry {
    edge_t begin;
    vertex_t vertex;
    bfs_u32 degree;
};

// An exclusive scan of values[0, count) in place, by the whole block: each thread sums a
// run of consecutive values, the warps scan the runs' sums by shuffles, warp 0 scans
// the warps' totals (`warp_sums`: WARP_SIZE + 1 words of shared memory), and each
// thread writes its run's starts. Returns the total. Every thread of the block calls it.
__device__ inline bfs_u32 block_exclusive_scan(bfs_u32* values, bfs_u32 count, bfs_u32* warp_sums)
{
    const bfs_u32 per = (count + blockDim.x - 1) / blockDim.x;
    const bfs_u32 lo = min(count, threadIdx.x * per), hi = min(count, lo + per);
    bfs_u32 mine = 0;
    for (bfs_u32 i = lo; i < hi; i++) mine += values[i];
    const int lane = (int)lane_id();
    bfs_u32 scan = mine;  // inclusive, over the lanes
    for (int d = 1; d < WARP_SIZE; d *= 2) {
        const bfs_u32 below = (bfs_u32)warp_shfl((bfs_i32)scan, lane >= d ? lane - d : lane);
        if (lane >= d) scan += below;
    }
    if (lane == WARP_SIZE - 1) warp_sums[warp_id()] = scan;
    __syncthreads();
    if (warp_id() == 0) {
        const bfs_u32 warps = blockDim.x / WARP_SIZE;
        const bfs_u32 total = (bfs_u32)lane < warps ? warp_sums[lane] : 0;
        bfs_u32 before = total;
        for (int d = 1; d < WARP_SIZE; d *= 2) {
            const bfs_u32 below = (bfs_u32)warp_shfl((bfs_i32)before, lane >= d ? lane - d : lane);
            if (lane >= d) before += below;
        }
        if ((bfs_u32)lane < warps) warp_sums[lane] = before - total;  // the warp's start
        if (lane == WARP_SIZE - 1) warp_sums[WARP_SIZE] = before;      // and the sum of all
    }
    __syncthreads();
    bfs_u32 start = warp_sums[warp_id()] + scan - mine;
    for (bfs_u32 i = lo; i < hi; i++) {
        const bfs_u32 value = values[i];
        values[i] = start;
        start += value;
    }
    const bfs_u32 total = warp_sums[WARP_SIZE];
    __syncthreads();  // every start written before any thread searches them
    return total;
}

// zero_copy and managed, small frontiers: one block runs level after level in one
// launch, as chapter 5's single block does, with no trip to the host between them. The
// frontier lies in shared memory, each vertex with its list (`capacity` entries in
// each of two buffers, this level's and the next's, then the scan's starts: dynamic
// shared memory). A level scans the frontier's degrees, and each thread takes every
// blockDim.x-th edge of the level, OOM_SB_BATCH at once (their loads go out together),
// finds whose it is by a binary search in the starts and reads it from host memory: a
// hub's list is read by the whole block, neighbouring threads in neighbouring
// addresses. A claim is an atomicCAS straight away, the target's offsets read beside
// it: its entry in the next frontier. The block goes on while the next frontier has at
// most `capacity` vertices and `max_edges` out-edges and Beamer's rule says push (with
// `alpha`; 0: push always; `unexplored` is its m_u), and it stops at level `last` (the
// depth limit, or the room in `records`): then the host takes over, from the queue in
// global memory, which the block fills too. Each level leaves its counts in
// records[level - first level]; `ran` gets how many levels. (`s` says all this.)
extern "C" __global__ void oom_single(const OutOfMemoryArgs a, const OomSingleArgs s)
{
    const bfs_u32 capacity = s.capacity, alpha = s.alpha;
    const bfs_u64 max_edges = s.max_edges;
    const level_t last = s.last;
    OomCounts* const records = s.records;
    level_t level = s.level;
    bfs_u32 frontier_size = s.frontier_size;
    bfs_u64 unexplored = s.unexplored;
    DYNAMIC_SHARED(SbEntry, shared_entries);
    SbEntry* const entries[2] = {shared_entries, shared_entries + capacity};
    bfs_u32* const starts = (bfs_u32*)(shared_entries + 2 * capacity);
    __shared__ bfs_u32 next_size;
    __shared__ bfs_u64 sums[3];  // the level's m_f, edges read and sectors
    __shared__ bfs_u32 warp_sums[WARP_SIZE + 1];
    const level_t first_level = level;
    for (bfs_u32 i = threadIdx.x; i < frontier_size; i += blockDim.x) {  // from the host
        const vertex_t v = a.queues[level % 2][i];
        const edge_t begin = a.offsets[v];
        entries[level % 2][i] = {begin, v, (bfs_u32)(a.offsets[v + 1] - begin)};
    }
    for (; frontier_size > 0 && level < last; level++) {
        const SbEntry* here = entries[level % 2];
        SbEntry* there = entries[(level + 1) % 2];
        vertex_t* next = a.queues[(level + 1) % 2];
        if (threadIdx.x == 0) next_size = 0;
        if (threadIdx.x < 3) sums[threadIdx.x] = 0;
        OomTally mine = {0, 0, 0};
        for (bfs_u32 i = threadIdx.x; i < frontier_size; i += blockDim.x) {
            const SbEntry e = here[i];
            starts[i] = e.degree;
            mine.read += e.degree;
            mine.sectors += sectors_of(e.begin, e.begin + (edge_t)e.degree);
        }
        __syncthreads();
        const bfs_u32 edges = block_exclusive_scan(starts, frontier_size, warp_sums);
        for (bfs_u32 first = threadIdx.x; first < edges; first += OOM_SB_BATCH * blockDim.x) {
            vertex_t u[OOM_SB_BATCH], v[OOM_SB_BATCH];
            for (int k = 0; k < OOM_SB_BATCH; k++) {
                const bfs_u32 j = first + (bfs_u32)k * blockDim.x;
                u[k] = -1;
                if (j >= edges) continue;
                bfs_u32 lo = 0, hi = frontier_size;  // starts[lo] <= j < starts[hi]
                while (hi - lo > 1) {
                    const bfs_u32 mid = lo + (hi - lo) / 2;
                    if (starts[mid] <= j) lo = mid; else hi = mid;
                }
                v[k] = here[lo].vertex;
                u[k] = a.host_edges[here[lo].begin + (edge_t)(j - starts[lo])];
            }
            for (int k = 0; k < OOM_SB_BATCH; k++) {
                if (u[k] == -1) continue;
                const edge_t begin = a.offsets[u[k]], end = a.offsets[u[k] + 1];
                if (atomicCAS(&a.levels[u[k]], -1, level + 1) != -1) continue;
                a.parents[u[k]] = v[k];
                const bfs_u32 slot = atomicAdd(&next_size, 1u);
                next[slot] = u[k];
                if (slot < capacity) there[slot] = {begin, u[k], (bfs_u32)(end - begin)};
                mine.edges += (bfs_u64)(end - begin);
            }
        }
        add_warp_tally(mine, sums);  // a shared atomic per warp, not per thread
        __syncthreads();
        const bfs_u32 previous_size = frontier_size;
        frontier_size = next_size;  // the same in every thread
        const bfs_u64 next_edges = sums[0];
        unexplored -= next_edges;
        if (threadIdx.x == 0) {
            OomCounts* r = &records[level - first_level];
            r->vertices = next_size;
            r->edges = sums[0];
            r->read = sums[1];
            r->sectors = sums[2];
        }
        __syncthreads();  // before thread 0 zeroes next_size again
        const bool pull = alpha && next_edges * alpha > unexplored && frontier_size > previous_size;
        if (frontier_size > capacity || next_edges > max_edges || pull) {
            level++;  // that level is done; the next is the grid's
            break;
        }
    }
    if (threadIdx.x == 0) *s.ran = (bfs_u32)(level - first_level);
}
// [oom-single-end]
