// prep_scan.h: the exclusive scan of one block's tile in shared memory, the building
// block of graph_prep.hip's scans and of its radix sort's stable scatter.
#pragma once

#include "bfs_common.h"

#ifndef PREP_BLOCK_SIZE
#define PREP_BLOCK_SIZE 256
#endif
// The work-efficient scan below halves and doubles its stride: a power of two. (Up to
// 512: radix_scatter keeps 16 counters a thread in shared memory.)
#if PREP_BLOCK_SIZE < 32 || PREP_BLOCK_SIZE > 512 || (PREP_BLOCK_SIZE & (PREP_BLOCK_SIZE - 1))
#error "PREP_BLOCK_SIZE must be a power of two from 32 to 512"
#endif

// [prep-block-scan-begin]
// Exclusive scan, in place, of data[0 .. PREP_BLOCK_SIZE * items) in shared memory:
// afterwards data[i] is the sum of the entries before i. Returns the sum of them all.
// Every thread of the block calls it. Three phases (PMPP's coarsened scan): each
// thread scans its own run of `items` entries one by one; the runs' totals are scanned
// by the whole block, work-efficiently (an up-sweep and a down-sweep over a balanced
// tree, 2 log2(B) steps); each thread adds what came before its run.
template <typename T>
__device__ T block_exclusive_scan(T* data, unsigned items)
{
    __shared__ T partials[PREP_BLOCK_SIZE];
    __shared__ T total;
    const unsigned t = threadIdx.x;
    T* run = data + t * items;
    T sum = 0;
    for (unsigned k = 0; k < items; ++k) {  // phase 1: this thread's run
        const T x = run[k];
        run[k] = sum;
        sum += x;
    }
    partials[t] = sum;
    for (unsigned stride = 1; stride < PREP_BLOCK_SIZE; stride *= 2) {  // phase 2: up-sweep
        __syncthreads();
        const unsigned i = (t + 1) * 2 * stride - 1;
        if (i < PREP_BLOCK_SIZE)
            partials[i] += partials[i - stride];
    }
    __syncthreads();
    if (t == 0) {  // the root holds the sum of everything; the scan is exclusive
        total = partials[PREP_BLOCK_SIZE - 1];
        partials[PREP_BLOCK_SIZE - 1] = 0;
    }
    for (unsigned stride = PREP_BLOCK_SIZE / 2; stride >= 1; stride /= 2) {  // down-sweep
        __syncthreads();
        const unsigned i = (t + 1) * 2 * stride - 1;
        if (i < PREP_BLOCK_SIZE) {
            const T left = partials[i - stride];
            partials[i - stride] = partials[i];
            partials[i] += left;
        }
    }
    __syncthreads();
    const T before = partials[t];  // phase 3: what the runs before this one hold
    for (unsigned k = 0; k < items; ++k)
        run[k] += before;
    const T all = total;
    __syncthreads();  // the block may call again at once: partials and total are reused
    return all;
}
// [prep-block-scan-end]
