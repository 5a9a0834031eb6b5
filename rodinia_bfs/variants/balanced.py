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

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import GPUStep, LevelTimer, check_fits

#: Default threads per block: a multiple of both warp widths (32 and 64).
BLOCK_SIZE = 256

#: A large vertex is cut into pieces of this many blocks' worth of edges.
PIECE_TRIPS = 8

#: Entries of the block-local queues, per thread of the block: small vertices are
#: discovered most often. With 256 threads the two take 7 KiB of shared memory.
LOCAL_SMALL_PER_THREAD = 6
LOCAL_MEDIUM_PER_THREAD = 1

#: Default cap on the blocks of each section of a launch: more than a GPU holds at
#: once, so normally every queue entry gets its own thread, warp or block; the tests
#: lower it to make the kernel's grid-stride loops do the rest.
MAX_BLOCKS = 65535

#: The three queue counters sit this many 4-byte slots (128 bytes) apart on the device.
COUNTER_STRIDE = 32

#: Queues, in the order of the kernel's counters.
QUEUES = ("small", "medium", "large")


def tunables(warp_size: int, block_size: int = BLOCK_SIZE, warp_threshold: int | None = None,
             block_threshold: int | None = None, block_piece: int | None = None,
             local_small: int | None = None, local_medium: int | None = None) -> dict:
    """The ``-D`` macros of the kernel; ``None`` takes the default.

    A list goes to a warp once it has a warp's width of edges (one trip of the whole
    warp), to a block once it has a block's width, and a large list is cut into pieces
    of ``PIECE_TRIPS`` trips of a block. The thresholds follow the device's warp size:
    64 on AMD Instinct, 32 on RDNA and NVIDIA.
    """
    def default(value, fallback):
        return fallback if value is None else value

    return {
        "BLOCK_SIZE": block_size,
        "WARP_THRESHOLD": default(warp_threshold, warp_size),
        "BLOCK_THRESHOLD": default(block_threshold, block_size),
        "BLOCK_PIECE": default(block_piece, PIECE_TRIPS * block_size),
        "LOCAL_SMALL": default(local_small, LOCAL_SMALL_PER_THREAD * block_size),
        "LOCAL_MEDIUM": default(local_medium, LOCAL_MEDIUM_PER_THREAD * block_size),
        "COUNTER_STRIDE": COUNTER_STRIDE,
    }


