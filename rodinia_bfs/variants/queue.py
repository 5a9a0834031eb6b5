"""Step 2: the frontier queue (host side).

The kernel is in ``hip_kernels/queue.hip``. The frontier is a queue of vertex ids; each
level launches one thread per queued vertex (PMPP 15.5; Luo et al. 2010). The kernel
counts the vertices it appends to the next queue, the count comes back through pinned
host memory, and it sizes the next launch (the feedback of FlexBFS, Liu et al. 2014).
The search ends when the next queue is empty.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import GPUStep, LevelTimer, check_fits

#: The most blocks one launch uses. Far more than a GPU holds at once, so in practice
#: every frontier gets a thread per vertex; a smaller cap (the tests use 1 or 2) makes
#: the kernel's grid-stride loop do the rest.
MAX_BLOCKS = 1 << 20


class QueueBFS(GPUStep):
    """One thread per frontier vertex; atomicCAS claims, atomicAdd enqueues."""

    name = "queue"
    kernel_file = "queue.hip"
    returns_parents = True
    reports_frontier_sizes = True
    takes_sources = True
    #: The kernel the host loop launches once per level.
    kernel_name = "queue_expand"
    #: bfs_u32 counters the kernel gets; the first is the next frontier's size.
    counter_words = 1

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return {"BLOCK_SIZE": 256}

    # [queue-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = 256,
                 max_blocks: int = MAX_BLOCKS):
        super().__init__(device, graph)
        most = device.max_threads_per_block
        if not 1 <= block_size <= most:
            raise RodiniaBFSError(f"block_size must be 1..{most}, got {block_size}")
        if max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")
        # offsets (8 B) + levels + parents + two queues (4 B each) per vertex, 4 B per edge.
        check_fits(device, graph, bytes_per_vertex=24, bytes_per_edge=4)
        self.block_size = block_size
        self.max_blocks = max_blocks
        # The tunables and the kernel's name come from the class: chapter 3's step
        # derives from this one and changes both.
        self.expand = self._compile(self.defines()).get_function(self.kernel_name)

        n = graph.num_vertices
        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(graph.targets)
        self.levels = self._alloc(4 * n)  # level_t per vertex, -1 until claimed
        self.parents = self._alloc(4 * n)  # vertex_t per vertex: who claimed it
        # Each vertex is claimed once, so it enters a queue at most once: n slots
        # suffice for any level. Two queues: one is read while the other is filled.
        self.frontier = self._alloc(4 * n)
        self.next_frontier = self._alloc(4 * n)
        # bfs_u32: the atomicAdd counter (a step may want more counters after it).
        self.counters = self._alloc(4 * self.counter_words)
        self.next_size = self.counters.view(0, 4)
        # Pinned host memory: the counter comes back into h_size every level, and
        # h_source holds the source id that the reset copies to the device.
        self.h_size = device.host_malloc(1, np.uint32)
        self.h_source = device.host_malloc(1, np.int32)

    def defines(self) -> dict:
        """The kernel's ``-D`` tunables."""
        return {"BLOCK_SIZE": self.block_size}
    # [queue-setup-end]

    def _reset(self, source: int) -> int:
        """Start state: every level and parent -1, then the source at level 0, its own
        parent, alone in the frontier queue. Returns the queue's length, 1."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)  # every int32 is -1
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)
        # A memset writes one byte value everywhere; the source id needs a real copy.
        self.h_source[0] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.h_source, s)
        dev.memcpy_htod_async(self.frontier.view(0, 4), self.h_source, s)
        return 1

    def _reset_many(self, starts) -> int:
        """Start state of a search from several vertices: the levels and parents built on
        the host and uploaded whole, and every start vertex in the frontier queue."""
        dev, s = self.device, self.stream
        levels, parents, queue = self._start_state(starts)
        dev.memcpy_htod_async(self.levels.view(0, levels.nbytes), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, parents.nbytes), parents, s)
        dev.memcpy_htod_async(self.frontier.view(0, queue.nbytes), queue, s)
        return queue.size

    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        dev, stream = self.device, self.stream
        n = self.graph.num_vertices
        frontier, next_frontier = self.frontier, self.next_frontier

        # [queue-host-loop-begin]
        size, level = start, 0  # the source alone (or every start vertex), at level 0
        sizes, enqueued = [], size
        while size > 0 and level < self.max_levels:  # a depth_limit stops it early
            sizes.append(size)
            dev.memset(self.next_size, 0, stream=stream)  # the next queue starts empty
            grid = min(ceil_div(size, self.block_size), self.max_blocks)
            dev.launch(self.expand, grid, self.block_size,
                       (self.offsets, self.edges, self.levels, self.parents,
                        frontier, np.uint32(size), next_frontier, self.next_size,
                        np.int32(level + 1)), stream=stream)
            dev.memcpy_dtoh_async(self.h_size, self.next_size, stream)
            stream.synchronize()  # wait for the copy: h_size now holds the count
            size = int(self.h_size[0])  # ... and sizes the next launch
            frontier, next_frontier = next_frontier, frontier
            level += 1
            timer.end_level()  # with profile=True: an event after each level
            # Each vertex is enqueued at most once per BFS, so more than n in all means
            # the kernel enqueued some vertex twice: stop rather than loop or overrun.
            enqueued += size
            self._runaway_guard(level, enqueued, n, "vertices enqueued")
        # [queue-host-loop-end]
        return BFSResult(iterations=level, frontier_sizes=sizes)
