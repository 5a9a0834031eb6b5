// graph_prep.hip: preparing the graph on the GPU (rodinia_bfs/graph_prep.py).
//
// What the steps read beyond the CSR arrays, built from them by four textbook kernels
// and a few maps: a histogram (in-degrees; the digits of a radix sort), an exclusive
// scan (offsets; where each digit goes), a stable scatter (a radix sort's pass), and
// with them an ordering: the in-lists hubs first, by a radix sort of the vertices by
// degree and one of the arcs by target.
#include "bfs_common.h"
#include "prep_scan.h"

// Entries of a scan tile: PREP_BLOCK_SIZE threads, SCAN_ITEMS each.
#ifndef SCAN_ITEMS
#define SCAN_ITEMS 4
#endif
#define SCAN_TILE (PREP_BLOCK_SIZE * SCAN_ITEMS)

// A radix sort pass sorts by RADIX_BITS bits of the key; a thread takes RADIX_ITEMS
// consecutive keys of its block's tile.
#define RADIX_BITS 4
#define RADIX (1u << RADIX_BITS)
#ifndef RADIX_ITEMS
#define RADIX_ITEMS 16
#endif
#define RADIX_TILE (PREP_BLOCK_SIZE * RADIX_ITEMS)

// The item of a one-thread-per-item launch (64-bit: graphs past 2^31 edges).
__device__ inline bfs_u64 item_index() { return (bfs_u64)blockIdx.x * blockDim.x + threadIdx.x; }

// [prep-histogram-begin]
// in_degrees[v] += 1 for every arc u -> v: a histogram with a bin per vertex. The bins
// are too many for a copy per block in shared memory, so every arc adds to the one in
// global memory. The host zeroes in_degrees first.
extern "C" __global__ void count_in_degrees(const vertex_t* targets, bfs_u64 arcs,
                                            bfs_u64* in_degrees)
{
    const bfs_u64 i = item_index();
    if (i < arcs)
        atomicAdd(&in_degrees[targets[i]], (bfs_u64)1);
}
// [prep-histogram-end]

// [prep-scan-begin]
// An exclusive scan of count entries in three launches. First, each block scans its
// tile, writes it out (out[count], past the input, gets the sum of everything once the
// third launch has run) and leaves the tile's sum in tile_sums. in may be out.
extern "C" __global__ void scan_tiles(const bfs_u64* in, bfs_u64 count, bfs_u64* out,
                                      bfs_u64* tile_sums)
{
    __shared__ bfs_u64 tile[SCAN_TILE];
    const bfs_u64 first = (bfs_u64)blockIdx.x * SCAN_TILE;
    for (unsigned k = threadIdx.x; k < SCAN_TILE; k += PREP_BLOCK_SIZE)  // coalesced
        tile[k] = first + k < count ? in[first + k] : 0;
    __syncthreads();
    const bfs_u64 sum = block_exclusive_scan(tile, SCAN_ITEMS);
    for (unsigned k = threadIdx.x; k < SCAN_TILE; k += PREP_BLOCK_SIZE)
        if (first + k <= count)
            out[first + k] = tile[k];
    if (threadIdx.x == 0)
        tile_sums[blockIdx.x] = sum;
}

// Second, one block scans the tiles' sums, a tile of them at a time, carrying the
// total from one to the next.
extern "C" __global__ void scan_tile_sums(bfs_u64* tile_sums, bfs_u64 tiles)
{
    __shared__ bfs_u64 tile[SCAN_TILE];
    bfs_u64 carry = 0;
    for (bfs_u64 first = 0; first < tiles; first += SCAN_TILE) {
        for (unsigned k = threadIdx.x; k < SCAN_TILE; k += PREP_BLOCK_SIZE)
            tile[k] = first + k < tiles ? tile_sums[first + k] : 0;
        __syncthreads();
        const bfs_u64 sum = block_exclusive_scan(tile, SCAN_ITEMS);
        for (unsigned k = threadIdx.x; k < SCAN_TILE; k += PREP_BLOCK_SIZE)
            if (first + k < tiles)
                tile_sums[first + k] = carry + tile[k];
        carry += sum;
    }
}

// Third, each block adds the sum of the tiles before its own.
extern "C" __global__ void add_tile_sums(bfs_u64* out, bfs_u64 count, const bfs_u64* tile_sums)
{
    const bfs_u64 first = (bfs_u64)blockIdx.x * SCAN_TILE;
    const bfs_u64 before = tile_sums[blockIdx.x];
    for (unsigned k = threadIdx.x; k < SCAN_TILE; k += PREP_BLOCK_SIZE)
        if (first + k <= count)
            out[first + k] += before;
}
// [prep-scan-end]

