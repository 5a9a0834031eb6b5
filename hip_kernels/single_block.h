// single_block.h: step 5's single block, and what it shares with a grid that runs
// the levels of a larger frontier (persistent_grid in persistent.hip, step 6's kernel
// in step 7): the Control record they leave for each other, the grid's queues, the
// per-level stamps, and the rule and the bitmap of a hand-back.
//
// It defines the single block's two kernels: persistent_single, which runs level after
// level while the frontier fits its shared memory, and persistent_flush, which writes out
// what it logged. Steps 5 and 7 launch both.
#pragma once
#include "bitmap.h"  // the visited set: BITMAP_WORD_BITS, add_to_bitmap
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
#ifndef SB_ROW_WIDTH
#error "compile with -DSB_ROW_WIDTH=<0, or the width of each vertex's row of neighbours (1, 2, 4, 8, 16)>"
#endif
#if SB_ROW_WIDTH < 0 || SB_ROW_WIDTH > 16 || (SB_ROW_WIDTH & (SB_ROW_WIDTH - 1)) != 0
#error "SB_ROW_WIDTH must be 0, 1, 2, 4, 8 or 16"
#endif
#ifndef SB_LOG
#error "compile with -DSB_LOG=<1: the single block logs what it finds and persistent_flush writes it out, 0: it writes levels and parents itself>"
#endif
#ifndef VP_MAX_DEGREE
#error "compile with -DVP_MAX_DEGREE=<levels gathered by warps while no frontier vertex has more edges; 0: never>"
#endif
#ifndef VP_MAX_VERTICES
#error "compile with -DVP_MAX_VERTICES=<levels gathered by warps while the frontier has at most this many>"
#endif
#if SB_BLOCK_SIZE % WARP_SIZE != 0
#error "SB_BLOCK_SIZE must be a multiple of WARP_SIZE: the single block appends by whole warps"
#endif
#if SB_BLOCK_SIZE / WARP_SIZE > WARP_SIZE
#error "SB_BLOCK_SIZE may have at most WARP_SIZE warps: one warp scans their sums"
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
    // With SB_LOG, what the single block's last run logged, for persistent_flush: the
    // first log_to entries of the log, of levels log_level and on (LogEntry).
    bfs_u32 log_to;
    level_t log_level;
};
#define MODE_SINGLE 1
#define MODE_GRID 2
#define MODE_DONE 3
#define MODE_RUNAWAY 4  // more levels, vertices or pieces than the graph has: a bug
#define MODE_FAILED 5   // a grid barrier gave up: a block never arrived (a bug)
// In a LevelStamp only: the single block gathered the level by warps (expand_warps;
// MODE_SINGLE: a thread per edge, expand_single).
#define STAMP_SINGLE_BY_WARP 7
// ... and with rows (expand_rows).
#define STAMP_SINGLE_BY_ROW 8
// [persistent-control-end]

// The visited bitmap (bitmap.h): its words, and vertex u's bit in its word.
__device__ inline bfs_u32 bitmap_words(vertex_t n)
{
    return ((bfs_u32)n + BITMAP_WORD_BITS - 1) / BITMAP_WORD_BITS;
}
__device__ inline bfs_u32 bitmap_bit(vertex_t u) { return 1u << ((bfs_u32)u % BITMAP_WORD_BITS); }

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

// [persistent-row-begin]
// With SB_ROW_WIDTH > 0 (a graph whose every vertex has at most that many edges: a road
// network, a mesh), the single block reads the graph as rows: vertex v's neighbours are
// row v, SB_ROW_WIDTH entries, padded with -1 (the ELLPACK layout of sparse matrices).
// A vertex's whole list is then one load of 16 bytes or two, at an address known from
// v alone, and a queue slot is the vertex and nothing else.
#if SB_ROW_WIDTH > 0
struct __align__(SB_ROW_WIDTH >= 4 ? 16 : 4 * SB_ROW_WIDTH) Row {
    vertex_t vertex[SB_ROW_WIDTH];
};
#else
struct Row {
    vertex_t vertex[1];
};
#endif
// [persistent-row-end]

// [persistent-log-entry-begin]
// With SB_LOG, the single block does not write the levels and parents of what it finds,
// a scattered store each: it appends the vertex and its parent to a log, in the order of
// its queue slots, so that a warp's stores are side by side, and persistent_flush (the
// whole GPU) writes them out after it. log_levels[L] is where level L's entries begin.
struct __align__(8) LogEntry {
    vertex_t vertex;
    vertex_t parent;
};
#define NOT_LOGGED 0xffffffffu  // append()'s log_base for a frontier written already
// [persistent-log-entry-end]

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

