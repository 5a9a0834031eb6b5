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
// A tally set is two 128-byte lines: the tally (slots 0-1), and the counting crossing's
// word (slot 16, counting_crossing.h), so that the blocks' atomics on the tally do not
// queue behind the polls of the crossing.
#define TALLY_STRIDE (2 * CROSSING_SLOT)  // bfs_u64 slots: two lines of 16

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
// nobody reads or writes during phase p (it was read after phase p - 2).
struct Counters {
    bfs_u32* counts;  // queue lengths: SMALL, MEDIUM and LARGE, COUNTER_STRIDE apart
    bfs_u64* tally;   // vertices and edges found
};

__device__ inline Counters begin_phase(bfs_u32* counts, bfs_u64* tallies, bfs_u32 phase)
{
    const bfs_u32 spare = (phase + 1) % COUNTER_SETS;
    if (blockIdx.x == 0 && threadIdx.x < QUEUES)
        counts[(spare * QUEUES + threadIdx.x) * COUNTER_STRIDE] = 0;
    // The tally (slots 0-1) and the counting crossing's word (16).
    if (blockIdx.x == 0 && threadIdx.x < 3)
        tallies[spare * TALLY_STRIDE + (threadIdx.x < 2 ? threadIdx.x : CROSSING_SLOT)] = 0;
    const bfs_u32 mine = phase % COUNTER_SETS;
    return Counters{counts + mine * QUEUES * COUNTER_STRIDE, tallies + mine * TALLY_STRIDE};
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
    bfs_u32 dirty;              // bit b: bitmap b may have bits set
    bfs_u32 small_count, medium_count, large_count;  // the queues' lengths
    // Vertex counts fit 32 bits (ids are 32-bit); edge counts take 64.
    bfs_u32 frontier_vertices;  // n_f
    bfs_u64 frontier_edges;     // m_f
    bfs_u32 previous_vertices;  // n_f of the level before
    bfs_u64 unvisited_edges;    // m_u
    bfs_u32 enqueued, pieces;   // queue entries so far, for the guard
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
};

__device__ inline void read_phase(const Counters& c, PhaseCounts& into)
{
    for (int q = 0; q < QUEUES; q++) into.queues[q] = load_fresh(&c.counts[q * COUNTER_STRIDE]);
    into.found[0] = load_fresh(&c.tally[0]);
    into.found[1] = load_fresh(&c.tally[1]);
}
// [push-pull-read-phase-end]

// [push-pull-counting-crossing-begin]
// COUNTING_CROSSING: how a top-down level ends instead of copy_out and grid_sync with
// read_phase. Every thread of the block calls it after its gathers and sum_in_block;
// `read` is the small queue the level read, `reads` its count << log_share. Thread 0
// adds the block's counts to the phase's crossing word (counting_crossing.h) as it
// arrives, and its poll, which sees the last block arrive, reads the next small queue's
// length in it: `counted` as read_phase fills it, with one trip after the crossing, for
// the edges found (m_f) in the tally, and one more only where a block found a medium or
// large vertex (its flag in the word), whose counts are read as read_phase does. False
// when a wait gave up.
__device__ inline bool cross_counted(const Level& L, const Counters& c, bfs_u64* block_tally,
                                     vertex_t* read, bfs_u32 reads, bfs_u32 log_share,
                                     bfs_u32 first_thread, bfs_u32 threads,
                                     PhaseCounts& counted)
{
    LocalQueues& local = *L.local;
    bfs_u64* const word = c.tally + CROSSING_SLOT;
    __shared__ bfs_u32 flagged, crossed;
    __shared__ bfs_u32 late;  // small entries written after the arrival (thread 0 empties
                              // the local queue's count while the others copy them)
    __syncthreads();  // every read, enqueue and sum of the block is done
#if WRITE_AFTER_ARRIVAL
    // Every entry the block read is free again: -1 for its writer two levels on, which
    // writes only after this block's arrival.
    for (bfs_u32 t = first_thread; t < reads; t += threads)
        if ((t & ((1u << log_share) - 1)) == 0) read[t >> log_share] = -1;
#else
    (void)read, (void)reads, (void)log_share, (void)first_thread, (void)threads;
#endif
    if (threadIdx.x == 0) {
        // Each vertex the block found went to its small queue or is medium or large:
        // any other than small flags the block.
        const bfs_u64 others = block_tally[0] - (bfs_u64)local.counts[SMALL];
        flagged = others > 0;
        // The edges in the tally, as ever; a flagged block counts its medium and large
        // vertices there too: n_f is then the small entries and those.
        if (block_tally[1] > 0) atomicAdd(&c.tally[1], block_tally[1]);
        if (others > 0) atomicAdd(&c.tally[0], others);
        block_tally[0] = 0;
        block_tally[1] = 0;
        local.counts[SMALL] = at_most(local.counts[SMALL], LOCAL_SMALL);
        local.counts[MEDIUM] = at_most(local.counts[MEDIUM], LOCAL_MEDIUM);
        if (local.counts[MEDIUM] > 0)
            local.global_first[MEDIUM] = atomicAdd(&L.next_counts[MEDIUM * COUNTER_STRIDE], local.counts[MEDIUM]);
        if (!WRITE_AFTER_ARRIVAL && local.counts[SMALL] > 0)
            local.global_first[SMALL] = (bfs_u32)crossing_small(atomicAdd(word, (bfs_u64)local.counts[SMALL]));
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
        const bfs_u64 add = CROSSING_ARRIVAL + (flagged ? CROSSING_FLAG : 0) +
                            (WRITE_AFTER_ARRIVAL ? local.counts[SMALL] : 0);
        const bfs_u64 before = crossing_arrive(word, add);
        if (WRITE_AFTER_ARRIVAL) local.global_first[SMALL] = (bfs_u32)crossing_small(before);
        late = local.counts[SMALL];
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
        // The poll, until the word has every block's arrival. (The edges counted in a
        // word of their own, polled beside this one, cost more than the trip after it:
        // chapter 6 measures both.)
        bfs_u64 queues = crossing_acquire(word);
        bfs_u32 spins = 0;
        crossed = 1;
        while (crossing_arrivals(queues) < gridDim.x) {
            if ((++spins & 1023u) == 0 &&
                (load_fresh(&L.barrier->failed) || spins >= GRID_BARRIER_MAX_SPINS)) {
                atomicExch(&L.barrier->failed, 1u);
                crossed = 0;
                break;
            }
            queues = crossing_acquire(word);
        }
        counted.queues[SMALL] = (bfs_u32)crossing_small(queues);
        const bool others = crossing_flags(queues) > 0;
        counted.queues[MEDIUM] = others ? load_fresh(&c.counts[MEDIUM * COUNTER_STRIDE]) : 0u;
        counted.queues[LARGE] = others ? load_fresh(&c.counts[LARGE * COUNTER_STRIDE]) : 0u;
        counted.found[0] = crossing_small(queues) + (others ? load_fresh(&c.tally[0]) : 0);
        counted.found[1] = load_fresh(&c.tally[1]);
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
    st.small_count = p.queues[SMALL];
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

