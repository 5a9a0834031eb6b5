"""Step 6, the idea: direction-optimizing BFS with the direction chosen on the host.

The kernels are in ``hip_kernels/push_pull_basic.hip``. Each level is one launch: a
top-down ("push") level over a queue, one thread per frontier vertex, or a bottom-up
("pull") level over a bitmap, one thread per vertex. Both count the next frontier's
vertices and edges; the host reads the counts back and chooses the next direction by
Beamer's rule (Beamer, Asanović, Patterson, SC 2012), converting the frontier between
queue and bitmap when the direction changes. The tuned step (``push_pull``) runs the
same idea in one cooperative launch.

The kernels' arguments are one record, :class:`PushPullBasicArgs`, declared in
``hip_kernels/push_pull_basic_args.h`` and described here once with ctypes; a test
compiles the header and checks that the two layouts agree.
"""

from __future__ import annotations

import ctypes

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import GPUStep, LevelTimer, check_fits

# [push-pull-basic-rule-begin]
#: Beamer's alpha and beta as the SC 2012 paper reports them (14 and 24; the GAP
#: benchmark suite's implementation defaults to 15 and 18).
ALPHA = 14
BETA = 24


def beamer_direction(current: str, n_f: int, m_f: int, m_u: int, n: int,
                     previous_n_f: int, alpha: int = ALPHA, beta: int = BETA) -> str:
    """The direction of the next level by Beamer's rule (the paper's state machine):
    push -> pull when the frontier's edges ``m_f`` outnumber ``m_u / alpha`` (``m_u``:
    edges out of the unvisited vertices) while the frontier grows; pull -> push when the
    frontier's vertices ``n_f`` fall below ``n / beta`` while it shrinks. In integers."""
    if current == "push" and m_f * alpha > m_u and n_f > previous_n_f:
        return "pull"
    if current == "pull" and n_f * beta < n and n_f < previous_n_f:
        return "push"
    return current
# [push-pull-basic-rule-end]