// [persistent-args-begin]
// The arguments of the step's kernels: one record, filled in by the host once per
// set-up (ARGS in rodinia_bfs/variants/persistent.py describes it field by field) and
// passed by value, with what differs from one launch of a batch to the next beside it:
// the single block's start, the grid's barrier. A kernel's arguments live in a constant
// bank that every thread reads as it needs them: a record by value costs no registers
// (a record read through a pointer would hold its fields in registers, and a block of
// 1024 threads that needs more than 32 registers each leaves room for only one such
// block on a multiprocessor).
struct PersistentArgs {
    const edge_t* offsets;     // the graph
    const vertex_t* edges;
    const EdgeRecord* records; // with EDGE_RECORDS: each edge with its target's list
    const Row* rows;           // with SB_ROW_WIDTH: each vertex's neighbours as a row
    level_t* levels;
    vertex_t* parents;
    bfs_u32* global_bitmap;    // the visited bitmap in global memory
    Control* control;
    vertex_t* smalls;          // the grid's queues (GridQueues)
    vertex_t* mediums;
    Piece* larges;
    bfs_u32* counts;
    vertex_t* overflow;        // what does not fit the single block's queue
    LevelStamp* stamps;        // a profile run's record, stamp_capacity of them
    LogEntry* log;             // with SB_LOG
    bfs_u32* log_levels;
    vertex_t n;
    bfs_u32 large_capacity;
    bfs_u32 overflow_capacity;
    bfs_u32 stamp_capacity;
};
// [persistent-args-end]

// ---------------------------------------------------------------------------------------
// The single block
// ---------------------------------------------------------------------------------------

// [persistent-counter-begin]
// What the single block counts of a level's queue, in shared memory: its vertices (the
// slots taken: one atomicAdd per warp), their edges, and whether any of them has more
// than VP_MAX_DEGREE edges. Three of these are used in turn, like the grid's counter
// sets. A degree past SB_EDGE_LIMIT counts as SB_EDGE_LIMIT + 1, and a warp adds at
// most that much, and only while the sum is within the limit: such a level goes to the
// grid whatever the exact sum, and the sum stays far from 2^32. (With rows, a queued
// vertex's degree is not loaded: `edges` then counts the edges the level before
// expanded, the rows' entries that were not padding.)
struct LevelCount {
    bfs_u32 vertices;
    bfs_u32 edges;
    bfs_u32 wide;
};

__device__ inline bfs_u32 counted_edges(bfs_u32 degree)
{
    return degree <= SB_EDGE_LIMIT ? degree : SB_EDGE_LIMIT + 1;
}
// [persistent-counter-end]

// The single block's state: its two queues and its counters in shared memory, the
// graph and the outputs in global memory.
struct SingleBlock {
    // Two queues, SB_CAPACITY slots each; queue q holds the frontier of the levels of
    // parity q. A slot has a vertex, and without rows where its list begins and its
    // degree (replaced by where its edges begin among the level's edges, for a level
    // expanded a thread per edge: degrees_to_starts).
    vertex_t* vertices;
    edge_t* begins;    // without rows only
    bfs_u32* degrees;  // likewise
    bfs_u32* bitmap;   // visited vertices, one bit each (shared or global memory)
    vertex_t* overflow;  // what does not fit queue (level + 1) % 2: slots SB_CAPACITY and up
    bfs_u32 overflow_capacity;
    int* broken;       // set when a queue would overflow its memory: a bug
    bfs_u32* warp_sums;  // SB_BLOCK_SIZE / WARP_SIZE words of shared scratch
    const edge_t* offsets;
    const vertex_t* edges;
    const EdgeRecord* records;
    const Row* rows;
    level_t* levels;
    vertex_t* parents;
    LogEntry* log;         // n entries (SB_LOG)
    bfs_u32* log_levels;   // n + 2 entries (SB_LOG)
    bfs_u32 log_capacity;
};

// Queue q's arrays. (Computed, not indexed from an array of pointers: a pointer chosen
// by a run-time index would make the compiler keep the struct in local memory.)
struct Queue {
    vertex_t* vertex;
    edge_t* begin;
    bfs_u32* degree;
};
__device__ inline Queue queue(const SingleBlock& S, int q)
{
    return Queue{S.vertices + q * SB_CAPACITY, S.begins + q * SB_CAPACITY, S.degrees + q * SB_CAPACITY};
}

// [persistent-scan-begin]
// Exclusive prefix sum over the lanes of a warp, and the warp's total. Every lane calls
// it. log2(WARP_SIZE) steps of shuffles: 5 on NVIDIA and RDNA, 6 on CDNA.
__device__ inline bfs_u32 warp_exclusive_sum(bfs_u32 x, bfs_u32* total)
{
    const int lane = (int)lane_id();
    bfs_u32 inclusive = x;
    for (int d = 1; d < WARP_SIZE; d *= 2) {
        const bfs_u32 below = (bfs_u32)warp_shfl((bfs_i32)inclusive, lane >= d ? lane - d : lane);
        if (lane >= d) inclusive += below;
    }
    *total = (bfs_u32)warp_shfl((bfs_i32)inclusive, WARP_SIZE - 1);
    return inclusive - x;
}

