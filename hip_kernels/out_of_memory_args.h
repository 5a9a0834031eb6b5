// out_of_memory_args.h: the arguments of step 9's kernels (out_of_memory.hip), one
// record passed by value. rodinia_bfs/variants/out_of_memory.py describes the same
// layout with ctypes; a test compiles this header and checks that the two agree.
#pragma once

#include "bfs_common.h"

// [oom-args-begin]
// What a level found and what it read, zeroed by the host before the level.
struct OomCounts {
    bfs_u64 vertices;  // the next frontier's vertices (n_f)
    bfs_u64 edges;     // and their out-edges (m_f): the next level's edges to read
    bfs_u64 read;      // edges the level read from host memory (zero_copy, managed)
    bfs_u64 sectors;   // and the 32-byte sectors they span
    bfs_u64 candidates;  // subgraph, a pull level: the vertices listed for a round
};

struct OutOfMemoryArgs {
    const edge_t* offsets;       // device: where each out-list begins (n + 1)
    const vertex_t* host_edges;  // host memory: the out-lists, through a mapped or
                                 // managed pointer (zero_copy, managed; null in subgraph)
    const edge_t* in_offsets;    // device: where each in-list begins (n + 1)
    const vertex_t* host_in_edges;  // host memory: the in-lists, hubs first (pull levels)
    level_t* levels;             // device, n
    vertex_t* parents;           // device, n
    vertex_t* queues[2];         // device: the frontier of even and odd levels, n each
    bfs_u64* sub_offsets;        // device, n + 1: where each frontier vertex's list
                                 // begins in the level's subgraph (subgraph mode)
    OomCounts* counts;
    bfs_i32 num_vertices;
};

// What a launch of the single block (oom_single) is told, and where it answers.
struct OomSingleArgs {
    OomCounts* records;      // device: the counts of each level it runs
    bfs_u32* ran;            // device: how many levels it ran
    bfs_u64 max_edges;       // it stops before a level of more out-edges than this,
    bfs_u64 unexplored;      // or one that Beamer's rule would pull (m_u, and alpha;
    bfs_u32 alpha;           // alpha 0: push always),
    bfs_u32 capacity;        // or of more vertices than its shared memory holds,
    level_t last;            // or at this level
    level_t level;           // the first level, and its frontier (in the queue)
    bfs_u32 frontier_size;
};
// [oom-args-end]
