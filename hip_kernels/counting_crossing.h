// counting_crossing.h: the words and waits of step 6's counting crossing (chapter 6,
// "A crossing that counts"). push_pull_parts.h's cross_counted ends a top-down level
// with them; top_down.h enqueues and reads the small queue through them.
//
//   COUNTING_CROSSING 1    a top-down level ends in a crossing of its own, not at
//                          grid_sync: each block arrives by adding its count of small
//                          entries to a 64-bit word, so that the poll that sees the
//                          last block arrive reads the next small queue's length in
//                          the same word; no block reads it after the barrier.
//   WRITE_AFTER_ARRIVAL 1  and the value a block's arrival returns is its place in the
//                          next small queue: it writes its entries after it arrives,
//                          with no reservation before. A reader waits for its entry to
//                          leave -1, and sets it back to -1 once its block has read it.
//
// An arrival is a release only where the block wrote what others read after the
// crossing without waiting for it (cross_counted, chapter 6, "A release only where it
// is needed"): so the words are never cleared within a search, and the small queue is
// written once per search, each level's entries after the last level's.
#pragma once
#include "bfs_common.h"

#ifndef COUNTING_CROSSING
#error "compile with -DCOUNTING_CROSSING=<1: a top-down level ends in a counting crossing, 0: at grid_sync>"
#endif
#ifndef WRITE_AFTER_ARRIVAL
#error "compile with -DWRITE_AFTER_ARRIVAL=<1: a block writes its small entries after it arrives, 0: before>"
#endif
#if WRITE_AFTER_ARRIVAL && !COUNTING_CROSSING
#error "WRITE_AFTER_ARRIVAL needs COUNTING_CROSSING"
#endif

// [crossing-words-begin]
// The words of the crossings. Two pairs, one for crossings of even number, one for odd
// ones, in tally sets of their own (CROSSING_SETS, after the phases' three); zero when a
// search (or a run of step 7's grid) starts, and never cleared between levels: a clear
// would have to reach every block before the adds of the next crossing that uses the
// word, which only a release would order. Each block adds to both words of its
// crossing's pair as it arrives, and the arrivals field of each (bits 52-63) counts the
// blocks, modulo 4096 (at most 4095: the host's grid); no block can add to a pair again
// before every block has seen the crossing that used it complete, so each word grows by
// exactly one crossing's adds between two polls of it.
//   the queue word  (slot 0)  bits 0-51: the small entries, all the crossings' of its
//                             parity so far: the growth is the next small queue's
//                             length, and the value an arrival returns, less the word's
//                             value before the crossing, the block's place in it;
//   the edge word   (slot 16) bits 0-51: the edges found (m_f is the growth);
//   the flag word   (slot 17) the blocks that found a medium or a large vertex, whose
//                             counts are then read after the crossing, as read_phase does.
#define CROSSING_SETS 2   // tally sets of crossing words, after the COUNTER_SETS
#define TALLY_LINE 16     // bfs_u64 slots of a 128-byte line
#define QUEUE_WORD 0
#define EDGE_WORD TALLY_LINE        // on a line of its own, with the flag word
#define FLAG_WORD (TALLY_LINE + 1)
#define CROSSING_ARRIVAL ((bfs_u64)1 << 52)
#define CROSSING_MAX_BLOCKS 4095
__device__ inline bfs_u32 crossing_arrivals(bfs_u64 word) { return (bfs_u32)(word >> 52); }
__device__ inline bfs_u64 crossing_count(bfs_u64 word) { return word & (CROSSING_ARRIVAL - 1); }

// What thread 0 of each block knew of each word after the last crossing that used it:
// the growths since are the counts of the next one (cross_counted). In shared memory.
struct CrossingMarks {
    bfs_u64 queue[2], edges[2], flags[2];  // by parity: the words as last read
    bfs_u32 crossings;                     // crossings so far: the next one's parity
};

