// push_pull_parts.h: what step 6's kernel (push_pull_grid.h) is built from: its
// tunables, its argument record, its status words and per-level counters, the
// conversions of a frontier between queues and a bitmap, and the state each thread
// keeps through a search. The top-down gathers are in top_down.h, the bottom-up sweep
// in bottom_up.h.
#pragma once
#include "frontier.h"

#ifndef ALPHA
#error "compile with -DALPHA=<Beamer's alpha: bottom-up when m_f > m_u / ALPHA>"
#endif
#ifndef BETA
#error "compile with -DBETA=<Beamer's beta: top-down again when n_f < n / BETA>"
#endif
#ifndef BU_PROBE
#error "compile with -DBU_PROBE=<in-edges a thread checks alone before its warp helps>"
#endif
#ifndef BU_WARP_THRESHOLD
#error "compile with -DBU_WARP_THRESHOLD=<in-edges left from which the warp scans a list>"
#endif
#ifndef SHARE_SHORT_QUEUES
#error "compile with -DSHARE_SHORT_QUEUES=<1: several warps or threads share each vertex of a short queue>"
#endif
#ifndef FORCE_DIRECTION
#error "compile with -DFORCE_DIRECTION=<0: Beamer's rule, 1: always top-down, 2: always bottom-up>"
#endif
#if ALPHA < 1 || BETA < 1 || BU_PROBE < 0 || BU_WARP_THRESHOLD < 1
#error "need ALPHA >= 1, BETA >= 1, BU_PROBE >= 0 and BU_WARP_THRESHOLD >= 1"
#endif

#include "top_down.h"
#include "bottom_up.h"

// [push-pull-args-begin]
// The kernel's arguments: one record passed by value (so that its fields stay in the
// constant bank of kernel arguments, not in registers: step 5's argument record says
// why), which the host fills in once per graph, and before each search with the fields
// that change with the search. PushPullArgs in rodinia_bfs/variants/push_pull.py describes it
// field by field. Step 7's three pointers are null in step 6.
struct Control;     // step 7: persistent_records.h
struct LevelStamp;  // likewise
struct PushPullArgs {
    const edge_t* offsets;     // the graph's out-edges
    const vertex_t* edges;
    const edge_t* in_offsets;  // its in-edges, hubs first (bottom-up sweeps)
    const vertex_t* in_edges;
    const vertex_t* active;    // the vertices that have in-edges, active_count of them
    level_t* levels;
    vertex_t* parents;
    vertex_t* small_0;         // the two queue sets (step 4's queues)
    vertex_t* medium_0;
    Piece* large_0;
    vertex_t* small_1;
    vertex_t* medium_1;
    Piece* large_1;
    bfs_u32* bitmaps;          // three bitmaps of `words` words
    bfs_u32* counts;           // COUNTER_SETS sets of queue lengths, count_words in all
    bfs_u64* tallies;          // COUNTER_SETS tallies, tally_words in all
    bfs_u32* records;          // per level: n_f, and the direction in bit 31
    bfs_u64* clocks;           // device_clock() per level, with record_clocks
    bfs_u32* status;           // what the host reads back (STATUS_LEVELS, STATUS_ERROR)
    GridBarrier* barrier;
    bfs_u64* path_counts;      // with COUNT_PATHS, path_words of them
    Control* control;          // step 7: where the single block stopped, or this kernel
    bfs_u32* visited;          // the visited bitmap: step 7's single block's, and the
                               // claims' by bit (CLAIM_BITS)
    LevelStamp* stamps;        // step 7: which kernel ran each level, stamp_capacity of them
    bfs_u64 num_edges;
    bfs_u64 start_edges;       // per search: the start vertices' degrees (m_f of level 0)
    vertex_t num_vertices;
    bfs_u32 active_count;
    bfs_u32 large_capacity;
    bfs_u32 words;
    bfs_u32 record_clocks;
    bfs_u32 count_words;
    bfs_u32 tally_words;
    bfs_u32 path_words;
    bfs_u32 stamp_capacity;
    bfs_u32 small_count;       // per search: the level-0 queues (see the reset below)
    bfs_u32 medium_count;
    bfs_u32 large_count;
    vertex_t source;           // per search, or -1: several start vertices, staged by the
                               // host; step 7: -1 carries on from the Control record
    bfs_u32 start_vertices;    // per search: how many (n_f of level 0)
    level_t max_levels;        // per search: the levels it may expand (its depth_limit)
};
// [push-pull-args-end]

