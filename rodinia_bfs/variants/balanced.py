"""Step 4: load-balanced expansion (host side).

The kernel is in ``hip_kernels/balanced.hip``. The frontier is kept in three queues by
degree: small vertices (fewer edges than a warp has lanes) get a thread each, medium
ones a warp each, and large ones are cut into pieces of ``block_piece`` edges that get a
block each. The thread that discovers a vertex reads its degree and puts it in the
right queue, so one launch per level expands all three: its grid has a section per
queue. The three queue lengths come back through pinned memory and size the next
launch.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import BFSRun, GPUStep, check_fits, check_source

#: Most threads a block may have on every target.
MAX_BLOCK_SIZE = 1024

#: Default threads per block: a multiple of both warp widths (32 and 64).
BLOCK_SIZE = 256

#: A large vertex is cut into pieces of this many blocks' worth of edges.
PIECE_TRIPS = 8

#: Default cap on the blocks of each section of a launch: more than a GPU holds at
#: once, so normally every queue entry gets its own thread, warp or block; the tests
#: lower it to make the kernel's grid-stride loops do the rest.
MAX_BLOCKS = 65535

#: The three queue counters sit this many 4-byte slots (128 bytes) apart on the device.
COUNTER_STRIDE = 32

#: Queues, in the order of the kernel's counters.
QUEUES = ("small", "medium", "large")


def tunables(warp_size: int, block_size: int = BLOCK_SIZE, warp_threshold: int | None = None,
             block_threshold: int | None = None, block_piece: int | None = None) -> dict:
    """The ``-D`` macros of the kernel. By default a list goes to a warp once it has at
    least a warp's width of edges (one trip of the warp), to a block once it has a
    block's width, and a large list is cut into pieces of ``PIECE_TRIPS`` trips of a block."""
    return {
        "BLOCK_SIZE": block_size,
        "WARP_THRESHOLD": warp_size if warp_threshold is None else warp_threshold,
        "BLOCK_THRESHOLD": block_size if block_threshold is None else block_threshold,
        "BLOCK_PIECE": PIECE_TRIPS * block_size if block_piece is None else block_piece,
        "COUNTER_STRIDE": COUNTER_STRIDE,
    }


