// Step 5: one launch, many levels (PMPP 15.7).
//
// Steps 1 to 4 go back to the host after every level: a launch, a read-back of the next
// frontier's size and a synchronize, about 20 microseconds, for a level that on a road
// network is a few microseconds of work. Here the levels run on the device, one after
// another, and the host waits once. Two kernels share the work:
//
//   persistent_single   one block runs level after level while the frontier fits its
//                       shared memory: both queues and the visited bitmap are there,
//                       and a level ends with __syncthreads;
//   persistent_grid     a cooperative launch (every block resident at once) runs the
//                       levels whose frontier is too big for one block, with step 4's
//                       degree-sorted queues in global memory and grid_sync between
//                       levels.
//
// Each kernel runs levels until the frontier no longer suits it, writes where it
// stopped into a Control record in device memory, and returns; the other kernel,
// launched behind it on the same stream, carries on from there. A kernel launched when
// it is not its turn returns at once.
#include "frontier.h"

// [persistent-tunables-begin]
// The single block's tunables (the grid's are step 4's, in frontier.h); defaults are in
// tunables() of rodinia_bfs/variants/persistent.py.
#ifndef SB_BLOCK_SIZE
#error "compile with -DSB_BLOCK_SIZE=<threads of the single block>"
#endif
#ifndef SB_CAPACITY
#error "compile with -DSB_CAPACITY=<entries of each of the single block's two queues>"
#endif
#ifndef SB_EDGE_LIMIT
#error "compile with -DSB_EDGE_LIMIT=<most edges of a level the single block expands>"
#endif
#ifndef EDGE_BATCH
#error "compile with -DEDGE_BATCH=<edges a thread loads before it claims any>"
#endif
#ifndef SHARED_BITMAP
#error "compile with -DSHARED_BITMAP=<1: visited bitmap in shared memory, 0: in global>"
#endif
#ifndef EDGE_RECORDS
#error "compile with -DEDGE_RECORDS=<1: each edge carries its target's list, 0: it does not>"
#endif
#ifndef HAND_BACK
#error "compile with -DHAND_BACK=<1: a frontier that shrinks goes back to the single block>"
#endif
#ifndef VP_MAX_DEGREE
#error "compile with -DVP_MAX_DEGREE=<a thread per vertex while no frontier vertex has more edges; 0: never>"
#endif
#ifndef VP_MAX_VERTICES
#error "compile with -DVP_MAX_VERTICES=<a thread per vertex while the frontier has at most this many>"
#endif
#if SB_BLOCK_SIZE % WARP_SIZE != 0
#error "SB_BLOCK_SIZE must be a multiple of WARP_SIZE: the single block appends by whole warps"
#endif
#if SB_CAPACITY < 1 || EDGE_BATCH < 1 || SB_EDGE_LIMIT < 0 || VP_MAX_DEGREE < 0 || VP_MAX_VERTICES < 0
#error "need SB_CAPACITY >= 1, EDGE_BATCH >= 1, and SB_EDGE_LIMIT, VP_MAX_DEGREE, VP_MAX_VERTICES >= 0"
#endif
#if SB_EDGE_LIMIT >= (1 << 20)
#error "SB_EDGE_LIMIT must be below 2^20: a level's counts share one 8-byte counter"
#endif
// [persistent-tunables-end]

// [persistent-control-begin]
// What the kernels leave for each other, and for the host, in device memory.
struct Control {
    bfs_u32 mode;       // who runs the next level (SINGLE, GRID), or how the search ended
    level_t level;      // the level of the current frontier (at DONE: the levels run)
    vertex_t source;
    bfs_u32 enqueued;   // vertices queued so far in this search: the runaway guard
    bfs_u32 pieces;     // pieces of large vertices queued so far, likewise
    // What step 7's direction rule needs when its grid takes over: the vertices of the
    // level before `level`, and the edges out of every level before `level`.
    bfs_u32 previous;
    bfs_u64 visited_edges;
};
#define MODE_SINGLE 1
#define MODE_GRID 2
#define MODE_DONE 3
#define MODE_RUNAWAY 4  // more levels, vertices or pieces than the graph has: a bug
#define MODE_FAILED 5   // a grid barrier gave up: a block never arrived (a bug)
// In a LevelStamp only: the single block ran the level with a thread per vertex
// (expand_vertices; MODE_SINGLE: a thread per edge).
#define STAMP_SINGLE_BY_VERTEX 7
// [persistent-control-end]