// Directions, as the per-level record stores them (bit 31 of the entry).
#define TOP_DOWN 0
#define BOTTOM_UP 1
#define RECORD_BOTTOM_UP 0x80000000u

// What the host reads back after the launch (status[]).
#define STATUS_LEVELS 0
#define STATUS_ERROR 1
#define STATUS_CLEAN 2    // WRITE_AFTER_ARRIVAL: 1 where the last search left every slot
                          // of both small queues -1 (it ran to its end in this kernel)
#define ERROR_RUNAWAY 1   // more levels than vertices
#define ERROR_OVERFLOW 2  // more queue entries than a BFS can make

// Sets of counters: the queue lengths (QUEUES of them, COUNTER_STRIDE apart) and the
// tally (vertices and edges found, on a 128-byte line of its own). Phase p counts into
// set p % 3, everyone reads set p % 3 after the barrier that ends phase p, and phase
// p clears set (p + 1) % 3, which nobody reads or writes during phase p.
#define COUNTER_SETS 3
// A tally set is two 128-byte lines of 16 slots: the phases' sets use slots 0-1 (the
// tally), the counting crossing's sets (counting_crossing.h) slot 0 of the first line
// and slots 0-1 of the second, so that the adds to one word do not queue behind the
// polls of the other.
#define TALLY_STRIDE (2 * TALLY_LINE)

// [push-pull-convert-begin]
// From queues to a bitmap (before a bottom-up level): one bit per queued vertex; a large
// vertex is in its queue once per piece, and piece 0 sets its bit.
// With WRITE_AFTER_ARRIVAL a small entry may still be on its way (small_entry waits for
// it), and its slot is emptied once read.
__device__ inline void queues_to_bitmap(vertex_t* small, bfs_u32 small_count,
                                        const vertex_t* medium, bfs_u32 medium_count,
                                        const Piece* large, bfs_u32 large_count,
                                        bfs_u32* bits, bfs_u32 first_thread, bfs_u32 threads,
                                        GridBarrier* barrier)
{
    for (bfs_u32 i = first_thread; i < small_count; i += threads) {
        const vertex_t v = small_entry(&small[i], barrier);
        if (v < 0) return;  // a wait gave up: the barrier after the phase reports it
        if (WRITE_AFTER_ARRIVAL) small[i] = -1;
        add_to_bitmap(bits, v);
    }
    for (bfs_u32 i = first_thread; i < medium_count; i += threads) add_to_bitmap(bits, medium[i]);
    for (bfs_u32 i = first_thread; i < large_count; i += threads)
        if (large[i].index == 0) add_to_bitmap(bits, large[i].vertex);
}

// From a bitmap to queues (before a top-down level): each thread takes whole words and
// enqueues the vertices of their set bits by degree, as a top-down level would have.
// The caller copies the block-local queues out.
__device__ inline void bitmap_to_queues(const Level& L, const bfs_u32* bits, bfs_u32 words,
                                        bfs_u32 first_thread, bfs_u32 threads)
{
    for (bfs_u32 w = first_thread; w < words; w += threads) {
        bfs_u32 word = bits[w];
        while (word != 0) {  // at most BITMAP_WORD_BITS trips
            const vertex_t v = (vertex_t)(w * BITMAP_WORD_BITS) + (__ffs((int)word) - 1);
            word &= word - 1;
            enqueue(L, v, L.offsets[v + 1] - L.offsets[v]);
        }
    }
}
// [push-pull-convert-end]

// Zero a bitmap, the whole grid together.
__device__ inline void clear_bitmap(bfs_u32* bits, bfs_u32 words, bfs_u32 first_thread,
                                    bfs_u32 threads)
{
    for (bfs_u32 w = first_thread; w < words; w += threads) bits[w] = 0;
}

// The counters a phase counts into. Phase p counts into set p % 3; everyone reads that
// set after the barrier that ends phase p; and phase p clears set (p + 1) % 3, which
// nobody reads or writes during phase p (it was read after phase p - 2), where that
// phase used it: a top-down level that ends in the counting crossing uses it only where a
// block found a medium or large vertex (`used`, bit COUNTS_USED << set, in the search
// state's `dirty`). Block 0 clears it, and then its arrival at a counting crossing must
// be a release (`cleared`), so that the clears are seen before the adds of phase p + 1.
struct Counters {
    bfs_u32* counts;  // queue lengths: SMALL, MEDIUM and LARGE, COUNTER_STRIDE apart
    bfs_u64* tally;   // vertices and edges found
    bool cleared;     // this phase cleared the spare set (block 0 did)
};
#define COUNTS_USED 8u  // bits 3-5 of SearchState.dirty: counter set s may be non-zero

