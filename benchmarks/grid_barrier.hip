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

// [barrier-fenced-begin]
// The barrier as it was first written, the basic version that bfs_common.h's grid_sync
// improves on: a fence before a plain atomicAdd, volatile polls, and a fence after the
// wait. It orders memory as well; the fence after the wait costs a trip to memory at
// every crossing (barrier_cost.py times both). The emulator has one barrier of its own.
#if defined(BFS_EMULATOR)
__device__ inline int grid_sync_fenced(GridBarrier* barrier) { return grid_sync(barrier); }
#else
__device__ inline int grid_sync_fenced(GridBarrier* barrier)
{
    __shared__ int passed;
    __syncthreads();
    if (threadIdx.x == 0) {
        const bfs_u32 blocks = gridDim.x * gridDim.y * gridDim.z;
        const bool first = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
        const bfs_u32 add = first ? 0x80000000u - (blocks - 1u) : 1u;
        __threadfence();  // this block's writes are visible before it counts as arrived
        const bfs_u32 before = atomicAdd(&barrier->arrived, add);
        int ok = 1;
        bfs_u32 spins = 0;
        while (((before ^ grid_barrier_load(&barrier->arrived)) & 0x80000000u) == 0) {
            if ((++spins & 1023u) == 0 &&
                (grid_barrier_load(&barrier->failed) || spins >= GRID_BARRIER_MAX_SPINS)) {
                atomicExch(&barrier->failed, 1u);
                ok = 0;
                break;
            }
        }
        __threadfence();  // and the other blocks' writes are visible from here on
        passed = ok;
    }
    __syncthreads();
    return passed;
}
#endif
// [barrier-fenced-end]

// [barrier-stores-begin]
// Plain stores, as a BFS level makes them: in each round every thread writes a word, all
// cross the barrier, and every thread reads the word that a thread of another block
// wrote in that round. Two buffers, by the round's parity: a word is written again only two
// crossings after it was read. FENCED picks the barrier (the kernel is built twice).
template <bool FENCED>
__device__ inline void cross_with_stores(GridBarrier* barrier, bfs_u32* words, bfs_u32* errors,
                                         bfs_u32 rounds)
{
    const bfs_u32 threads = gridDim.x * blockDim.x;
    const bfs_u32 me = blockIdx.x * blockDim.x + threadIdx.x;
    // A thread of the block half the grid away (of this block in a grid of one).
    const bfs_u32 other = (blockIdx.x + (gridDim.x + 1) / 2) % gridDim.x * blockDim.x +
                          (threadIdx.x + 1) % blockDim.x;
    bfs_u32 wrong = 0;
    for (bfs_u32 round = 1; round <= rounds; round++) {
        bfs_u32* const buffer = words + (round & 1u) * threads;
        buffer[me] = round * 2654435761u + me;
        if (!(FENCED ? grid_sync_fenced(barrier) : grid_sync(barrier))) return;
        if (buffer[other] != round * 2654435761u + other) wrong++;
    }
    if (wrong) atomicAdd(errors, wrong);
}

extern "C" __global__ void barrier_stores(GridBarrier* barrier, bfs_u32* words, bfs_u32* errors,
                                          bfs_u32 rounds)
{
    cross_with_stores<false>(barrier, words, errors, rounds);
}
// [barrier-stores-end]

extern "C" __global__ void barrier_stores_fenced(GridBarrier* barrier, bfs_u32* words,
                                                 bfs_u32* errors, bfs_u32 rounds)
{
    cross_with_stores<true>(barrier, words, errors, rounds);
}

// Nothing but crossings: the time of `rounds` crossings, less that of a launch with
// none, is what the barrier costs.
extern "C" __global__ void barrier_cost(GridBarrier* barrier, bfs_u32 rounds)
{
    for (bfs_u32 round = 0; round < rounds; round++) {
        if (!grid_sync(barrier)) return;
    }
}

extern "C" __global__ void barrier_cost_fenced(GridBarrier* barrier, bfs_u32 rounds)
{
    for (bfs_u32 round = 0; round < rounds; round++) {
        if (!grid_sync_fenced(barrier)) return;
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