// The visited bitmap: bit u % WORD_BITS of word u / WORD_BITS is set once u is reached.
#define WORD_BITS (8u * (bfs_u32)sizeof(bfs_u32))
__device__ inline bfs_u32 bitmap_words(vertex_t n) { return ((bfs_u32)n + WORD_BITS - 1) / WORD_BITS; }
__device__ inline bfs_u32 bitmap_bit(vertex_t u) { return 1u << ((bfs_u32)u % WORD_BITS); }

// [persistent-record-begin]
// With EDGE_RECORDS, edge e of the graph is stored with what the next level needs to
// know about its target: where the target's own list begins and how long it is. A
// thread that reads edge e then needs no second load (offsets[u]) before it can queue u.
struct __align__(16) EdgeRecord {
    vertex_t vertex;
    bfs_u32 degree;
    edge_t begin;
};
// [persistent-record-end]

// The grid's queues: two of each (this level's and the next, by level parity), and three
// sets of counters, used in turn: level L reads set L % 3, counts the next level into
// set (L + 1) % 3 and clears set (L + 2) % 3, which everyone read a barrier ago.
struct GridQueues {
    vertex_t* smalls;  // 2 * n
    vertex_t* mediums; // 2 * n
    Piece* larges;     // 2 * large_capacity
    bfs_u32 large_capacity;
    bfs_u32* counts;   // 3 sets of QUEUES counters, COUNTER_STRIDE apart
    vertex_t n;

    __device__ vertex_t* small(level_t l) const { return smalls + (l % 2) * (edge_t)n; }
    __device__ vertex_t* medium(level_t l) const { return mediums + (l % 2) * (edge_t)n; }
    __device__ Piece* large(level_t l) const { return larges + (l % 2) * (edge_t)large_capacity; }
    __device__ bfs_u32* counters(level_t l) const { return counts + (l % 3) * QUEUES * COUNTER_STRIDE; }
    // Written by other blocks before a grid barrier: read past this SM's cache.
    __device__ bfs_u32 count(level_t l, int queue) const
    {
        return *(volatile bfs_u32*)&counters(l)[queue * COUNTER_STRIDE];
    }
};

// The Level of frontier.h for expanding `level` into the grid's queues of level + 1.
__device__ inline Level grid_level(const GridQueues& Q, const edge_t* offsets,
                                   const vertex_t* edges, level_t* levels, vertex_t* parents,
                                   level_t level, LocalQueues* local)
{
    const level_t next = level + 1;
    return Level{offsets, edges, levels, parents, next, Q.small(next), Q.medium(next),
                 Q.large(next), Q.counters(next), local, nullptr};
}

// [persistent-clock-begin]
// What a profile run records for each level, when the level starts: the device clock
// (device_clock() of bfs_common.h, which every block reads alike), which kernel runs the
// level (MODE_SINGLE or MODE_GRID) and how many queue entries it has. One thread writes
// it; the host reads the whole record once, after the search.
struct LevelStamp {
    bfs_u64 clock;
    bfs_u32 kernel;
    bfs_u32 entries;
};

__device__ inline void stamp(LevelStamp* stamps, bfs_u32 capacity, level_t level,
                             bfs_u32 kernel, bfs_u32 entries)
{
    if ((bfs_u32)level < capacity) stamps[level] = LevelStamp{device_clock(), kernel, entries};
}
// [persistent-clock-end]

// ---------------------------------------------------------------------------------------
// The single block
// ---------------------------------------------------------------------------------------

// [persistent-counter-begin]
// The single block counts a level's queue in one 64-bit shared counter: the vertices in
// the top bits, their edges in the low 40. One atomicAdd then gives a warp both its
// first slot and its first edge, so the slots' edge ranges follow slot order and form
// the prefix sum the next level searches. A level of at most SB_EDGE_LIMIT (< 2^20) edges
// finds fewer than 2^20 new vertices, and each adds at most SB_EDGE_LIMIT + 1 edges
// (larger degrees are clamped: such a level goes to the grid anyway), so the low part
// never carries into the count.
#define COUNT_SHIFT 40
#define EDGE_MASK ((1ull << COUNT_SHIFT) - 1ull)

