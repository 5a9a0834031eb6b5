// push_pull_grid.h: step 6's direction-optimizing kernel, push_pull_bfs, and its parts.
//
// Step 6 (push_pull.hip) builds it alone; step 7 (adaptive.hip) builds it with
// ADAPTIVE_HANDOFF 1 after single_block.h, so that it hands frontiers to and from
// step 5's single block.
//
// Its parts (tunables, argument record, counters, conversions) are in push_pull_parts.h.
#pragma once
#include "push_pull_parts.h"

// [push-pull-handoff-begin]
// Step 7 (adaptive.hip) includes this file after single_block.h with ADAPTIVE_HANDOFF 1:
// the kernel then runs only the levels between two hand-overs. It starts from step 5's
// Control record (the level, and the frontier in step 5's grid queues) instead of the
// source, and stops, handing the frontier back to step 5's single block, once it is
// small again. With ADAPTIVE_HANDOFF 0 (the default) this file is step 6 alone.
#ifndef ADAPTIVE_HANDOFF
#define ADAPTIVE_HANDOFF 0
#endif
#ifndef WIDE_PULLS
#error "compile with -DWIDE_PULLS=<1: pull only a frontier with more edges than the grid has threads, 0: Beamer's rule alone>"
#endif
#ifndef PULL_GROWTH
#error "compile with -DPULL_GROWTH=<eighths by which a frontier must grow before it is pulled: 0, it need only grow>"
#endif
#if ADAPTIVE_HANDOFF
// A grid barrier gave up: mark the search failed, so that no kernel launched behind this
// one carries on from a half-finished level, and leave.
#define GIVE_UP()                                                                     \
    do {                                                                              \
        if (threadIdx.x == 0) atomicExch(&a.control->mode, (bfs_u32)MODE_FAILED);     \
        return;                                                                       \
    } while (0)
#define STAMP_PULL 6  // LevelStamp.kernel of a bottom-up level (MODE_GRID: top-down)
#ifndef HAND_BACK_AFTER
#error "compile with -DHAND_BACK_AFTER=<levels in a row that fit the single block before it takes them>"
#endif
#if HAND_BACK_AFTER < 1
#error "HAND_BACK_AFTER must be at least 1"
#endif
#ifndef KEEP_MEASURES
#error "compile with -DKEEP_MEASURES=<1: a fresh search keeps the last search's measures, 0: it replaces them>"
#endif
#else
#define GIVE_UP() return
#endif
// [push-pull-handoff-end]

