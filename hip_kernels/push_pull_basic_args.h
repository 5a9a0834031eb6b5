// push_pull_basic_args.h: what the kernels of push_pull_basic.hip are given, declared
// once. The host (rodinia_bfs/variants/push_pull_basic.py) describes the same records
// with ctypes, and a test compiles this header to check that both agree, field by field.
#pragma once
#include "bfs_common.h"

// [push-pull-basic-args-begin]
// What the next frontier holds, counted by the kernel that finds it; the host reads it
// back after each level for Beamer's rule.
struct LevelCounts {
    bfs_u64 vertices;  // n_f of the next level: vertices found (and the queue's length)
    bfs_u64 edges;     // m_f of the next level: the out-edges of those vertices
    bfs_u64 queued;    // slots taken by bitmap_to_queue
};

// The arrays of one search, fixed for the whole search: passed by value to every kernel.
// The frontier of level L is queues[L % 2] (a push level) or bitmaps[L % 2] (a pull
// level); the level writes the next one into the other slot.
struct PushPullBasicArgs {
    const edge_t* offsets;     // out-lists (CSR): the edges of v are offsets[v] .. offsets[v + 1]
    const vertex_t* edges;
    const edge_t* in_offsets;  // in-lists: the reverse graph (the out-lists when symmetric)
    const vertex_t* in_edges;
    level_t* levels;           // -1 until reached
    vertex_t* parents;
    vertex_t* queues[2];       // n entries each
    bfs_u32* bitmaps[2];       // a bit per vertex each
    LevelCounts* counts;
    vertex_t num_vertices;
};
// [push-pull-basic-args-end]