__device__ inline bfs_u64 counted_edges(bfs_u32 degree)
{
    return degree <= SB_EDGE_LIMIT ? degree : (bfs_u64)SB_EDGE_LIMIT + 1;
}
// [persistent-counter-end]

// The single block's state: its two queues and its counters in shared memory, the
// graph and the outputs in global memory.
struct SingleBlock {
    // Two queues, SB_CAPACITY slots each; queue q holds the frontier of the levels of
    // parity q. A slot has a vertex, where its list begins, and where its edges begin
    // among the level's edges (an exclusive prefix sum of the degrees).
    vertex_t* vertices;
    edge_t* begins;
    bfs_u32* starts;
    bfs_u32* bitmap;   // visited vertices, one bit each (shared or global memory)
    vertex_t* overflow;  // what does not fit queue (level + 1) % 2: slots SB_CAPACITY and up
    bfs_u32 overflow_capacity;
    int* broken;       // set when a queue would overflow its memory: a bug
    const edge_t* offsets;
    const vertex_t* edges;
    const EdgeRecord* records;
    level_t* levels;
    vertex_t* parents;
};

// Queue q's arrays. (Computed, not indexed from an array of pointers: a pointer chosen
// by a run-time index would make the compiler keep the struct in local memory.)
struct Queue {
    vertex_t* vertex;
    edge_t* begin;
    bfs_u32* start;
};
__device__ inline Queue queue(const SingleBlock& S, int q)
{
    return Queue{S.vertices + q * SB_CAPACITY, S.begins + q * SB_CAPACITY, S.starts + q * SB_CAPACITY};
}

// [persistent-scan-begin]
// Exclusive prefix sum over the lanes of a warp, and the warp's total. Every lane calls
// it. log2(WARP_SIZE) steps of shuffles: 5 on NVIDIA and RDNA, 6 on CDNA.
__device__ inline bfs_u64 warp_exclusive_sum(bfs_u64 x, bfs_u64* total)
{
    const int lane = (int)lane_id();
    bfs_u64 inclusive = x;
    for (int d = 1; d < WARP_SIZE; d *= 2) {
        const bfs_u64 below = (bfs_u64)warp_shfl((bfs_i64)inclusive, lane >= d ? lane - d : lane);
        if (lane >= d) inclusive += below;
    }
    *total = (bfs_u64)warp_shfl((bfs_i64)inclusive, WARP_SIZE - 1);
    return inclusive - x;
}
// [persistent-scan-end]

// [persistent-append-begin]
// Append to queue `q` the vertices of found[0..k) that this lane claimed (bit i of
// `mine`), for every lane of the warp at once: one shared atomicAdd per warp reserves
// the slots and the edge ranges of them all. A vertex of more than VP_MAX_DEGREE edges
// marks the queue `wide` (see expand_vertices). Every lane of the warp calls it.
__device__ inline void append(const SingleBlock& S, int q, bfs_u64* counter, bfs_u32* wide,
                              const EdgeRecord* found, bfs_u32 mine)
{
    bfs_u64 wanted = 0;  // (vertices << COUNT_SHIFT) | edges, for this lane
    for (int i = 0; i < EDGE_BATCH; i++) {
        if (!(mine & (1u << i))) continue;
        wanted += (1ull << COUNT_SHIFT) + counted_edges(found[i].degree);
        if (found[i].degree > VP_MAX_DEGREE) *wide = 1;  // every writer writes 1
    }
    bfs_u64 warp_total;
    const bfs_u64 before = warp_exclusive_sum(wanted, &warp_total);
    if (warp_total == 0) return;  // the same in every lane: nothing found
    bfs_u64 first = 0;
    if (lane_id() == 0) first = atomicAdd(counter, warp_total);
    first = (bfs_u64)warp_shfl((bfs_i64)first, 0) + before;
    bfs_u32 slot = (bfs_u32)(first >> COUNT_SHIFT);
    bfs_u64 edge = first & EDGE_MASK;
    const Queue Q = queue(S, q);
    for (int i = 0; i < EDGE_BATCH; i++) {
        if (!(mine & (1u << i))) continue;
        if (slot < SB_CAPACITY) {
            Q.vertex[slot] = found[i].vertex;
            Q.begin[slot] = found[i].begin;
            Q.start[slot] = (bfs_u32)edge;  // exact while the level has few edges
        } else if (slot - SB_CAPACITY < S.overflow_capacity) {
            S.overflow[slot - SB_CAPACITY] = found[i].vertex;  // the grid takes this level
        } else {
            *S.broken = 1;
        }
        slot++;
        edge += counted_edges(found[i].degree);
    }
}
// [persistent-append-end]


