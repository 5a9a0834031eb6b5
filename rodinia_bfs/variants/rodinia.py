"""Step 1: the Rodinia two-kernel BFS (host side).

The kernels are in ``hip_kernels/rodinia.hip``. The host resets ``g_over``, launches
Kernel1 and Kernel2 over every vertex, copies ``g_over`` back into pinned host memory
and goes round again while it is set.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import GPUStep, LevelTimer, check_fits


class RodiniaBFS(GPUStep):
    """Kernel1/Kernel2 over boolean masks, as in Rodinia's ``bfs.cu``."""

    name = "rodinia"
    kernel_file = "rodinia.hip"
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return {"BLOCK_SIZE": 512}

    # [rodinia-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = 512):
        super().__init__(device, graph)
        # offsets (8 B) + cost (4 B) + three masks (1 B each) per vertex, 4 B per edge.
        check_fits(device, graph, bytes_per_vertex=15, bytes_per_edge=4)
        self.block_size = block_size
        module = self._compile({"BLOCK_SIZE": block_size})
        self.kernel1 = module.get_function("Kernel1")
        self.kernel2 = module.get_function("Kernel2")

        n = graph.num_vertices
        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(graph.targets)
        self.graph_mask = self._alloc(n)  # bool per vertex: the frontier
        self.updating_graph_mask = self._alloc(n)  # discovered in this level
        self.graph_visited = self._alloc(n)
        self.cost = self._alloc(4 * n)  # level_t per vertex
        self.g_over = self._alloc(1)
        # Pinned (page-locked) host memory: the GPU copies into it directly, so the
        # per-level copy of g_over is one small DMA with no staging through pageable memory.
        self.h_over = device.host_malloc(1, np.bool_)
        self._start_mask = None  # pinned, for _reset_many
        self.grid = ceil_div(n, block_size)
    # [rodinia-setup-end]
        self.levels = self.cost  # what results() downloads: Rodinia's h_cost

    def _reset(self, source: int) -> None:
        """Start state: nothing visited, every cost -1, only ``source`` in the frontier."""
        dev, s = self.device, self.stream
        dev.memset(self.graph_mask, 0, stream=s)
        dev.memset(self.updating_graph_mask, 0, stream=s)
        dev.memset(self.graph_visited, 0, stream=s)
        dev.memset(self.cost, 0xFF, stream=s)  # all bytes 0xFF: every int32 is -1
        # Three small writes for the source, on the same stream so they land after the memsets.
        dev.memset(self.graph_mask.view(source, 1), 1, stream=s)
        dev.memset(self.graph_visited.view(source, 1), 1, stream=s)
        dev.memset(self.cost.view(4 * source, 4), 0, stream=s)

    def _reset_many(self, starts) -> None:
        """Start state of a search from several vertices: each of them in the frontier,
        visited, at cost 0. Built on the host and uploaded whole (the cost array, and one
        byte mask for both the frontier and the visited vertices)."""
        dev, s = self.device, self.stream
        cost, _, _ = self._start_state(starts)
        if self._start_mask is None:
            self._start_mask = dev.host_malloc(max(self.graph.num_vertices, 1), np.uint8)
        mask = self._start_mask[: self.graph.num_vertices]
        mask[:] = cost == 0
        dev.memset(self.updating_graph_mask, 0, stream=s)
        dev.memcpy_htod_async(self.cost.view(0, cost.nbytes), cost, s)
        dev.memcpy_htod_async(self.graph_mask.view(0, mask.nbytes), mask, s)
        dev.memcpy_htod_async(self.graph_visited.view(0, mask.nbytes), mask, s)

    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        dev, stream = self.device, self.stream
        n = np.int32(self.graph.num_vertices)
        k1_args = (self.offsets, self.edges, self.graph_mask, self.updating_graph_mask,
                   self.graph_visited, self.cost, n)
        k2_args = (self.graph_mask, self.updating_graph_mask, self.graph_visited,
                   self.g_over, n)

        # [rodinia-host-loop-begin]
        iterations = 0
        while iterations < self.max_levels:  # a depth_limit stops it early
            dev.memset(self.g_over, 0, stream=stream)  # g_over = false
            dev.launch(self.kernel1, self.grid, self.block_size, k1_args, stream=stream)
            dev.launch(self.kernel2, self.grid, self.block_size, k2_args, stream=stream)
            dev.memcpy_dtoh_async(self.h_over, self.g_over, stream)
            stream.synchronize()  # wait for the copy: h_over now holds this level's flag
            iterations += 1
            timer.end_level()  # with profile=True: an event after each level
            if not self.h_over[0]:
                break
            # Each round that sets g_over reaches at least one new vertex, so more
            # rounds than vertices means the kernels are broken, not the graph.
            self._runaway_guard(iterations, iterations, self.graph.num_vertices,
                                "rounds with g_over set")
        # [rodinia-host-loop-end]
        return BFSResult(iterations=iterations)
