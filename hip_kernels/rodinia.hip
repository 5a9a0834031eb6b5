// Step 1: the Rodinia two-kernel BFS.
//
// One thread per graph vertex, boolean masks instead of a queue. Kernel1 expands the
// current frontier (graph_mask); Kernel2 turns the vertices it discovered
// (updating_graph_mask) into the next frontier and raises g_over. The host loops
// while g_over comes back set. The kernel boundary between the two is the global
// barrier: no vertex enters the frontier before every thread has finished expanding.
#include "bfs_common.h"

// Threads per block, fixed at compile time like Rodinia's MAX_THREADS_PER_BLOCK;
// the host compiles with -DBLOCK_SIZE=... and launches blocks of that size.
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads per block>"
#endif

// [rodinia-kernel1-begin]
extern "C" __global__ void Kernel1(const edge_t* offsets, const vertex_t* edges,
                                   bool* graph_mask, bool* updating_graph_mask,
                                   const bool* graph_visited, level_t* cost,
                                   vertex_t no_of_nodes)
{
    const bfs_u32 tid = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (tid < (bfs_u32)no_of_nodes && graph_mask[tid]) {
        graph_mask[tid] = false;
        const level_t next_level = cost[tid] + 1;
        for (edge_t i = offsets[tid]; i < offsets[tid + 1]; i++) {
            const vertex_t id = edges[i];
            if (!graph_visited[id]) {
                // Several frontier vertices may reach id in the same level: they all
                // write the same level, so this race is harmless (no atomic needed).
                cost[id] = next_level;
                updating_graph_mask[id] = true;
            }
        }
    }
}
// [rodinia-kernel1-end]

// [rodinia-kernel2-begin]
extern "C" __global__ void Kernel2(bool* graph_mask, bool* updating_graph_mask,
                                   bool* graph_visited, bool* g_over,
                                   vertex_t no_of_nodes)
{
    const bfs_u32 tid = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (tid < (bfs_u32)no_of_nodes && updating_graph_mask[tid]) {
        graph_mask[tid] = true;
        graph_visited[tid] = true;
        *g_over = true;
        updating_graph_mask[tid] = false;
    }
}
// [rodinia-kernel2-end]