__device__ inline Counters begin_phase(bfs_u32* counts, bfs_u64* tallies, bfs_u32 phase,
                                       bfs_u32& used)
{
    const bfs_u32 spare = (phase + 1) % COUNTER_SETS;
    const bool clear = (used & (COUNTS_USED << spare)) != 0;  // the same in every thread
    if (clear) {
        if (blockIdx.x == 0 && threadIdx.x < QUEUES)
            counts[(spare * QUEUES + threadIdx.x) * COUNTER_STRIDE] = 0;
        if (blockIdx.x == 0 && threadIdx.x < 2) tallies[spare * TALLY_STRIDE + threadIdx.x] = 0;
        used &= ~(COUNTS_USED << spare);
    }
    const bfs_u32 mine = phase % COUNTER_SETS;
    return Counters{counts + mine * QUEUES * COUNTER_STRIDE, tallies + mine * TALLY_STRIDE, clear};
}

// [push-pull-state-begin]
// The state of the search between levels. Every thread keeps its own copy and updates
// it from the same global counts after the same barriers, so all copies stay equal:
// every thread takes the same decisions, and none waits at a barrier the others skip.
struct SearchState {
    level_t level;              // the frontier's level
    int queue_set;              // which of the two queue sets holds the frontier
    int as_bitmap;              // the frontier is in queues (0) or in a bitmap (1)
    int direction;              // TOP_DOWN or BOTTOM_UP: how the last level went
    bfs_u32 phase;              // phases run so far: picks the counter set
    bfs_u32 dirty;              // bit b: bitmap b may have bits set; bit COUNTS_USED << s:
                                // counter set s may be non-zero (begin_phase)
    bfs_u32 small_count, medium_count, large_count;  // the queues' lengths
    // Vertex counts fit 32 bits (ids are 32-bit); edge counts take 64.
    bfs_u32 frontier_vertices;  // n_f
    bfs_u64 frontier_edges;     // m_f
    bfs_u32 previous_vertices;  // n_f of the level before
    bfs_u64 unvisited_edges;    // m_u
    bfs_u32 enqueued, pieces;   // queue entries so far, for the guard
    // The small queue is written once per search, each level's entries after the last
    // level's (a vertex enters it once): the frontier's entries start at small_first, and
    // the crossing's queue word of the next crossing held small_mark after the last one
    // that used it (cross_counted: a block's place is its add's return less that).
    bfs_u32 small_first, small_mark;
};
// [push-pull-state-end]

// [push-pull-read-phase-begin]
// What a phase counted, as every thread needs it after the barrier that ends the phase:
// the next queues' lengths and the vertices and edges found. Thread 0 of each block
// reads them as part of that barrier (grid_sync's after_wait) into the block's shared
// copy; read by every warp of the grid instead, they were thousands of requests a level
// for the same five lines at the L2, served one after another (chapter 6 measures it).
struct PhaseCounts {
    bfs_u32 queues[QUEUES];  // SMALL, MEDIUM, LARGE
    bfs_u64 found[2];        // vertices, edges
    bfs_u32 small_mark;      // the next crossing's queue word's value after its last use
    bool used;               // the phase used its counter set (begin_phase)
};

__device__ inline void read_phase(const Counters& c, const CrossingMarks& marks,
                                  PhaseCounts& into)
{
    for (int q = 0; q < QUEUES; q++) into.queues[q] = load_fresh(&c.counts[q * COUNTER_STRIDE]);
    into.found[0] = load_fresh(&c.tally[0]);
    into.found[1] = load_fresh(&c.tally[1]);
    into.small_mark = (bfs_u32)crossing_count(marks.queue[marks.crossings & 1]);
    into.used = true;
}
// [push-pull-read-phase-end]

