"""Step 9: a graph whose edges do not fit on the GPU.

The kernels are in ``hip_kernels/out_of_memory.hip``. The vertex arrays (offsets,
levels, parents, the frontier queues) are on the device; the edge array stays in host
memory, always. Each level is driven by the host, top-down (push), in one of three
modes (``host_edges=``):

* ``subgraph``: the device writes each frontier vertex's degree and scans them
  (graph_prep's exclusive scan) into the offsets of the level's subgraph; the host reads
  the frontier and those offsets back, gathers the frontier's out-lists from its CSR
  into a pinned staging buffer (NumPy's ``take``, which runs without the GIL), copies
  that small array over, and one thread per subgraph edge expands it. Only the edges
  the level needs cross the bus, in chunks of ``chunk_edges`` when there are many, the
  host gathering the next chunk while the device copies and expands this one.
* ``zero_copy``: the edge array is in pinned host memory mapped into the device's
  address space; a warp per frontier vertex reads its list in place (EMOGI, Min et
  al., VLDB 2020).
* ``managed``: the edge array is in unified memory, which the driver migrates page by
  page on demand; the same kernel as ``zero_copy``.

In ``zero_copy`` and ``managed``, a level may pull instead (step 6's bottom-up
direction, chosen on the host by Beamer's rule): a warp per vertex not reached yet reads
its in-list, hubs first, from host memory and stops at the first in-neighbour on the
frontier. And while the frontier is small (``single_block``), one block runs level
after level in one launch, as chapter 5's single block does, with no trip to the host
between them. The subgraph mode pulls in two rounds, since its host gathers before the
device looks: the first PULL_PROBE in-edges of every vertex not reached yet, then the
rest of the in-lists of those still not reached.

The rungs of the step, each an option that a ladder run turns off to measure it
(:data:`RUNGS`): ``aggregate`` (a warp's claims take one atomic, a block's counts one
more), ``edge_push`` (a mapped push level gives each thread one edge, as the subgraph
mode does, not each warp one vertex), ``aligned`` (a warp reads a list in whole lines)
and ``single_block``.

Every level leaves a :class:`LevelRecord` in ``last_records``: the mode, the direction,
the frontier, the edges read and the bytes moved each way.

:func:`choose_for_memory` decides, for a memory limit, whether a graph runs in memory,
here, or not at all.
"""

from __future__ import annotations

import ctypes
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graph_prep import EMULATOR_TILES, GraphPrep
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime._checks import format_bytes
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.base import GPUStep, LevelTimer
from rodinia_bfs.variants.push_pull_basic import ALPHA, PushPullBasicBFS, beamer_direction

#: The three ways of reaching the host's edges, the first the default.
MODES = ("zero_copy", "subgraph", "managed")

#: The most subgraph edges one copy carries (64 MiB of them).
DEFAULT_CHUNK_EDGES = 1 << 24

#: Host threads that gather a chunk (each a piece of it): NumPy's take runs without
#: the GIL, so they gather side by side.
DEFAULT_GATHER_THREADS = min(8, os.cpu_count() or 1)
#: Edges below which a chunk is gathered by one thread.
MIN_GATHER_PIECE = 1 << 16

#: The most blocks one launch uses.
MAX_BLOCKS = 1 << 20

#: Bytes of a sector, what the zero-copy kernel counts its reads in.
SECTOR_BYTES = 32

#: Which direction each level takes: Beamer's rule, or one of them always (tests).
DIRECTIONS = ("auto", "push", "pull")

#: The kernels' rungs (out_of_memory.hip's macros), each on unless turned off.
RUNGS = {"aggregate": "OOM_AGGREGATE", "edge_push": "OOM_EDGE_PUSH", "aligned": "OOM_ALIGNED"}