// A fresh search, or a fresh run of step 7's grid: the words are zero (thread 0).
__device__ inline void reset_marks(CrossingMarks& m)
{
    m.queue[0] = m.queue[1] = m.edges[0] = m.edges[1] = m.flags[0] = m.flags[1] = 0;
    m.crossings = 0;
}
// [crossing-words-end]

// [crossing-atomics-begin]
// A block arrives with an add and polls with acquire loads, as at grid_sync
// (bfs_common.h's grid_barrier_arrive and grid_barrier_acquire, on a 64-bit word). Its
// add is a release only where `release` says so: where the block wrote something that
// others read after the crossing without waiting for it (cross_counted). The emulator
// runs the blocks of a cooperative launch on threads of their own; its atomics are the
// host's.
__device__ inline bfs_u64 crossing_arrive(bfs_u64* word, bfs_u64 add, bool release)
{
#if defined(BFS_EMULATOR)
    (void)release;
    return atomicAdd(word, add);
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return release ? grid_barrier_arrive(word, add) : atomicAdd(word, add);
#else
    return release ? grid_barrier_arrive(word, add)
                   : __hip_atomic_fetch_add(word, add, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#endif
}

__device__ inline bfs_u64 crossing_acquire(bfs_u64* word)
{
#if defined(BFS_EMULATOR)
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
#else
    return grid_barrier_acquire(word);
#endif
}
// [crossing-atomics-end]

// [crossing-entries-begin]
// WRITE_AFTER_ARRIVAL: an entry of the small queue may be read before the block that
// found it has written it (it writes after it arrives): every free slot holds -1, and a
// reader polls until its slot does not. Bounded: a writer that never comes is a bug, and
// the wait ends as grid_sync's does, with the barrier's failed flag set. (On the
// emulator the blocks write before its grid barrier, so no reader ever polls.)
#ifndef ENTRY_MAX_SPINS
#define ENTRY_MAX_SPINS (1u << 24)
#endif
// Whether a wait of `spins` polls so far goes on: every 1024th poll looks at the
// barrier's failed flag, and a wait that gave up (after `limit` polls) sets it, as
// grid_sync's does.
__device__ inline bool keep_waiting(GridBarrier* barrier, bfs_u32 spins, bfs_u32 limit)
{
    if ((spins & 1023u) != 0 || (!load_fresh(&barrier->failed) && spins < limit)) return true;
    atomicExch(&barrier->failed, 1u);
    return false;
}

__device__ inline vertex_t wait_entry(const vertex_t* entry, GridBarrier* barrier)
{
    vertex_t v = (vertex_t)load_fresh((const bfs_u32*)entry);
    for (bfs_u32 spins = 1; v < 0; spins++) {
        if (!keep_waiting(barrier, spins, ENTRY_MAX_SPINS)) return -1;
        v = (vertex_t)load_fresh((const bfs_u32*)entry);
    }
    return v;
}

// An entry of the small queue of a top-down level's frontier.
__device__ inline vertex_t small_entry(const vertex_t* entry, GridBarrier* barrier)
{
#if WRITE_AFTER_ARRIVAL
    return wait_entry(entry, barrier);
#else
    (void)barrier;
    return *entry;
#endif
}

// Copy `count` small entries (each waited for), as step 7's grid does where it hands its
// frontier back.
__device__ inline void copy_small(const vertex_t* from, vertex_t* to, bfs_u32 count,
                                  bfs_u32 first_thread, bfs_u32 threads, GridBarrier* barrier)
{
    for (bfs_u32 i = first_thread; i < count; i += threads) to[i] = small_entry(&from[i], barrier);
}

// Empty both small queues (capacity entries each) but the first `kept` of `live`: the
// start of a search, or of a run of step 7's grid, with WRITE_AFTER_ARRIVAL.
__device__ inline void empty_small_queues(vertex_t* live, bfs_u32 kept, vertex_t* other,
                                          bfs_u32 capacity, bfs_u32 first_thread,
                                          bfs_u32 threads)
{
    for (bfs_u32 i = first_thread; i < capacity; i += threads) {
        if (i >= kept) live[i] = -1;
        other[i] = -1;
    }
}
// [crossing-entries-end]
