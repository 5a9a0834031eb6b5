// persistent_basic.h: the arguments of step 5's basic kernel (persistent_basic.hip).
//
// The kernel takes one argument, a PersistentBasicArgs passed by value, which the host
// fills in before each launch. (A kernel's arguments live in a constant bank that every
// thread reads; a record passed as a pointer would have to be loaded into registers.) The Python side describes each record
// once (ARGS and STATUS in rodinia_bfs/variants/persistent_basic.py), and a test checks
// that the layouts agree field by field. Every field is naturally aligned (pointers are
// 8 bytes on every target), so the layout is the same for hiprtc, NVRTC and the emulator.
#pragma once
#include "bfs_common.h"

// [persistent-basic-args-begin]
// What the kernel leaves for the host, which reads it after its one wait.
struct PersistentBasicStatus {
    bfs_u32 levels;  // the levels it ran
    bfs_u32 error;   // 1: more levels than vertices, or a queue longer than the graph
};

struct PersistentBasicArgs {
    const edge_t* offsets;          // the CSR graph
    const vertex_t* edges;
    level_t* levels;                // -1 until reached
    vertex_t* parents;              // who claimed each vertex
    vertex_t* queues;               // two of num_vertices entries: level L reads queue L % 2
    bfs_u32* counts;                // three queue sizes, used in turn (see the kernel)
    GridBarrier* barrier;           // between levels; zeroed before the launch
    bfs_u64* clocks;                // device_clock() at the start of each level, or null
    PersistentBasicStatus* status;  // written when the search ends
    vertex_t num_vertices;
    vertex_t source;                // the source, or -1: the host put the starts in queue 0
    vertex_t num_starts;            // the vertices queue 0 starts with (1 for a source)
    level_t max_levels;             // the levels to expand at most (the depth limit)
};
// [persistent-basic-args-end]