#: A subgraph pull level's first round: the in-edges of each vertex it gathers (a
#: sector's worth), hubs first, where most vertices find their parent.
PULL_PROBE = 8
#: Edges a thread of the single block reads at once (OOM_SB_BATCH).
SB_BATCH = 4
#: The single block goes on while the frontier has at most this many vertices (and
#: SB_BATCH times as many out-edges), or as many as its shared memory holds; 0 turns
#: it off.
SINGLE_BLOCK = 4096
#: The single block's threads on the emulator, which runs a block's threads in turn and
#: pays for each at every barrier: the same kernel as on a GPU, in a smaller block.
EMULATOR_SB_THREADS = 256
#: Levels one launch of the single block runs at most (the records it leaves).
SB_LEVELS = 1024
#: Shared memory of the single block per frontier vertex: an SbEntry (16 bytes) in each
#: of two buffers, and its start in the scan (4); and what its static arrays take, at most.
SB_BYTES_PER_VERTEX = 2 * 16 + 4
SB_STATIC_SHARED = 1024



# [oom-records-begin]
class OomCounts(ctypes.Structure):
    """``struct OomCounts`` of out_of_memory_args.h."""

    _fields_ = [("vertices", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("read", ctypes.c_uint64), ("sectors", ctypes.c_uint64),
                ("candidates", ctypes.c_uint64)]


class OutOfMemoryArgs(ctypes.Structure):
    """``struct OutOfMemoryArgs`` of out_of_memory_args.h: an address is a ``c_uint64``."""

    _fields_ = [("offsets", ctypes.c_uint64), ("host_edges", ctypes.c_uint64),
                ("in_offsets", ctypes.c_uint64), ("host_in_edges", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("queues", ctypes.c_uint64 * 2), ("sub_offsets", ctypes.c_uint64),
                ("counts", ctypes.c_uint64),
                ("num_vertices", ctypes.c_int32)]


class OomSingleArgs(ctypes.Structure):
    """``struct OomSingleArgs`` of out_of_memory_args.h: a launch of the single block."""

    _fields_ = [("records", ctypes.c_uint64), ("ran", ctypes.c_uint64),
                ("max_edges", ctypes.c_uint64), ("unexplored", ctypes.c_uint64),
                ("alpha", ctypes.c_uint32), ("capacity", ctypes.c_uint32),
                ("last", ctypes.c_int32), ("level", ctypes.c_int32),
                ("frontier_size", ctypes.c_uint32)]


#: The same record as a NumPy dtype: the single block leaves an array of them.
OOM_COUNTS = np.dtype([(name, np.uint64) for name, _ in OomCounts._fields_])
# [oom-records-end]


@dataclass
class LevelRecord:
    """What one level read and moved."""

    mode: str
    #: "push" or "pull".
    direction: str
    #: Vertices of the level's frontier.
    frontier: int
    #: The edges the level read from host memory: the frontier's out-lists (push), or
    #: the in-lists up to where each search stopped (pull).
    edges: int
    #: Bytes host -> device: the gathered edges (subgraph), or the 32-byte sectors the
    #: kernel's reads span (zero_copy, managed: at the least; a managed page migrates whole).
    bytes_htod: int
    #: Bytes device -> host: the frontier and its scanned offsets (subgraph).
    bytes_dtoh: int = 0
    #: Host milliseconds spent gathering edges (subgraph).
    gather_ms: float = 0.0
    #: The next frontier's vertices and their out-edges: what the level found.
    found: int = 0
    found_edges: int = 0


# [oom-memory-begin]
def vertex_array_bytes(num_vertices: int) -> int:
    """Device bytes of this step's vertex arrays: offsets, in-offsets and subgraph
    offsets (8 B each, n + 1), levels, parents and two queues (4 B each)."""
    return 8 * (num_vertices + 1) * 3 + 16 * num_vertices


def in_memory_bytes(graph: CSRGraph) -> int:
    """A lower bound of what a step that keeps the graph on the device needs: the CSR
    arrays, levels, parents and a queue."""
    return 8 * (graph.num_vertices + 1) + 4 * graph.num_edges + 12 * graph.num_vertices


def choose_for_memory(graph: CSRGraph, limit: int | None) -> tuple[str | None, str]:
    """What runs ``graph`` under ``limit`` bytes of device memory: ``(None, "")`` when
    it fits (any step), ``("out_of_memory", why)`` when its edges do not but its vertex
    arrays do; a RodiniaBFSError naming what it needs when not even those fit."""
    if limit is None or in_memory_bytes(graph) <= limit:
        return None, ""
    need = vertex_array_bytes(graph.num_vertices) + 4  # and room for one edge
    if need > limit:
        raise RodiniaBFSError(
            f"the graph's vertex arrays need {format_bytes(need)} of device memory, more "
            f"than the limit of {format_bytes(limit)}")
    return "out_of_memory", (
        f"the graph needs {format_bytes(in_memory_bytes(graph))} on the device, more than "
        f"the limit of {format_bytes(limit)}: out_of_memory runs it with its edges in host "
        "memory")
# [oom-memory-end]


# [oom-gather-begin]
def gather_edges(begins: np.ndarray, targets: np.ndarray, sub_offsets: np.ndarray,
                 first: int, count: int, out: np.ndarray) -> None:
    """Write the edges ``[first, first + count)`` of a level's subgraph into ``out``: the
    lists that begin at ``begins`` in ``targets`` (a frontier vertex's out-list, or part
    of an in-list), laid end to end, ``sub_offsets`` (n + 1, scanned on the device)
    saying where each begins in the subgraph. The ranges are built without a Python
    loop: each edge's index in ``targets`` is its index in the chunk plus the shift of
    its list (np.repeat), and one ``np.take`` gathers them."""
    if count == 0:
        return
    end = first + count
    lo = int(np.searchsorted(sub_offsets, first, side="right")) - 1  # list holding first
    hi = int(np.searchsorted(sub_offsets, end, side="left"))  # lists beginning before end
    begin = np.maximum(sub_offsets[lo:hi], first)  # each list's part in the chunk
    stop = np.minimum(sub_offsets[lo + 1:hi + 1], end)
    lengths = (stop - begin).astype(np.int64)
    starts = begins[lo:hi] + (begin - sub_offsets[lo:hi]).astype(np.int64)
    shift = starts - (begin - first).astype(np.int64)  # targets index - chunk index
    index = np.repeat(shift, lengths) + np.arange(count, dtype=np.int64)
    np.take(targets, index, out=out[:count])
# [oom-gather-end]


# [oom-gather-compiled-begin]
#: How the subgraph mode's host threads gather: machine code (numba), or NumPy.
GATHERS = ("compiled", "numpy")


def _gather_lists(begins, targets, sub_offsets, first, count, out):
    """gather_edges in plain loops, for numba to compile: each list's part in the chunk
    is one run of ``targets``, copied as it is, from the list that holds edge ``first``
    on. (Every index is made an int64 first: numba would turn uint64 - int64 into a
    float.)"""
    end = first + count
    lo, hi = 0, begins.shape[0]  # the list that holds `first`: sub_offsets[lo] <= first
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if np.int64(sub_offsets[mid]) <= first:
            lo = mid
        else:
            hi = mid
    k, at = lo, first
    while at < end:
        begin, stop = np.int64(sub_offsets[k]), min(np.int64(sub_offsets[k + 1]), end)
        source = np.int64(begins[k]) + (at - begin)
        for i in range(stop - at):
            out[at - first + i] = targets[source + i]
        at = max(at, stop)
        k += 1


_compiled_gather = None


def compiled_gather():
    """:func:`_gather_lists` as machine code: compiled by numba on first use (and kept in
    its cache on disk), without Python's global lock, so that the pool's threads gather
    side by side, and without the index arrays of :func:`gather_edges`."""
    global _compiled_gather
    if _compiled_gather is None:
        import numba

        _compiled_gather = numba.njit(nogil=True, cache=True)(_gather_lists)
    return _compiled_gather
# [oom-gather-compiled-end]


class OutOfMemoryBFS(GPUStep):
    """Top-down levels over edges that stay in host memory, three ways."""

    name = "out_of_memory"
    kernel_file = "out_of_memory.hip"
    returns_parents = True
    reports_frontier_sizes = True
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        """Every rung on (:data:`RUNGS`)."""
        return {macro: 1 for macro in RUNGS.values()}

    # [oom-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = 256, *,
                 host_edges: str = MODES[0], chunk_edges: int | None = None,
                 memory_limit: int | None = None, direction: str = "auto",
                 gather_threads: int = DEFAULT_GATHER_THREADS, max_blocks: int = MAX_BLOCKS,
                 single_block: int = SINGLE_BLOCK, aggregate: bool = True,
                 edge_push: bool = True, aligned: bool = True, gather: str = GATHERS[0]):
        super().__init__(device, graph)
        if host_edges not in MODES:
            raise RodiniaBFSError(
                f"host_edges must be one of {', '.join(MODES)}, got {host_edges!r}")
        warp = device.warp_size
        if not warp <= block_size <= device.max_threads_per_block or block_size % warp:
            raise RodiniaBFSError(
                f"block_size must be a multiple of the warp size {warp} up to "
                f"{device.max_threads_per_block}, got {block_size}")
        if direction not in DIRECTIONS:
            raise RodiniaBFSError(
                f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
        if min(max_blocks, gather_threads) < 1 or (chunk_edges is not None and chunk_edges < 1):
            raise RodiniaBFSError(f"need max_blocks, gather_threads and chunk_edges >= 1; got "
                                  f"{max_blocks}, {gather_threads}, {chunk_edges}")
        if gather not in GATHERS:
            raise RodiniaBFSError(f"gather must be one of {', '.join(GATHERS)}, got {gather!r}")
        if single_block < 0:
            raise RodiniaBFSError(f"single_block must be 0 (off) or more, got {single_block}")
        self.mode, self.block_size, self.max_blocks = host_edges, block_size, max_blocks
        self.direction = direction
        n, m = graph.num_vertices, graph.num_edges
        # The device holds the vertex arrays and, in subgraph mode, two chunks of edges.
        budget = device.total_memory if memory_limit is None else min(memory_limit,
                                                                      device.total_memory)
        room = (budget - vertex_array_bytes(n)) // 8  # edges a chunk of two could hold
        if room < 1:
            raise RodiniaBFSError(
                f"the graph's vertex arrays need {format_bytes(vertex_array_bytes(n))} of "
                f"device memory; {format_bytes(budget)} are allowed")
        self.chunk_edges = int(min(chunk_edges or DEFAULT_CHUNK_EDGES, room, max(m, 1)))
        rungs = dict(aggregate=aggregate, edge_push=edge_push, aligned=aligned)
        self.rungs = rungs
        module = self._compile({RUNGS[k]: int(on) for k, on in rungs.items()})
        (self.frontier_degrees, self.expand_edges, self.expand_mapped, self.pull_mapped,
         self.single, self.pull_candidates, self.pull_subgraph) = (
            module.get_function(f"oom_{k}") for k in (
                "frontier_degrees", "expand_edges", "expand_mapped", "pull_mapped", "single",
                "pull_candidates", "pull_subgraph"))
        # graph_prep.hip's exclusive scan, on this step's stream: the push levels scan
        # the frontier's degrees between two of this step's launches.
        self.prep = GraphPrep(device, stream=self.stream,
                              **(EMULATOR_TILES if device.backend == "cpu" else {}))
        # The single block: as many threads as a block may have (EMULATOR_SB_THREADS on
        # the emulator), in the mapped modes, and a frontier of at most what its shared
        # memory holds (SB_BYTES_PER_VERTEX a vertex, in two buffers and the scan).
        self.sb_threads = (device.max_threads_per_block if device.backend != "cpu"
                           else EMULATOR_SB_THREADS)
        room = (device.max_shared_memory_per_block - SB_STATIC_SHARED) // SB_BYTES_PER_VERTEX
        self.single_block = min(single_block, room) if self.mode != "subgraph" else 0
        self.sb_shared = SB_BYTES_PER_VERTEX * self.single_block + 4

        self.degrees = graph.degrees()
        offsets = self._upload(graph.offsets)
        self.levels, self.parents = self._alloc(4 * n), self._alloc(4 * n)
        self.queues = [self._alloc(4 * n), self._alloc(4 * n)]
        self.sub_offsets = self._alloc(8 * (n + 1))
        self.tile_sums = self._alloc(8 * ceil_div(n + 1, self.prep.scan_tile))
        self.counts = self._alloc(ctypes.sizeof(OomCounts))
        self.host_edges = self.host_in_edges = None  # mapped or managed copies
        self.pool, self.gather_threads = None, gather_threads
        self.gather = compiled_gather() if gather == "compiled" else gather_edges
        in_offsets = offsets
        # The in-lists of the pull levels, hubs first: those of the reverse graph, or the
        # out-lists themselves when every arc has its partner. A graph built both ways
        # knows it is symmetric; any other is checked.
        reverse = None if graph.known_symmetric else graph.reverse()
        symmetric = reverse is None or graph.is_symmetric(reverse)
        self.in_lists = (graph if symmetric else reverse).hubs_first(self.degrees)
        if not symmetric:
            in_offsets = self._upload(self.in_lists.offsets)
        if self.mode == "subgraph":
            # The edges stay in the graph's own array; a chunk goes over at a time, two
            # buffers each side: the host fills one while the other is copied and expanded.
            self.sub_edges = [self._alloc(4 * self.chunk_edges) for _ in range(2)]
            self.staging = [device.host_malloc(self.chunk_edges, np.int32) for _ in range(2)]
            self.chunk_done = [device.event(), device.event()]
            self.h_frontier = device.host_malloc(n, np.int32)
            self.h_sub_offsets = device.host_malloc(n + 1, np.uint64)
            self.pool = ThreadPoolExecutor(gather_threads) if gather_threads > 1 else None
        else:
            managed = self.mode == "managed"
            self.host_edges = device.host_mapped(graph.targets, managed=managed)
            self.host_in_edges = device.host_mapped(self.in_lists.targets, managed=managed)
        args = OutOfMemoryArgs(
            offsets=offsets.ptr,
            host_edges=self.host_edges.device_ptr if self.host_edges else 0,
            in_offsets=in_offsets.ptr,
            host_in_edges=self.host_in_edges.device_ptr if self.host_in_edges else 0,
            levels=self.levels.ptr, parents=self.parents.ptr,
            queues=(ctypes.c_uint64 * 2)(*(q.ptr for q in self.queues)),
            sub_offsets=self.sub_offsets.ptr, counts=self.counts.ptr, num_vertices=n)
        self.args = args  # every launch passes it by value
        self.h_counts_bytes = device.host_malloc(ctypes.sizeof(OomCounts), np.uint8)
        self.h_counts = OomCounts.from_buffer(self.h_counts_bytes)
        self.h_source = device.host_malloc(1, np.int32)
        # What the single block leaves: how many levels it ran (a bfs_u32, in an
        # OomCounts' room), then an OomCounts per level; copied back in one piece.
        self.sb_out = self._alloc(OOM_COUNTS.itemsize * (SB_LEVELS + 1))
        self.h_sb_out = device.host_malloc(OOM_COUNTS.itemsize * (SB_LEVELS + 1), np.uint8)
        self.sb_args = OomSingleArgs(records=self.sb_out.ptr + OOM_COUNTS.itemsize,
                                     ran=self.sb_out.ptr)
        # The host's records of the last search: a LevelRecord per level the host drove,
        # and for each launch of the single block its first frontier and its counts.
        self._records: list = []
    # [oom-setup-end]

    # The launch width is step 6's basic version's, on the same attribute (max_blocks).
    _grid = PushPullBasicBFS._grid

    def _reset(self, source: int) -> tuple[int, int]:
        """Every level and parent -1; the source at level 0, its own parent, alone in
        the queue of level 0. Returns the first frontier's vertices and out-edges."""
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.levels.view(4 * source, 4), 0, stream=s)
        self.h_source[0] = source
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.h_source, s)
        dev.memcpy_htod_async(self.queues[0].view(0, 4), self.h_source, s)
        return 1, int(self.degrees[source])

    # [oom-reset-many-begin]
    def _reset_many(self, starts: np.ndarray) -> tuple[int, int]:
        """Start state of a search from several vertices: the levels and parents built on
        the host and uploaded whole, every start vertex in the queue of level 0. The
        edges are not touched, so every mode starts the same way."""
        dev, s = self.device, self.stream
        levels, parents, queue = self._start_state(starts)
        dev.memcpy_htod_async(self.levels.view(0, levels.nbytes), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, parents.nbytes), parents, s)
        dev.memcpy_htod_async(self.queues[0].view(0, queue.nbytes), queue, s)
        return int(queue.size), int(self.degrees[starts].sum())
    # [oom-reset-many-end]

    def _gather(self, begins, targets, sub_offsets, first: int, count: int, staging) -> None:
        """Gather the subgraph's edges [first, first + count) into ``staging`` (its
        lists begin at ``begins`` in ``targets``), in pieces on the pool's threads when
        the chunk is large enough to share."""
        args = (begins, targets, sub_offsets)
        pieces = min(self.gather_threads, count // MIN_GATHER_PIECE)
        if self.pool is None or pieces < 2:
            self.gather(*args, first, count, staging)
            return
        bounds = [first + count * k // pieces for k in range(pieces + 1)]
        jobs = [self.pool.submit(self.gather, *args, a, b - a, staging[a - first:])
                for a, b in zip(bounds, bounds[1:])]
        for job in jobs:
            job.result()  # re-raises what a thread raised

    # [oom-scan-begin]
    def _scan_degrees(self, level: int, n_f: int) -> None:
        """A push level's first two moves: the degree of each frontier vertex, and their
        exclusive scan, which says where each one's list begins in the level's subgraph
        (``sub_offsets``, n_f + 1 entries, the last the level's edges)."""
        b = self.block_size
        self.device.launch(self.frontier_degrees, self._grid(n_f, b), b,
                           (self.args, np.int32(level), np.uint32(n_f)), stream=self.stream)
        self.prep.exclusive_scan(self.sub_offsets, n_f, None, self.tile_sums)
    # [oom-scan-end]

    # [oom-subgraph-level-begin]
    def _subgraph_chunks(self, kernel, level: int, size: int, begins, targets,
                         sub_offsets) -> tuple[int, float]:
        """The subgraph's edges (lists that begin at ``begins`` in the host's
        ``targets``, placed by ``sub_offsets``) gathered, copied and expanded by
        ``kernel``, a chunk at a time, in two buffers: while the device copies and
        expands chunk k, the host gathers chunk k + 1. Returns the edges and the
        seconds the host spent gathering."""
        dev, s, b = self.device, self.stream, self.block_size
        total, gather_s = int(sub_offsets[-1]), 0.0
        for chunk, first in enumerate(range(0, total, self.chunk_edges)):
            count, i = min(self.chunk_edges, total - first), chunk % 2
            if chunk >= 2:  # chunk - 2 used these buffers: wait until it is done
                self.chunk_done[i].synchronize()
            started = time.perf_counter()
            self._gather(begins, targets, sub_offsets, first, count, self.staging[i])
            gather_s += time.perf_counter() - started
            dev.memcpy_htod_async(self.sub_edges[i].view(0, 4 * count),
                                  self.staging[i][:count], s)
            dev.launch(kernel, self._grid(count, b), b,
                       (self.args, self.sub_edges[i], np.int32(level), np.uint32(size),
                        np.uint64(first), np.uint64(count)), stream=s)
            self.chunk_done[i].record(s)
        return total, gather_s

    def _subgraph_level(self, level: int, n_f: int) -> LevelRecord:
        """One level of the subgraph method: degrees and their scan on the device, the
        gather on the host, the copy, the expansion (_subgraph_chunks)."""
        dev, s = self.device, self.stream
        self._scan_degrees(level, n_f)
        # The host learns which vertices, and where their lists go: 12 bytes each.
        frontier = self.h_frontier[:n_f]
        sub_offsets = self.h_sub_offsets[:n_f + 1]
        dev.memcpy_dtoh_async(frontier, self.queues[level % 2].view(0, 4 * n_f), s)
        dev.memcpy_dtoh_async(sub_offsets, self.sub_offsets.view(0, 8 * (n_f + 1)), s)
        s.synchronize()
        total, gather_s = self._subgraph_chunks(self.expand_edges, level, n_f,
                                                self.graph.offsets[frontier],
                                                self.graph.targets, sub_offsets)
        return LevelRecord(self.mode, "push", n_f, total, 4 * total, 12 * n_f + 8,
                           1000.0 * gather_s)
    # [oom-subgraph-level-end]

    # [oom-subgraph-pull-begin]
    def _subgraph_pull_level(self, level: int, n_f: int) -> LevelRecord:
        """A pull level of the subgraph method, in two rounds. First the device lists the
        vertices not reached yet, each with the first PULL_PROBE edges of its in-list
        (hubs first: most find a parent there), and the host gathers those; then, for
        the vertices still not reached, the rest of their in-lists."""
        dev, s = self.device, self.stream
        edges = moved_back = 0
        gather_s = 0.0
        candidates_field = self.counts.view(OomCounts.candidates.offset, 8)
        for skip, limit in ((0, PULL_PROBE), (PULL_PROBE, 2**62)):
            dev.memset(candidates_field, 0, stream=s)
            dev.launch(self.pull_candidates, self._grid(self.graph.num_vertices, self.block_size),
                       self.block_size, (self.args, np.int32(level), np.uint64(skip),
                                         np.uint64(limit)), stream=s)
            dev.memcpy_dtoh_async(self.h_counts_bytes, self.counts, s)
            s.synchronize()
            n_c = int(self.h_counts.candidates)
            if n_c == 0:
                break
            self.prep.exclusive_scan(self.sub_offsets, n_c, None, self.tile_sums)
            candidates = self.h_frontier[:n_c]
            sub_offsets = self.h_sub_offsets[:n_c + 1]
            dev.memcpy_dtoh_async(candidates, self.queues[level % 2].view(0, 4 * n_c), s)
            dev.memcpy_dtoh_async(sub_offsets, self.sub_offsets.view(0, 8 * (n_c + 1)), s)
            s.synchronize()
            begins = self.in_lists.offsets[candidates] + skip
            total, seconds = self._subgraph_chunks(self.pull_subgraph, level, n_c, begins,
                                                   self.in_lists.targets, sub_offsets)
            edges, gather_s, moved_back = edges + total, gather_s + seconds, \
                moved_back + 12 * n_c + 8
        return LevelRecord(self.mode, "pull", n_f, edges, 4 * edges, moved_back,
                           1000.0 * gather_s)
    # [oom-subgraph-pull-end]

    # [oom-mapped-level-begin]
    def _mapped_level(self, level: int, n_f: int, m_f: int, direction: str) -> None:
        """One level of the mapped modes, queued on the stream: a pull over every
        vertex; or a push, by the edge (degrees, scan, then a thread per edge of the
        frontier's lists, m_f of them, read in place: the kernel's chunk argument is not
        read, any buffer does) or by the vertex (a warp each)."""
        dev, s, b, lvl = self.device, self.stream, self.block_size, np.int32(level)
        if direction == "pull":
            dev.launch(self.pull_mapped, self._grid(self.graph.num_vertices, b), b,
                       (self.args, lvl), stream=s)
        elif self.rungs["edge_push"]:
            self._scan_degrees(level, n_f)
            if m_f:
                dev.launch(self.expand_edges, self._grid(m_f, b), b,
                           (self.args, self.sb_out, lvl, np.uint32(n_f), np.uint64(0),
                            np.uint64(m_f)), stream=s)
        else:
            dev.launch(self.expand_mapped, self._grid(n_f * dev.warp_size, b), b,
                       (self.args, lvl, np.uint32(n_f)), stream=s)
    # [oom-mapped-level-end]

    # [oom-single-levels-begin]
    def _single_levels(self, level: int, n_f: int, m_u: int, last: int) -> np.ndarray:
        """Levels from ``level`` on in one launch of the single block, until the frontier
        is too wide for it, Beamer's rule would pull (``m_u``: its edges out of the
        vertices not reached yet), the frontier is empty, or ``last`` is reached; the
        counts of each level (:data:`OOM_COUNTS` records: what it found and read)."""
        dev, s, limit = self.device, self.stream, self.single_block
        launch = self.sb_args  # the same record each time: its fields change
        launch.max_edges, launch.unexplored = SB_BATCH * limit, m_u
        launch.alpha = ALPHA if self.direction == "auto" else 0
        launch.capacity, launch.last, launch.level, launch.frontier_size = limit, last, level, n_f
        dev.launch(self.single, 1, self.sb_threads, (self.args, launch),
                   shared_mem=self.sb_shared, stream=s)
        dev.memcpy_dtoh_async(self.h_sb_out, self.sb_out, s)
        s.synchronize()
        ran = int(self.h_sb_out[:4].view(np.uint32)[0])
        if not 1 <= ran <= last - level:  # it runs one level at least, and no more than asked
            raise DeviceError(f"the single block reports {ran} levels run from level {level} "
                              f"(at most {last - level})")
        return self.h_sb_out.view(OOM_COUNTS)[1:ran + 1].copy()
    # [oom-single-levels-end]

    # [oom-host-loop-begin]
    def _host_loop(self, start: tuple[int, int], timer: LevelTimer) -> BFSResult:
        dev, s, n = self.device, self.stream, self.graph.num_vertices
        n_f, m_f = start  # the source (or every start vertex) and its out-edges
        level, found = 0, n_f
        m_u = self.graph.num_edges - m_f  # edges out of the vertices not reached yet
        direction, previous, sizes, self._records = "push", 0, [], []
        # With a profile, one level per launch of the single block: a time per level.
        per_launch = 1 if timer.marks else SB_LEVELS
        while n_f > 0 and level < self.max_levels:  # a depth_limit stops it early
            if self.direction == "auto":
                direction = beamer_direction(direction, n_f, m_f, m_u, n, previous)
            else:
                direction = self.direction
            if (direction == "push" and n_f <= self.single_block
                    and m_f <= SB_BATCH * self.single_block):
                counts = self._single_levels(level, n_f, m_u,
                                             min(self.max_levels, level + per_launch))
                # The levels it ran, in arrays: no Python work per level.
                frontiers = [n_f, *counts["vertices"][:-1].tolist()]
                self._records.append((n_f, counts))
                previous, n_f, m_f = frontiers[-1], int(counts["vertices"][-1]), \
                    int(counts["edges"][-1])
                m_u -= int(counts["edges"].sum())
                found += int(counts["vertices"].sum())
            else:
                dev.memset(self.counts, 0, stream=s)  # the next frontier starts empty
                if self.mode == "subgraph" and direction == "pull":
                    record = self._subgraph_pull_level(level, n_f)
                elif self.mode == "subgraph":
                    record = self._subgraph_level(level, n_f)
                else:
                    self._mapped_level(level, n_f, m_f, direction)
                dev.memcpy_dtoh_async(self.h_counts_bytes, self.counts, s)
                s.synchronize()
                c = self.h_counts
                if self.mode != "subgraph":
                    record = LevelRecord(self.mode, direction, n_f, int(c.read),
                                         SECTOR_BYTES * int(c.sectors))
                record.found, record.found_edges = int(c.vertices), int(c.edges)
                self._records.append(record)
                frontiers = [n_f]
                previous, n_f, m_f = n_f, record.found, record.found_edges
                m_u -= m_f
                found += n_f  # each vertex is found once
            sizes += frontiers
            level += len(frontiers)
            for _ in frontiers:  # (one level per launch when profiling)
                timer.end_level()
            self._runaway_guard(level, found, n, "vertices found")
        if level == 0:  # depth_limit=0: no level waited for the reset's uploads
            s.synchronize()
        return BFSResult(iterations=level, frontier_sizes=sizes)

    @property
    def last_records(self) -> list[LevelRecord]:
        """A :class:`LevelRecord` per level of the last search."""
        out = []
        for entry in self._records:
            if isinstance(entry, LevelRecord):
                out.append(entry)
                continue
            n_f, counts = entry  # a launch of the single block: it pushes
            for c in counts:
                out.append(LevelRecord(self.mode, "push", n_f, int(c["read"]),
                                       SECTOR_BYTES * int(c["sectors"]), found=int(c["vertices"]),
                                       found_edges=int(c["edges"])))
                n_f = int(c["vertices"])
        return out
    # [oom-host-loop-end]

    def evict_edges(self) -> None:
        """``managed``: send the edge arrays' pages back to host memory, where a graph
        larger than the device keeps them, so that the next search migrates what it
        reads again (the bench does this, untimed, before each timed search). The other
        modes' edges never leave the host: nothing to do."""
        if self.mode == "managed":
            for mapped in (self.host_edges, self.host_in_edges):
                self.device.prefetch_to_host(mapped, self.stream)
            self.stream.synchronize()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None
        for mapped in (self.host_edges, self.host_in_edges):
            if mapped is not None:
                mapped.close()
        self.host_edges = self.host_in_edges = None
        super().close()