// [prep-radix-count-begin]
// A pass of the radix sort, 1 of 2: how many keys of each tile have each value of the
// digit at `shift`. The histogram has RADIX bins: a private copy per block in shared
// memory takes the block's atomics, and one write per bin goes out, to
// digit_counts[digit * tiles + tile]: digit-major, so that its exclusive scan says
// where each tile's keys of each digit go (every smaller digit first, then the tiles
// before, in order).
extern "C" __global__ void radix_count_digits(const bfs_u32* keys, bfs_u64 count,
                                              bfs_u32 shift, bfs_u64* digit_counts)
{
    __shared__ bfs_u32 bins[RADIX];
    if (threadIdx.x < RADIX)
        bins[threadIdx.x] = 0;
    __syncthreads();
    const bfs_u64 first = (bfs_u64)blockIdx.x * RADIX_TILE;
    for (unsigned k = threadIdx.x; k < RADIX_TILE; k += PREP_BLOCK_SIZE)
        if (first + k < count)
            atomicAdd(&bins[(keys[first + k] >> shift) & (RADIX - 1)], 1u);
    __syncthreads();
    if (threadIdx.x < RADIX)
        digit_counts[(bfs_u64)threadIdx.x * gridDim.x + blockIdx.x] = bins[threadIdx.x];
}
// [prep-radix-count-end]

// [prep-radix-scatter-begin]
// A pass of the radix sort, 2 of 2: each key (and its value) to its place, stably.
// digit_starts is the scanned digit_counts. Within its tile a thread takes RADIX_ITEMS
// consecutive keys; a block scan of the per-thread counts, digit-major, tells each
// thread how many keys of each digit the threads before it hold, and the thread then
// places its own keys in order. Equal digits keep their order: tiles in order, threads
// in order, keys in order.
extern "C" __global__ void radix_scatter(const bfs_u32* keys, const vertex_t* values,
                                         bfs_u64 count, bfs_u32 shift,
                                         const bfs_u64* digit_starts, bfs_u32* keys_out,
                                         vertex_t* values_out)
{
    __shared__ bfs_u32 before[RADIX * PREP_BLOCK_SIZE];  // [digit][thread]
    __shared__ bfs_u32 tile_below[RADIX];  // keys of the tile with a smaller digit
    const unsigned t = threadIdx.x;
    const bfs_u64 run = (bfs_u64)blockIdx.x * RADIX_TILE + (bfs_u64)t * RADIX_ITEMS;
    for (unsigned d = 0; d < RADIX; ++d)
        before[d * PREP_BLOCK_SIZE + t] = 0;
    for (unsigned k = 0; k < RADIX_ITEMS; ++k)  // count this thread's run
        if (run + k < count)
            before[((keys[run + k] >> shift) & (RADIX - 1)) * PREP_BLOCK_SIZE + t] += 1;
    __syncthreads();
    block_exclusive_scan(before, RADIX);
    if (t < RADIX)
        tile_below[t] = before[t * PREP_BLOCK_SIZE];
    __syncthreads();
    for (unsigned k = 0; k < RADIX_ITEMS; ++k) {  // place it; a thread owns its column
        if (run + k >= count)
            break;
        const bfs_u32 key = keys[run + k];
        const unsigned d = (key >> shift) & (RADIX - 1);
        const bfs_u32 rank = before[d * PREP_BLOCK_SIZE + t]++ - tile_below[d];
        const bfs_u64 to = digit_starts[(bfs_u64)d * gridDim.x + blockIdx.x] + rank;
        keys_out[to] = key;
        values_out[to] = values[run + k];
    }
}
// [prep-radix-scatter-end]

// [prep-degree-keys-begin]
// The keys that put the vertices hubs first: a larger out-degree makes a smaller key
// (degrees clamped to 2^31 - 1), and each vertex carries its id; a stable sort keeps
// equal degrees in id order.
extern "C" __global__ void degree_keys(const edge_t* offsets, bfs_u32 n, bfs_u32* keys,
                                       vertex_t* ids)
{
    const bfs_u64 v = item_index();
    if (v >= n)
        return;
    const edge_t degree = offsets[v + 1] - offsets[v];
    const edge_t most = 0x7fffffff;
    keys[v] = (bfs_u32)(most - (degree < most ? degree : most));
    ids[v] = (vertex_t)v;
}
// [prep-degree-keys-end]