// [push-pull-kernel-begin]
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
push_pull_bfs(const PushPullArgs a)
{
#if ADAPTIVE_HANDOFF
    // The first launch of a search has its source and starts it (below, as step 6
    // does); a later one has source -1 and carries on from the Control record, or
    // returns at once when it is not its turn.
    const bool fresh = a.source >= 0;
    if (!fresh && a.control->mode != MODE_GRID) return;  // the same for every block
#endif
    __shared__ LocalQueues local;
    __shared__ bfs_u64 block_tally[2];
    __shared__ PhaseCounts counted;  // what the last phase counted (read_phase)
    __shared__ CrossingMarks marks;  // thread 0's: the crossing words as last read
    if (threadIdx.x < 2) {
        local.counts[threadIdx.x] = 0;
        block_tally[threadIdx.x] = 0;
    }
    __syncthreads();  // nobody enqueues before the counters are zero

    // The grid strides over all the work of a phase: a thread's place in it.
    const bfs_u32 threads = gridDim.x * BLOCK_SIZE;
    const bfs_u32 warps = gridDim.x * WARPS_PER_BLOCK;
    const bfs_u32 thread = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const bfs_u32 warp = blockIdx.x * WARPS_PER_BLOCK + warp_id();
    // Queue set q's queues, chosen by a select: an array of the two pointers indexed by
    // the run-time set would be kept in local memory, a load on every level's chain.
    const auto small_queues = [&a](int q) { return q ? a.small_1 : a.small_0; };
    const auto medium_queues = [&a](int q) { return q ? a.medium_1 : a.medium_0; };
    const auto large_queues = [&a](int q) { return q ? a.large_1 : a.large_0; };
    // The small queue is written once per search, each level's entries after the last
    // level's: one of the two queue sets' (step 7's grid: the one it takes the frontier
    // in) holds them all.
    int small_set = 0;
    // The pair of crossing words of the next counting crossing (counting_crossing.h).
    const auto crossing_words = [&a] {
        return a.tallies + (COUNTER_SETS + (marks.crossings & 1)) * TALLY_STRIDE;
    };
    if (threadIdx.x == 0) reset_marks(marks);  // seen after the first grid_sync below
    SearchState st;

#if ADAPTIVE_HANDOFF
    bool handed_back = false;
    bfs_u32 fitting = 0;  // levels in a row whose frontier the single block could take
    // [adaptive-measured-begin]
    // MEASURED_HANDOVER: thread 0 times this run of the grid with the device clock and
    // leaves two figures for the single block: what a level of the run cost (its levels
    // alone, from the first one's start to the hand-back), and what the run spent outside
    // its levels, its start and its hand-back: what a switch to the grid and back costs.
    // The single block weighs the time it loses to the grid's levels against that cost.
    // A frontier goes back only when it is at most as wide as the single block expects
    // to run as fast as the grid (slow_vertices, 0: it never handed over for being slow;
    // used where a hand-back is decided, below). Thread 0's clocks and slow_vertices live
    // in shared memory, not in registers that every thread of the grid would hold for
    // the whole search: this kernel has 64 registers a thread, and what does not fit them
    // spills to memory, reloaded at every level (chapter 7 measures it). Nor is
    // slow_vertices read from the Control record by every thread at each level:
    // thousands of requests for one word at the L2 (chapter 6, "Reading the counts once
    // per block").
    __shared__ bfs_u64 run_began, levels_began, levels_ended;
    __shared__ level_t run_first;
    __shared__ bfs_u32 slow_vertices;
    if (MEASURED_HANDOVER && threadIdx.x == 0) {
        run_began = device_clock();
        run_first = fresh ? 0 : a.control->level;
        // Constant while the grid runs (the single block wrote it before); thread 0
        // reads it for its block, once (grid_sync below makes it seen).
        slow_vertices = fresh ? 0u : a.control->slow_vertices;
    }
    // [adaptive-measured-end]
    if (!fresh) {
        // [adaptive-resume-begin]
        // Carry on from where the single block stopped: the frontier of `level` is in the
        // queue set of parity level % 2, counted in counter set level % 3 (step 5's layout).
        const level_t start_level = a.control->level;
        const bfs_u32* start_counts = a.counts + (start_level % 3) * QUEUES * COUNTER_STRIDE;
        st = SearchState{start_level, start_level % 2, 0, TOP_DOWN, 0, 0,
                         load_fresh(&start_counts[SMALL * COUNTER_STRIDE]),
                         load_fresh(&start_counts[MEDIUM * COUNTER_STRIDE]),
                         load_fresh(&start_counts[LARGE * COUNTER_STRIDE]), 0, 0,
                         a.control->previous, 0, a.control->enqueued, a.control->pieces};
        st.enqueued += st.small_count + st.medium_count;
        st.pieces += st.large_count;
        small_set = st.queue_set;  // the frontier's small entries start at 0 there
        if (thread == 0) a.status[STATUS_ERROR] = 0;
        if (!grid_sync(a.barrier)) GIVE_UP();  // everyone has read the counts cleared below
        for (bfs_u32 w = thread; w < 3 * a.words; w += threads) a.bitmaps[w] = 0;
        for (bfs_u32 i = thread; i < a.count_words; i += threads) a.counts[i] = 0;
        for (bfs_u32 i = thread; i < a.tally_words; i += threads) a.tallies[i] = 0;
        // Claims by bit (CLAIM_BITS): the visited bitmap from the levels, which the single
        // block has written; the grid keeps it up from here, and hands it back as it is.
        if (CLAIM_BITS) rebuild_bitmap(a.visited, a.levels, a.num_vertices);
        // With WRITE_AFTER_ARRIVAL every free slot of the small queues holds -1 (the
        // single block left them as it used them).
        if (WRITE_AFTER_ARRIVAL)
            empty_small_queues(small_queues(st.queue_set), st.small_count,
                               small_queues(st.queue_set ^ 1), (bfs_u32)a.num_vertices,
                               thread, threads);
        if (!grid_sync(a.barrier)) GIVE_UP();
        // The counts of Beamer's rule: n_f and m_f over the queues (a large vertex counts
        // once, with piece 0); m_u from the Control record, which counts the edges of the
        // levels before this one.
        Tally frontier = {0, 0};
        const vertex_t* small = small_queues(st.queue_set);
        const vertex_t* medium = medium_queues(st.queue_set);
        const Piece* large = large_queues(st.queue_set);
        for (bfs_u32 i = thread; i < st.small_count + st.medium_count + st.large_count;
             i += threads) {
            vertex_t v = -1;
            if (i < st.small_count) v = small[i];
            else if (i < st.small_count + st.medium_count) v = medium[i - st.small_count];
            else if (large[i - st.small_count - st.medium_count].index == 0)
                v = large[i - st.small_count - st.medium_count].vertex;
            if (v < 0) continue;
            frontier.vertices += 1;
            frontier.edges += (bfs_u64)(a.offsets[v + 1] - a.offsets[v]);
        }
        bfs_u64* const sums = a.tallies + 2 * TALLY_STRIDE;  // the third set, slots 0-1
        add_tally(frontier, block_tally, sums);
        st.dirty |= COUNTS_USED << 2;  // cleared before its next use (begin_phase)
        if (!grid_sync(a.barrier)) GIVE_UP();
        st.frontier_vertices = (bfs_u32)load_fresh(&sums[0]);
        st.frontier_edges = load_fresh(&sums[1]);
        const bfs_u64 seen = a.control->visited_edges + st.frontier_edges;
        st.unvisited_edges = a.num_edges > seen ? a.num_edges - seen : 0;
        // [adaptive-resume-end]
    } else  // a fresh search: step 6's start below
#endif
    {
        // [push-pull-reset-begin]
        // The start state, written by the grid itself: the host launches once and sets
        // nothing else, where a memset or a copy per buffer would cost it a call each.
        // Every bitmap and counter zero, every level and parent -1 but the source's, and
        // the source alone in the queue the host chose for it (it counted its pieces).
        for (bfs_u32 w = thread; w < 3 * a.words; w += threads) a.bitmaps[w] = 0;
        for (bfs_u32 i = thread; i < a.count_words; i += threads) a.counts[i] = 0;
        for (bfs_u32 i = thread; i < a.tally_words; i += threads) a.tallies[i] = 0;
        for (bfs_u32 i = thread; i < a.path_words; i += threads) a.path_counts[i] = 0;
        if (thread == 0) a.status[STATUS_ERROR] = 0;  // read back by the host, bar the levels
        // [push-pull-start-begin]
        // From several start vertices (source -1) the host has written the levels, the
        // parents and the queues of level 0 (each start where its degree says), and the
        // grid leaves them as they are. (The same branch for every thread, once a search.)
        if (a.source >= 0) {
            for (bfs_u32 v = thread; v < (bfs_u32)a.num_vertices; v += threads) {
                const bool is_source = v == (bfs_u32)a.source;
                a.levels[v] = is_source ? 0 : -1;
                a.parents[v] = is_source ? a.source : -1;
            }
            // Claims by bit (CLAIM_BITS): the visited bitmap holds the source alone (from
            // several starts, the host wrote it with the levels).
            if (CLAIM_BITS)
                for (bfs_u32 w = thread; w < a.words; w += threads)
                    a.visited[w] = w == (bfs_u32)a.source >> BITMAP_WORD_SHIFT
                                       ? bitmap_bit(a.source) : 0u;
            for (bfs_u32 p = thread; p < a.large_count; p += threads)
                a.large_0[p] = Piece{a.source, p};
            if (thread == 0 && a.small_count) a.small_0[0] = a.source;
            if (thread == 0 && a.medium_count) a.medium_0[0] = a.source;
        }
        // With WRITE_AFTER_ARRIVAL every free slot of the small queues holds -1: a search
        // that ran to its end here read every entry, and set it back to -1; after any
        // other (a depth limit, an error, the first search) the grid empties them.
        const bool dirty = load_fresh(&a.status[STATUS_CLEAN]) == 0;  // before any writes it
        if (WRITE_AFTER_ARRIVAL && dirty)
            empty_small_queues(a.small_0, a.small_count, a.small_1, (bfs_u32)a.num_vertices,
                               thread, threads);
        // [push-pull-start-end]
        if (!grid_sync(a.barrier)) GIVE_UP();
        if (thread == 0) a.status[STATUS_CLEAN] = 0;  // until this search has run to its end
        // [push-pull-reset-end]

        // Level 0: the start vertices in their queues (the source alone, or several),
        // top-down; m_f is their degrees, m_u every other edge.
        st = SearchState{0, 0, 0, TOP_DOWN, 0, 0, a.small_count, a.medium_count,
                         a.large_count, a.start_vertices, a.start_edges, 0,
                         a.num_edges - a.start_edges,
                         a.small_count + a.medium_count, a.large_count};
    }
    // [push-pull-kernel-end]
#if ADAPTIVE_HANDOFF
    if (MEASURED_HANDOVER && threadIdx.x == 0) levels_began = device_clock();
#endif

    for (;;) {
        // [push-pull-depth-begin]
        // A depth_limit: the frontier of level max_levels is found, and not expanded.
        // (Every thread compares the same two values; without a limit max_levels is past
        // any level.) Step 7's grid stops here too, whether it started the search or
        // took it over from the single block, which checks the same before its levels.
        if (st.level >= a.max_levels) break;
        // [push-pull-depth-end]
        if (st.level >= a.num_vertices) {  // each level reaches a new vertex: a broken kernel
            if (thread == 0) a.status[STATUS_ERROR] = ERROR_RUNAWAY;
            break;
        }
        if (a.record_clocks && thread == 0) a.clocks[st.level] = device_clock();
        // [push-pull-rule-begin]
        // Beamer's rule, in integers: bottom-up when m_f > m_u / ALPHA while the frontier
        // grows, top-down again when n_f < n / BETA while it shrinks. "Grows" is by more
        // than PULL_GROWTH eighths: in the tail of a mesh few edges are left unvisited, so
        // m_f passes m_u / ALPHA, and a frontier that wavers by a few vertices would be
        // pulled for one level, at the price of two conversions. With WIDE_PULLS the
        // frontier must also have more edges than the grid has threads: a top-down level
        // with at most one edge a thread is one pass of the grid, which no sweep beats.
        if (FORCE_DIRECTION == 1) {
            st.direction = TOP_DOWN;
        } else if (FORCE_DIRECTION == 2) {
            st.direction = BOTTOM_UP;
        } else if (st.direction == TOP_DOWN) {
            if (st.frontier_edges * ALPHA > st.unvisited_edges &&
                (!WIDE_PULLS || st.frontier_edges > (bfs_u64)threads) &&
                (bfs_u64)st.frontier_vertices * 8 >
                    (bfs_u64)st.previous_vertices * (8 + PULL_GROWTH))
                st.direction = BOTTOM_UP;
        } else if ((bfs_u64)st.frontier_vertices * BETA < (bfs_u64)a.num_vertices &&
                   st.frontier_vertices < st.previous_vertices) {
            st.direction = TOP_DOWN;
        }
        // [push-pull-rule-end]
        if (thread == 0)
            a.records[st.level] = st.frontier_vertices |
                                (st.direction == BOTTOM_UP ? RECORD_BOTTOM_UP : 0u);
#if ADAPTIVE_HANDOFF
        if (thread == 0)
            stamp(a.stamps, a.stamp_capacity, st.level,
                  st.direction == BOTTOM_UP ? STAMP_PULL : MODE_GRID, st.frontier_vertices);
#endif
        // Three bitmaps in turn: this level's frontier, the next one, and the last
        // level's, which this level's phase clears.
        const bfs_u32 this_map = (bfs_u32)st.level % 3, next_map = (this_map + 1) % 3,
                      old_map = (this_map + 2) % 3;
        bfs_u32* const frontier_bits = a.bitmaps + this_map * a.words;

        // [push-pull-switch-begin]
        // A change of direction: the frontier goes into the form the new direction
        // reads, in a phase of its own.
        if (st.direction == BOTTOM_UP && !st.as_bitmap) {
            begin_phase(a.counts, a.tallies, st.phase, st.dirty);
            queues_to_bitmap(small_queues(small_set) + st.small_first, st.small_count,
                             medium_queues(st.queue_set), st.medium_count,
                             large_queues(st.queue_set), st.large_count, frontier_bits,
                             thread, threads, a.barrier);
            st.dirty |= 1u << this_map;
            st.as_bitmap = 1;
            st.phase++;
            if (!grid_sync(a.barrier)) GIVE_UP();
        } else if (st.direction == TOP_DOWN && st.as_bitmap) {
            // The frontier of level L goes to the queue set of parity L % 2, where step 5's
            // kernels look for it (step 7 hands it to them).
            st.queue_set = (st.level + 1) % 2;
            const Counters c = begin_phase(a.counts, a.tallies, st.phase, st.dirty);
            st.dirty |= COUNTS_USED << (st.phase % COUNTER_SETS);
            const Level L = {a.offsets, a.edges, a.levels, a.parents, st.level + 1,
                             small_queues(small_set) + st.small_first + st.small_count,
                             medium_queues(st.queue_set ^ 1), large_queues(st.queue_set ^ 1),
                             c.counts, &local, a.path_counts};
            bitmap_to_queues(L, frontier_bits, a.words, thread, threads);
            // Claims by bit: the sweeps wrote levels, not bits; the visited bitmap is
            // rebuilt from the levels, once for the whole run of pulled levels (a bit set
            // by each sweep as it finds a vertex was slower on the small worlds).
            if (CLAIM_BITS) rebuild_bitmap(a.visited, a.levels, a.num_vertices);
            copy_out(L);
            st.phase++;
            if (!grid_sync(a.barrier, [&] {
                    read_phase(c, marks, counted);
                    empty_local_queues(local);
                }))
                GIVE_UP();
            st.as_bitmap = 0;
            if (!take_queues(counted, st, a.num_vertices, a.large_capacity)) {
                if (thread == 0) a.status[STATUS_ERROR] = ERROR_OVERFLOW;
                break;
            }
        }
        // [push-pull-switch-end]
#if ADAPTIVE_HANDOFF
        // [adaptive-hand-back-begin]
        // A frontier in queues that step 5's single block can take (fits_single_block,
        // single_block.h), HAND_BACK_AFTER levels in a row: give it back, with its counts
        // where the single block reads them and the visited bitmap rebuilt from the levels.
        // (Waiting for a few small levels keeps the short tail of a small-world graph in
        // the grid: a hand-back costs more than the levels it would save there; a long
        // tail, a road network's or a mesh's, still goes to the single block.)
        const bfs_u32 slow = MEASURED_HANDOVER ? slow_vertices : 0u;
        const bool narrow = slow == 0 || st.small_count + st.medium_count <= slow;
        fitting = !st.as_bitmap && narrow &&
                  fits_single_block(st.small_count, st.medium_count, st.large_count)
                      ? fitting + 1 : 0;
        if (fitting >= HAND_BACK_AFTER) {
            if (MEASURED_HANDOVER && threadIdx.x == 0) levels_ended = device_clock();
            // The small entries go to the start of the queue set of the level's parity,
            // where step 5's kernels look for them (the grid wrote each level's after the
            // last one's): straight there from another set, through the other set when
            // they are further on in the same one.
            vertex_t* const to = small_queues(st.queue_set);
            const bool same = small_set == st.queue_set;
            if (!same || st.small_first > 0)
                copy_small(small_queues(small_set) + st.small_first,
                           same ? small_queues(st.queue_set ^ 1) : to, st.small_count, thread,
                           threads, a.barrier);
            if (!grid_sync(a.barrier)) GIVE_UP();  // everyone has read the counters written here
            if (same && st.small_first > 0)
                copy_small(small_queues(st.queue_set ^ 1), to, st.small_count, thread, threads,
                           a.barrier);
            if (blockIdx.x == 0 && threadIdx.x < QUEUES) {
                const bfs_u32 q = threadIdx.x;
                a.counts[((st.level % 3) * QUEUES + q) * COUNTER_STRIDE] =
                    q == SMALL ? st.small_count : q == MEDIUM ? st.medium_count : st.large_count;
            }
            // (Claims by bit kept the bitmap up level by level: nothing to rebuild.)
            if (!CLAIM_BITS) rebuild_bitmap(a.visited, a.levels, a.num_vertices);
            handed_back = true;
            break;
        }
        // [adaptive-hand-back-end]
#endif

        // [push-pull-level-begin]
        // One level, in the chosen direction.
        const Counters c = begin_phase(a.counts, a.tallies, st.phase, st.dirty);
        const bfs_u32 counter_set = st.phase % COUNTER_SETS;
        if (st.dirty & (1u << old_map)) {
            clear_bitmap(a.bitmaps + old_map * a.words, a.words, thread, threads);
            st.dirty &= ~(1u << old_map);
        }
        Tally found = {0, 0};
        bool crossed = false;  // the level ended in a counting crossing (COUNTING_CROSSING)
        if (st.direction == BOTTOM_UP) {
            const Sweep S = {a.offsets, a.in_offsets, a.in_edges, a.active, a.active_count,
                             a.levels, a.parents, st.level + 1, frontier_bits,
                             a.bitmaps + next_map * a.words, a.path_counts};
            bottom_up(S, warp, warps, found);
            st.dirty |= 1u << next_map;
            add_tally(found, block_tally, c.tally);
        } else {
            // Step 4's three gathers as top_down.h extends them, each over the whole
            // grid; `found` counts the vertices claimed.
            const Level L = {a.offsets, a.edges, a.levels, a.parents, st.level + 1,
                             small_queues(small_set) + st.small_first + st.small_count,
                             medium_queues(st.queue_set ^ 1), large_queues(st.queue_set ^ 1),
                             c.counts, &local, a.path_counts, a.visited, crossing_words(),
                             st.small_mark, a.barrier};
            // A queue shorter than the grid is wide is shared out (SHARE_SHORT_QUEUES):
            // several warps, or threads, to each of its vertices, so that a level of a
            // few vertices does not wait for one warp or thread to walk each list.
            top_down_large(L, large_queues(st.queue_set), st.large_count, blockIdx.x, gridDim.x,
                           found);
            top_down_medium(L, medium_queues(st.queue_set), st.medium_count, warp, warps,
                            SHARE_SHORT_QUEUES ? log_share(st.medium_count, warps, WARP_SIZE,
                                                           BLOCK_THRESHOLD) : 0, found);
            const bfs_u32 small_share =
                SHARE_SHORT_QUEUES ? log_share(st.small_count, threads, 1, WARP_THRESHOLD) : 0;
            vertex_t* const small = small_queues(small_set) + st.small_first;
            top_down_small(L, small, st.small_count, thread, threads, small_share, found);
            sum_in_block(found, block_tally);
            // [push-pull-crossing-call-begin]
            if (COUNTING_CROSSING) {
                // The level ends in a crossing of its own, which brings the counts.
                crossed = true;
                if (!cross_counted(L, c, block_tally, small, st.small_count << small_share,
                                   small_share, thread, threads, marks, counted))
                    GIVE_UP();
            } else {
                // The count of what the block found goes out with its queues: thread 0
                // sends it between copy_out's two __syncthreads (add_tally would need
                // one more).
                copy_out(L, [&] { send_block_tally(block_tally, c.tally); });
            }
            // [push-pull-crossing-call-end]
        }
        st.phase++;
        // Thread 0 reads what the phase counted, and empties the block's local queues,
        // inside the barrier (empty_local_queues).
        if (!crossed && !grid_sync(a.barrier, [&] {
                read_phase(c, marks, counted);
                empty_local_queues(local);
            }))
            GIVE_UP();
        if (counted.used) st.dirty |= COUNTS_USED << counter_set;  // the same in every thread
        // [push-pull-level-end]

        // [push-pull-count-begin]
        // Every thread reads the same sums (its block's copy) and updates its copy of
        // the state.
        const bfs_u64 found_vertices = counted.found[0];
        const bfs_u64 found_edges = counted.found[1];
        if (st.direction == TOP_DOWN && !take_queues(counted, st, a.num_vertices, a.large_capacity)) {
            if (thread == 0) a.status[STATUS_ERROR] = ERROR_OVERFLOW;
            break;
        }
        st.as_bitmap = st.direction == BOTTOM_UP;
        st.unvisited_edges = st.unvisited_edges > found_edges ? st.unvisited_edges - found_edges
                                                              : 0;
        st.previous_vertices = st.frontier_vertices;
        st.frontier_vertices = (bfs_u32)found_vertices;
        st.frontier_edges = found_edges;
        st.level++;
        if (st.frontier_vertices == 0) break;  // the search is over
        // [push-pull-count-end]
    }
    if (thread == 0) {
        if (a.record_clocks) a.clocks[st.level] = device_clock();
        a.status[STATUS_LEVELS] = (bfs_u32)st.level;
#if ADAPTIVE_HANDOFF
        const bool ended_here = !handed_back;
#else
        const bool ended_here = true;
#endif
        // Every entry read (and set back to -1): the search ran to its end in this kernel.
        a.status[STATUS_CLEAN] = ended_here && st.frontier_vertices == 0 && !a.status[STATUS_ERROR];
#if ADAPTIVE_HANDOFF
        // Where the search stands, for the single block and the host.
        if (fresh) a.control->source = a.source;
        a.control->hand_backs = (fresh ? 0u : a.control->hand_backs) + (handed_back ? 1u : 0u);
        if (!handed_back) stamp(a.stamps, a.stamp_capacity, st.level, MODE_DONE, 0);
        a.control->mode = a.status[STATUS_ERROR] ? MODE_RUNAWAY
                        : handed_back              ? MODE_SINGLE
                                                   : MODE_DONE;
        a.control->level = st.level;
        // The single block counts the frontier it takes again.
        a.control->enqueued = st.enqueued -
                            (handed_back ? st.small_count + st.medium_count : 0u);
        a.control->pieces = st.pieces;
        // The edges of the levels before the frontier handed back: all but the
        // frontier's and the unvisited vertices'.
        a.control->visited_edges = a.num_edges - st.unvisited_edges - st.frontier_edges;
        a.control->previous = st.previous_vertices;
        if (MEASURED_HANDOVER) {
            // [adaptive-measured-clock-begin]
            // What a level of this run cost, and what the run spent outside its levels
            // (its start and its hand-back); a run of no level keeps the ones before.
            // With KEEP_MEASURES a fresh search also keeps the last search's, where there
            // are any (the host zeroes the record once): its first levels are a few
            // vertices wide, not like the levels the single block will weigh, and the
            // graph and the device are the same. The first search of a step measures its
            // first run.
            const bfs_u64 levels = (bfs_u64)(st.level - run_first);
            const bfs_u64 now = device_clock();
            const bfs_u64 in_levels = (handed_back ? levels_ended : now) - levels_began;
            const bfs_u64 mean = levels ? in_levels / levels : 0;
            const bfs_u64 outside = now - run_began - in_levels;
            const bool keep = KEEP_MEASURES && fresh && a.control->grid_ns > 0;
            if ((levels || fresh) && !keep) {
                a.control->grid_ns = clock_u32(mean);
                a.control->switch_ns = clock_u32(outside);
            }
            if (fresh) a.control->slow_vertices = 0;
            // [adaptive-measured-clock-end]
        }
#endif
    }
}
