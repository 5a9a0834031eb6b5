"""Step 3: the privatized frontier queue (host side).

The kernel is in ``hip_kernels/privatized.hip``. Each level launches one thread per
frontier vertex (up to ``max_blocks`` blocks, the rest by a grid-stride loop); each
block collects what it discovers in a queue in shared memory and reserves room in the
global next frontier with one ``atomicAdd``. The next frontier's size comes back
through pinned memory and sizes the next launch.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import BFSRun, GPUStep, check_fits, check_source

# [privatized-tunables-begin]
#: Static shared memory a block may use on every target: CUDA's limit without opting in
#: (AMD GPUs allow 64 KiB). The local queue takes 4 bytes per entry.
MAX_STATIC_SHARED = 48 * 1024

#: Most threads a block may have on every target.
MAX_BLOCK_SIZE = 1024

#: Default threads per block.
BLOCK_SIZE = 256

#: Default entries of the block-local queue: six per thread. 256 frontier vertices of a
#: Rodinia-style graph (average degree 6) have about that many edges, so a block
#: overflows only where the degrees are above average. 4 * 1536 + 8 = 6,152 bytes per
#: block: eight blocks of 256 threads (2,048 threads, the most an AMD CDNA compute unit
#: or an H100 SM runs at once) take 49,216 bytes, within a CDNA compute unit's 64 KiB of
#: LDS, so shared memory does not lower occupancy.
LOCAL_CAPACITY = 1536

#: Default cap on the blocks of one launch: far more than a GPU holds at once, so every
#: frontier normally gets a thread per vertex; the tests lower it to make the kernel's
#: grid-stride loop do the rest.
MAX_BLOCKS = 65535
# [privatized-tunables-end]


class PrivatizedBFS(GPUStep):
    """A frontier queue with a block-local queue in shared memory (PMPP 15.6)."""

    name = "privatized"
    kernel_file = "privatized.hip"
    returns_parents = True

    @classmethod
    def default_defines(cls, warp_size: int) -> dict:
        return {"BLOCK_SIZE": BLOCK_SIZE, "LOCAL_CAPACITY": LOCAL_CAPACITY}

    # [privatized-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE,
                 local_capacity: int = LOCAL_CAPACITY, max_blocks: int = MAX_BLOCKS,
                 count_atomics: bool = False):
        super().__init__(device, graph)
        if not 1 <= block_size <= MAX_BLOCK_SIZE:
            raise RodiniaBFSError(f"block_size must be 1..{MAX_BLOCK_SIZE}, got {block_size}")
        most = (MAX_STATIC_SHARED - 8) // 4  # two 4-byte counters share the space
        if not 1 <= local_capacity <= most:
            raise RodiniaBFSError(
                f"local_capacity must be 1..{most} (4 bytes each in "
                f"{MAX_STATIC_SHARED // 1024} KiB of shared memory), got {local_capacity}"
            )
        if max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")
        # offsets (8 B) + levels, parents and two frontiers (4 B each) per vertex, 4 B per edge.
        check_fits(device, graph, bytes_per_vertex=24, bytes_per_edge=4)
        self.block_size = block_size
        self.local_capacity = local_capacity
        self.max_blocks = max_blocks
        self.count_atomics = count_atomics
        defines = {"BLOCK_SIZE": block_size, "LOCAL_CAPACITY": local_capacity}
        if count_atomics:
            defines["BFS_COUNT_ATOMICS"] = 1  # count the global atomics (example 03)
        module = self._compile(defines)
        self.kernel = module.get_function("privatized_expand")

        n = graph.num_vertices
        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(graph.targets)
        self.levels = self._alloc(4 * n)  # level_t per vertex, -1 until claimed
        self.parents = self._alloc(4 * n)  # vertex_t per vertex: who claimed it
        # Two queues of vertex ids, swapped every level. Each vertex is claimed once,
        # so a level's queue never holds more than n entries.
        self.frontier = self._alloc(4 * n)
        self.next_frontier = self._alloc(4 * n)
        # The global queue's counter (bfs_u32), and after it the two bfs_u32 in which a
        # kernel built with count_atomics counts overflows and block reservations.
        self.counters = self._alloc(12)
        self.next_size = self.counters.view(0, 4)
        # Pinned host memory: the counter comes back every level, and the source id goes
        # down at the start of every BFS.
        self.h_size = device.host_malloc(1, np.uint32)
        self.h_source = device.host_malloc(1, np.int32)
        self.stream = device.stream()
    # [privatized-setup-end]

    def _reset(self, source: int) -> None:
        """Start state: every level and parent -1; the source alone in the frontier."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)  # every int32 is -1
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)  # level 0
        # The source is its own parent and the first frontier: a vertex id is not one
        # repeated byte, so it goes down as a copy, queued behind the memsets.
        self.h_source[0] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.h_source, s)
        dev.memcpy_htod_async(self.frontier.view(0, 4), self.h_source, s)
        if self.count_atomics:
            dev.memset(self.counters.view(4, 8), 0, stream=s)

    def search(self, source: int, profile: bool = False) -> BFSRun:
        source = check_source(self.graph, source)
        self._reset(source)
        dev, stream = self.device, self.stream
        n = self.graph.num_vertices
        frontier, next_frontier = self.frontier, self.next_frontier
        times, sizes = [], []
        marks = [dev.event()] if profile else []
        if profile:
            marks[0].record(stream)

        # [privatized-host-loop-begin]
        frontier_size, level = 1, 0  # the source alone, at level 0
        enqueued = 1
        while frontier_size > 0:
            sizes.append(frontier_size)
            dev.memset(self.next_size, 0, stream=stream)  # empty next frontier
            grid = min(ceil_div(frontier_size, self.block_size), self.max_blocks)
            args = (self.offsets, self.edges, self.levels, self.parents,
                    frontier, np.uint32(frontier_size),
                    next_frontier, self.next_size, np.int32(level + 1))
            dev.launch(self.kernel, grid, self.block_size, args, stream=stream)
            dev.memcpy_dtoh_async(self.h_size, self.next_size, stream)
            stream.synchronize()  # wait for the copy: h_size holds the next frontier's size
            if profile:
                marks.append(dev.event())
                marks[-1].record(stream)
            frontier, next_frontier = next_frontier, frontier
            frontier_size = int(self.h_size[0])  # sizes the next launch
            level += 1
            # Each vertex enters a queue at most once per BFS. More than n in all means a
            # broken kernel: stop, rather than loop for ever or launch past the queue's end.
            enqueued += frontier_size
            if enqueued > n:
                raise DeviceError(
                    f"privatized BFS did not finish: after {level} levels its queues "
                    f"held {enqueued} vertices, more than the graph's {n}"
                )
        iterations = level
        # [privatized-host-loop-end]

        if profile:
            marks[-1].synchronize()
            times = [a.elapsed_ms(b) for a, b in zip(marks, marks[1:])]
        if self.count_atomics:
            overflowed, reserved = dev.from_device(self.counters.view(4, 8), 2, np.uint32)
            #: The global atomics of the last search on the queue's counter.
            self.last_atomic_counts = {"overflowed": int(overflowed), "reserved": int(reserved)}
        return BFSRun(iterations=iterations, level_times_ms=times, frontier_sizes=sizes)

    def results(self):
        """The levels and parents of the last search."""
        n = self.graph.num_vertices
        return (self.device.from_device(self.levels, n, np.int32),
                self.device.from_device(self.parents, n, np.int32))