// [prep-gather-begin]
// The rows of a graph laid end to end in the order `order` gives: row_lengths[r] is
// the degree of vertex order[r] (a scan of them then says where each row starts).
extern "C" __global__ void row_lengths(const edge_t* offsets, const vertex_t* order,
                                       bfs_u32 n, bfs_u64* lengths)
{
    const bfs_u64 r = item_index();
    if (r < n)
        lengths[r] = offsets[order[r] + 1] - offsets[order[r]];
}

// Arc p of the rows laid end to end, row r from row_starts[r]: its row is the last r
// with row_starts[r] <= p (a binary search; empty rows share a start with the next).
// keys[p] is the arc's target, values[p] its source.
extern "C" __global__ void gather_rows(const edge_t* offsets, const vertex_t* targets,
                                       const vertex_t* order, const bfs_u64* row_starts,
                                       bfs_u32 n, bfs_u64 arcs, bfs_u32* keys,
                                       vertex_t* values)
{
    const bfs_u64 p = item_index();
    if (p >= arcs)
        return;
    bfs_u32 lo = 0, hi = n;  // row_starts[lo] <= p < row_starts[hi]
    for (int step = 0; step < 40 && hi - lo > 1; ++step) {  // 32 halvings at most
        const bfs_u32 mid = lo + (hi - lo) / 2;
        if (row_starts[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    const vertex_t u = order[lo];
    keys[p] = (bfs_u32)targets[offsets[u] + (edge_t)(p - row_starts[lo])];
    values[p] = u;
}
// [prep-gather-end]

// [prep-compact-begin]
// Vertices with in-edges, in increasing order: marks[v] = 1 where v has in-edges, then
// an exclusive scan of the marks gives each marked vertex its place (stream compaction).
extern "C" __global__ void mark_nonempty(const edge_t* offsets, bfs_u32 n, bfs_u64* marks)
{
    const bfs_u64 v = item_index();
    if (v < n)
        marks[v] = offsets[v + 1] > offsets[v] ? 1 : 0;
}

extern "C" __global__ void compact_marked(const bfs_u64* places, bfs_u32 n, vertex_t* marked)
{
    const bfs_u64 v = item_index();
    if (v < n && places[v + 1] != places[v])  // v was marked
        marked[places[v]] = (vertex_t)v;
}
// [prep-compact-end]

// Whether two arrays of `words` 32-bit words differ: *differ becomes 1 if they do.
extern "C" __global__ void compare_words(const bfs_u32* a, const bfs_u32* b, bfs_u64 words,
                                         bfs_u32* differ)
{
    const bfs_u64 i = item_index();
    if (i < words && a[i] != b[i])
        atomicOr(differ, 1u);
}

// [prep-edge-records-begin]
// Step 5's EdgeRecord (persistent.hip): each arc with its target's list.
struct EdgeRecord {
    vertex_t vertex;  // the target
    bfs_u32 degree;   // its out-degree
    edge_t begin;     // where its list begins
};
static_assert(sizeof(EdgeRecord) == 16, "EdgeRecord is 16 bytes");

extern "C" __global__ void edge_records(const edge_t* offsets, const vertex_t* targets,
                                        bfs_u64 arcs, EdgeRecord* records)
{
    const bfs_u64 i = item_index();
    if (i >= arcs)
        return;
    const vertex_t v = targets[i];
    EdgeRecord record;
    record.vertex = v;
    record.degree = (bfs_u32)(offsets[v + 1] - offsets[v]);
    record.begin = offsets[v];
    records[i] = record;
}
// [prep-edge-records-end]

// [prep-rows-begin]
// Step 5's rows: slot j of row v is v's j-th neighbour, or -1 past its degree. With
// `half` (the row width's half, SB_ROW_HALVES), slot half - 1 of a vertex of more than
// `half` neighbours has its top bit set: the row's upper half has entries.
extern "C" __global__ void fill_rows(const edge_t* offsets, const vertex_t* targets, bfs_u32 n,
                                     bfs_u32 width, bfs_u32 half, vertex_t* rows)
{
    const bfs_u64 slot = item_index();
    if (slot >= (bfs_u64)n * width)
        return;
    const bfs_u64 v = slot / width, j = slot % width;
    const edge_t begin = offsets[v], end = offsets[v + 1];
    vertex_t entry = begin + (edge_t)j < end ? targets[begin + (edge_t)j] : -1;
    if (half > 0 && j + 1 == half && begin + (edge_t)half < end)
        entry = (vertex_t)((bfs_u32)entry | ROW_MORE_BIT);
    rows[slot] = entry;
}
// [prep-rows-end]
