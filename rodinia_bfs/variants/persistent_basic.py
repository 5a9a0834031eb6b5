"""Step 5, the basic version: one launch, many levels (host side).

The kernel is in ``hip_kernels/persistent_basic.hip``: step 2's expansion (a thread per
frontier vertex, ``atomicCAS`` to claim, ``atomicAdd`` to enqueue) inside a loop over
the levels, with a grid-wide barrier between them. The host launches it once,
cooperatively (every block resident, so that blocks may wait for each other), and
waits once. Its one argument is a record passed by value (``PersistentBasicArgs`` in
``hip_kernels/persistent_basic.h``), described here once as :data:`ARGS`.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES, Device
from rodinia_bfs.variants.base import GPUStep, LevelTimer, check_fits

# [persistent-basic-args-py-begin]
#: The records of hip_kernels/persistent_basic.h, field by field: device pointers are
#: 8-byte addresses, and ``align=True`` lays each out as a C compiler does.
STATUS = np.dtype([("levels", "<u4"), ("error", "<u4")], align=True)
ARGS = np.dtype([
    ("offsets", "<u8"), ("edges", "<u8"), ("levels", "<u8"), ("parents", "<u8"),
    ("queues", "<u8"), ("counts", "<u8"), ("barrier", "<u8"), ("clocks", "<u8"),
    ("status", "<u8"), ("num_vertices", "<i4"), ("source", "<i4"), ("num_starts", "<i4"),
    ("max_levels", "<i4"),
], align=True)
# [persistent-basic-args-py-end]

#: Threads per block: as many as a block may have, so that the grid has few blocks (a
#: grid barrier costs more the more blocks take part).
BLOCK_SIZE = 1024


class PersistentBasicBFS(GPUStep):
    """The whole search in one cooperative launch, a grid barrier between levels."""

    name = "persistent_basic"
    kernel_file = "persistent_basic.hip"
    returns_parents = True
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return {"BLOCK_SIZE": BLOCK_SIZE}

    # [persistent-basic-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE,
                 max_blocks: int | None = None):
        super().__init__(device, graph)
        most = device.max_threads_per_block
        if not 1 <= block_size <= most:
            raise RodiniaBFSError(f"block_size must be 1..{most}, got {block_size}")
        if max_blocks is not None and max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")
        # offsets (8 B) + levels + parents + two queues (4 B each) per vertex, 4 B per edge.
        check_fits(device, graph, bytes_per_vertex=24, bytes_per_edge=4)
        self.block_size = block_size
        self.kernel = self._compile({"BLOCK_SIZE": block_size}).get_function("persistent_basic")
        # Every block must be resident at once: as many as the occupancy query allows.
        blocks = device.cooperative_grid(self.kernel, block_size)
        self.grid_blocks = min(blocks, max_blocks or blocks)

        n = graph.num_vertices
        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(graph.targets)
        self.levels = self._alloc(4 * n)
        self.parents = self._alloc(4 * n)
        self.queues = self._alloc(2 * 4 * n)  # this level's and the next
        # The barrier, the three counters and the status: zeroed by one memset.
        self.state = self._alloc(GRID_BARRIER_BYTES + 4 * 3 + STATUS.itemsize)
        self.barrier = self.state.view(0, GRID_BARRIER_BYTES)
        self.counts = self.state.view(GRID_BARRIER_BYTES, 4 * 3)
        self.status = self.state.view(GRID_BARRIER_BYTES + 4 * 3, STATUS.itemsize)
        self.clocks = None  # a device_clock() per level, allocated by the first profile run
        # The kernel's argument record, passed by value at each launch: no clocks,
        # source 0, until set before a search.
        self.h_args = np.zeros(1, ARGS)
        self.h_status = device.host_malloc(1, STATUS)  # pinned: the status comes back there
        buffers = dict(offsets=self.offsets, edges=self.edges, levels=self.levels,
                       parents=self.parents, queues=self.queues, counts=self.counts,
                       barrier=self.barrier, status=self.status)
        for field, buffer in buffers.items():
            self.h_args[field] = buffer.ptr  # a device address
        self.h_args["num_vertices"] = n
        self.launch = device.prepare_launch(self.kernel, self.grid_blocks, block_size,
                                            [self.h_args], cooperative=True)
    # [persistent-basic-setup-end]

    # [persistent-basic-reset-begin]
    def _reset(self, source: int) -> None:
        """Start state: every level and parent -1, the counters, status and barrier 0,
        and the record with this search's source (it goes with the launch). The kernel
        puts the source in."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)  # every int32 is -1
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.state, 0, stream=s)
        self.h_args["source"], self.h_args["num_starts"] = source, 1
        self.h_args["max_levels"] = self.max_levels
    # [persistent-basic-reset-end]

    # [persistent-basic-reset-many-begin]
    def _reset_many(self, starts) -> None:
        """Start state of a search from several vertices: the levels and parents built on
        the host and uploaded whole, every start vertex in queue 0, and the record with
        source -1 (the kernel puts nothing in), their number and the depth limit. One
        start vertex (a depth-limited search from a source) costs what a plain one does,
        unless no level is to run: then nothing is launched to put it in."""
        if starts.size == 1 and self.max_levels > 0:
            return self._reset(int(starts[0]))  # the kernel puts the source in
        dev, s = self.device, self.stream
        levels, parents, queue = self._start_state(starts)
        dev.memcpy_htod_async(self.levels.view(0, levels.nbytes), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, parents.nbytes), parents, s)
        dev.memcpy_htod_async(self.queues.view(0, queue.nbytes), queue, s)
        dev.memset(self.state, 0, stream=s)
        self.h_args["source"], self.h_args["num_starts"] = -1, queue.size
        self.h_args["max_levels"] = self.max_levels
    # [persistent-basic-reset-many-end]

    def search(self, source: int | None, profile: bool = False, *, sources=None,
               depth_limit: int | None = None) -> BFSResult:
        """The contract's search; with ``profile=True`` the kernel reads the device clock
        at the start of each level (the host sees no level end: it waits once)."""
        n = self.graph.num_vertices
        if profile and self.clocks is None:
            self.clocks = self._alloc(8 * (n + 1))  # a level may start at most n + 1 times
        self.h_args["clocks"] = self.clocks.ptr if profile else 0
        outcome = super().search(source, profile=profile, sources=sources,
                                 depth_limit=depth_limit)
        if profile:
            ticks = self.device.from_device(self.clocks, outcome.iterations + 1, np.uint64)
            seconds = np.diff(ticks.astype(np.float64)) / self.device.clock_rate_hz
            outcome.level_times_ms = (seconds * 1e3).tolist()
        return outcome

    # [persistent-basic-host-loop-begin]
    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        dev, stream = self.device, self.stream
        if self.max_levels == 0:
            # depth_limit=0: the start state is the answer. (The kernel would expand no
            # level, and a status of 0 levels is what a barrier that gave up leaves.)
            return BFSResult(iterations=0)
        self.launch(stream)  # hipModuleLaunchCooperativeKernel: the whole search
        dev.memcpy_dtoh_async(self.h_status, self.status, stream)
        stream.synchronize()  # the one wait
        levels, error = int(self.h_status["levels"][0]), int(self.h_status["error"][0])
        if levels == 0:  # the kernel returned without its status: a grid barrier gave up
            dev.check_grid_barrier(self.barrier, self.kernel.name)
            raise DeviceError(f"{self.name} BFS stopped without writing its status")
        if error:
            n = self.graph.num_vertices
            raise DeviceError(f"{self.name} BFS did not finish after {levels} levels: a level "
                              f"past the {n} a graph of {n} vertices can have, or a queue of "
                              f"more than {n} vertices")
        return BFSResult(iterations=levels)
    # [persistent-basic-host-loop-end]
