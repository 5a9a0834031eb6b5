// Step 5: one launch, many levels (PMPP 15.7).
//
// Steps 1 to 4 go back to the host after every level: a launch, a read-back of the next
// frontier's size and a synchronize, about 20 microseconds, for a level that on a road
// network is a few microseconds of work. Here the levels run on the device, one after
// another, and the host waits once. Two kernels share the work:
//
//   persistent_single   one block runs level after level while the frontier fits its
//                       shared memory: both queues and the visited bitmap are there,
//                       and a level ends with __syncthreads;
//   persistent_grid     a cooperative launch (every block resident at once) runs the
//                       levels whose frontier is too big for one block, with step 4's
//                       degree-sorted queues in global memory and grid_sync between
//                       levels.
//
// Each kernel runs levels until the frontier no longer suits it, writes where it
// stopped into a Control record in device memory, and returns; the other kernel,
// launched behind it on the same stream, carries on from there. A kernel launched when
// it is not its turn returns at once. A graph of small degrees (a road network, a mesh)
// is read by the single block as rows (Row), and what the block finds is logged and
// written out by a third kernel, persistent_flush, behind each of its launches.
//
// The single block's kernels are in single_block.h, which step 7 includes too; this file
// adds the grid's.
#include "single_block.h"

// [persistent-grid-kernel-begin]
extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
persistent_grid(const PersistentArgs a, GridBarrier* barrier)
{
    // The same for every block: nobody has written it yet.
    if (a.control->mode != MODE_GRID) return;
    const GridQueues Q = {a.smalls, a.mediums, a.larges, a.large_capacity, a.counts, a.n};
    __shared__ LocalQueues local;
    level_t level = a.control->level;
    bfs_u32 enqueued = a.control->enqueued;
    bfs_u32 pieces = a.control->pieces;
    bfs_u32 mode = MODE_GRID;

    // [persistent-grid-loop-begin]
    // The frontier's queue lengths, read by thread 0 for its block: read by every thread
    // of the grid, they were thousands of requests for the same lines at the L2 at each
    // level (chapter 6, "Reading the counts once per block").
    __shared__ bfs_u32 counted[QUEUES];
    const auto read_counts = [&](level_t l) {
        for (int q = 0; q < QUEUES; q++) counted[q] = Q.count(l, q);
    };
    if (threadIdx.x == 0) read_counts(level);
    __syncthreads();

    for (;;) {
        // Every thread of every block reads the same counters after the same grid
        // barrier, so all of them take the same branch: none is left waiting at a barrier.
        const bfs_u32 small = counted[SMALL];
        const bfs_u32 medium = counted[MEDIUM];
        const bfs_u32 large = counted[LARGE];
        if (blockIdx.x == 0 && threadIdx.x == 0)
            stamp(a.stamps, a.stamp_capacity, level, MODE_GRID, small + medium + large);
        if (small + medium + large == 0) { mode = MODE_DONE; break; }
        enqueued += small + medium;
        pieces += large;
        if ((bfs_u32)level >= (bfs_u32)a.n || enqueued > (bfs_u32)a.n ||
            pieces > a.large_capacity) {
            mode = MODE_RUNAWAY;
            break;
        }
        // [persistent-grid-depth-begin]
        // A depth_limit: the frontier of level max_levels stays unexpanded, whichever
        // kernel has it (the single block checks the same before each of its levels).
        if (level >= a.max_levels) { mode = MODE_DONE; break; }
        // [persistent-grid-depth-end]
        if (fits_single_block(small, medium, large)) {
            rebuild_bitmap(a.global_bitmap, a.levels, a.n);
            mode = MODE_SINGLE;
            enqueued -= small + medium;  // the single block counts them again
            break;
        }
        if (blockIdx.x == 0 && threadIdx.x < QUEUES) Q.counters(level + 2)[threadIdx.x * COUNTER_STRIDE] = 0;
        if (threadIdx.x < 2) local.counts[threadIdx.x] = 0;
        __syncthreads();  // nobody enqueues before the local counters are zero

        // Step 4's three gathers, one after the other, each with the whole grid.
        const Level L = grid_level(Q, a.offsets, a.edges, a.levels, a.parents, level, &local);
        expand_large(L, Q.large(level), large, blockIdx.x, gridDim.x);
        expand_medium(L, Q.medium(level), medium, blockIdx.x * WARPS_PER_BLOCK + warp_id(),
                      gridDim.x * WARPS_PER_BLOCK);
        expand_small(L, Q.small(level), small, blockIdx.x * BLOCK_SIZE + threadIdx.x,
                     gridDim.x * BLOCK_SIZE);
        copy_out(L);
        // Thread 0 reads the next level's counts once the barrier's wait is over.
        if (!grid_sync(barrier, [&] { read_counts(level + 1); })) {
            // The barrier gave up. Say so, so that no later kernel of the batch carries
            // on from a half-finished level; the host reports the barrier's failure.
            if (threadIdx.x == 0) atomicExch(&a.control->mode, (bfs_u32)MODE_FAILED);
            return;
        }
        level++;
    }
    // [persistent-grid-loop-end]
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        a.control->mode = mode;
        a.control->level = level;
        a.control->enqueued = enqueued;
        a.control->pieces = pieces;
    }
}
// [persistent-grid-kernel-end]
