// bitmap.h: a set of vertices as a bitmap, one bit per vertex. Steps 6 to 8 keep a
// frontier this way: testing whether a vertex is in it is one load from an array 32
// times smaller than the levels.
#pragma once
#include "bfs_common.h"

// [bitmap-begin]
// A bitmap: bit v of word v / BITMAP_WORD_BITS is set when vertex v is in the frontier.
#define BITMAP_WORD_BITS (8 * (int)sizeof(bfs_u32))
#define BITMAP_WORD_SHIFT 5  // log2(BITMAP_WORD_BITS)

__device__ inline bool in_bitmap(const bfs_u32* bits, vertex_t v)
{
    return (bits[v >> BITMAP_WORD_SHIFT] >> (v & (BITMAP_WORD_BITS - 1))) & 1u;
}

__device__ inline void add_to_bitmap(bfs_u32* bits, vertex_t v)
{
    atomicOr(&bits[v >> BITMAP_WORD_SHIFT], 1u << (v & (BITMAP_WORD_BITS - 1)));
}
// [bitmap-end]

// A bitmap of n vertices has bitmap_words(n) words, and vertex u is bitmap_bit(u) in its
// word: what a claim needs, which sets the bit and reads the word as it was before
// (step 5's single block keeps its visited set this way).
__device__ inline bfs_u32 bitmap_words(vertex_t n)
{
    return ((bfs_u32)n + BITMAP_WORD_BITS - 1) / BITMAP_WORD_BITS;
}
__device__ inline bfs_u32 bitmap_bit(vertex_t u) { return 1u << ((bfs_u32)u % BITMAP_WORD_BITS); }

// [bitmap-of-levels-begin]
// A visited bitmap rebuilt from the levels by the whole grid (step 5's single block, when
// the grid hands it a frontier; steps 6 and 7's claims by bit): a thread per vertex, so
// that a warp reads WARP_SIZE consecutive levels at once, and the warp's ballot is
// WARP_SIZE / BITMAP_WORD_BITS words of the bitmap.
__device__ inline void rebuild_bitmap(bfs_u32* bitmap, const level_t* levels, vertex_t n)
{
    const bfs_u32 words = bitmap_words(n);
    const bfs_u32 threads = gridDim.x * blockDim.x;  // a multiple of WARP_SIZE
    for (bfs_u32 base = blockIdx.x * blockDim.x + warp_id() * WARP_SIZE; base < (bfs_u32)n;
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
// [bitmap-of-levels-end]
