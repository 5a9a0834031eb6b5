"""Step 4's sidebar: the edge-centric BFS (host side; PMPP 15.4).

The kernel is in ``hip_kernels/edge_centric.hip``. Each level launches a thread per
arc of the graph (grid-stride, so a capped grid covers them all); an arc whose source
is at the current level and whose target is unreached claims the target. There is no
frontier queue and no degree to balance: every thread does the same work, but every
level reads every arc. A flag, read back through pinned host memory as step 1's
``g_over``, says whether the level reached anything; the host goes round while it did.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import GPUStep, LevelTimer, check_fits

#: The most blocks one launch uses: more than a GPU holds at once, so in practice
#: every arc gets its own thread; the tests lower it to make the grid-stride loop work.
MAX_BLOCKS = 1 << 20


def arc_sources(graph: CSRGraph) -> np.ndarray:
    """The source of every arc, in CSR order: vertex ``u`` repeated ``degree(u)`` times.
    With the CSR targets it is the graph in coordinate (COO) form."""
    return np.repeat(np.arange(graph.num_vertices, dtype=np.int32), graph.degrees())


class EdgeCentricBFS(GPUStep):
    """One thread per arc, every level (PMPP's edge-centric BFS)."""

    name = "edge_centric"
    kernel_file = "edge_centric.hip"
    returns_parents = True
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return {"BLOCK_SIZE": 256}

    # [edge-centric-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = 256,
                 max_blocks: int = MAX_BLOCKS):
        super().__init__(device, graph)
        most = device.max_threads_per_block
        if not 1 <= block_size <= most:
            raise RodiniaBFSError(f"block_size must be 1..{most}, got {block_size}")
        if max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")
        # levels + parents (4 B each) per vertex; a source and a target (4 B each) per
        # arc. No offsets: the kernel never asks for a vertex's list.
        check_fits(device, graph, bytes_per_vertex=8, bytes_per_edge=8)
        self.block_size = block_size
        self.expand = self._compile({"BLOCK_SIZE": block_size}).get_function(
            "edge_centric_expand")

        n, m = graph.num_vertices, graph.num_edges
        self.arc_sources = self._upload(arc_sources(graph))  # built on the host
        self.edges = self._upload(graph.targets)
        self.num_arcs = np.int64(m)
        self.levels = self._alloc(4 * n)
        self.parents = self._alloc(4 * n)
        self.changed = self._alloc(4)  # bfs_u32: did this level reach anything?
        self.h_changed = device.host_malloc(1, np.uint32)  # pinned, as step 1's h_over
        self.h_source = device.host_malloc(1, np.int32)
        # Every level covers every arc: the grid is the same for all of them.
        self.grid = max(1, min(ceil_div(m, block_size), max_blocks))
    # [edge-centric-setup-end]

    def _reset(self, source: int) -> None:
        """Start state: every level and parent -1, the source at level 0, its own parent."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)  # every int32 is -1
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)
        self.h_source[0] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.h_source, s)

    def _reset_many(self, starts) -> None:
        """Start state of a search from several vertices: the levels and parents built on
        the host and uploaded whole. The kernel needs nothing more: every start vertex
        is at level 0, so the first launch expands them all."""
        dev, s = self.device, self.stream
        levels, parents, _ = self._start_state(starts)
        dev.memcpy_htod_async(self.levels.view(0, levels.nbytes), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, parents.nbytes), parents, s)

    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        dev, stream = self.device, self.stream

        # [edge-centric-host-loop-begin]
        level = 0
        while level < self.max_levels:  # a depth_limit stops it early
            dev.memset(self.changed, 0, stream=stream)
            dev.launch(self.expand, self.grid, self.block_size,
                       (self.arc_sources, self.edges, self.num_arcs, self.levels,
                        self.parents, np.int32(level), self.changed), stream=stream)
            dev.memcpy_dtoh_async(self.h_changed, self.changed, stream)
            stream.synchronize()  # wait for the copy: h_changed holds this level's flag
            level += 1
            timer.end_level()  # with profile=True: an event after each level
            if not self.h_changed[0]:
                break
            # Each level that sets the flag reaches at least one new vertex, so more
            # levels than vertices means the kernel is broken, not the graph.
            self._runaway_guard(level, level, self.graph.num_vertices, "levels with the flag set")
        # [edge-centric-host-loop-end]
        return BFSResult(iterations=level)
