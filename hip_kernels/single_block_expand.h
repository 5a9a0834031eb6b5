// single_block_expand.h: the three ways the single block expands a level (a thread per
// edge, a warp per group of small vertices, a thread per row), where its frontier comes
// from and where it goes when it outgrows the block. single_block.h's kernel runs them.
#pragma once
#include "single_block_queues.h"

// [persistent-single-level-begin]
// Expand one level in the single block a thread per edge: the frontier is queue `q`
// (count slots, `total` edges, its degrees made starts by degrees_to_starts); what it
// discovers goes to queue 1 - q, counted by `counter`. Edge j of the level goes to
// thread j % SB_BLOCK_SIZE, so a vertex of many edges is spread over the block. Each
// thread first finds and loads EDGE_BATCH edges, so that their loads are in flight
// together, then claims their targets, then its warp appends all it found.
__device__ inline void expand_single(const SingleBlock& S, int q, bfs_u32 count, bfs_u32 total,
                                     level_t level, LevelCount* counter, bfs_u32 log_base)
{
    const Queue F = queue(S, q);
    const bfs_u32* const start = F.degree;  // starts, by now
    const bfs_u32 top = 1u << (31 - __clz((int)count));  // the highest power of two <= count
    // The loop bound is the same for every lane of a warp (base is the warp's first
    // edge), so the warp calls append() together.
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < total;
         base += SB_BLOCK_SIZE * EDGE_BATCH) {
        bfs_u32 j[EDGE_BATCH], slot[EDGE_BATCH];
        bfs_u32 valid = 0;
        for (int i = 0; i < EDGE_BATCH; i++) {
            j[i] = base + i * SB_BLOCK_SIZE + lane_id();
            slot[i] = 0;
            if (j[i] < total) valid |= 1u << i;
        }
        // [persistent-search-begin]
        // Which slot's list holds edge j: the last slot whose edges start at or before j
        // (a slot of degree 0 starts where the next one does, and is passed over). A
        // binary search over the prefix sum, one step of every search at a time, so that
        // EDGE_BATCH shared-memory loads are in flight together.
        for (bfs_u32 step = top; step > 0; step /= 2) {
            for (int i = 0; i < EDGE_BATCH; i++) {
                const bfs_u32 next = slot[i] + step;
                if (j[i] < total && next < count && start[next] <= j[i]) slot[i] = next;
            }
        }
        // [persistent-search-end]
        EdgeRecord found[EDGE_BATCH];
        vertex_t from[EDGE_BATCH];
        for (int i = 0; i < EDGE_BATCH; i++) {
            if (!((valid >> i) & 1u)) continue;
            from[i] = F.vertex[slot[i]];
            found[i] = load_edge(S, F.begin[slot[i]] + (j[i] - start[slot[i]]));
        }
        const bfs_u32 mine = claim<EDGE_BATCH>(S, found, valid, from, level + 1);
        append<EDGE_BATCH>(S, 1 - q, counter, found, from, mine,
                           found_edges<EDGE_BATCH>(counter, found, mine), log_base);
    }
}
// [persistent-single-level-end]

