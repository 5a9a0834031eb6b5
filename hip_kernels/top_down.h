// top_down.h: the top-down levels of step 6 (push_pull_grid.h, which step 7 builds too):
// step 4's three gathers (frontier.h), with what this step adds to them:
//
//   a Tally        each thread counts the vertices it claims and their out-edges, the
//                  next frontier's n_f and m_f, which Beamer's rule needs (tally.h);
//   VISIT_BATCH    a thread loads that many edges before it claims any, so that their
//                  chains of loads overlap (step 4 visits one edge at a time);
//   log_share      a queue shorter than the grid is wide is shared out: 2^log_share
//                  warps, or threads, to each of its vertices (step 4: one each);
//   CLAIM_BITS     a target is claimed by its bit in a visited bitmap, not by an
//                  atomicCAS on its level (step 2's claim);
//   COUNTING_CROSSING, WRITE_AFTER_ARRIVAL   the small queue's entries get their
//                  places from the crossing that ends the level (counting_crossing.h).
//
// The queues, enqueue and copy_out are step 4's, unchanged.
#pragma once
#include "bitmap.h"
#include "frontier.h"
#include "tally.h"
#include "counting_crossing.h"

#if WRITE_AFTER_ARRIVAL && WARP_THRESHOLD > BLOCK_SIZE
// A small entry's readers (2^log_share threads, log_share <= log2(WARP_THRESHOLD)) are
// one block's, which sets it back to -1 after a __syncthreads (cross_counted).
#error "WRITE_AFTER_ARRIVAL needs WARP_THRESHOLD <= BLOCK_SIZE"
#endif

#ifndef VISIT_BATCH
#error "compile with -DVISIT_BATCH=<edges a thread loads before it claims any>"
#endif
#if VISIT_BATCH < 1
#error "VISIT_BATCH must be at least 1"
#endif
#ifndef CHECK_BEFORE_CLAIM
#error "compile with -DCHECK_BEFORE_CLAIM=<1: read a target's level before the atomicCAS that claims it, 0: claim at once>"
#endif
#ifndef CLAIM_BITS
#error "compile with -DCLAIM_BITS=<1: claim a target by its bit in the visited bitmap, 0: by an atomicCAS on its level>"
#endif

// [top-down-claim-begin]
// The claim of target u for the next level, in two parts: the atomic, whose answer
// (the word before it) claim_won() reads; true for the one thread that wins it. Apart, a
// thread can send the atomics of several targets before it waits for the first answer.
// CLAIM_BITS 0: step 2's atomicCAS on u's level. CLAIM_BITS 1: an atomicOr on u's bit in
// the visited bitmap (L.visited), which is 32 times smaller than the levels: on a graph
// whose levels do not fit the L2 cache (4 bytes a vertex: 64 MiB at 2^24 vertices) the
// claims, one per edge, still find it there, where each atomicCAS on a level the cache
// lacks waits for DRAM. The winner writes the level with a plain store.
#if CLAIM_BITS
typedef bfs_u32 claim_word_t;  // the bitmap's word
#else
typedef level_t claim_word_t;  // the level
#endif

__device__ inline claim_word_t claim_request(const Level& L, vertex_t u)
{
#if CLAIM_BITS
    return atomicOr(&L.visited[(bfs_u32)u >> BITMAP_WORD_SHIFT], bitmap_bit(u));
#else
    return atomicCAS(&L.levels[u], -1, L.next_level);
#endif
}

__device__ inline bool claim_won(const Level& L, vertex_t u, claim_word_t before)
{
#if CLAIM_BITS
    if (before & bitmap_bit(u)) return false;
    L.levels[u] = L.next_level;
    return true;
#else
    (void)L;
    (void)u;
    return before == -1;
#endif
}

// Both parts at once, for a thread with one target. (By atomicCAS the answer is compared
// where it comes back, as before the claim had two parts: written through them, the
// default kernels compile to other code, which was not measured.)
__device__ inline bool claim(const Level& L, vertex_t u)
{
#if CLAIM_BITS
    return claim_won(L, u, claim_request(L, u));
#else
    return atomicCAS(&L.levels[u], -1, L.next_level) == -1;
#endif
}