// The sum over the lanes of a warp, in every lane.
__device__ inline bfs_u32 warp_sum(bfs_u32 x)
{
    for (int d = WARP_SIZE / 2; d > 0; d /= 2)
        x += (bfs_u32)warp_shfl((bfs_i32)x, (int)(lane_id() ^ (unsigned)d));
    return x;
}

// The lanes below this one, as a mask of the warp's ballots.
__device__ inline lane_mask_t lanes_below()
{
    return (lane_mask_t)((((bfs_u64)1) << lane_id()) - 1);
}
__device__ inline bfs_u32 count_lanes(lane_mask_t mask) { return (bfs_u32)__popcll((bfs_u64)mask); }
// [persistent-scan-end]

// [persistent-append-begin]
// Append to queue `q` the vertices of found[0..N) that this lane claimed (bit i of
// `mine`), for every lane of the warp at once, and add `edges` (this lane's share) to
// the level's edges. Item i of every lane comes before item i + 1 of any: a ballot per
// item says which lanes have one, so a lane knows its slots from the ballots alone, and
// one shared atomicAdd per warp reserves them all. Every lane of the warp calls it.
template <int N>
__device__ inline void append(const SingleBlock& S, int q, LevelCount* counter,
                              const EdgeRecord* found, const vertex_t* parent, bfs_u32 mine,
                              bfs_u32 edges, bfs_u32 log_base)
{
    const lane_mask_t below = lanes_below();
    bfs_u32 slot[N];
    bfs_u32 taken = 0;  // slots the warp needs
    for (int i = 0; i < N; i++) {
        const lane_mask_t lanes = warp_ballot((mine >> i) & 1u);
        slot[i] = taken + count_lanes(lanes & below);
        taken += count_lanes(lanes);
    }
#if SB_ROW_WIDTH == 0
    edges = warp_sum(edges);  // the warp's
#endif
    if (taken == 0 && edges == 0) return;  // the same in every lane
    bfs_u32 first = 0;
    if (lane_id() == 0) {
        first = atomicAdd(&counter->vertices, taken);
        // Past the limit the level goes to the grid anyway. (Read with an atomic: the
        // other warps add to it meanwhile.)
        if (edges > 0 && atomicOr(&counter->edges, 0u) <= SB_EDGE_LIMIT)
            atomicAdd(&counter->edges, edges <= SB_EDGE_LIMIT ? edges : SB_EDGE_LIMIT + 1);
    }
    first = (bfs_u32)warp_shfl((bfs_i32)first, 0);
    const Queue Q = queue(S, q);
    const bool logged = SB_LOG && log_base != NOT_LOGGED;
    // Nearly always every slot of the warp is within the queue (and the log): then no
    // slot needs a check of its own. (The same in every lane.)
    if (first + taken <= SB_CAPACITY && (!logged || log_base + first + taken <= S.log_capacity)) {
        for (int i = 0; i < N; i++) {
            if (!((mine >> i) & 1u)) continue;
            const bfs_u32 s = first + slot[i];
            Q.vertex[s] = found[i].vertex;
#if SB_ROW_WIDTH == 0
            Q.begin[s] = found[i].begin;
            Q.degree[s] = found[i].degree;
#else
            // The next level reads this vertex's row, in this SM: ask for it now, so
            // that it waits in the SM's L1 cache rather than in L2.
            prefetch_l1(&S.rows[found[i].vertex]);
#endif
#if SB_LOG
            if (logged) S.log[log_base + s] = LogEntry{found[i].vertex, parent[i]};
#endif
        }
        return;
    }
    for (int i = 0; i < N; i++) {
        if (!((mine >> i) & 1u)) continue;
        const bfs_u32 s = first + slot[i];
#if SB_LOG
        if (log_base == NOT_LOGGED) {
        } else if (log_base + s < S.log_capacity) {
            S.log[log_base + s] = LogEntry{found[i].vertex, parent[i]};
        } else {
            *S.broken = 1;
        }
#endif
        if (s < SB_CAPACITY) {
            Q.vertex[s] = found[i].vertex;
#if SB_ROW_WIDTH == 0
            Q.begin[s] = found[i].begin;
            Q.degree[s] = found[i].degree;
#endif
        } else if (s - SB_CAPACITY < S.overflow_capacity) {
            S.overflow[s - SB_CAPACITY] = found[i].vertex;  // the grid takes this level
        } else {
            *S.broken = 1;
        }
    }
}

