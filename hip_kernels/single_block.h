// single_block.h: step 5's single block, and what it shares with a grid that runs
// the levels of a larger frontier (persistent_grid in persistent.hip, step 6's kernel
// in step 7): the Control record they leave for each other, the grid's queues, the
// per-level stamps, and the rule and the bitmap of a hand-back.
//
// It defines the single block's two kernels: persistent_single, which runs level after
// level while the frontier fits its shared memory, and persistent_flush, which writes out
// what it logged. Steps 5 and 7 launch both.
//
// The records they share are in persistent_records.h, the single block's queues in
// single_block_queues.h, its ways of expanding a level in single_block_expand.h.
#pragma once
#include "single_block_expand.h"

// x >= least, for a least that may be 0 (VP_MIN_VERTICES: written inline, a compile-time
// 0 draws a warning).
__device__ inline bool at_least(bfs_u32 x, bfs_u32 least) { return x >= least; }

// [persistent-single-kernel-begin]
extern "C" __global__ void __launch_bounds__(SB_BLOCK_SIZE)
persistent_single(const PersistentArgs a, vertex_t start)
{
    // A search from one source begins with start = the source, at level 0, whatever the
    // Control record holds (the host writes nothing to it); every other launch has
    // start = -1 and carries on from the record, or returns at once when it is not its
    // turn. (A search from several sources begins with start = -1 too: the host has
    // written the record as a hand-back at level 0 would leave it.)
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
    // [persistent-single-measured-begin]
    // MEASURED_HANDOVER: what a grid level costs and what a switch to the grid and back
    // costs, as the grid measured them (0: unknown), and the width the block expects to
    // run as fast as the grid, named when it last handed a level over for being slow.
    bfs_u32 slow_vertices = MEASURED_HANDOVER && !fresh ? a.control->slow_vertices : 0u;
    #if MEASURED_HANDOVER
    const bfs_u32 grid_ns = fresh ? 0u : a.control->grid_ns;
    const bfs_u32 switch_ns = fresh ? 0u : a.control->switch_ns;
    const level_t first_level = level;
    #endif
    // [persistent-single-measured-end]

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
    #if MEASURED_HANDOVER
    __shared__ bfs_u64 level_began;  // thread 0's clock when the last level began
    __shared__ bfs_u32 lost;         // ns lost to the grid's levels since the block kept up
    __shared__ bfs_u32 fit_width;    // the width it expects to run as fast as the grid
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
                           a.parents, a.log, a.log_levels, (bfs_u32)a.n, bitmap_words(a.n)};
    // [persistent-single-shared-end]

    // [persistent-single-start-begin]
    // The vertices visited so far: none at a fresh start (the block clears its bitmap
    // itself, so the host has nothing to clear before a search); later, those of the
    // global bitmap, which the grid rebuilt when it handed the frontier back (or the host
    // wrote: the start vertices of a search from several).
    const bfs_u32 words = bitmap_words(a.n);
    if (fresh) {
        for (bfs_u32 w = threadIdx.x; w < words; w += SB_BLOCK_SIZE) bitmap[w] = 0;
    } else if (SHARED_BITMAP) {
        for (bfs_u32 w = threadIdx.x; w < words; w += SB_BLOCK_SIZE)
            bitmap[w] = a.global_bitmap[w];
    }
    const bfs_u32 small_count = fresh ? 0 : Q.count(level, SMALL);
    const bfs_u32 medium_count = fresh ? 0 : Q.count(level, MEDIUM);
    if (threadIdx.x < 3) counter[threadIdx.x] = LevelCount{0, 0, 0, 0};
    #if SB_ROW_WIDTH > 0
    if (threadIdx.x == 0) expanded = 0;
    #endif
    if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
    if (threadIdx.x == 0) broken = 0;
    #if MEASURED_HANDOVER
    if (threadIdx.x == 0) lost = 0;
    #endif
    __syncthreads();  // the bitmap and the counters are ready; the grid's counts are read
    if (fresh && threadIdx.x == 0) {  // the host set every level and parent to -1
        add_to_bitmap(bitmap, source);
        a.levels[source] = 0;
        a.parents[source] = source;
    }
    load_frontier(S, Q, level % 2, level, fresh, source, small_count, medium_count,
                  &counter[level % 3]);
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
        const bool by_warp = VP_MAX_DEGREE > 0 && !counter[level % 3].wide &&
                             at_least(count, VP_MIN_VERTICES);
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
        // [persistent-single-depth-begin]
        // A depth_limit: the frontier of level max_levels is found (and logged), and not
        // expanded. (The same value in every thread; without a limit max_levels is past
        // any level.)
        if (level >= a.max_levels) { mode = MODE_DONE; break; }
        // [persistent-single-depth-end]
        // (With rows, a level has at most SB_ROW_WIDTH edges a vertex.)
        const bfs_u32 edges_at_most = SB_ROW_WIDTH > 0 ? count * SB_ROW_WIDTH : total;
        // [persistent-single-hand-over-rule-begin]
        // The level goes to the grid when it outgrows the block's queues or edge limit,
        // and with MEASURED_HANDOVER also when the time the block has lost to the grid's
        // levels exceeds what a switch costs (`slow`, the same in every thread).
        const bool slow = MEASURED_HANDOVER && counter[level % 3].slow;
        if (count > SB_CAPACITY || edges_at_most > SB_EDGE_LIMIT || slow) {
    #if MEASURED_HANDOVER
            if (slow) slow_vertices = fit_width;  // the grid gives back frontiers this narrow
    #endif
            hand_over(S, Q, level % 2, count, level, &local);
            mode = MODE_GRID;
            enqueued -= count;  // the grid counts them again
            break;
        }
        if (threadIdx.x == 0) counter[(level + 2) % 3] = LevelCount{0, 0, 0, 0};  // read a barrier ago
        LevelCount* const next = &counter[(level + 1) % 3];
    #if MEASURED_HANDOVER
        // Thread 0 times the level before this one (from its start to this one's, the
        // barrier included) and weighs it (weigh_level, single_block_queues.h): once the
        // block has lost more time to the grid than a switch costs, it flags the next
        // level for the grid, which every thread reads a barrier from now.
        if (threadIdx.x == 0) {
            const bfs_u64 now = device_clock();
            if (level > first_level && grid_ns > 0 &&
                weigh_level(lost, now - level_began, grid_ns, switch_ns, previous, fit_width))
                next->slow = 1;
            level_began = now;
        }
    #endif
        // [persistent-single-hand-over-rule-end]
    #if SB_ROW_WIDTH > 0
        my_expanded += SB_ROW_BATCH > 1 && count > SB_BLOCK_SIZE
                           ? expand_rows<SB_ROW_BATCH>(S, level % 2, count, level, next, logged)
                           : expand_rows<1>(S, level % 2, count, level, next, logged);
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
        if (MEASURED_HANDOVER) a.control->slow_vertices = slow_vertices;
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

// [persistent-hand-back-end]