// [persistent-warp-level-begin]
// The same level gathered by warps, for a frontier whose vertices all have at most
// VP_MAX_DEGREE edges: warp w takes slots w * WARP_SIZE and on, a slot per lane, and
// the lanes then take the edges of those WARP_SIZE lists in turn, edge k of them to
// lane k % WARP_SIZE. A warp's loads then read a few lists, each contiguous, and a lane
// finds the list of its edge in log2(WARP_SIZE) steps over the warp's own prefix sum,
// held in registers (warp_shfl), where a thread per edge over the whole level searches
// log2(count) slots in shared memory. (A hub would keep one warp busy while the others
// wait at the barrier: a queue with a vertex of more than VP_MAX_DEGREE edges goes to
// expand_single.) The loop bounds are the same for every lane of a warp, so the warp
// shuffles and appends together.
__device__ inline void expand_warps(const SingleBlock& S, int q, bfs_u32 count, level_t level,
                                    LevelCount* counter, bfs_u32 log_base)
{
    const Queue F = queue(S, q);
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        vertex_t from = -1;
        edge_t begin = 0;
        bfs_u32 degree = 0;
        if (i < count) {
            from = F.vertex[i];
            begin = F.begin[i];
            degree = F.degree[i];
        }
        bfs_u32 edges;  // of the warp's lists, together
        const bfs_u32 first = warp_exclusive_sum(degree, &edges);  // this lane's first edge
        for (bfs_u32 done = 0; done < edges; done += WARP_SIZE * EDGE_BATCH) {
            bfs_u32 k[EDGE_BATCH], owner[EDGE_BATCH];
            bfs_u32 valid = 0;
            for (int r = 0; r < EDGE_BATCH; r++) {
                k[r] = done + r * WARP_SIZE + lane_id();
                owner[r] = 0;
                if (k[r] < edges) valid |= 1u << r;
            }
            // The lane whose list holds edge k: the last lane whose edges start at or
            // before k (a lane of degree 0 starts where the next one does, and is passed
            // over), a binary search over the lanes' `first`.
            for (int step = WARP_SIZE / 2; step > 0; step /= 2) {
                for (int r = 0; r < EDGE_BATCH; r++) {
                    const bfs_u32 next = owner[r] + step;
                    if ((bfs_u32)warp_shfl((bfs_i32)first, (int)next) <= k[r]) owner[r] = next;
                }
            }
            EdgeRecord found[EDGE_BATCH];
            vertex_t parent[EDGE_BATCH];
            for (int r = 0; r < EDGE_BATCH; r++) {
                parent[r] = warp_shfl((bfs_i32)from, (int)owner[r]);
                const edge_t list = warp_shfl((bfs_i64)begin, (int)owner[r]);
                const bfs_u32 offset = k[r] - (bfs_u32)warp_shfl((bfs_i32)first, (int)owner[r]);
                if ((valid >> r) & 1u) found[r] = load_edge(S, list + offset);
            }
            const bfs_u32 mine = claim<EDGE_BATCH>(S, found, valid, parent, level + 1);
            append<EDGE_BATCH>(S, 1 - q, counter, found, parent, mine,
                               found_edges<EDGE_BATCH>(counter, found, mine), log_base);
        }
    }
}
// [persistent-warp-level-end]