// [persistent-claim-begin]
// Claim u for the next level: one bit in the bitmap, set by exactly one thread. The
// level and parent go to global memory and are never read back by this block.
__device__ inline bool claim(const SingleBlock& S, vertex_t u, vertex_t parent, level_t next)
{
    const bfs_u32 bit = bitmap_bit(u);
    bfs_u32* word = &S.bitmap[(bfs_u32)u / WORD_BITS];
    if ((*word & bit) || (atomicOr(word, bit) & bit)) return false;
    S.levels[u] = next;
    S.parents[u] = parent;
    return true;
}
// [persistent-claim-end]

// [persistent-single-level-begin]
// Expand one level in the single block: the frontier is queue `q` (count slots, `total`
// edges); what it discovers goes to queue 1 - q, counted by `counter`. Threads take
// edges, not vertices: edge j of the level goes to thread j % SB_BLOCK_SIZE, so a vertex
// of many edges is spread over the block. Each thread first finds and loads EDGE_BATCH
// edges, so that their loads are in flight together, then claims their targets, then
// its warp appends all it found with one atomicAdd.
__device__ inline void expand_single(const SingleBlock& S, int q, bfs_u32 count, bfs_u32 total,
                                     level_t level, bfs_u64* counter, bfs_u32* wide)
{
    const Queue F = queue(S, q);
    const bfs_u32 top = 1u << (31 - __clz((int)count));  // the highest power of two <= count
    // The loop bound is the same for every lane of a warp (base is the warp's first
    // edge), so the warp calls append() together.
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < total;
         base += SB_BLOCK_SIZE * EDGE_BATCH) {
        bfs_u32 j[EDGE_BATCH], slot[EDGE_BATCH];
        for (int i = 0; i < EDGE_BATCH; i++) {
            j[i] = base + i * SB_BLOCK_SIZE + lane_id();
            slot[i] = 0;
        }
        // [persistent-search-begin]
        // Which slot's list holds edge j: the last slot whose edges start at or before j
        // (a slot of degree 0 starts where the next one does, and is passed over). A
        // binary search over the prefix sum, one step of every search at a time, so that
        // EDGE_BATCH shared-memory loads are in flight together.
        for (bfs_u32 step = top; step > 0; step /= 2) {
            for (int i = 0; i < EDGE_BATCH; i++) {
                const bfs_u32 next = slot[i] + step;
                if (j[i] < total && next < count && F.start[next] <= j[i]) slot[i] = next;
            }
        }
        // [persistent-search-end]
        EdgeRecord found[EDGE_BATCH];
        vertex_t from[EDGE_BATCH];
        for (int i = 0; i < EDGE_BATCH; i++) {
            if (j[i] >= total) continue;
            from[i] = F.vertex[slot[i]];
            const edge_t e = F.begin[slot[i]] + (j[i] - F.start[slot[i]]);
#if EDGE_RECORDS
            found[i] = S.records[e];  // the target and its list: one load
#else
            found[i].vertex = S.edges[e];
#endif
        }
        bfs_u32 mine = 0;
        for (int i = 0; i < EDGE_BATCH; i++) {
            if (j[i] >= total || !claim(S, found[i].vertex, from[i], level + 1)) continue;
#if !EDGE_RECORDS
            const vertex_t u = found[i].vertex;  // the target's list: a second load
            found[i].begin = S.offsets[u];
            found[i].degree = (bfs_u32)(S.offsets[u + 1] - found[i].begin);
#endif
            mine |= 1u << i;
        }
        append(S, 1 - q, counter, wide, found, mine);
    }
}
// [persistent-single-level-end]

