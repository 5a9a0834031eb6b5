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
// The word of a crossing: zero when its level starts (begin_phase clears it with the
// counters of its set), and every block adds to it once as it arrives, so that the
// arrivals field counts the blocks that arrived (at most 4095: the host's grid). The
// arrivals in bits 52-63; in bits 40-51 the blocks that found a medium or a large
// vertex, whose counts are then read after the crossing, as read_phase does; and in
// bits 0-39 the small queue's entries.
#define CROSSING_SLOT 16  // in the phase's tally set, on a line of its own
#define CROSSING_ARRIVAL ((bfs_u64)1 << 52)
#define CROSSING_FLAG ((bfs_u64)1 << 40)
#define CROSSING_MAX_BLOCKS 4095
__device__ inline bfs_u64 crossing_arrivals(bfs_u64 word) { return word >> 52; }
__device__ inline bfs_u64 crossing_flags(bfs_u64 word) { return (word >> 40) & 0xfff; }
__device__ inline bfs_u64 crossing_small(bfs_u64 word) { return word & (CROSSING_FLAG - 1); }
// [crossing-words-end]

// [crossing-atomics-begin]
// A block arrives with a release add and polls with acquire loads, as at grid_sync
// (bfs_common.h's grid_barrier_arrive and grid_barrier_acquire, on a 64-bit word). The
// emulator runs the blocks of a cooperative launch on threads of their own; its atomics
// are the host's.
__device__ inline bfs_u64 crossing_arrive(bfs_u64* word, bfs_u64 add)
{
#if defined(BFS_EMULATOR)
    return atomicAdd(word, add);
#else
    return grid_barrier_arrive(word, add);
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
__device__ inline vertex_t wait_entry(const vertex_t* entry, GridBarrier* barrier)
{
    vertex_t v = (vertex_t)load_fresh((const bfs_u32*)entry);
    for (bfs_u32 spins = 1; v < 0; spins++) {
        if ((spins & 1023u) == 0 &&
            (load_fresh(&barrier->failed) || spins >= ENTRY_MAX_SPINS)) {
            atomicExch(&barrier->failed, 1u);
            return -1;
        }
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