// [push-pull-counting-crossing-begin]
// COUNTING_CROSSING: how a top-down level ends instead of copy_out and grid_sync with
// read_phase. Every thread of the block calls it after its gathers and sum_in_block;
// `read` is the small queue's part the level read, `reads` its count << log_share. Thread
// 0 adds the block's counts to the crossing's two words (counting_crossing.h: L.crossing
// is its pair) as it arrives, and its poll, which sees the last block arrive, reads the
// next small queue's length and the edges found in them: `counted` as read_phase fills
// it, with one more trip only where a block found a medium or large vertex (the flag
// word grew), whose counts are read as read_phase does. An add is a release only where
// the block wrote what others read after the crossing without waiting for it. False
// when a wait gave up.
__device__ inline bool cross_counted(const Level& L, const Counters& c, bfs_u64* block_tally,
                                     vertex_t* read, bfs_u32 reads, bfs_u32 log_share,
                                     bfs_u32 first_thread, bfs_u32 threads,
                                     CrossingMarks& marks, PhaseCounts& counted)
{
    LocalQueues& local = *L.local;
    bfs_u64* const queue_word = L.crossing + QUEUE_WORD;
    bfs_u64* const edge_word = L.crossing + EDGE_WORD;
    bfs_u64* const flag_word = L.crossing + FLAG_WORD;
    __shared__ bfs_u32 flagged, crossed;
    __shared__ bfs_u32 late;  // small entries written after the arrival (thread 0 empties
                              // the local queue's count while the others copy them)
    __syncthreads();  // every read, enqueue and sum of the block is done
#if WRITE_AFTER_ARRIVAL
    // Every entry the block read is -1 again, for the next search: within this one no
    // slot of the small queue is written twice.
    for (bfs_u32 t = first_thread; t < reads; t += threads)
        if ((t & ((1u << log_share) - 1)) == 0) read[t >> log_share] = -1;
#else
    (void)read, (void)reads, (void)log_share, (void)first_thread, (void)threads;
#endif
    if (threadIdx.x == 0) {
        // Each vertex the block found went to its small queue or is medium or large:
        // any other than small flags the block, which counts them in the tally.
        const bfs_u64 others = block_tally[0] - (bfs_u64)local.counts[SMALL];
        flagged = others > 0;
        // The edges found go out first, ahead of the arrival: the poll reads them after.
        crossing_arrive(edge_word, CROSSING_ARRIVAL + block_tally[1], false);
        if (others > 0) {
            atomicAdd(&c.tally[0], others);
            atomicAdd(flag_word, (bfs_u64)1);
        }
        local.counts[SMALL] = at_most(local.counts[SMALL], LOCAL_SMALL);
        local.counts[MEDIUM] = at_most(local.counts[MEDIUM], LOCAL_MEDIUM);
        if (local.counts[MEDIUM] > 0)
            local.global_first[MEDIUM] = atomicAdd(&L.next_counts[MEDIUM * COUNTER_STRIDE], local.counts[MEDIUM]);
        if (!WRITE_AFTER_ARRIVAL && local.counts[SMALL] > 0)
            local.global_first[SMALL] = (bfs_u32)(
                crossing_count(atomicAdd(queue_word, (bfs_u64)local.counts[SMALL])) - L.small_mark);
    }
    __syncthreads();  // the room is reserved, the read entries are -1
    for (bfs_u32 i = threadIdx.x; i < local.counts[MEDIUM]; i += blockDim.x)
        L.next_medium[local.global_first[MEDIUM] + i] = local.medium[i];
    if (!WRITE_AFTER_ARRIVAL)
        for (bfs_u32 i = threadIdx.x; i < local.counts[SMALL]; i += blockDim.x)
            L.next_small[local.global_first[SMALL] + i] = local.small[i];
    if (!WRITE_AFTER_ARRIVAL || local.counts[MEDIUM] > 0)  // the same in every thread
        __syncthreads();  // the entries copied before the arrival are written
    if (threadIdx.x == 0) {
        // [crossing-release-begin]
        // What others read after the crossing without waiting for it: medium or large
        // entries and their counts (a flagged block), small entries written before the
        // arrival, and block 0's clears of the spare counter set (begin_phase). The
        // small entries written after the arrival are waited for, each; the levels and
        // parents are read after a grid barrier or by the host; the claims are atomics.
        const bool release = !WRITE_AFTER_ARRIVAL || flagged || (blockIdx.x == 0 && c.cleared);
        const bfs_u64 before = crossing_arrive(
            queue_word, CROSSING_ARRIVAL + (WRITE_AFTER_ARRIVAL ? local.counts[SMALL] : 0), release);
        // [crossing-release-end]
        if (WRITE_AFTER_ARRIVAL)
            local.global_first[SMALL] = (bfs_u32)(crossing_count(before) - L.small_mark);
        late = local.counts[SMALL];
        block_tally[0] = 0;
        block_tally[1] = 0;
    }
#if WRITE_AFTER_ARRIVAL
    __syncthreads();  // the block's place, from its arrival
    for (bfs_u32 i = threadIdx.x; i < late; i += blockDim.x)
        L.next_small[local.global_first[SMALL] + i] = local.small[i];
#endif
#if defined(BFS_EMULATOR)
    // The emulator's blocks wait at its grid barrier: every entry is written before it.
    // (A wait that gave up all the same, on an entry never written, has set the failed
    // flag, which the host reports; each later wait sees it and gives up at once.)
    if (!grid_sync(L.barrier)) return false;
#endif
    if (threadIdx.x == 0) {
        // The poll, until the queue word has every block's arrival; its acquire makes
        // what the released arrivals wrote seen. Then the edge word and the flag word,
        // both with one trip (the flag word grows only before a released arrival: it is
        // whole now; the edge word may still wait for an add).
        const int parity = marks.crossings & 1;
        const bfs_u32 all = (crossing_arrivals(marks.queue[parity]) + gridDim.x) & 0xfffu;
        bfs_u32 spins = 0;
        bool waiting = true;
        bfs_u64 queues = crossing_acquire(queue_word);
        while (crossing_arrivals(queues) != all &&
               (waiting = keep_waiting(L.barrier, ++spins, GRID_BARRIER_MAX_SPINS)))
            queues = crossing_acquire(queue_word);
        bfs_u64 edges = load_fresh(edge_word);
        const bfs_u64 flags = load_fresh(flag_word);
        while (waiting && crossing_arrivals(edges) != all &&
               (waiting = keep_waiting(L.barrier, ++spins, GRID_BARRIER_MAX_SPINS)))
            edges = load_fresh(edge_word);
        crossed = waiting;
        const bool others = flags != marks.flags[parity];
        const bfs_u32 small = (bfs_u32)(crossing_count(queues) - crossing_count(marks.queue[parity]));
        counted.queues[SMALL] = small;
        counted.queues[MEDIUM] = others ? load_fresh(&c.counts[MEDIUM * COUNTER_STRIDE]) : 0u;
        counted.queues[LARGE] = others ? load_fresh(&c.counts[LARGE * COUNTER_STRIDE]) : 0u;
        counted.found[0] = small + (others ? load_fresh(&c.tally[0]) : 0);
        counted.found[1] = crossing_count(edges) - crossing_count(marks.edges[parity]);
        counted.used = others;
        marks.queue[parity] = queues;
        marks.edges[parity] = edges;
        marks.flags[parity] = flags;
        marks.crossings++;
        counted.small_mark = (bfs_u32)crossing_count(marks.queue[parity ^ 1]);
        local.counts[SMALL] = 0;  // the block's local queues are empty for the next level
        local.counts[MEDIUM] = 0;
    }
    __syncthreads();
    return crossed;
}
// [push-pull-counting-crossing-end]

