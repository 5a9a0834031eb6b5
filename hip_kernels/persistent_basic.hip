// Step 5, the basic kernel: one launch, many levels.
//
// Step 2's kernel, with the host loop moved inside it. The whole grid is launched once,
// cooperatively, so that every block is resident and a block may wait for the others:
// each level is step 2's expansion (a thread per frontier vertex, atomicCAS to claim,
// atomicAdd to enqueue), and a grid-wide barrier (grid_sync, bfs_common.h) ends it. After
// the barrier every thread reads the next queue's size itself; nobody goes back to the
// host, which waits once, for the whole search.
#include "persistent_basic.h"

// Threads per block (-DBLOCK_SIZE=...): the compilers size their registers for it.
#ifndef BLOCK_SIZE
#error "compile with -DBLOCK_SIZE=<threads per block>"
#endif

// [persistent-basic-head-begin]
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
persistent_basic(const PersistentBasicArgs a)
{
    const vertex_t n = a.num_vertices;
    const bfs_u32 thread = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const bfs_u32 threads = gridDim.x * BLOCK_SIZE;
    // [persistent-basic-head-end]

    // [persistent-basic-start-begin]
    // Level 0: the source alone in queue 0. Others read these only after the barrier.
    // A search from several sources comes with its start vertices already in queue 0
    // (and their levels and parents set) by the host: the kernel only needs their count.
    if (thread == 0) {
        if (a.source >= 0) {
            a.levels[a.source] = 0;
            a.parents[a.source] = a.source;
            a.queues[0] = a.source;
        }
        a.counts[0] = a.num_starts;
    }
    if (!grid_sync(a.barrier)) return;  // it gave up: the host reports the barrier's failure
    // [persistent-basic-start-end]

    // [persistent-basic-level-begin]
    level_t level = 0;
    bfs_u32 error = 0;
    for (;;) {
        // Every thread reads the same size after the same barrier, so all of them leave
        // the loop at the same level: none is left waiting at a barrier.
        const bfs_u32 size = a.counts[level % 3];
        if (thread == 0 && a.clocks) a.clocks[level] = device_clock();
        if (size == 0 || level >= a.max_levels) break;  // done, or at the depth limit
        // A BFS has at most n levels, and a level at most n vertices: past that, a bug.
        if (level >= n || size > (bfs_u32)n) {
            error = 1;
            break;
        }
        // Three counters, used in turn: this level reads counts[L % 3] and counts the
        // next queue into counts[(L + 1) % 3], which was zeroed a level ago. The third,
        // counts[(L + 2) % 3], is the one everyone read in the level before this one,
        // before the barrier: nobody reads it now, so it can be zeroed for the next level
        // without a second barrier (with two counters, zeroing one would race its readers).
        if (thread == 0) a.counts[(level + 2) % 3] = 0;
        const vertex_t* frontier = a.queues + (edge_t)(level % 2) * n;
        vertex_t* next_frontier = a.queues + (edge_t)((level + 1) % 2) * n;
        bfs_u32* next_size = &a.counts[(level + 1) % 3];
        // [persistent-basic-level-end]

        // [persistent-basic-expand-begin]
        // Step 2's expansion: the grid strides over the queue, a thread per vertex.
        for (bfs_u32 i = thread; i < size; i += threads) {
            const vertex_t v = frontier[i];
            for (edge_t e = a.offsets[v]; e < a.offsets[v + 1]; e++) {
                const vertex_t u = a.edges[e];
                if (a.levels[u] != -1) continue;  // reached already: no atomic needed
                if (atomicCAS(&a.levels[u], -1, level + 1) == -1) {
                    a.parents[u] = v;
                    const bfs_u32 slot = atomicAdd(next_size, 1u);
                    if (slot < (bfs_u32)n) next_frontier[slot] = u;  // never past the queue
                }
            }
        }
        // [persistent-basic-expand-end]

        // [persistent-basic-barrier-begin]
        // The level is done when every block is: what they wrote (levels, the next
        // queue, its size) is visible to every thread after the barrier.
        if (!grid_sync(a.barrier)) return;
        level++;
    }
    if (thread == 0) *a.status = PersistentBasicStatus{(bfs_u32)level, error};
}
// [persistent-basic-barrier-end]
