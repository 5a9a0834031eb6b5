// Step 6, the idea: direction-optimizing BFS, one level per launch, the direction
// chosen by the host.
//
// A level runs one of two ways. Top-down ("push"): one thread per frontier vertex, over
// a queue, claims the unvisited vertices its out-edges lead to (step 2's kernel).
// Bottom-up ("pull"): one thread per vertex not reached yet scans its in-edges and stops
// at the first one that comes from the frontier, a bitmap. Both count the vertices they
// find and the out-edges of those; the host reads the counts back and picks the next
// level's direction with Beamer's rule. When the direction changes, a small kernel turns
// the frontier from a queue into a bitmap, or back.
//
// Every kernel takes the search's arrays (one PushPullBasicArgs, passed by value) and
// the level of the frontier it reads; the queue kernels also take the queue's length.
// The threads of a launch stride over their work, so a launch of any shape covers it.
#include "bfs_common.h"
#include "bitmap.h"
#include "push_pull_basic_args.h"

// [push-pull-basic-count-begin]
__device__ inline edge_t out_degree(const PushPullBasicArgs& a, vertex_t v)
{
    return a.offsets[v + 1] - a.offsets[v];
}

// One vertex found for the next level: count it and its out-edges (n_f and m_f).
// Returns its slot in the next queue.
__device__ inline bfs_u64 count_found(const PushPullBasicArgs& a, vertex_t v)
{
    atomicAdd(&a.counts->edges, (bfs_u64)out_degree(a, v));
    return atomicAdd(&a.counts->vertices, (bfs_u64)1);
}
// [push-pull-basic-count-end]

// [push-pull-basic-push-begin]
extern "C" __global__ void push_pull_basic_push(const PushPullBasicArgs a, level_t level,
                                                bfs_u32 frontier_size)
{
    const vertex_t* frontier = a.queues[level % 2];
    vertex_t* next_frontier = a.queues[(level + 1) % 2];
    const bfs_u32 stride = gridDim.x * blockDim.x;
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < frontier_size; i += stride) {
        const vertex_t v = frontier[i];
        for (edge_t e = a.offsets[v]; e < a.offsets[v + 1]; e++) {
            const vertex_t u = a.edges[e];
            if (a.levels[u] != -1) continue;  // a plain read first: most are reached
            // Exactly one thread sees -1 come back: it owns u (step 2).
            if (atomicCAS(&a.levels[u], -1, level + 1) == -1) {
                a.parents[u] = v;
                next_frontier[count_found(a, u)] = u;
            }
        }
    }
}
// [push-pull-basic-push-end]

// [push-pull-basic-pull-begin]
extern "C" __global__ void push_pull_basic_pull(const PushPullBasicArgs a, level_t level)
{
    const bfs_u32* frontier = a.bitmaps[level % 2];
    bfs_u32* next_frontier = a.bitmaps[(level + 1) % 2];  // all zero: the host cleared it
    const bfs_u32 n = (bfs_u32)a.num_vertices, stride = gridDim.x * blockDim.x;
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const vertex_t v = (vertex_t)i;
        if (a.levels[v] != -1) continue;  // reached already: nothing to look for
        for (edge_t e = a.in_offsets[v]; e < a.in_offsets[v + 1]; e++) {
            const vertex_t u = a.in_edges[e];
            if (!in_bitmap(frontier, u)) continue;
            // u is in the frontier, so v is on the next level with u as its parent. This
            // thread is the only one that looks at v: no atomic is needed to claim it.
            a.levels[v] = level + 1;
            a.parents[v] = u;
            add_to_bitmap(next_frontier, v);
            count_found(a, v);
            break;  // one parent is enough: the early exit that makes pulling cheap
        }
    }
}
// [push-pull-basic-pull-end]

// [push-pull-basic-convert-begin]
// Before a pull level whose frontier a push level left in a queue. The bitmap is zero.
extern "C" __global__ void push_pull_basic_queue_to_bitmap(const PushPullBasicArgs a,
                                                           level_t level, bfs_u32 frontier_size)
{
    const bfs_u32 stride = gridDim.x * blockDim.x;
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < frontier_size; i += stride)
        add_to_bitmap(a.bitmaps[level % 2], a.queues[level % 2][i]);
}

// Before a push level whose frontier a pull level left in a bitmap; counts->queued is 0.
extern "C" __global__ void push_pull_basic_bitmap_to_queue(const PushPullBasicArgs a,
                                                           level_t level)
{
    const bfs_u32 n = (bfs_u32)a.num_vertices, stride = gridDim.x * blockDim.x;
    for (bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (in_bitmap(a.bitmaps[level % 2], (vertex_t)i))
            a.queues[level % 2][atomicAdd(&a.counts->queued, (bfs_u64)1)] = (vertex_t)i;
}
// [push-pull-basic-convert-end]