// [persistent-vertex-level-begin]
// The same level with a thread per vertex, for a frontier of at most VP_MAX_VERTICES
// vertices that all have at most VP_MAX_DEGREE edges (a road network, a mesh): thread i
// takes slot i and walks its list EDGE_BATCH edges at a time. The binary search above
// costs log2(count) dependent steps and a dozen instructions per edge; here a thread
// knows its list from its slot alone. (A wide frontier goes back to a thread per edge:
// there a warp's loads read consecutive edges, here each thread reads its own list.)
// The loop bound is the largest degree in the warp (a ballot), the same for every lane,
// so the warp calls append() together.
__device__ inline void expand_vertices(const SingleBlock& S, int q, bfs_u32 count, bfs_u32 total,
                                       level_t level, bfs_u64* counter, bfs_u32* wide)
{
    const Queue F = queue(S, q);
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        vertex_t from = -1;
        edge_t begin = 0;
        bfs_u32 degree = 0;  // the slots' edge ranges are exact: no degree was clamped
        if (i < count) {
            from = F.vertex[i];
            begin = F.begin[i];
            degree = (i + 1 < count ? F.start[i + 1] : total) - F.start[i];
        }
        for (bfs_u32 first = 0; warp_any(first < degree); first += EDGE_BATCH) {
            EdgeRecord found[EDGE_BATCH];
            for (int k = 0; k < EDGE_BATCH; k++) {
                if (first + k >= degree) continue;
#if EDGE_RECORDS
                found[k] = S.records[begin + first + k];
#else
                found[k].vertex = S.edges[begin + first + k];
#endif
            }
            bfs_u32 mine = 0;
            for (int k = 0; k < EDGE_BATCH; k++) {
                if (first + k >= degree || !claim(S, found[k].vertex, from, level + 1)) continue;
#if !EDGE_RECORDS
                const vertex_t u = found[k].vertex;
                found[k].begin = S.offsets[u];
                found[k].degree = (bfs_u32)(S.offsets[u + 1] - found[k].begin);
#endif
                mine |= 1u << k;
            }
            append(S, 1 - q, counter, wide, found, mine);
        }
    }
}
// [persistent-vertex-level-end]

// [persistent-single-entry-begin]
// Put the frontier the single block starts from into queue q: the source at level 0,
// else what the grid handed back (its small and medium queues). Warp by warp, so that
// append() sees whole warps.
__device__ inline void load_frontier(const SingleBlock& S, const GridQueues& Q, int q,
                                     level_t level, vertex_t source, bfs_u32 small_count,
                                     bfs_u32 medium_count, bfs_u64* counter, bfs_u32* wide)
{
    const bfs_u32 count = level == 0 ? 1 : small_count + medium_count;
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        EdgeRecord found[EDGE_BATCH];
        bfs_u32 mine = 0;
        if (i < count) {
            const vertex_t v = level == 0 ? source
                             : i < small_count ? Q.small(level)[i] : Q.medium(level)[i - small_count];
            found[0].vertex = v;
            found[0].begin = S.offsets[v];
            found[0].degree = (bfs_u32)(S.offsets[v + 1] - found[0].begin);
            mine = 1;
        }
        append(S, q, counter, wide, found, mine);
    }
}
// [persistent-single-entry-end]

// [persistent-hand-over-begin]
// The frontier of `level` outgrew the block: put it in the grid's queues by degree (the
// shared slots and the overflow), with step 4's enqueue and copy_out.
__device__ inline void hand_over(const SingleBlock& S, const GridQueues& Q, int q, bfs_u32 count,
                                 level_t level, LocalQueues* local)
{
    const Level L = grid_level(Q, S.offsets, S.edges, S.levels, S.parents, level - 1, local);
    for (bfs_u32 i = threadIdx.x; i < count; i += SB_BLOCK_SIZE) {
        const vertex_t u = i < SB_CAPACITY ? queue(S, q).vertex[i] : S.overflow[i - SB_CAPACITY];
        enqueue(L, u, S.offsets[u + 1] - S.offsets[u]);
    }
    copy_out(L);
}
// [persistent-hand-over-end]