// This lane's share of the next level's edges: the degrees of what it claimed. A
// vertex of more than VP_MAX_DEGREE edges marks the level `wide` (see expand_warps).
template <int N>
__device__ inline bfs_u32 found_edges(LevelCount* counter, const EdgeRecord* found, bfs_u32 mine)
{
    bfs_u32 edges = 0;
    for (int i = 0; i < N; i++) {
        if (!((mine >> i) & 1u)) continue;
        edges += counted_edges(found[i].degree);
        if (found[i].degree > VP_MAX_DEGREE) counter->wide = 1;  // every writer writes 1
    }
    return edges;
}
// [persistent-append-end]

// [persistent-claim-begin]
// Claim the targets of found[0..N) for the next level, those with bit i of `valid` set:
// one bit each in the bitmap, set by exactly one thread. Every atomicOr is issued before
// any result is looked at, so that they are in flight together. The level and parent go
// to global memory (or to the log) and are never read back by this block. Returns the
// claimed ones as bits.
template <int N>
__device__ inline bfs_u32 claim(const SingleBlock& S, EdgeRecord* found, bfs_u32 valid,
                                const vertex_t* parent, level_t next)
{
    bfs_u32 before[N];
    for (int i = 0; i < N; i++) {
        before[i] = 0;
        if (!((valid >> i) & 1u)) continue;
        const vertex_t u = found[i].vertex;
        before[i] = atomicOr(&S.bitmap[(bfs_u32)u / BITMAP_WORD_BITS], bitmap_bit(u));
    }
    bfs_u32 mine = 0;
    for (int i = 0; i < N; i++) {
        if (!((valid >> i) & 1u) || (before[i] & bitmap_bit(found[i].vertex))) continue;
#if !SB_LOG
        S.levels[found[i].vertex] = next;
        S.parents[found[i].vertex] = parent[i];
#endif
        mine |= 1u << i;
    }
#if !EDGE_RECORDS && SB_ROW_WIDTH == 0
    // The targets' lists, for the queue: loads in flight together.
    for (int i = 0; i < N; i++) {
        if (!((mine >> i) & 1u)) continue;
        const vertex_t u = found[i].vertex;
        found[i].begin = S.offsets[u];
        found[i].degree = (bfs_u32)(S.offsets[u + 1] - found[i].begin);
    }
#endif
    return mine;
}

// Edge e of the graph: its target, and with EDGE_RECORDS the target's list too.
__device__ inline EdgeRecord load_edge(const SingleBlock& S, edge_t e)
{
#if EDGE_RECORDS
    return S.records[e];  // the target and its list: one load
#else
    EdgeRecord r;
    r.vertex = S.edges[e];
    return r;
#endif
}
// [persistent-claim-end]

// [persistent-starts-begin]
// For a level expanded a thread per edge: each slot's degree becomes where its edges
// begin among the level's edges, in place (an exclusive prefix sum over the block: each
// thread sums a run of slots, a warp scan, a scan of the warps' sums, and each thread
// writes its run). Every thread of the block calls it.
__device__ inline void degrees_to_starts(const SingleBlock& S, int q, bfs_u32 count)
{
    bfs_u32* const degree = queue(S, q).degree;
    const bfs_u32 run = (count + SB_BLOCK_SIZE - 1) / SB_BLOCK_SIZE;
    const bfs_u32 lo = at_most(threadIdx.x * run, count), hi = at_most(lo + run, count);
    bfs_u32 sum = 0;
    for (bfs_u32 s = lo; s < hi; s++) sum += degree[s];
    bfs_u32 warp_total;
    bfs_u32 running = warp_exclusive_sum(sum, &warp_total);
    if (lane_id() == 0) S.warp_sums[warp_id()] = warp_total;
    __syncthreads();
    if (warp_id() == 0) {  // SB_BLOCK_SIZE / WARP_SIZE <= WARP_SIZE warps: one scan
        const bool is_warp = lane_id() < SB_BLOCK_SIZE / WARP_SIZE;
        bfs_u32 all;
        const bfs_u32 before = warp_exclusive_sum(is_warp ? S.warp_sums[lane_id()] : 0, &all);
        if (is_warp) S.warp_sums[lane_id()] = before;
    }
    __syncthreads();
    running += S.warp_sums[warp_id()];
    for (bfs_u32 s = lo; s < hi; s++) {
        const bfs_u32 d = degree[s];
        degree[s] = running;
        running += d;
    }
    __syncthreads();  // every start is written, and every warp sum read
}
// [persistent-starts-end]