// Whether u is reached already, read before the claim (CHECK_BEFORE_CLAIM): its bit or
// its level, whichever the claim uses. A stale answer only sends the thread on to the
// claim, which decides.
__device__ inline bool reached(const Level& L, vertex_t u)
{
    return CLAIM_BITS ? in_bitmap(L.visited, u) : L.levels[u] != -1;
}
// [top-down-claim-end]

// [top-down-count-begin]
// u was just claimed from frontier vertex v: as in step 4 it records v as its parent
// and goes to the queue of its degree; and this thread counts it.
__device__ inline void add_to_next(const Level& L, vertex_t v, vertex_t u, edge_t degree,
                                   Tally& found)
{
    L.parents[u] = v;
#if COUNTING_CROSSING
    // A small vertex that overflows the block's local queue takes its place from the
    // crossing's queue word, where the blocks' arrivals take theirs (cross_counted).
    if (degree < WARP_THRESHOLD) {
        const bfs_u32 slot = atomicAdd(&L.local->counts[SMALL], 1u);
        if (slot < LOCAL_SMALL) L.local->small[slot] = u;
        else L.next_small[crossing_count(atomicAdd(L.crossing + QUEUE_WORD, (bfs_u64)1)) - L.small_mark] = u;
    } else
#endif
        enqueue(L, u, degree);
    found.vertices += 1;
    found.edges += (bfs_u64)degree;
}
// [top-down-count-end]

// [top-down-visit-begin]
// Step 4's visit (frontier.h), for VISIT_BATCH edges of v at once: e, e + stride, ...
// (those before end). Each visit is a chain of loads: the edge, then its target's
// level, then the target's degree and the claim. One thread's visits, one after
// another, wait for their chains in turn; here the loads of all VISIT_BATCH edges go
// out together, then all their levels, then all their claims.
__device__ inline void visit_batch(const Level& L, vertex_t v, edge_t e, edge_t stride,
                                   edge_t end, Tally& found)
{
#if VISIT_BATCH == 1  // step 4's visit, and the count
    (void)stride;
    (void)end;
    const vertex_t u = L.edges[e];
    if (CHECK_BEFORE_CLAIM && reached(L, u)) return;  // reached already: no atomic needed
    const edge_t degree = L.offsets[u + 1] - L.offsets[u];
    if (claim(L, u)) add_to_next(L, v, u, degree, found);
#else
    vertex_t u[VISIT_BATCH];
    claim_word_t before[VISIT_BATCH];
    edge_t degree[VISIT_BATCH];
    for (int k = 0; k < VISIT_BATCH; k++) u[k] = e + k * stride < end ? L.edges[e + k * stride] : -1;
    // With CHECK_BEFORE_CLAIM 0 every target goes straight to the claim: one load
    // fewer on the way to a new vertex, an atomic more for each one reached already.
    for (int k = 0; k < VISIT_BATCH; k++)
        if (u[k] >= 0 && CHECK_BEFORE_CLAIM && reached(L, u[k])) u[k] = -1;  // no atomic needed
    // Every claim's atomic (and its target's degree) goes out before the first answer
    // is read: the winner's store of the level waits for that answer, and a claim sent
    // after it would wait too.
    for (int k = 0; k < VISIT_BATCH; k++) {
        if (u[k] < 0) continue;
        before[k] = claim_request(L, u[k]);
        degree[k] = L.offsets[u[k] + 1] - L.offsets[u[k]];
    }
    for (int k = 0; k < VISIT_BATCH; k++)
        if (u[k] >= 0 && claim_won(L, u[k], before[k])) add_to_next(L, v, u[k], degree[k], found);
#endif
}
// [top-down-visit-end]

// The three gathers: step 4's, visiting a batch of edges per trip and counting.