# [push-pull-basic-records-begin]
class LevelCounts(ctypes.Structure):
    """``struct LevelCounts`` of push_pull_basic_args.h: what the next frontier holds."""

    _fields_ = [("vertices", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("queued", ctypes.c_uint64)]


class PushPullBasicArgs(ctypes.Structure):
    """``struct PushPullBasicArgs`` of push_pull_basic_args.h: a device address is a
    ``c_uint64`` here, a pointer there."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("in_offsets", ctypes.c_uint64), ("in_edges", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("queues", ctypes.c_uint64 * 2), ("bitmaps", ctypes.c_uint64 * 2),
                ("counts", ctypes.c_uint64),
                ("num_vertices", ctypes.c_int32)]
# [push-pull-basic-records-end]


#: The most blocks one launch uses (as step 2; the tests use 1 or 2 to exercise the
#: kernels' strides).
MAX_BLOCKS = 1 << 20

#: Bits of a bitmap word (bfs_u32: BITMAP_WORD_BITS in bitmap.h).
BITMAP_WORD_BITS = 32

#: Which direction each level takes: Beamer's rule, or one of them always (tests).
DIRECTIONS = ("auto", "push", "pull")


class PushPullBasicBFS(GPUStep):
    """Push or pull per level, one launch each, the direction chosen on the host."""

    name = "push_pull_basic"
    kernel_file = "push_pull_basic.hip"
    returns_parents = True
    reports_frontier_sizes = True
    takes_sources = True

    # [push-pull-basic-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = 256, *,
                 alpha: int = ALPHA, beta: int = BETA, direction: str = "auto",
                 max_blocks: int = MAX_BLOCKS):
        super().__init__(device, graph)
        if not 1 <= block_size <= device.max_threads_per_block:
            raise RodiniaBFSError(
                f"block_size must be 1..{device.max_threads_per_block}, got {block_size}")
        if min(alpha, beta, max_blocks) < 1 or direction not in DIRECTIONS:
            raise RodiniaBFSError(
                f"need alpha, beta and max_blocks >= 1 and direction one of "
                f"{', '.join(DIRECTIONS)}; got {alpha}, {beta}, {max_blocks}, {direction!r}")
        self.block_size, self.max_blocks = block_size, max_blocks
        self.alpha, self.beta, self.direction = alpha, beta, direction
        # The pull scans in-lists: those of the reverse graph, or the out-lists
        # themselves when every arc has its partner (an undirected graph). A graph built
        # both ways knows it is; any other is checked against its reverse.
        reverse = None if graph.known_symmetric else graph.reverse()
        self.symmetric = reverse is None or graph.is_symmetric(reverse)
        directed = 0 if self.symmetric else 1
        # offsets (8 B), levels, parents, two queues (4 B each), two bitmaps (2 bits) per
        # vertex, 4 B per edge; the in-lists again when the graph is directed.
        check_fits(device, graph, bytes_per_vertex=25 + 8 * directed,
                   bytes_per_edge=4 + 4 * directed)
        module = self._compile(self.default_defines(device.warp_size, graph))
        self.push, self.pull, self.queue_to_bitmap, self.bitmap_to_queue = (
            module.get_function(f"push_pull_basic_{k}")
            for k in ("push", "pull", "queue_to_bitmap", "bitmap_to_queue"))

        n = graph.num_vertices
        self.degrees = graph.degrees()
        offsets, edges = self._upload(graph.offsets), self._upload(graph.targets)
        if self.symmetric:
            in_offsets, in_edges = offsets, edges
        else:
            in_offsets, in_edges = self._upload(reverse.offsets), self._upload(reverse.targets)
        self.levels, self.parents = self._alloc(4 * n), self._alloc(4 * n)
        self.queues = [self._alloc(4 * n), self._alloc(4 * n)]
        self.words = ceil_div(n, BITMAP_WORD_BITS)  # words of a bitmap
        self.bitmaps = [self._alloc(4 * self.words), self._alloc(4 * self.words)]
        self.counts = self._alloc(ctypes.sizeof(LevelCounts))
        args = PushPullBasicArgs(
            offsets=offsets.ptr, edges=edges.ptr, in_offsets=in_offsets.ptr,
            in_edges=in_edges.ptr, levels=self.levels.ptr, parents=self.parents.ptr,
            queues=(ctypes.c_uint64 * 2)(*(q.ptr for q in self.queues)),
            bitmaps=(ctypes.c_uint64 * 2)(*(b.ptr for b in self.bitmaps)),
            counts=self.counts.ptr, num_vertices=n)
        # Every launch passes the record by value.
        self.args = args
        # Pinned host memory: the counts come back here after every level.
        self.h_counts_bytes = device.host_malloc(ctypes.sizeof(LevelCounts), np.uint8)
        self.h_counts = LevelCounts.from_buffer(self.h_counts_bytes)
        self.h_source = device.host_malloc(1, np.int32)
    # [push-pull-basic-setup-end]

    def _reset(self, source: int) -> int:
        """Every level and parent -1; the source at level 0, its own parent, alone in
        the queue of level 0."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)
        self.h_source[0] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.h_source, s)
        dev.memcpy_htod_async(self.queues[0].view(0, 4), self.h_source, s)
        return source

    # [push-pull-basic-reset-many-begin]
    def _reset_many(self, starts):
        """Start state of a search from several vertices: the levels and parents built on
        the host and uploaded whole, and every start vertex in the queue of level 0.
        Returns the start vertices."""
        dev, s = self.device, self.stream
        levels, parents, queue = self._start_state(starts)
        dev.memcpy_htod_async(self.levels.view(0, levels.nbytes), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, parents.nbytes), parents, s)
        dev.memcpy_htod_async(self.queues[0].view(0, queue.nbytes), queue, s)
        return starts

    def _first_counts(self, start) -> tuple[int, int]:
        """n_f and m_f of level 0, from what the reset returned: the source, or the
        start vertices of a search from several."""
        starts = np.atleast_1d(start)
        return starts.size, int(self.degrees[starts].sum())
    # [push-pull-basic-reset-many-end]

    def _grid(self, items: int, block: int) -> int:
        return max(1, min(ceil_div(items, block), self.max_blocks))

    def choose(self, current: str, n_f: int, m_f: int, m_u: int, previous_n_f: int) -> str:
        """The next level's direction from the counts of its frontier."""
        if self.direction != "auto":
            return self.direction
        return beamer_direction(current, n_f, m_f, m_u, self.graph.num_vertices,
                                previous_n_f, self.alpha, self.beta)

    # [push-pull-basic-level-begin]
    def _run_level(self, direction: str, level: int, n_f: int, frontier_in: str,
                   block: int) -> None:
        """Queue one level, in blocks of ``block`` threads: the frontier conversion it
        needs, then its kernel."""
        dev, s, n = self.device, self.stream, self.graph.num_vertices
        args, lvl, size = self.args, np.int32(level), np.uint32(n_f)
        here, there = level % 2, (level + 1) % 2
        dev.memset(self.counts, 0, stream=s)  # the next frontier starts empty
        if direction == "pull":
            if frontier_in == "queue":  # a push level left it in a queue
                dev.memset(self.bitmaps[here], 0, stream=s)
                dev.launch(self.queue_to_bitmap, self._grid(n_f, block), block,
                           (args, lvl, size), stream=s)
            dev.memset(self.bitmaps[there], 0, stream=s)
            dev.launch(self.pull, self._grid(n, block), block, (args, lvl), stream=s)
        else:
            if frontier_in == "bitmap":  # a pull level left it in a bitmap
                dev.launch(self.bitmap_to_queue, self._grid(n, block), block,
                           (args, lvl), stream=s)
            dev.launch(self.push, self._grid(n_f, block), block, (args, lvl, size), stream=s)
    # [push-pull-basic-level-end]

    def _next_counts(self) -> tuple[int, int]:
        """Wait for the level and read back its counts: the next frontier's vertices
        and their out-edges (n_f and m_f)."""
        self.device.memcpy_dtoh_async(self.h_counts_bytes, self.counts, self.stream)
        self.stream.synchronize()
        return int(self.h_counts.vertices), int(self.h_counts.edges)

    # [push-pull-basic-host-loop-begin]
    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        n = self.graph.num_vertices
        level, direction, frontier_in = 0, "push", "queue"
        n_f, m_f = self._first_counts(start)  # the source (or sources), and their edges
        m_u = self.graph.num_edges - m_f  # edges out of the vertices not reached yet
        previous, sizes, directions, found = 0, [], [], n_f
        while n_f > 0 and level < self.max_levels:  # a depth_limit stops it early
            direction = self.choose(direction, n_f, m_f, m_u, previous)
            sizes.append(n_f)
            directions.append(direction)
            self._run_level(direction, level, n_f, frontier_in, self.block_size)
            frontier_in = "bitmap" if direction == "pull" else "queue"
            previous, (n_f, m_f) = n_f, self._next_counts()
            m_u -= m_f
            level += 1
            timer.end_level()
            # Each vertex is found once: more than n in all means a broken kernel.
            found += n_f
            self._runaway_guard(level, found, n, "vertices found")
        #: "push" or "pull" for each level of the last search.
        self.last_directions = directions
        return BFSResult(iterations=level, frontier_sizes=sizes)
    # [push-pull-basic-host-loop-end]