// [persistent-single-kernel-begin]
extern "C" __global__ void __launch_bounds__(SB_BLOCK_SIZE)
persistent_single(const edge_t* offsets, const vertex_t* edges, const EdgeRecord* records,
                  level_t* levels, vertex_t* parents, bfs_u32* global_bitmap, vertex_t n,
                  Control* control, vertex_t* smalls, vertex_t* mediums, Piece* larges,
                  bfs_u32 large_capacity, bfs_u32* counts, vertex_t* overflow,
                  bfs_u32 overflow_capacity, LevelStamp* stamps, bfs_u32 stamp_capacity,
                  vertex_t start)
{
    // A search begins with start = its source, at level 0, whatever the Control record
    // holds (the host writes nothing to it); every other launch has start = -1 and
    // carries on from the record, or returns at once when it is not its turn.
    const bool fresh = start >= 0;
    if (!fresh && control->mode != MODE_SINGLE) return;  // the grid's turn, or the end
    const GridQueues Q = {smalls, mediums, larges, large_capacity, counts, n};
    const vertex_t source = fresh ? start : control->source;
    level_t level = fresh ? 0 : control->level;
    bfs_u32 enqueued = fresh ? 0 : control->enqueued;
    bfs_u32 previous = fresh ? 0 : control->previous;
    bfs_u64 visited_edges = fresh ? 0 : control->visited_edges;

    // [persistent-single-shared-begin]
    // Shared memory: the two queues (dynamic, sized by SB_CAPACITY), the bitmap after
    // them where it fits, three packed counters (used in turn, like the grid's counter
    // sets), and step 4's local queues for a hand-over.
    DYNAMIC_SHARED(edge_t, shared);  // edge_t first: it needs 8-byte alignment
    __shared__ bfs_u64 counter[3];
    __shared__ bfs_u32 wide[3];  // per counter: the queue holds a vertex of > VP_MAX_DEGREE edges
    __shared__ LocalQueues local;
    __shared__ int broken;
    edge_t* begins = shared;  // 2 * SB_CAPACITY of each
    vertex_t* vertices = (vertex_t*)(begins + 2 * SB_CAPACITY);
    bfs_u32* starts = (bfs_u32*)(vertices + 2 * SB_CAPACITY);
    bfs_u32* bitmap = SHARED_BITMAP ? starts + 2 * SB_CAPACITY : global_bitmap;
    const SingleBlock S = {vertices, begins, starts, bitmap, overflow, overflow_capacity,
                           &broken, offsets, edges, records, levels, parents};
    // [persistent-single-shared-end]

    // [persistent-single-start-begin]
    // The vertices visited so far: none at level 0 (the block clears its bitmap itself,
    // so the host has nothing to clear before a search); later, those of the global
    // bitmap, which the grid rebuilt when it handed the frontier back.
    const bfs_u32 words = bitmap_words(n);
    if (level == 0) {
        for (bfs_u32 w = threadIdx.x; w < words; w += SB_BLOCK_SIZE) bitmap[w] = 0;
    } else if (SHARED_BITMAP) {
        for (bfs_u32 w = threadIdx.x; w < words; w += SB_BLOCK_SIZE) bitmap[w] = global_bitmap[w];
    }
    const bfs_u32 small_count = level == 0 ? 0 : Q.count(level, SMALL);
    const bfs_u32 medium_count = level == 0 ? 0 : Q.count(level, MEDIUM);
    if (threadIdx.x < 3) {
        counter[threadIdx.x] = 0;
        wide[threadIdx.x] = 0;
    }
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    if (threadIdx.x == 0) broken = 0;
    __syncthreads();  // the bitmap and the counters are ready; the grid's counts are read
    if (level == 0 && threadIdx.x == 0) {  // the host set every level and parent to -1
        atomicOr(&bitmap[(bfs_u32)source / WORD_BITS], bitmap_bit(source));
        levels[source] = 0;
        parents[source] = source;
    }
    load_frontier(S, Q, level % 2, level, source, small_count, medium_count,
                  &counter[level % 3], &wide[level % 3]);
    // Every set of the grid's counters starts at zero for the hand-over below.
    for (bfs_u32 i = threadIdx.x; i < 3 * QUEUES * COUNTER_STRIDE; i += SB_BLOCK_SIZE) counts[i] = 0;
    __syncthreads();  // the first frontier is queued
    // [persistent-single-start-end]

    // [persistent-single-loop-begin]
    bfs_u32 mode = MODE_SINGLE;
    for (;;) {
        const bfs_u64 packed = counter[level % 3];
        const bfs_u32 count = (bfs_u32)(packed >> COUNT_SHIFT);
        const bfs_u32 total = (bfs_u32)(packed & EDGE_MASK);
        const bool by_vertex = VP_MAX_DEGREE > 0 && !wide[level % 3] && count <= VP_MAX_VERTICES;
        if (threadIdx.x == 0)
            stamp(stamps, stamp_capacity, level, by_vertex ? STAMP_SINGLE_BY_VERTEX : MODE_SINGLE,
                  count);
        // Every thread reads the same counter after the same barrier, so every thread
        // takes the same branch below.
        if (count == 0) { mode = MODE_DONE; break; }
        enqueued += count;
        if (broken || (bfs_u32)level >= (bfs_u32)n || enqueued > (bfs_u32)n) {
            mode = MODE_RUNAWAY;  // a BFS has at most n levels and queues n vertices
            break;
        }
        if (count > SB_CAPACITY || (packed & EDGE_MASK) > SB_EDGE_LIMIT) {
            hand_over(S, Q, level % 2, count, level, &local);
            mode = MODE_GRID;
            enqueued -= count;  // the grid counts them again
            break;
        }
        if (threadIdx.x == 0) {  // read by all a barrier ago
            counter[(level + 2) % 3] = 0;
            wide[(level + 2) % 3] = 0;
        }
        visited_edges += total;  // exact: a level with a clamped degree went to the grid
        bfs_u64* const next = &counter[(level + 1) % 3];
        if (by_vertex)
            expand_vertices(S, level % 2, count, total, level, next, &wide[(level + 1) % 3]);
        else
            expand_single(S, level % 2, count, total, level, next, &wide[(level + 1) % 3]);
        __syncthreads();  // the level is done: its queue and counter are complete
        previous = count;
        level++;
    }
    // [persistent-single-loop-end]
    if (threadIdx.x == 0) {
        control->mode = mode;
        control->level = level;
        control->enqueued = enqueued;
        control->previous = previous;
        control->visited_edges = visited_edges;
        if (fresh) {  // the rest of the record, for the grid
            control->source = source;
            control->pieces = 0;
        }
    }
}
// [persistent-single-kernel-end]

