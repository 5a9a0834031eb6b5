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