// [persistent-single-level-begin]
// Expand one level in the single block a thread per edge: the frontier is queue `q`
// (count slots, `total` edges, its degrees made starts by degrees_to_starts); what it
// discovers goes to queue 1 - q, counted by `counter`. Edge j of the level goes to
// thread j % SB_BLOCK_SIZE, so a vertex of many edges is spread over the block. Each
// thread first finds and loads EDGE_BATCH edges, so that their loads are in flight
// together, then claims their targets, then its warp appends all it found.
__device__ inline void expand_single(const SingleBlock& S, int q, bfs_u32 count, bfs_u32 total,
                                     level_t level, LevelCount* counter, bfs_u32 log_base)
{
    const Queue F = queue(S, q);
    const bfs_u32* const start = F.degree;  // starts, by now
    const bfs_u32 top = 1u << (31 - __clz((int)count));  // the highest power of two <= count
    // The loop bound is the same for every lane of a warp (base is the warp's first
    // edge), so the warp calls append() together.
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < total;
         base += SB_BLOCK_SIZE * EDGE_BATCH) {
        bfs_u32 j[EDGE_BATCH], slot[EDGE_BATCH];
        bfs_u32 valid = 0;
        for (int i = 0; i < EDGE_BATCH; i++) {
            j[i] = base + i * SB_BLOCK_SIZE + lane_id();
            slot[i] = 0;
            if (j[i] < total) valid |= 1u << i;
        }
        // [persistent-search-begin]
        // Which slot's list holds edge j: the last slot whose edges start at or before j
        // (a slot of degree 0 starts where the next one does, and is passed over). A
        // binary search over the prefix sum, one step of every search at a time, so that
        // EDGE_BATCH shared-memory loads are in flight together.
        for (bfs_u32 step = top; step > 0; step /= 2) {
            for (int i = 0; i < EDGE_BATCH; i++) {
                const bfs_u32 next = slot[i] + step;
                if (j[i] < total && next < count && start[next] <= j[i]) slot[i] = next;
            }
        }
        // [persistent-search-end]
        EdgeRecord found[EDGE_BATCH];
        vertex_t from[EDGE_BATCH];
        for (int i = 0; i < EDGE_BATCH; i++) {
            if (!((valid >> i) & 1u)) continue;
            from[i] = F.vertex[slot[i]];
            found[i] = load_edge(S, F.begin[slot[i]] + (j[i] - start[slot[i]]));
        }
        const bfs_u32 mine = claim<EDGE_BATCH>(S, found, valid, from, level + 1);
        append<EDGE_BATCH>(S, 1 - q, counter, found, from, mine,
                           found_edges<EDGE_BATCH>(counter, found, mine), log_base);
    }
}
// [persistent-single-level-end]

// [persistent-warp-level-begin]
// The same level gathered by warps, for a frontier whose vertices all have at most
// VP_MAX_DEGREE edges: warp w takes slots w * WARP_SIZE and on, a slot per lane, and
// the lanes then take the edges of those WARP_SIZE lists in turn, edge k of them to
// lane k % WARP_SIZE. A warp's loads then read a few lists, each contiguous, and a lane
// finds the list of its edge in log2(WARP_SIZE) steps over the warp's own prefix sum,
// held in registers (warp_shfl), where a thread per edge over the whole level searches
// log2(count) slots in shared memory. (A hub would keep one warp busy while the others
// wait at the barrier: a queue with a vertex of more than VP_MAX_DEGREE edges goes to
// expand_single.) The loop bounds are the same for every lane of a warp, so the warp
// shuffles and appends together.
__device__ inline void expand_warps(const SingleBlock& S, int q, bfs_u32 count, level_t level,
                                    LevelCount* counter, bfs_u32 log_base)
{
    const Queue F = queue(S, q);
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        vertex_t from = -1;
        edge_t begin = 0;
        bfs_u32 degree = 0;
        if (i < count) {
            from = F.vertex[i];
            begin = F.begin[i];
            degree = F.degree[i];
        }
        bfs_u32 edges;  // of the warp's lists, together
        const bfs_u32 first = warp_exclusive_sum(degree, &edges);  // this lane's first edge
        for (bfs_u32 done = 0; done < edges; done += WARP_SIZE * EDGE_BATCH) {
            bfs_u32 k[EDGE_BATCH], owner[EDGE_BATCH];
            bfs_u32 valid = 0;
            for (int r = 0; r < EDGE_BATCH; r++) {
                k[r] = done + r * WARP_SIZE + lane_id();
                owner[r] = 0;
                if (k[r] < edges) valid |= 1u << r;
            }
            // The lane whose list holds edge k: the last lane whose edges start at or
            // before k (a lane of degree 0 starts where the next one does, and is passed
            // over), a binary search over the lanes' `first`.
            for (int step = WARP_SIZE / 2; step > 0; step /= 2) {
                for (int r = 0; r < EDGE_BATCH; r++) {
                    const bfs_u32 next = owner[r] + step;
                    if ((bfs_u32)warp_shfl((bfs_i32)first, (int)next) <= k[r]) owner[r] = next;
                }
            }
            EdgeRecord found[EDGE_BATCH];
            vertex_t parent[EDGE_BATCH];
            for (int r = 0; r < EDGE_BATCH; r++) {
                parent[r] = warp_shfl((bfs_i32)from, (int)owner[r]);
                const edge_t list = warp_shfl((bfs_i64)begin, (int)owner[r]);
                const bfs_u32 offset = k[r] - (bfs_u32)warp_shfl((bfs_i32)first, (int)owner[r]);
                if ((valid >> r) & 1u) found[r] = load_edge(S, list + offset);
            }
            const bfs_u32 mine = claim<EDGE_BATCH>(S, found, valid, parent, level + 1);
            append<EDGE_BATCH>(S, 1 - q, counter, found, parent, mine,
                               found_edges<EDGE_BATCH>(counter, found, mine), log_base);
        }
    }
}
// [persistent-warp-level-end]