#if SB_ROW_WIDTH > 0
// [persistent-row-level-begin]
// The same level read as rows (SB_ROW_WIDTH > 0): a thread per slot loads its vertex's
// row, claims every entry that is not padding, and its warp appends what it claimed.
// The level's chain of dependent steps is then the slot, one load, the atomics and the
// append. A thread takes BATCH slots, SB_BLOCK_SIZE apart, and loads all their rows
// before it claims any, so that the loads of a level wider than the block are in flight
// together (with a batch of 1, a level of 2,048 vertices is two such chains, one after
// the other); the kernel takes a batch of SB_ROW_BATCH only for such a level, as a
// narrower one would claim padding. Returns the entries this thread expanded (step 7's
// rule counts them).
//
// A wide level of a road network is as many of these passes as it has blocks' worth of
// vertices, each the same two hundred or so instructions in every warp of the block, on
// one multiprocessor: there the instructions are a large part of what a level costs.
// So a padding entry (-1) costs no branch of its own: its "before" is all ones, as if
// visited, and nobody claims it; and the warp appends with a ballot per bit of each
// lane's count (append_rows), not one per entry.
template <int BATCH>
__device__ inline bfs_u32 expand_rows(const SingleBlock& S, int q, bfs_u32 count, level_t level,
                                      LevelCount* counter, bfs_u32 log_base)
{
    constexpr int N = BATCH * SB_ROW_WIDTH;  // entries a lane claims at once
    // With SB_ROW_HALVES, a row's lower half: the entries a warp claims where none of its
    // rows has an upper half.
    constexpr int HALF = SB_ROW_WIDTH / 2 > 0 ? SB_ROW_WIDTH / 2 : 1;
    constexpr int LOWER = SB_ROW_HALVES ? HALF : SB_ROW_WIDTH;
    static_assert(N <= 8 * (int)sizeof(bfs_u32), "a lane's finds are the bits of one word");
    const vertex_t* const F = queue(S, q).vertex;
    bfs_u32 expanded = 0;
    // A word of the bitmap for each lane's padding entries to OR nothing into (below).
    const bfs_u32 spare = (bfs_u32)lane_id() < S.bitmap_words ? (bfs_u32)lane_id() : 0u;
    // The loop bound is the same for every lane of a warp, so the warp appends together.
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count;
         base += SB_BLOCK_SIZE * BATCH) {
        vertex_t found[N], parent[N];
        bool upper = true;  // does a row of the warp have entries in its upper half?
#if SB_ROW_HALVES
        // [persistent-row-halves-begin]
        // Rows by halves: the lower half of each row, whose last entry says (ROW_MORE_BIT)
        // whether the upper half has entries, and the upper halves only where a row of
        // the warp has some (the same branch in every lane). A road network's rows of 8
        // hold two or three neighbours: nearly every warp loads and claims 4 entries a row.
        const RowHalf* const halves = reinterpret_cast<const RowHalf*>(S.rows);
        bool marked[BATCH];
        bool any = false;
        for (int b = 0; b < BATCH; b++) {
            const bfs_u32 i = base + b * SB_BLOCK_SIZE + lane_id();
            const vertex_t from = i < count ? F[i] : -1;
            RowHalf lower;
            if (from >= 0) lower = halves[2 * (bfs_u32)from];
            marked[b] = from >= 0 && lower.vertex[HALF - 1] < -1;  // -1 is padding
            if (marked[b]) lower.vertex[HALF - 1] &= (vertex_t)~ROW_MORE_BIT;
            any |= marked[b];
            for (int k = 0; k < HALF; k++) {
                found[b * SB_ROW_WIDTH + k] = from >= 0 ? lower.vertex[k] : -1;
                found[b * SB_ROW_WIDTH + HALF + k] = -1;
                parent[b * SB_ROW_WIDTH + k] = parent[b * SB_ROW_WIDTH + HALF + k] = from;
            }
        }
        upper = warp_any(any);
        if (upper) {
            for (int b = 0; b < BATCH; b++) {
                if (!marked[b]) continue;
                const RowHalf high = halves[2 * (bfs_u32)parent[b * SB_ROW_WIDTH] + 1];
                for (int k = 0; k < HALF; k++) found[b * SB_ROW_WIDTH + HALF + k] = high.vertex[k];
            }
        }
        // [persistent-row-halves-end]
#else
        for (int b = 0; b < BATCH; b++) {
            const bfs_u32 i = base + b * SB_BLOCK_SIZE + lane_id();
            const vertex_t from = i < count ? F[i] : -1;
            Row row;
            if (from >= 0) row = S.rows[from];
            for (int k = 0; k < SB_ROW_WIDTH; k++) {
                found[b * SB_ROW_WIDTH + k] = from >= 0 ? row.vertex[k] : -1;
                parent[b * SB_ROW_WIDTH + k] = from;
            }
        }
#endif
        // Every atomicOr is issued before any result is looked at. Entries past a row's
        // first LOWER are padding in every lane where no row of the warp has an upper half.
        // [persistent-row-claims-begin]
        // A padding entry's "before" is all ones: as if visited, and nobody claims it. With
        // the bitmap in shared memory it still takes its atomic, ORing nothing into a
        // spare word of its lane, so that the claims are one straight run of atomics with
        // no branch around each (in global memory that atomic would be a trip to L2: there
        // padding branches around it).
        bfs_u32 before[N];
        for (int e = 0; e < N; e++) {
            const vertex_t u = found[e];
            before[e] = ~0u;
            if (e % SB_ROW_WIDTH >= LOWER && !upper) continue;
            if (!SHARED_BITMAP && u < 0) continue;
            const bool real = u >= 0;
            const bfs_u32 got = atomicOr(&S.bitmap[real ? (bfs_u32)u / BITMAP_WORD_BITS : spare],
                                         real ? bitmap_bit(u) : 0u);
            if (real) before[e] = got;
        }
        // [persistent-row-claims-end]
        bfs_u32 mine = 0;
        for (int e = 0; e < N; e++) {
            if (e % SB_ROW_WIDTH >= LOWER && !upper) continue;
            const vertex_t u = found[e];
            expanded += u >= 0 ? 1u : 0u;
            if (before[e] & bitmap_bit(u)) continue;  // visited, claimed by another, or padding
#if !SB_LOG
            S.levels[u] = level + 1;
            S.parents[u] = parent[e];
#endif
            mine |= 1u << e;
        }
        // A warp that claimed in the lower halves alone appends with a ballot fewer.
        if (SB_ROW_HALVES && BATCH == 1 && !upper)
            append_rows<LOWER>(S, 1 - q, counter, found, parent, mine, log_base);
        else
            append_rows<N>(S, 1 - q, counter, found, parent, mine, log_base);
    }
    return expanded;
}
// [persistent-row-level-end]
#endif

