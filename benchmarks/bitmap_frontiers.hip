// A top-down BFS whose frontiers are bitmaps, not queues: a probe for issue 26's meshes.
// benchmarks/bitmap_frontiers.py times it against steps 6 and 7 and the given frontiers
// (benchmarks/given_frontiers.hip) and checks every result; tests/test_bitmap_frontiers.py
// runs it on the emulator.
//
// Step 6 appends each vertex it claims to a queue: a place from an atomic, an entry that
// the next level's reader waits for. Here the claim's winner sets the vertex's bit in the
// next frontier's bitmap instead (an atomicOr whose answer nobody waits for), and the
// next level reads the whole bitmap, a word a lane: on a mesh of 2^22 vertices that is
// 131,072 words, about one a thread of the grid, all read at once after the barrier. A
// warp gathers the vertices of its words into shared memory and spreads each one's list
// over its lanes. The level that finds nothing ends the search: each block says after
// every level whether it found a vertex, in a word of its own.
#include "bfs_common.h"
#include "bitmap.h"

// [bitmap-frontiers-args-begin]
struct BitmapArgs {
    const edge_t* offsets;
    const vertex_t* edges;
    level_t* levels;          // -1 but the source's
    vertex_t* parents;
    bfs_u32* visited;         // the source's bit alone
    bfs_u32* frontiers;       // two bitmaps of `words` words, used in turn; the first: the source
    bfs_u32* found;           // two rows of a word a block: whether it found a vertex
    bfs_u32* status;          // [0] levels of the search, [1] 1: more levels than vertices
    GridBarrier* barrier;
    bfs_u32 words;
    vertex_t n;
};
// [bitmap-frontiers-args-end]

#define BITMAP_RUNAWAY 1u

// [bitmap-frontiers-gather-begin]
// The vertices of the words a warp read (a lane's `bits` at word `w`), WARP_SIZE at most
// at a time: each lane with a bit left puts its lowest into the warp's list, then the
// warp visits the listed vertices, 2^k lanes a list (the most that n << k <= WARP_SIZE
// allows). True where this lane claimed a vertex.
__device__ inline bool visit_words(const BitmapArgs& a, bfs_u32 bits, bfs_u32 w, bfs_u32 next_level,
                                   bfs_u32* next, vertex_t* list)
{
    bool claimed = false;
    for (;;) {
        const bool has = bits != 0;
        const lane_mask_t who = warp_ballot(has);
        if (who == 0) break;  // the same in every lane
        const bfs_u32 n = (bfs_u32)__popcll((unsigned long long)who);
        if (has) {
            const lane_mask_t below = ((lane_mask_t)1 << lane_id()) - 1;
            list[__popcll((unsigned long long)(who & below))] =
                (vertex_t)(w * BITMAP_WORD_BITS + (bfs_u32)(__ffs((int)bits) - 1));
            bits &= bits - 1;
        }
        warp_sync();
        bfs_u32 k = 0;
        while ((n << (k + 1)) <= WARP_SIZE) k++;
        if (lane_id() < (n << k)) {
            const vertex_t v = list[lane_id() >> k];
            const edge_t end = a.offsets[v + 1];
            for (edge_t e = a.offsets[v] + (lane_id() & ((1u << k) - 1)); e < end; e += (edge_t)1 << k) {
                const vertex_t u = a.edges[e];
                const bfs_u32 before = atomicOr(&a.visited[(bfs_u32)u >> BITMAP_WORD_SHIFT],
                                                bitmap_bit(u));
                if (before & bitmap_bit(u)) continue;  // claimed already
                a.levels[u] = (level_t)next_level;
                a.parents[u] = v;
                atomicOr(&next[(bfs_u32)u >> BITMAP_WORD_SHIFT], bitmap_bit(u));
                claimed = true;
            }
        }
        warp_sync();  // the list is read before the next round writes it
    }
    return claimed;
}
// [bitmap-frontiers-gather-end]

// [bitmap-frontiers-kernel-begin]
extern "C" __global__ void bitmap_frontiers(const BitmapArgs a)
{
    __shared__ vertex_t lists[1024];  // WARP_SIZE entries a warp (blocks of 1024 threads at most)
    __shared__ int more;
    vertex_t* list = lists + warp_id() * WARP_SIZE;
    const bfs_u32 threads = gridDim.x * blockDim.x;
    bfs_u32 l = 0;
    for (;; l++) {
        bfs_u32* now = a.frontiers + (l % 2) * a.words;
        bfs_u32* next = a.frontiers + ((l + 1) % 2) * a.words;
        // Whether any block found a vertex at the last level (level 0 has the source):
        // read by warp 0 while the other warps already load their words.
        if (warp_id() == 0) {
            bool any = l == 0;
            for (bfs_u32 b = lane_id(); b < gridDim.x; b += WARP_SIZE)
                any |= load_fresh(&a.found[(l % 2) * gridDim.x + b]) != 0;
            any = warp_any(any);
            if (lane_id() == 0) more = any;
        }
        __syncthreads();
        if (!more) break;  // the same in every block
        if (l >= (bfs_u32)a.n) {  // a level per vertex at most: a bug
            if (blockIdx.x == 0 && threadIdx.x == 0) a.status[1] = BITMAP_RUNAWAY;
            break;
        }
        bool claimed = false;
        // A word a lane; a warp's words are neighbours. The bound is the same in every
        // lane of a warp, so the whole warp takes part in each round of visit_words.
        for (bfs_u32 base = blockIdx.x * blockDim.x + warp_id() * WARP_SIZE; base < a.words;
             base += threads) {
            const bfs_u32 w = base + lane_id();
            const bfs_u32 bits = w < a.words ? load_fresh(&now[w]) : 0;
            if (bits) now[w] = 0;  // the bitmap is level l + 2's next one
            claimed |= visit_words(a, bits, w, l + 1, next, list);
        }
        const int found = __syncthreads_or(claimed);
        if (threadIdx.x == 0) a.found[((l + 1) % 2) * gridDim.x + blockIdx.x] = found;
        if (!grid_sync(a.barrier)) return;  // the host reports a barrier that gave up
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) a.status[0] = l;
}
// [bitmap-frontiers-kernel-end]