#if SB_ROW_WIDTH > 0
// [persistent-row-level-begin]
// The same level read as rows (SB_ROW_WIDTH > 0): a thread per slot loads its vertex's
// row, claims every entry that is not padding, and its warp appends what it claimed.
// The level's chain of dependent steps is then the slot, one load, the atomics and the
// append. Returns the entries this thread expanded (step 7's rule counts them).
__device__ inline bfs_u32 expand_rows(const SingleBlock& S, int q, bfs_u32 count, level_t level,
                                      LevelCount* counter, bfs_u32 log_base)
{
    const vertex_t* const F = queue(S, q).vertex;
    bfs_u32 expanded = 0;
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        const vertex_t from = i < count ? F[i] : -1;
        Row row;
        if (from >= 0) {
            row = S.rows[from];
        } else {
            for (int k = 0; k < SB_ROW_WIDTH; k++) row.vertex[k] = -1;
        }
        EdgeRecord found[SB_ROW_WIDTH];
        vertex_t parent[SB_ROW_WIDTH];
        bfs_u32 valid = 0;
        for (int k = 0; k < SB_ROW_WIDTH; k++) {
            found[k].vertex = row.vertex[k];
            parent[k] = from;
            if (row.vertex[k] >= 0) valid |= 1u << k;
        }
        const bfs_u32 mine = claim<SB_ROW_WIDTH>(S, found, valid, parent, level + 1);
        append<SB_ROW_WIDTH>(S, 1 - q, counter, found, parent, mine, 0, log_base);
        expanded += (bfs_u32)__popc(valid);
    }
    return expanded;
}
// [persistent-row-level-end]
#endif

