// The grid barrier of bfs_common.h, exercised on its own: the tests check that it holds
// (tests/test_grid_barrier.py) and benchmarks/barrier_cost.py measures a crossing.
#include "bfs_common.h"

// [barrier-check-begin]
// Every block adds one to `counter`, then all cross the barrier and every thread checks
// that it sees all the blocks' additions; then they cross again before the next round,
// so that nobody adds to the counter while another block is still reading it. A block
// numbered `quit_block` returns in round 1 without reaching the barrier: the deadlock
// that the emulator must report (pass a block number past the grid for none).
extern "C" __global__ void barrier_check(GridBarrier* barrier, bfs_u32* counter, bfs_u32* errors,
                                         bfs_u32 rounds, bfs_u32 quit_block)
{
    const bfs_u32 blocks = gridDim.x;
    for (bfs_u32 round = 0; round < rounds; round++) {
        if (blockIdx.x == quit_block && round == 1) return;
        if (threadIdx.x == 0) atomicAdd(counter, 1u);
        if (!grid_sync(barrier)) return;
        if (*(volatile bfs_u32*)counter != (round + 1) * blocks) atomicAdd(errors, 1u);
        if (!grid_sync(barrier)) return;
    }
}
// [barrier-check-end]

// Nothing but crossings: the time of `rounds` crossings, less that of a launch with
// none, is what the barrier costs.
extern "C" __global__ void barrier_cost(GridBarrier* barrier, bfs_u32 rounds)
{
    for (bfs_u32 round = 0; round < rounds; round++) {
        if (!grid_sync(barrier)) return;
    }
}

// Each block's thread 0 stamps the clock after each crossing: the stamps of one crossing
// must all come after every stamp of the crossing before (the clock is shared).
extern "C" __global__ void barrier_clock(GridBarrier* barrier, bfs_u64* stamps, bfs_u32 rounds)
{
    for (bfs_u32 round = 0; round < rounds; round++) {
        if (threadIdx.x == 0) stamps[round * gridDim.x + blockIdx.x] = device_clock();
        if (!grid_sync(barrier)) return;
    }
}