// After a phase that filled the next queues: their lengths. Each vertex enters a queue
// once per BFS (a large one as all its pieces); more than that means a broken kernel,
// and false stops the search before it writes past a queue's end.
__device__ inline bool take_queues(const PhaseCounts& p, SearchState& st, vertex_t num_vertices,
                                   bfs_u32 large_capacity)
{
    st.queue_set ^= 1;
    st.small_first += st.small_count;  // the frontier read, the next one written after it
    st.small_count = p.queues[SMALL];
    st.small_mark = p.small_mark;
    st.medium_count = p.queues[MEDIUM];
    st.large_count = p.queues[LARGE];
    // Summed in 64 bits: a broken kernel's counts cannot wrap past the guard.
    const bfs_u64 enqueued = (bfs_u64)st.enqueued + st.small_count + st.medium_count;
    const bfs_u64 pieces = (bfs_u64)st.pieces + st.large_count;
    st.enqueued = (bfs_u32)enqueued;
    st.pieces = (bfs_u32)pieces;
    return enqueued <= (bfs_u64)num_vertices && pieces <= large_capacity;
}

// The block's local queues are copied out; empty them for the next level's enqueues.
// Thread 0 does it inside the grid barrier that ends the level (grid_sync's after_wait):
// the barrier's first __syncthreads waits for every thread's copy, its last one shows
// the zeros to all, and no __syncthreads of its own is needed.
__device__ inline void empty_local_queues(LocalQueues& local)
{
    local.counts[SMALL] = 0;
    local.counts[MEDIUM] = 0;
}

