// single_block_queues.h: the single block's state in shared memory (its two queues
// and their counters), the warp-wide sums it counts with, and how a level's vertices
// are claimed and appended to the next queue. single_block_expand.h expands a level
// with these.
#pragma once
#include "persistent_records.h"

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
    bfs_u32 slow;  // MEASURED_HANDOVER: the block lost more time to the grid than a switch costs
};

// [persistent-single-weigh-begin]
// The measured hand-over's rule (rent or buy): the single block adds what a level `took`
// beyond a grid level (grid_ns) to the time `lost` to the grid, back to zero once it
// keeps up, and switches to the grid once it has lost more than a switch costs
// (switch_ns): it pays a switch's cost in slow levels (and one level more) before it
// pays the switch.
// Returns whether to switch, with the width `fit` that the block would run as fast as the
// grid if a level's time grows with its width (narrower than the level's `width` when the
// level took longer than a grid level, as the level that passes the cost does), and at
// least 1: the grid reads a width of 0 as "never handed over for being slow", and would
// hand back every frontier that fits.
__device__ inline bool weigh_level(bfs_u32& lost, bfs_u64 took, bfs_u32 grid_ns,
                                   bfs_u32 switch_ns, bfs_u32 width, bfs_u32& fit)
{
    const bfs_u64 was = (bfs_u64)lost + took;
    lost = clock_u32(was > grid_ns ? was - grid_ns : 0u);
    if (lost <= switch_ns) return false;
    fit = took > grid_ns ? (bfs_u32)((float)width * (float)grid_ns / (float)took) : width;
    if (fit < 1) fit = 1;
    return true;
}
// [persistent-single-weigh-end]

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
    bfs_u32 bitmap_words;  // the bitmap's words, bitmap_words(n)
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

// [persistent-count-scan-begin]
// The bits that hold n: 4 for 8, 3 for 7.
constexpr int bit_width(int n) { return n > 0 ? 1 + bit_width(n / 2) : 0; }

// The same exclusive sum for counts of at most MOST (a lane's claims of a row): a ballot
// per bit of the count, each weighted by its bit, where warp_exclusive_sum takes
// log2(WARP_SIZE) shuffles, each waiting for the last. (4 ballots for counts of up to 8.)
template <int MOST>
__device__ inline bfs_u32 warp_exclusive_count(bfs_u32 x, bfs_u32* total)
{
    constexpr int BITS = bit_width(MOST);
    const lane_mask_t below = lanes_below();
    bfs_u32 sum = 0, all = 0;
    for (int b = 0; b < BITS; b++) {
        const lane_mask_t lanes = warp_ballot((x >> b) & 1u);
        sum += count_lanes(lanes & below) << b;
        all += count_lanes(lanes) << b;
    }
    *total = all;
    return sum;
}
// [persistent-count-scan-end]
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

#if SB_ROW_WIDTH > 0
// [persistent-append-rows-begin]
// append() for a level read as rows: found[0..N) are vertices, and bit i of `mine` says
// this lane claimed found[i]. A lane's claims are at most N, so one ballot per bit of its
// count gives every lane its first slot (warp_exclusive_count), where append() takes a
// ballot per entry; one shared atomicAdd per warp reserves them all, and each lane writes
// its claims one after another. Every lane of the warp calls it.
template <int N>
__device__ inline void append_rows(const SingleBlock& S, int q, LevelCount* counter,
                                   const vertex_t* found, const vertex_t* parent,
                                   bfs_u32 mine, bfs_u32 log_base)
{
    bfs_u32 taken;  // slots the warp needs
    bfs_u32 slot = warp_exclusive_count<N>((bfs_u32)__popc(mine), &taken);
    if (taken == 0) return;  // the same in every lane
    bfs_u32 first = 0;
    if (lane_id() == 0) first = atomicAdd(&counter->vertices, taken);
    first = (bfs_u32)warp_shfl((bfs_i32)first, 0);
    slot += first;
    const Queue Q = queue(S, q);
    const bool logged = SB_LOG && log_base != NOT_LOGGED;
    // Nearly always every slot of the warp is within the queue (and the log): then no
    // slot needs a check of its own. (The same in every lane.)
    if (first + taken <= SB_CAPACITY && (!logged || log_base + first + taken <= S.log_capacity)) {
        for (int i = 0; i < N; i++) {
            if (!((mine >> i) & 1u)) continue;
            Q.vertex[slot] = found[i];
            // The next level reads this vertex's row, in this SM: ask for it now, so
            // that it waits in the SM's L1 cache rather than in L2.
            prefetch_l1(&S.rows[found[i]]);
#if SB_LOG
            if (logged) S.log[log_base + slot] = LogEntry{found[i], parent[i]};
#endif
            slot++;
        }
        return;
    }
    for (int i = 0; i < N; i++) {
        if (!((mine >> i) & 1u)) continue;
#if SB_LOG
        if (log_base == NOT_LOGGED) {
        } else if (log_base + slot < S.log_capacity) {
            S.log[log_base + slot] = LogEntry{found[i], parent[i]};
        } else {
            *S.broken = 1;
        }
#endif
        if (slot < SB_CAPACITY) {
            Q.vertex[slot] = found[i];
        } else if (slot - SB_CAPACITY < S.overflow_capacity) {
            S.overflow[slot - SB_CAPACITY] = found[i];  // the grid takes this level
        } else {
            *S.broken = 1;
        }
        slot++;
    }
}
// [persistent-append-rows-end]
#endif

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