// [persistent-single-entry-begin]
// Put the frontier the single block starts from into queue q: the source at level 0,
// else what the grid handed back (its small and medium queues). Warp by warp, so that
// append() sees whole warps.
__device__ inline void load_frontier(const SingleBlock& S, const GridQueues& Q, int q,
                                     level_t level, vertex_t source, bfs_u32 small_count,
                                     bfs_u32 medium_count, LevelCount* counter)
{
    const bfs_u32 count = level == 0 ? 1 : small_count + medium_count;
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        EdgeRecord found[1];
        vertex_t parent[1] = {-1};  // not logged: already written
        bfs_u32 mine = 0, edges = 0;
        if (i < count) {
            const vertex_t v = level == 0 ? source
                             : i < small_count ? Q.small(level)[i] : Q.medium(level)[i - small_count];
            found[0].vertex = v;
#if SB_ROW_WIDTH == 0
            found[0].begin = S.offsets[v];
            found[0].degree = (bfs_u32)(S.offsets[v + 1] - found[0].begin);
#endif
            mine = 1;
        }
#if SB_ROW_WIDTH == 0
        edges = found_edges<1>(counter, found, mine);
#endif
        append<1>(S, q, counter, found, parent, mine, edges, NOT_LOGGED);
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
persistent_single(const PersistentArgs a, vertex_t start)
{
    // A search begins with start = its source, at level 0, whatever the Control record
    // holds (the host writes nothing to it); every other launch has start = -1 and
    // carries on from the record, or returns at once when it is not its turn.
    const bool fresh = start >= 0;
    if (!fresh && a.control->mode != MODE_SINGLE) {  // the grid's turn, or the end
        // Nothing new for the persistent_flush behind this launch: the one after this
        // kernel's last run has written that run's log out.
        if (SB_LOG && blockIdx.x == 0 && threadIdx.x == 0) a.control->log_to = 0;
        return;
    }
    const GridQueues Q = {a.smalls, a.mediums, a.larges, a.large_capacity, a.counts, a.n};
    const vertex_t source = fresh ? start : a.control->source;
    level_t level = fresh ? 0 : a.control->level;
    bfs_u32 enqueued = fresh ? 0 : a.control->enqueued;
    bfs_u32 previous = fresh ? 0 : a.control->previous;
    bfs_u64 visited_edges = fresh ? 0 : a.control->visited_edges;

    // [persistent-single-shared-begin]
    // Shared memory: the two queues (dynamic, sized by SB_CAPACITY: with rows, vertices
    // alone), the bitmap after them where it fits, three level counts (used in turn,
    // like the grid's counter sets), a word per warp for degrees_to_starts, and step 4's
    // local queues for a hand-over.
    DYNAMIC_SHARED(edge_t, shared);  // edge_t first: it needs 8-byte alignment
    __shared__ LevelCount counter[3];
    #if SB_ROW_WIDTH > 0
    __shared__ bfs_u64 expanded;  // the edges the block expanded
    #endif
    __shared__ bfs_u32 warp_sums[SB_BLOCK_SIZE / WARP_SIZE];
    __shared__ LocalQueues local;
    __shared__ int broken;
    #if SB_ROW_WIDTH > 0
    edge_t* begins = nullptr;
    vertex_t* vertices = (vertex_t*)shared;  // 2 * SB_CAPACITY
    bfs_u32* degrees = nullptr;
    bfs_u32* bitmap = SHARED_BITMAP ? (bfs_u32*)(vertices + 2 * SB_CAPACITY) : a.global_bitmap;
    #else
    edge_t* begins = shared;  // 2 * SB_CAPACITY of each
    vertex_t* vertices = (vertex_t*)(begins + 2 * SB_CAPACITY);
    bfs_u32* degrees = (bfs_u32*)(vertices + 2 * SB_CAPACITY);
    bfs_u32* bitmap = SHARED_BITMAP ? degrees + 2 * SB_CAPACITY : a.global_bitmap;
    #endif
    const SingleBlock S = {vertices, begins, degrees, bitmap, a.overflow, a.overflow_capacity,
                           &broken, warp_sums, a.offsets, a.edges, a.records, a.rows, a.levels,
                           a.parents, a.log, a.log_levels, (bfs_u32)a.n};
    // [persistent-single-shared-end]

    // [persistent-single-start-begin]
    // The vertices visited so far: none at level 0 (the block clears its bitmap itself,
    // so the host has nothing to clear before a search); later, those of the global
    // bitmap, which the grid rebuilt when it handed the frontier back.
    const bfs_u32 words = bitmap_words(a.n);
    if (level == 0) {
        for (bfs_u32 w = threadIdx.x; w < words; w += SB_BLOCK_SIZE) bitmap[w] = 0;
    } else if (SHARED_BITMAP) {
        for (bfs_u32 w = threadIdx.x; w < words; w += SB_BLOCK_SIZE)
            bitmap[w] = a.global_bitmap[w];
    }
    const bfs_u32 small_count = level == 0 ? 0 : Q.count(level, SMALL);
    const bfs_u32 medium_count = level == 0 ? 0 : Q.count(level, MEDIUM);
    if (threadIdx.x < 3) counter[threadIdx.x] = LevelCount{0, 0, 0};
    #if SB_ROW_WIDTH > 0
    if (threadIdx.x == 0) expanded = 0;
    #endif
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    if (threadIdx.x == 0) broken = 0;
    __syncthreads();  // the bitmap and the counters are ready; the grid's counts are read
    if (level == 0 && threadIdx.x == 0) {  // the host set every level and parent to -1
        add_to_bitmap(bitmap, source);
        a.levels[source] = 0;
        a.parents[source] = source;
    }
    load_frontier(S, Q, level % 2, level, source, small_count, medium_count, &counter[level % 3]);
    // Every set of the grid's counters starts at zero for the hand-over below.
    for (bfs_u32 i = threadIdx.x; i < 3 * QUEUES * COUNTER_STRIDE; i += SB_BLOCK_SIZE)
        a.counts[i] = 0;
    __syncthreads();  // the first frontier is queued
    // [persistent-single-start-end]

    // [persistent-single-loop-begin]
    bfs_u32 mode = MODE_SINGLE;
    // With SB_LOG: how many entries this run has logged (each run's log is written out
    // before the next kernel starts, so each starts at entry 0); the first level of a run
    // is not logged (the source, or what the grid handed back: their levels are written).
    const level_t log_level = level + 1;
    bfs_u32 logged = 0;
    #if SB_ROW_WIDTH > 0
    bfs_u64 my_expanded = 0;  // the entries this thread expanded
    #endif
    for (;;) {
        const bfs_u32 count = counter[level % 3].vertices;
        const bfs_u32 total = counter[level % 3].edges;
        const bool by_warp = VP_MAX_DEGREE > 0 && !counter[level % 3].wide && count <= VP_MAX_VERTICES;
        if (threadIdx.x == 0)
            stamp(a.stamps, a.stamp_capacity, level,
                  SB_ROW_WIDTH > 0 ? STAMP_SINGLE_BY_ROW : by_warp ? STAMP_SINGLE_BY_WARP : MODE_SINGLE,
                  count);
        if (SB_LOG) {
            if (level >= log_level) logged += count;  // the level before logged this one
            if (threadIdx.x == 0 && (bfs_u32)level + 1 <= (bfs_u32)a.n)
                a.log_levels[level + 1] = logged;  // where the next level's entries begin
        }
        // Every thread reads the same counter after the same barrier, so every thread
        // takes the same branch below.
        if (count == 0) { mode = MODE_DONE; break; }
        enqueued += count;
        if (broken || (bfs_u32)level >= (bfs_u32)a.n || enqueued > (bfs_u32)a.n) {
            mode = MODE_RUNAWAY;  // a BFS has at most n levels and queues n vertices
            break;
        }
        // (With rows, a level has at most SB_ROW_WIDTH edges a vertex.)
        const bfs_u32 edges_at_most = SB_ROW_WIDTH > 0 ? count * SB_ROW_WIDTH : total;
        if (count > SB_CAPACITY || edges_at_most > SB_EDGE_LIMIT) {
            hand_over(S, Q, level % 2, count, level, &local);
            mode = MODE_GRID;
            enqueued -= count;  // the grid counts them again
            break;
        }
        if (threadIdx.x == 0) counter[(level + 2) % 3] = LevelCount{0, 0, 0};  // read a barrier ago
        LevelCount* const next = &counter[(level + 1) % 3];
    #if SB_ROW_WIDTH > 0
        my_expanded += expand_rows(S, level % 2, count, level, next, logged);
    #else
        visited_edges += total;  // exact: a level with a clamped degree went to the grid
        if (by_warp) {
            expand_warps(S, level % 2, count, level, next, logged);
        } else {
            degrees_to_starts(S, level % 2, count);
            expand_single(S, level % 2, count, total, level, next, logged);
        }
    #endif
        __syncthreads();  // the level is done: its queue and counter are complete
        previous = count;
        level++;
    }
    // [persistent-single-loop-end]
    #if SB_ROW_WIDTH > 0
    // The edges out of the levels run, for step 7's rule: the block's sum, once.
    for (int d = WARP_SIZE / 2; d > 0; d /= 2)
        my_expanded += (bfs_u64)warp_shfl((bfs_i64)my_expanded, (int)(lane_id() ^ (unsigned)d));
    if (lane_id() == 0 && my_expanded > 0) atomicAdd(&expanded, my_expanded);
    __syncthreads();
    visited_edges += expanded;
    #endif
    if (threadIdx.x == 0) {
        a.control->mode = mode;
        a.control->level = level;
        a.control->enqueued = enqueued;
        a.control->previous = previous;
        a.control->visited_edges = visited_edges;
        a.control->log_to = logged;
        a.control->log_level = log_level;
        if (fresh) {  // the rest of the record, for the grid
            a.control->source = source;
            a.control->pieces = 0;
        }
    }
}
// [persistent-single-kernel-end]

// [persistent-flush-begin]
// With SB_LOG: write out the levels and parents the single block's last run logged, with
// as many blocks as the host launches (the whole GPU), behind every launch of the
// single block. Entry i is of the last level L whose entries begin at or before it
// (log_levels[L] <= i): a binary search over the levels of that run.
extern "C" __global__ void
persistent_flush(const PersistentArgs a)
{
    const bfs_u32 to = at_most(a.control->log_to, (bfs_u32)a.n);
    const level_t first = a.control->log_level, last = a.control->level;
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < to; i += gridDim.x * blockDim.x) {
        level_t lo = first, hi = last;
        while (lo < hi) {
            const level_t mid = lo + (hi - lo + 1) / 2;
            if (a.log_levels[mid] <= i) lo = mid;
            else hi = mid - 1;
        }
        const LogEntry entry = a.log[i];
        a.levels[entry.vertex] = lo;
        a.parents[entry.vertex] = entry.parent;
    }
}
// [persistent-flush-end]

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
    // (With rows the single block counts a level as its vertices times the row width.)
    const bfs_u64 edges_at_most = SB_ROW_WIDTH > 0 ? (bfs_u64)(small + medium) * SB_ROW_WIDTH
                                : (bfs_u64)small * (WARP_THRESHOLD - 1) +
                                  (bfs_u64)medium * (BLOCK_THRESHOLD - 1);
    return edges_at_most <= SB_EDGE_LIMIT / 2;
}

// The single block's bitmap, rebuilt from the levels by the whole grid: a thread per
// vertex, so that a warp reads WARP_SIZE consecutive levels at once, and the warp's ballot
// is WARP_SIZE / BITMAP_WORD_BITS words of the bitmap.
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
        const bfs_u32 w = base / BITMAP_WORD_BITS + lane_id();
        if (lane_id() < WARP_SIZE / BITMAP_WORD_BITS && w < words)
            bitmap[w] = (bfs_u32)(bits >> (lane_id() * BITMAP_WORD_BITS));
    }
}
// [persistent-hand-back-end]