// ---------------------------------------------------------------------------------------
// The grid
// ---------------------------------------------------------------------------------------

// [persistent-hand-back-begin]
// The grid hands a frontier back to the single block once it is small enough to stay
// small: no large vertex, at most half the single block's queue, and at most half its
// edge limit even if every vertex had the largest degree of its queue.
__device__ inline bool fits_single_block(bfs_u32 small, bfs_u32 medium, bfs_u32 large)
{
    if (!HAND_BACK || large > 0 || small + medium > SB_CAPACITY / 2) return false;
    const bfs_u64 edges_at_most = (bfs_u64)small * (WARP_THRESHOLD - 1) +
                                  (bfs_u64)medium * (BLOCK_THRESHOLD - 1);
    return edges_at_most <= SB_EDGE_LIMIT / 2;
}

// The single block's bitmap, rebuilt from the levels by the whole grid: a thread per
// vertex, so that a warp reads WARP_SIZE consecutive levels at once, and the warp's ballot
// is WARP_SIZE / WORD_BITS words of the bitmap.
__device__ inline void rebuild_bitmap(bfs_u32* bitmap, const level_t* levels, vertex_t n)
{
    const bfs_u32 words = bitmap_words(n);
    const bfs_u32 threads = gridDim.x * BLOCK_SIZE;  // a multiple of WARP_SIZE
    for (bfs_u32 base = blockIdx.x * BLOCK_SIZE + warp_id() * WARP_SIZE; base < (bfs_u32)n;
         base += threads) {
        const bfs_u32 u = base + lane_id();
        // Written by other blocks before the last grid barrier: read past this SM's cache.
        const bool seen = u < (bfs_u32)n && ((const volatile level_t*)levels)[u] != -1;
        const lane_mask_t bits = warp_ballot(seen);
        const bfs_u32 w = base / WORD_BITS + lane_id();
        if (lane_id() < WARP_SIZE / WORD_BITS && w < words)
            bitmap[w] = (bfs_u32)(bits >> (lane_id() * WORD_BITS));
    }
}
// [persistent-hand-back-end]