// [persistent-single-entry-begin]
// Put the frontier the single block starts from into queue q: the source at a fresh
// start, else what the grid handed back (its small and medium queues; at level 0 of a
// search from several sources, the start vertices the host put there). Warp by warp, so
// that append() sees whole warps.
__device__ inline void load_frontier(const SingleBlock& S, const GridQueues& Q, int q,
                                     level_t level, bool fresh, vertex_t source,
                                     bfs_u32 small_count, bfs_u32 medium_count,
                                     LevelCount* counter)
{
    const bfs_u32 count = fresh ? 1 : small_count + medium_count;
    for (bfs_u32 base = warp_id() * WARP_SIZE; base < count; base += SB_BLOCK_SIZE) {
        const bfs_u32 i = base + lane_id();
        EdgeRecord found[1];
        vertex_t parent[1] = {-1};  // not logged: already written
        bfs_u32 mine = 0, edges = 0;
        if (i < count) {
            const vertex_t v = fresh ? source
                             : i < small_count ? Q.small(level)[i] : Q.medium(level)[i - small_count];
            found[0].vertex = v;
#if SB_ROW_WIDTH == 0
            found[0].begin = S.offsets[v];
            found[0].degree = (bfs_u32)(S.offsets[v + 1] - found[0].begin);
#endif
            mine = 1;
        }
#if SB_ROW_WIDTH == 0
        edges = found_edges<1>(counter, found, mine);
#endif
        append<1>(S, q, counter, found, parent, mine, edges, NOT_LOGGED);
    }
}
// [persistent-single-entry-end]

// [persistent-hand-over-begin]
// The frontier of `level` outgrew the block: put it in the grid's queues by degree (the
// shared slots and the overflow), with step 4's enqueue and copy_out.
__device__ inline void hand_over(const SingleBlock& S, const GridQueues& Q, int q, bfs_u32 count,
                                 level_t level, LocalQueues* local)
{
    const Level L = grid_level(Q, S.offsets, S.edges, S.levels, S.parents, level - 1, local);
    for (bfs_u32 i = threadIdx.x; i < count; i += SB_BLOCK_SIZE) {
        const vertex_t u = i < SB_CAPACITY ? queue(S, q).vertex[i] : S.overflow[i - SB_CAPACITY];
        enqueue(L, u, S.offsets[u + 1] - S.offsets[u]);
    }
    copy_out(L);
}
// [persistent-hand-over-end]
