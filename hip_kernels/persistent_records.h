// persistent_records.h: what step 5's kernels share, and step 7's with them: the
// tunables of the single block, the Control record the kernels leave for each other,
// the records the single block reads (edges with their targets' lists, rows) and logs,
// the grid's queues, the per-level stamps, and the kernels' argument record.
// single_block.h builds the single block on these; persistent.hip the grid.
#pragma once
#include "bitmap.h"  // the visited set: bitmap_words, bitmap_bit, add_to_bitmap
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
#error "compile with -DSB_ROW_WIDTH=<0, or the width of each vertex's row of neighbours (a power of two, a row at most 128 bytes)>"
#endif
#if SB_ROW_WIDTH < 0 || 4 * SB_ROW_WIDTH > 128 || (SB_ROW_WIDTH & (SB_ROW_WIDTH - 1)) != 0
#error "SB_ROW_WIDTH must be 0 or a power of two, a row at most 128 bytes"
#endif
#ifndef SB_LOG
#error "compile with -DSB_LOG=<1: the single block logs what it finds and persistent_flush writes it out, 0: it writes levels and parents itself>"
#endif
#ifndef SB_ROW_HALVES
#error "compile with -DSB_ROW_HALVES=<1: the upper halves of the rows claimed only in the warps that have entries there, 0: in every warp>"
#endif
#if SB_ROW_HALVES && SB_ROW_WIDTH < 2
#error "SB_ROW_HALVES needs rows of at least 2 entries"
#endif
#ifndef SB_ROW_BATCH
#error "compile with -DSB_ROW_BATCH=<rows a thread of the single block loads before it claims any>"
#endif
#ifndef MEASURED_HANDOVER
#error "compile with -DMEASURED_HANDOVER=<1: the single block also hands over once it has lost more time to the grid than a switch costs, 0: only a level that outgrows it>"
#endif
#ifndef VP_MAX_DEGREE
#error "compile with -DVP_MAX_DEGREE=<levels gathered by warps while no frontier vertex has more edges; 0: never>"
#endif
#ifndef VP_MIN_VERTICES
#error "compile with -DVP_MIN_VERTICES=<levels gathered by warps while the frontier has at least this many vertices>"
#endif
#if SB_BLOCK_SIZE % WARP_SIZE != 0
#error "SB_BLOCK_SIZE must be a multiple of WARP_SIZE: the single block appends by whole warps"
#endif
#if SB_BLOCK_SIZE / WARP_SIZE > WARP_SIZE
#error "SB_BLOCK_SIZE may have at most WARP_SIZE warps: one warp scans their sums"
#endif
#if SB_CAPACITY < 1 || EDGE_BATCH < 1 || SB_EDGE_LIMIT < 0 || VP_MAX_DEGREE < 0 || VP_MIN_VERTICES < 0
#error "need SB_CAPACITY >= 1, EDGE_BATCH >= 1, and SB_EDGE_LIMIT, VP_MAX_DEGREE, VP_MIN_VERTICES >= 0"
#endif
#if SB_ROW_BATCH < 1
#error "SB_ROW_BATCH must be at least 1"
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
    // With MEASURED_HANDOVER (step 7), what each kernel measured of the tiers: the mean
    // time of a level of the grid's last run, its levels alone, and what that run spent
    // outside its levels, its start and its hand-back (nanoseconds of the device clock;
    // 0: none yet); and the width the single block expects to run as fast as the grid,
    // named when it last handed over a level for being slow (0: it never did).
    bfs_u32 grid_ns;
    bfs_u32 slow_vertices;
    bfs_u32 switch_ns;
    // Step 7: how many times the grid has handed the frontier back in this search (the
    // host queues the single block behind the next search's first grid launch only if
    // this search needed it).
    bfs_u32 hand_backs;
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
#if SB_ROW_WIDTH >= 2
// With SB_ROW_HALVES a row is read half by half: the lower half always, the upper half
// only by a warp one of whose rows has entries there (marked by ROW_MORE_BIT on the lower
// half's last entry).
struct __align__(SB_ROW_WIDTH >= 8 ? 16 : 2 * SB_ROW_WIDTH) RowHalf {
    vertex_t vertex[SB_ROW_WIDTH / 2];
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
// the single block's start, the grid's barrier. (max_levels changes only with a search's
// depth_limit: the host writes it into the record before the search's first batch.) A kernel's arguments live in a constant
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
    level_t max_levels;        // per search: the levels it may expand (its depth_limit)
};
// [persistent-args-end]