// [top-down-block-begin]
// A whole block per piece of a large list. This queue is never shared out: its pieces
// spread a long list over many blocks already.
__device__ inline void top_down_large(const Level& L, const Piece* large, bfs_u32 count,
                                      bfs_u32 first_block, bfs_u32 blocks, Tally& found)
{
    for (bfs_u32 p = first_block; p < count; p += blocks) {
        const vertex_t v = large[p].vertex;  // the same p, so the same v, in every thread
        const edge_t list_end = L.offsets[v + 1];
        const edge_t begin = L.offsets[v] + (edge_t)large[p].index * BLOCK_PIECE;
        const edge_t end = begin + BLOCK_PIECE < list_end ? begin + BLOCK_PIECE : list_end;
        if (threadIdx.x == 0) COUNT_PATH(LARGE, end - begin);
        for (edge_t e = begin + threadIdx.x; e < end; e += BLOCK_SIZE * VISIT_BATCH)
            visit_batch(L, v, e, BLOCK_SIZE, end, found);
    }
}
// [top-down-block-end]

// [top-down-warp-begin]
// A whole warp per medium vertex, or with log_share > 0 (when the queue is shorter than
// the grid has warps) 2^log_share warps per vertex, each taking every 2^log_share-th
// trip of its list.
__device__ inline void top_down_medium(const Level& L, const vertex_t* medium, bfs_u32 count,
                                       bfs_u32 first_warp, bfs_u32 warps, bfs_u32 log_share,
                                       Tally& found)
{
    const edge_t stride = (edge_t)WARP_SIZE << log_share;  // the lanes of the sharing warps
    for (bfs_u32 w = first_warp; w < (count << log_share); w += warps) {
        const vertex_t v = medium[w >> log_share];  // the same w, so the same v, in every lane
        const bfs_u32 part = w & ((1u << log_share) - 1);
        const edge_t end = L.offsets[v + 1];
        if (lane_id() == 0 && part == 0) COUNT_PATH(MEDIUM, end - L.offsets[v]);
        for (edge_t e = L.offsets[v] + (edge_t)part * WARP_SIZE + lane_id(); e < end;
             e += stride * VISIT_BATCH)
            visit_batch(L, v, e, stride, end, found);
    }
}
// [top-down-warp-end]

// [top-down-thread-begin]
// A thread per small vertex, or with log_share > 0 2^log_share neighbouring threads per
// vertex, as above.
__device__ inline void top_down_small(const Level& L, const vertex_t* small, bfs_u32 count,
                                      bfs_u32 first_thread, bfs_u32 threads, bfs_u32 log_share,
                                      Tally& found)
{
    const edge_t stride = (edge_t)1 << log_share;
    for (bfs_u32 t = first_thread; t < (count << log_share); t += threads) {
        const vertex_t v = small_entry(&small[t >> log_share], L.barrier);
        if (v < 0) return;  // a wait gave up: the crossing reports it
        const bfs_u32 part = t & ((1u << log_share) - 1);
        const edge_t end = L.offsets[v + 1];
        if (part == 0) COUNT_PATH(SMALL, end - L.offsets[v]);
        for (edge_t e = L.offsets[v] + part; e < end; e += stride * VISIT_BATCH)
            visit_batch(L, v, e, stride, end, found);
    }
}
// [top-down-thread-end]

// [share-short-queues-begin]
// How many units (warps, threads) may share each entry of a queue of `count` entries
// when `units` take part: the largest 2^k with count * 2^k <= units, and no more than
// it takes for lists shorter than `longest` edges to need one trip of width lanes * 2^k
// (and k <= 16). Each bound is the floor of a base-2 logarithm, read off the leading
// zeros of a quotient: every thread of the grid computes this at every level, and a loop
// of up to 16 trips there cost the level's few busy warps the issue slots that all the
// idle ones took with it (chapter 6, "What every warp does at every level").
__device__ inline bfs_u32 floor_log2(bfs_u32 x) { return 31u - (bfs_u32)__clz((int)x); }  // x > 0

__device__ inline bfs_u32 log_share(bfs_u32 count, bfs_u32 units, bfs_u32 lanes, bfs_u32 longest)
{
    if (count == 0 || count > units / 2 || lanes > longest / 2) return 0;
    const bfs_u32 by_units = floor_log2(units / count);   // count << k <= units
    const bfs_u32 by_lists = floor_log2(longest / lanes);  // lanes << k <= longest
    const bfs_u32 k = by_units < by_lists ? by_units : by_lists;
    return k < 16 ? k : 16;
}
// [share-short-queues-end]