class BalancedBFS(GPUStep):
    """Frontier queues by degree: a thread, a warp or a block per vertex (PMPP 15.7)."""

    name = "balanced"
    kernel_file = "balanced.hip"
    returns_parents = True

    @classmethod
    def default_defines(cls, warp_size: int) -> dict:
        return tunables(warp_size)

    # [balanced-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE,
                 warp_threshold: int | None = None, block_threshold: int | None = None,
                 block_piece: int | None = None, max_blocks: int = MAX_BLOCKS,
                 count_paths: bool = False):
        super().__init__(device, graph)
        warp = device.warp_size
        if not warp <= block_size <= MAX_BLOCK_SIZE or block_size % warp:
            raise RodiniaBFSError(
                f"block_size must be a multiple of the warp size ({warp}) up to "
                f"{MAX_BLOCK_SIZE}, got {block_size}"
            )
        defines = tunables(warp, block_size, warp_threshold, block_threshold, block_piece)
        self.warp_threshold = defines["WARP_THRESHOLD"]
        self.block_threshold = defines["BLOCK_THRESHOLD"]
        self.block_piece = defines["BLOCK_PIECE"]
        if not 1 <= self.warp_threshold <= self.block_threshold or self.block_piece < 1:
            raise RodiniaBFSError(
                "need 1 <= warp_threshold <= block_threshold and block_piece >= 1, got "
                f"{self.warp_threshold}, {self.block_threshold} and {self.block_piece}"
            )
        if max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")
        # Each large vertex enters the large queue once per BFS, as pieces: at most this
        # many pieces in all, so the large queues need no more room.
        self.degrees = graph.degrees()
        pieces = self._pieces(self.degrees)
        self.large_capacity = max(int(pieces.sum()), 1)
        # offsets (8 B), levels and parents (4 B each), two small and two medium queues
        # (4 B each) per vertex; two large queues of 8 B per piece; 4 B per edge.
        check_fits(device, graph, bytes_per_vertex=32 + 16 * self.large_capacity
                   // max(graph.num_vertices, 1) + 16, bytes_per_edge=4)
        self.block_size = block_size
        self.warps_per_block = block_size // warp
        self.max_blocks = max_blocks
        self.count_paths = count_paths
        if count_paths:
            defines["BFS_COUNT_PATHS"] = 1
        module = self._compile(defines)
        self.kernel = module.get_function("balanced_expand")

        n = graph.num_vertices
        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(graph.targets)
        self.levels = self._alloc(4 * n)  # level_t per vertex, -1 until claimed
        self.parents = self._alloc(4 * n)  # vertex_t per vertex: who claimed it
        # Two of each queue, the current level's and the next, swapped every level.
        self.queues = [self._new_queues(n), self._new_queues(n)]
        # Two sets of the three counters: a launch counts into one and clears the other.
        self.counts = self._alloc(2 * 3 * COUNTER_STRIDE * 4)
        self.path_counts = self._alloc(6 * 8)  # bfs_u64: entries, then edges, per path
        # Pinned host memory: the counters come back every level; the source goes down
        # at the start of every BFS (as many times as it has pieces, if it is large).
        self.h_counts = device.host_malloc(3 * COUNTER_STRIDE, np.uint32)
        most_pieces = max(int(pieces.max()) if pieces.size else 1, 1)
        self.h_source = device.host_malloc(most_pieces, np.int32)
        self.h_piece = device.host_malloc(most_pieces, np.uint32)
        self.h_piece[:] = np.arange(most_pieces, dtype=np.uint32)
        self.stream = device.stream()
    # [balanced-setup-end]

    def _new_queues(self, n: int) -> dict:
        return {
            "small": self._alloc(4 * n),
            "medium": self._alloc(4 * n),
            "large": self._alloc(4 * self.large_capacity),  # vertex of each piece
            "large_piece": self._alloc(4 * self.large_capacity),  # which piece
        }

    def _pieces(self, degrees: np.ndarray) -> np.ndarray:
        """Pieces of each vertex in the large queue (0 for a small or medium vertex)."""
        degrees = np.asarray(degrees, dtype=np.int64)
        return np.where(degrees >= self.block_threshold, -(-degrees // self.block_piece), 0)

    def queue_of(self, degree: int) -> str:
        """The queue a vertex of ``degree`` edges goes to: the kernel's rule, on the host."""
        if degree < self.warp_threshold:
            return "small"
        return "medium" if degree < self.block_threshold else "large"

    def _reset(self, source: int) -> list[int]:
        """Start state: every level and parent -1, every counter 0, the source alone in
        its queue. Returns the three queue lengths of level 0."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)  # every int32 is -1
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.counts, 0, stream=s)
        dev.memset(self.path_counts, 0, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)  # level 0
        # The host knows the source's degree, so it puts the source in its queue itself.
        queue = self.queue_of(int(self.degrees[source]))
        pieces = int(self._pieces(self.degrees[source : source + 1])[0]) if queue == "large" else 1
        self.h_source[:pieces] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.h_source[:1], s)
        first = self.queues[0]
        dev.memcpy_htod_async(first[queue].view(0, 4 * pieces), self.h_source[:pieces], s)
        if queue == "large":
            dev.memcpy_htod_async(first["large_piece"].view(0, 4 * pieces), self.h_piece[:pieces], s)
        return [pieces if name == queue else 0 for name in QUEUES]

    def run(self, source: int, profile: bool = False) -> BFSRun:
        source = check_source(self.graph, source)
        small_count, medium_count, large_count = self._reset(source)
        dev, stream = self.device, self.stream
        n = self.graph.num_vertices
        current, following = self.queues
        count_sets = [self.counts.view(k * 3 * COUNTER_STRIDE * 4, 3 * COUNTER_STRIDE * 4)
                      for k in (0, 1)]
        h, stride, cap = self.h_counts, COUNTER_STRIDE, self.max_blocks
        enqueued = small_count + medium_count  # vertices that went into a queue so far
        pieces = large_count
        times = []
        marks = [dev.event()] if profile else []
        if profile:
            marks[0].record(stream)

        # [balanced-host-loop-begin]
        level = 0
        while small_count or medium_count or large_count:
            # One section of the grid per queue: a block per piece of a large vertex, a
            # warp per medium vertex, a thread per small vertex (each capped; the kernel's
            # loops stride over the rest).
            large_blocks = min(large_count, cap)
            medium_blocks = min(ceil_div(medium_count, self.warps_per_block), cap)
            small_blocks = min(ceil_div(small_count, self.block_size), cap)
            grid = large_blocks + medium_blocks + small_blocks
            counts, spare = count_sets[(level + 1) % 2], count_sets[level % 2]
            args = (self.offsets, self.edges, self.levels, self.parents,
                    current["small"], np.uint32(small_count),
                    current["medium"], np.uint32(medium_count),
                    current["large"], current["large_piece"], np.uint32(large_count),
                    np.uint32(large_blocks), np.uint32(medium_blocks),
                    following["small"], following["medium"],
                    following["large"], following["large_piece"],
                    counts, spare, np.int32(level + 1), self.path_counts)
            dev.launch(self.kernel, grid, self.block_size, args, stream=stream)
            dev.memcpy_dtoh_async(h, counts, stream)
            stream.synchronize()  # wait for the copy: h holds the next level's queue lengths
            if profile:
                marks.append(dev.event())
                marks[-1].record(stream)
            current, following = following, current
            small_count, medium_count, large_count = int(h[0]), int(h[stride]), int(h[2 * stride])
            level += 1
            # Each vertex enters a queue at most once per BFS. More than that means a
            # broken kernel: stop, rather than loop for ever or write past a queue's end.
            enqueued += small_count + medium_count
            pieces += large_count
            if enqueued > n or pieces > self.large_capacity:
                raise DeviceError(
                    f"balanced BFS did not finish: after {level} levels its queues held "
                    f"{enqueued} vertices and {pieces} pieces, more than the graph's {n} "
                    f"vertices and {self.large_capacity} pieces"
                )
        iterations = level
        # [balanced-host-loop-end]

        if profile:
            marks[-1].synchronize()
            times = [a.elapsed_ms(b) for a, b in zip(marks, marks[1:])]
        if self.count_paths:
            counted = dev.from_device(self.path_counts, 6, np.uint64)
            self.last_path_counts = {
                name: {"entries": int(counted[k]), "edges": int(counted[3 + k])}
                for k, name in enumerate(QUEUES)
            }
        levels = dev.from_device(self.levels, n, np.int32)
        parents = dev.from_device(self.parents, n, np.int32)
        return BFSRun(levels=levels, parents=parents, iterations=iterations,
                      level_times_ms=times)