// [persistent-grid-kernel-begin]
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
persistent_grid(const edge_t* offsets, const vertex_t* edges, level_t* levels,
                vertex_t* parents, bfs_u32* global_bitmap, vertex_t n, Control* control,
                vertex_t* smalls, vertex_t* mediums, Piece* larges, bfs_u32 large_capacity,
                bfs_u32* counts, GridBarrier* barrier, LevelStamp* stamps, bfs_u32 stamp_capacity)
{
    if (control->mode != MODE_GRID) return;  // the same for every block: nobody has written it yet
    const GridQueues Q = {smalls, mediums, larges, large_capacity, counts, n};
    __shared__ LocalQueues local;
    level_t level = control->level;
    bfs_u32 enqueued = control->enqueued;
    bfs_u32 pieces = control->pieces;
    bfs_u32 mode = MODE_GRID;

    // [persistent-grid-loop-begin]
    for (;;) {
        // Every thread of every block reads the same counters after the same grid
        // barrier, so all of them take the same branch: none is left waiting at a barrier.
        const bfs_u32 small = Q.count(level, SMALL);
        const bfs_u32 medium = Q.count(level, MEDIUM);
        const bfs_u32 large = Q.count(level, LARGE);
        if (blockIdx.x == 0 && threadIdx.x == 0)
            stamp(stamps, stamp_capacity, level, MODE_GRID, small + medium + large);
        if (small + medium + large == 0) { mode = MODE_DONE; break; }
        enqueued += small + medium;
        pieces += large;
        if ((bfs_u32)level >= (bfs_u32)n || enqueued > (bfs_u32)n || pieces > large_capacity) {
            mode = MODE_RUNAWAY;
            break;
        }
        if (fits_single_block(small, medium, large)) {
            rebuild_bitmap(global_bitmap, levels, n);
            mode = MODE_SINGLE;
            enqueued -= small + medium;  // the single block counts them again
            break;
        }
        if (blockIdx.x == 0 && threadIdx.x < QUEUES) Q.counters(level + 2)[threadIdx.x * COUNTER_STRIDE] = 0;
        if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
        __syncthreads();  // nobody enqueues before the local counters are zero

        // Step 4's three gathers, one after the other, each with the whole grid.
        const Level L = grid_level(Q, offsets, edges, levels, parents, level, &local);
        expand_large(L, Q.large(level), large, blockIdx.x, gridDim.x);
        expand_medium(L, Q.medium(level), medium, blockIdx.x * WARPS_PER_BLOCK + warp_id(),
                      gridDim.x * WARPS_PER_BLOCK);
        expand_small(L, Q.small(level), small, blockIdx.x * BLOCK_SIZE + threadIdx.x,
                     gridDim.x * BLOCK_SIZE);
        copy_out(L);
        if (!grid_sync(barrier)) {
            // The barrier gave up. Say so, so that no later kernel of the batch carries
            // on from a half-finished level; the host reports the barrier's failure.
            if (threadIdx.x == 0) atomicExch(&control->mode, (bfs_u32)MODE_FAILED);
            return;
        }
        level++;
    }
    // [persistent-grid-loop-end]
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        control->mode = mode;
        control->level = level;
        control->enqueued = enqueued;
        control->pieces = pieces;
    }
}
// [persistent-grid-kernel-end]
