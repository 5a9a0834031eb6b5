// persistent_basic.h: the arguments of step 5's basic kernel (persistent_basic.hip).
//
// The kernel takes one argument, a pointer to this record in device memory. The host
// fills it in before each launch: the Python side describes the same record once
// (ARGS in rodinia_bfs/variants/persistent_basic.py), and a test checks that the two
// layouts agree field by field. Every field is naturally aligned (pointers are 8 bytes on
// every target), so the layout is the same for hiprtc, NVRTC and the emulator.
#pragma once
#include "bfs_common.h"

// [persistent-basic-args-begin]
struct PersistentBasicArgs {
    const edge_t* offsets;  // the CSR graph
    const vertex_t* edges;
    level_t* levels;        // -1 until reached
    vertex_t* parents;      // who claimed each vertex
    vertex_t* queues;       // two queues of num_vertices entries: level L reads queue L % 2
    bfs_u32* counts;        // three queue sizes, used in turn (see the kernel)
    GridBarrier* barrier;   // the grid barrier between levels, zeroed before the launch
    bfs_u64* clocks;        // device_clock() at the start of each level, or null
    bfs_u32* status;        // out: the levels run, and whether the level bound was passed
    vertex_t num_vertices;
    vertex_t source;
};
// [persistent-basic-args-end]

// status[STATUS_ERROR] when the search ran more levels than the graph has vertices, or
// a queue would hold more: a bug, reported instead of a hang or an overrun.
#define STATUS_LEVELS 0
#define STATUS_ERROR 1