def pieces_of(degrees, block_threshold: int, block_piece: int) -> np.ndarray:
    """How many pieces each vertex of ``degrees`` takes in the large queue (0 if it goes
    to the small or medium queue)."""
    degrees = np.asarray(degrees, dtype=np.int64)
    pieces = np.zeros(degrees.shape, np.int64)
    large = np.flatnonzero(degrees >= block_threshold)  # few: divide only those
    pieces[large] = -(-degrees[large] // block_piece)
    return pieces


class BalancedBFS(GPUStep):
    """Frontier queues by degree: a thread, a warp or a block per vertex (PMPP 15.7)."""

    name = "balanced"
    kernel_file = "balanced.hip"
    returns_parents = True
    takes_sources = True
    #: The kernel the constructor looks up, and the sets of queue counters and path
    #: counters it allocates (step 6 extends this step and needs more of both).
    kernel_name = "balanced_expand"
    counter_sets = 2
    path_count_slots = 2 * len(QUEUES)
    #: Large-queue slots beyond the large vertices' pieces (step 6 puts its source there).
    spare_pieces = 0

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return tunables(warp_size)

    # [balanced-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE,
                 warp_threshold: int | None = None, block_threshold: int | None = None,
                 block_piece: int | None = None, local_small: int | None = None,
                 local_medium: int | None = None, max_blocks: int = MAX_BLOCKS,
                 count_paths: bool = False):
        super().__init__(device, graph)
        defines = tunables(device.warp_size, block_size, warp_threshold, block_threshold,
                           block_piece, local_small, local_medium)
        self._check_tunables(device, defines, max_blocks)
        self.block_size = block_size
        self.warps_per_block = block_size // device.warp_size
        self.warp_threshold = defines["WARP_THRESHOLD"]
        self.block_threshold = defines["BLOCK_THRESHOLD"]
        self.block_piece = defines["BLOCK_PIECE"]
        self.max_blocks = max_blocks
        self.count_paths = count_paths
        # Each large vertex enters the large queue once per BFS, cut into pieces: the
        # graph's degrees say how many pieces there can be in all.
        self.degrees = graph.degrees()
        pieces = self.pieces(self.degrees)
        self.large_capacity = max(int(pieces.sum()) + self.spare_pieces, 1)
        # offsets (8 B), levels, parents and two small and two medium queues (4 B each)
        # per vertex; 4 B per edge; two large queues of 8-byte pieces.
        check_fits(device, graph, bytes_per_vertex=32 + ceil_div(16 * self.large_capacity,
                                                                 max(graph.num_vertices, 1)),
                   bytes_per_edge=4)
        if count_paths:
            defines["BFS_COUNT_PATHS"] = 1
        module = self._compile(defines)
        self.kernel = module.get_function(self.kernel_name)

        n = graph.num_vertices
        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(self._out_targets(graph))
        self.levels = self._alloc(4 * n)  # level_t per vertex, -1 until claimed
        self.parents = self._alloc(4 * n)  # vertex_t per vertex: who claimed it
        # Two of each queue, this level's and the next, swapped every level. A large
        # queue entry is a Piece: a vertex and which piece of its list (8 bytes).
        self.queues = [
            {"small": self._alloc(4 * n), "medium": self._alloc(4 * n),
             "large": self._alloc(8 * self.large_capacity)}
            for _ in range(2)
        ]
        # Two sets of the three queue counters: a launch counts into one, clears the other.
        self.counts = self._alloc(self.counter_sets * len(QUEUES) * COUNTER_STRIDE * 4)
        self.path_counts = self._alloc(self.path_count_slots * 8)  # bfs_u64 each
        # Pinned host memory: the counters come back every level; the source goes down
        # at the start of every BFS (as all its pieces, if it is a large vertex).
        self.h_counts = device.host_malloc(len(QUEUES) * COUNTER_STRIDE, np.uint32)
        self.h_source = device.host_malloc(2 * max(int(pieces.max(initial=1)), 1), np.int32)
    # [balanced-setup-end]
        self._staged_queues = None  # pinned, for _reset_many

    def _out_targets(self, graph: CSRGraph) -> np.ndarray:
        """The out-lists the kernel reads (step 6 orders them hubs first)."""
        return graph.targets

    @staticmethod
    def _check_tunables(device: Device, d: dict, max_blocks: int) -> None:
        """Refuse, before compiling, tunables the kernel or the device cannot take."""
        warp_size, block = device.warp_size, d["BLOCK_SIZE"]
        most_threads = device.max_threads_per_block
        if not warp_size <= block <= most_threads or block % warp_size:
            raise RodiniaBFSError(f"block_size must be a multiple of the warp size ({warp_size}) "
                                  f"up to {most_threads}, got {block}")
        if not 1 <= d["WARP_THRESHOLD"] <= d["BLOCK_THRESHOLD"] or d["BLOCK_PIECE"] < 1:
            raise RodiniaBFSError(
                "need 1 <= warp_threshold <= block_threshold and block_piece >= 1, got "
                f"{d['WARP_THRESHOLD']}, {d['BLOCK_THRESHOLD']} and {d['BLOCK_PIECE']}")
        # The local queues are static shared memory, within what a block gets without
        # opting in to more (48 KiB on NVIDIA GPUs, 64 KiB on AMD ones).
        most_shared = device.shared_memory_per_block
        shared = 4 * (d["LOCAL_SMALL"] + d["LOCAL_MEDIUM"]) + 16
        if min(d["LOCAL_SMALL"], d["LOCAL_MEDIUM"]) < 1 or shared > most_shared:
            raise RodiniaBFSError(
                "local_small and local_medium need at least 1 entry each and "
                f"{most_shared // 1024} KiB of shared memory at most (4 bytes each), "
                f"got {d['LOCAL_SMALL']} and {d['LOCAL_MEDIUM']}")
        if max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")

    def pieces(self, degrees) -> np.ndarray:
        """How many pieces each vertex of ``degrees`` takes in the large queue (0 if it
        goes to the small or medium queue)."""
        return pieces_of(degrees, self.block_threshold, self.block_piece)

    def queue_of(self, degree: int) -> str:
        """The queue a vertex of ``degree`` edges goes to: the kernel's rule, on the host."""
        if degree < self.warp_threshold:
            return "small"
        return "medium" if degree < self.block_threshold else "large"

    def _reset(self, source: int) -> list[int]:
        """Start state: every level and parent -1, every counter 0, the source alone in
        its queue. Returns the lengths of the three queues of level 0."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)  # every int32 is -1
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.counts, 0, stream=s)
        dev.memset(self.path_counts, 0, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)  # level 0
        # The host knows the source's degree, so it puts the source in its queue itself:
        # a vertex id (4 bytes), or one Piece (vertex, index) per piece of its list.
        queue = self.queue_of(int(self.degrees[source]))
        staged = self.h_source
        staged[0] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), staged[:1], s)
        if queue == "large":
            pieces = int(self.pieces(self.degrees[source : source + 1])[0])
            staged[0 : 2 * pieces : 2] = source
            staged[1 : 2 * pieces : 2] = np.arange(pieces)
            dev.memcpy_htod_async(self.queues[0]["large"].view(0, 8 * pieces),
                                  staged[: 2 * pieces], s)
            return [0, 0, pieces]
        dev.memcpy_htod_async(self.queues[0][queue].view(0, 4), staged[:1], s)
        return [1, 0, 0] if queue == "small" else [0, 1, 0]

    def _reset_many(self, starts) -> list[int]:
        """Start state of a search from several vertices: levels and parents built on the
        host and uploaded whole, each start vertex in the queue its degree says (a large
        one as all its pieces). Returns the lengths of the three queues of level 0."""
        dev, s = self.device, self.stream
        levels, parents, _ = self._start_state(starts)
        dev.memset(self.counts, 0, stream=s)
        dev.memset(self.path_counts, 0, stream=s)
        dev.memcpy_htod_async(self.levels.view(0, levels.nbytes), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, parents.nbytes), parents, s)
        degrees = self.degrees[starts]
        small = starts[degrees < self.warp_threshold]
        medium = starts[(degrees >= self.warp_threshold) & (degrees < self.block_threshold)]
        large = starts[degrees >= self.block_threshold]
        pieces = self.pieces(self.degrees[large])
        # One pinned staging area: the small ids, the medium ids, then (vertex, piece) pairs.
        need = small.size + medium.size + 2 * int(pieces.sum())
        if self._staged_queues is None or self._staged_queues.size < need:
            self._staged_queues = dev.host_malloc(max(need, 1), np.int32)
        staged = self._staged_queues
        staged[: small.size] = small
        staged[small.size : small.size + medium.size] = medium
        at = small.size + medium.size
        piece_pairs = staged[at : at + 2 * int(pieces.sum())]
        piece_pairs[0::2] = np.repeat(large, pieces)
        first_piece = np.repeat(np.cumsum(pieces) - pieces, pieces)  # each vertex's first pair
        piece_pairs[1::2] = np.arange(int(pieces.sum())) - first_piece
        for name, part in (("small", staged[: small.size]),
                           ("medium", staged[small.size : at]), ("large", piece_pairs)):
            if part.size:
                dev.memcpy_htod_async(self.queues[0][name].view(0, part.nbytes), part, s)
        return [int(small.size), int(medium.size), int(pieces.sum())]

    def _host_loop(self, start: list[int], timer: LevelTimer) -> BFSResult:
        small_count, medium_count, large_count = start
        dev, stream = self.device, self.stream
        n = self.graph.num_vertices
        current, following = self.queues
        h, stride, cap = self.h_counts, COUNTER_STRIDE, self.max_blocks
        set_bytes = len(QUEUES) * COUNTER_STRIDE * 4
        count_sets = [self.counts.view(0, set_bytes), self.counts.view(set_bytes, set_bytes)]
        enqueued, pieces = small_count + medium_count, large_count

        # [balanced-host-loop-begin]
        level = 0
        while (small_count or medium_count or large_count) and level < self.max_levels:
            # A section of the grid per queue: a block per piece of a large vertex, a
            # warp per medium vertex, a thread per small vertex (each section capped at
            # max_blocks; the kernel's loops stride over the rest).
            large_blocks = min(large_count, cap)
            medium_blocks = min(ceil_div(medium_count, self.warps_per_block), cap)
            small_blocks = min(ceil_div(small_count, self.block_size), cap)
            args = (self.offsets, self.edges, self.levels, self.parents,
                    current["small"], np.uint32(small_count),
                    current["medium"], np.uint32(medium_count),
                    current["large"], np.uint32(large_count),
                    np.uint32(large_blocks), np.uint32(medium_blocks),
                    following["small"], following["medium"], following["large"],
                    self.counts, np.int32(level + 1), self.path_counts)
            dev.launch(self.kernel, large_blocks + medium_blocks + small_blocks,
                       self.block_size, args, stream=stream)
            # The kernel counted the next level's queues into counter set (level + 1) % 2.
            dev.memcpy_dtoh_async(h, count_sets[(level + 1) % 2], stream)
            stream.synchronize()  # wait for the copy: h holds the next queues' lengths
            timer.end_level()  # with profile=True: an event after each level
            current, following = following, current
            small_count, medium_count, large_count = int(h[0]), int(h[stride]), int(h[2 * stride])
            level += 1
            # Each vertex enters a queue once per BFS. More than that means a broken
            # kernel: stop, rather than loop for ever or write past a queue's end.
            enqueued += small_count + medium_count
            pieces += large_count
            self._runaway_guard(level, enqueued, n, "vertices enqueued")
            self._runaway_guard(level, pieces, self.large_capacity, "pieces enqueued")
        # [balanced-host-loop-end]

        if self.count_paths:
            counted = dev.from_device(self.path_counts, 2 * len(QUEUES), np.uint64)
            #: What each path expanded in the last run: queue entries and their edges.
            self.last_path_counts = {
                name: {"entries": int(counted[k]), "edges": int(counted[len(QUEUES) + k])}
                for k, name in enumerate(QUEUES)
            }
        return BFSResult(iterations=level)
