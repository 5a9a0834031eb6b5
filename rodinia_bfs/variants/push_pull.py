"""Step 6: direction-optimizing BFS (host side).

The kernel is in ``hip_kernels/push_pull.hip``. It runs the whole search in one
cooperative launch: top-down levels with step 4's degree-split queues, bottom-up levels
over the vertices that have in-edges with the frontier as a bitmap, and Beamer's rule
(Beamer, Asanović, Patterson, SC12) choosing between them before each level, on the
device. The step sets up once per graph (the in-edges, the list of vertices a bottom-up
sweep visits, built on the device by ``rodinia_bfs/graph_prep.py``), then per BFS
resets, launches, and waits once.

This step extends step 4's host code (:class:`~rodinia_bfs.variants.balanced.BalancedBFS`):
the same tunables, queues and reset, one kernel for every level instead of one launch
per level.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graph_prep import Buffers, DeviceGraph, check_prep_fits, device_bottom_up_inputs
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import (BARRIER_GAVE_UP, GRID_BARRIER_BYTES, Device,
                                      DeviceBuffer, ceil_div)
from rodinia_bfs.variants.balanced import MAX_BLOCKS, QUEUES, BalancedBFS
from rodinia_bfs.variants.balanced import tunables as balanced_tunables
from rodinia_bfs.variants.base import (NO_DEPTH_LIMIT, LevelTimer, bitmap_of, check_fits,
                                      field_views)

# [push-pull-tunables-begin]
#: Beamer's alpha: go bottom-up when the frontier's edges m_f exceed m_u / ALPHA, m_u
#: being the edges out of the unvisited vertices. 15 is the default of the GAP benchmark
#: suite's implementation (gapbs); Beamer, Asanović and Patterson's paper reports 14.
ALPHA = 15

#: Beamer's beta: go top-down again when the frontier's vertices n_f fall below n / BETA
#: (and the frontier shrinks). 18 is gapbs's default; the paper reports 24.
BETA = 18

#: In a bottom-up sweep each thread checks this many in-edges of its vertex alone
#: before its warp helps with what is left of a long list.
BU_PROBE = 4

#: What is left of an in-edge list is scanned by the whole warp from this many in-edges
#: up (default: a warp's width, as step 4's warp threshold).
BU_WARP_THRESHOLD = None

#: Edges a thread of a top-down level loads before it claims any: VISIT_BATCH in
#: top_down.h (1: step 4's visit, one edge at a time, and the count). 2 was faster while
#: every warp of the grid paid for the level's bookkeeping; since that went (chapter 6),
#: 1 is 2-3 % faster on the roads, the grid and Delaunay meshes and no slower elsewhere.
VISIT_BATCH = 1

#: Whether a short queue is shared out in a top-down level: when a queue has fewer
#: vertices than the grid has warps (threads), 2, 4, ... warps (threads) take each of
#: them, up to one trip each (SHARE_SHORT_QUEUES in push_pull_grid.h, log_share in
#: top_down.h).
SHARE_SHORT_QUEUES = True

#: Whether a top-down visit reads its target's level before the atomicCAS that claims
#: it (most targets are reached already, and a read is cheaper than an atomic), or
#: claims at once (one load fewer on the way to a new vertex): CHECK_BEFORE_CLAIM in
#: top_down.h. Claiming at once was faster on the H100 where top-down levels are many
#: and narrow (road-NY 1.25x, Delaunay 2^22 1.13x) and the same on Kronecker-20
#: (chapter 6).
CHECK_BEFORE_CLAIM = False
#: How a top-down visit claims its target: by an atomicCAS on its level (False: step 2's
#: claim), or by an atomicOr on its bit in a visited bitmap 32 times smaller, which the L2
#: cache keeps where the levels do not fit it (True): CLAIM_BITS in top_down.h. None
#: chooses per graph and device (claims_by_bit).
CLAIM_BITS = None
#: Bytes a vertex has in the arrays a top-down claim reads and writes at random: its
#: level and parent (4 B each) and its list's offset (8 B).
CLAIM_BYTES_PER_VERTEX = 16


# [push-pull-claims-by-bit-begin]
def claims_by_bit(device: Device, graph: CSRGraph) -> bool:
    """Whether the top-down levels claim by bit: where the arrays a claim touches at
    random, CLAIM_BYTES_PER_VERTEX a vertex, outgrow the device's L2 cache, so that an
    atomicCAS on a level would often wait for DRAM. Where they fit, the atomicCAS is one
    trip to the L2 like the atomicOr, and the bit's claim adds a store of the level after
    it (chapter 6, "Claims by bit"). A device that does not say its L2 claims by bit."""
    return CLAIM_BYTES_PER_VERTEX * graph.num_vertices > device.l2_cache_bytes
# [push-pull-claims-by-bit-end]


#: How a top-down level ends (chapter 6, "A crossing that counts"): in a crossing whose
#: arrivals carry the level's counts, so that no block reads them after it
#: (COUNTING_CROSSING in counting_crossing.h); and with WRITE_AFTER_ARRIVAL each block's
#: place in the next small queue comes back from its arrival, so it reserves none before.
#: False, False: copy_out and grid_sync, as step 4's queues and step 5's barrier have it.
COUNTING_CROSSING = True
WRITE_AFTER_ARRIVAL = True
#: The crossing's words count the arrivals in 12 bits (CROSSING_MAX_BLOCKS): no grid of
#: step 6 or 7 is wider.
CROSSING_MAX_BLOCKS = 4095


#: Whether Beamer's rule pulls only a frontier with more edges than the grid has threads
#: (WIDE_PULLS in push_pull_grid.h), where a top-down level is more than one pass of the
#: grid. Off: it keeps the tail of a mesh or a road top-down (2-3 % faster there), but
#: also the wide levels of a small graph of hubs, which Beamer's rule pulls for good
#: reason (as-22july06: 10-17 % slower; chapter 6, "A crossing that counts").
WIDE_PULLS = False


#: By how many eighths a frontier must grow before Beamer's rule pulls it (PULL_GROWTH in
#: push_pull_grid.h): 0, as Beamer's rule has it, for step 6; step 7 sets its own.
PULL_GROWTH = 0
#: The directions a search may take: Beamer's rule, or one of them always (for tests
#: and for comparing).
DIRECTIONS = {"auto": 0, "push": 1, "pull": 2}


#: Default threads per block: twice step 4's. The whole search is one cooperative launch
#: with a grid barrier after every phase, and a barrier costs less the fewer blocks cross
#: it (the runtime chapter measures it), while a block of 512 still keeps the
#: multiprocessors full.
BLOCK_SIZE = 512


def tunables(warp_size: int, block_size: int = BLOCK_SIZE, *, alpha: int = ALPHA,
             beta: int = BETA, bu_probe: int = BU_PROBE, bu_warp_threshold: int | None = None,
             direction: str = "auto", visit_batch: int = VISIT_BATCH,
             share_short_queues: bool = SHARE_SHORT_QUEUES,
             check_before_claim: bool = CHECK_BEFORE_CLAIM, claim_bits: bool = False,
             pull_growth: int = PULL_GROWTH, counting_crossing: bool = COUNTING_CROSSING,
             write_after_arrival: bool = WRITE_AFTER_ARRIVAL, wide_pulls: bool = WIDE_PULLS,
             **balanced) -> dict:
    """The ``-D`` macros of the kernel: step 4's (``balanced`` takes its options) and
    the bottom-up and switch tunables; ``None`` takes the default. ``claim_bits``: the
    atomicCAS unless told (the step itself chooses per graph: claims_by_bit)."""
    defines = balanced_tunables(warp_size, block_size, **balanced)
    if (isinstance(pull_growth, bool) or not isinstance(pull_growth, int)
            or not 0 <= pull_growth <= 64):
        raise RodiniaBFSError(f"pull_growth must be an integer from 0 to 64 (eighths), got "
                              f"{pull_growth!r}")
    if write_after_arrival and not counting_crossing:
        raise RodiniaBFSError("write_after_arrival needs counting_crossing: a block's place in "
                              "the next queue comes back from the crossing's word")
    if direction not in DIRECTIONS:
        raise RodiniaBFSError(f"direction must be one of {', '.join(DIRECTIONS)}, "
                              f"got {direction!r}")
    if visit_batch < 1:
        raise RodiniaBFSError(f"need visit_batch >= 1, got {visit_batch}")
    defines.update(
        ALPHA=alpha,
        BETA=beta,
        BU_PROBE=bu_probe,
        BU_WARP_THRESHOLD=warp_size if bu_warp_threshold is None else bu_warp_threshold,
        FORCE_DIRECTION=DIRECTIONS[direction],
        VISIT_BATCH=visit_batch,
        SHARE_SHORT_QUEUES=int(bool(share_short_queues)),
        CHECK_BEFORE_CLAIM=int(bool(check_before_claim)),
        CLAIM_BITS=int(bool(claim_bits)),
        PULL_GROWTH=pull_growth,
        COUNTING_CROSSING=int(bool(counting_crossing)),
        WRITE_AFTER_ARRIVAL=int(bool(write_after_arrival)),
        WIDE_PULLS=int(bool(wide_pulls)),
    )
    return defines
# [push-pull-tunables-end]


#: What the host reads back after the launch, in one copy: the kernel's status (levels
#: run, error) and then its grid barrier (arrived, failed, ...).
STATUS_WORDS = 4
CONTROL_BYTES = 4 * STATUS_WORDS + GRID_BARRIER_BYTES
STATUS_LEVELS, STATUS_ERROR, STATUS_CLEAN, BARRIER_FAILED = 0, 1, 2, STATUS_WORDS + 1

# [push-pull-args-py-begin]
#: The kernel's arguments, PushPullArgs in push_pull_parts.h, field for field: a device
#: address is 8 bytes, and ``align=True`` lays the record out as a C compiler does
#: (tests/test_kernel_structure.py checks it against the header).
ARGS = np.dtype([
    ("offsets", "<u8"), ("edges", "<u8"), ("in_offsets", "<u8"), ("in_edges", "<u8"),
    ("active", "<u8"), ("levels", "<u8"), ("parents", "<u8"),
    ("small_0", "<u8"), ("medium_0", "<u8"), ("large_0", "<u8"),
    ("small_1", "<u8"), ("medium_1", "<u8"), ("large_1", "<u8"),
    ("bitmaps", "<u8"), ("counts", "<u8"), ("tallies", "<u8"), ("records", "<u8"),
    ("clocks", "<u8"), ("status", "<u8"), ("barrier", "<u8"), ("path_counts", "<u8"),
    ("control", "<u8"), ("visited", "<u8"), ("stamps", "<u8"),
    ("num_edges", "<u8"), ("start_edges", "<u8"),
    ("num_vertices", "<i4"), ("active_count", "<u4"), ("large_capacity", "<u4"),
    ("words", "<u4"), ("record_clocks", "<u4"), ("count_words", "<u4"),
    ("tally_words", "<u4"), ("path_words", "<u4"), ("stamp_capacity", "<u4"),
    ("small_count", "<u4"), ("medium_count", "<u4"), ("large_count", "<u4"),
    ("source", "<i4"), ("start_vertices", "<u4"), ("max_levels", "<i4"),
], align=True)
# [push-pull-args-py-end]

#: The kernel's error codes (status[STATUS_ERROR]).
ERRORS = {
    1: "it ran more levels than the graph has vertices",
    2: "its queues held more entries than a BFS can make",
}

#: A per-level record: the frontier's size, with this bit set for a bottom-up level.
RECORD_BOTTOM_UP = 1 << 31

#: Bits of a bitmap word (bfs_u32), and bfs_u64 slots of a set of the kernel's tally.
BITMAP_WORD_BITS = 32
TALLY_STRIDE = 32  # two 128-byte lines
#: Tally sets: one per counter set (the phases' tallies), and the counting crossing's two
#: pairs of words (CROSSING_SETS in counting_crossing.h).
TALLY_SETS = 3 + 2


def bottom_up_inputs(graph: CSRGraph,
                     hubs_first: bool = True) -> tuple[CSRGraph, bool, np.ndarray]:
    """What a bottom-up sweep reads, set up once per graph: the in-edges (the graph's own
    lists when it is symmetric, checked whatever the file said, else its reverse's), each
    list hubs first with ``hubs_first`` (:meth:`~rodinia_bfs.graphs.csr.CSRGraph.hubs_first`:
    the sweep stops at the first in-neighbour in the frontier, and the hubs are reached
    first), else in id order; whether the graph is symmetric; and the vertices that have
    in-edges in increasing order (an isolated vertex, or a source only, cannot be found
    bottom-up: it is never swept). On the host: steps 6 and 7 build the same on the
    device (:func:`~rodinia_bfs.graph_prep.device_bottom_up_inputs`); this is the
    reference."""
    reverse = graph.reverse()
    symmetric = graph.is_symmetric(reverse)
    active = np.flatnonzero(np.diff(reverse.offsets) > 0).astype(np.int32)
    return (reverse.hubs_first(graph.degrees()) if hubs_first else reverse), symmetric, active


class PushPullBFS(BalancedBFS):
    """Direction-optimizing BFS: top-down or bottom-up per level, in one cooperative launch."""

    name = "push_pull"
    kernel_file = "push_pull.hip"
    kernel_name = "push_pull_bfs"
    #: Three counter sets (see the kernel); two more path counters for bottom-up sweeps.
    counter_sets = 3
    path_count_slots = 2 * len(QUEUES) + 2
    #: The kernel records each level's frontier size (:meth:`run` downloads them).
    reports_frontier_sizes = True
    #: Several sources (:meth:`_reset_many`) and a depth limit (the kernel stops at the
    #: record's max_levels).
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return tunables(warp_size)

    # [push-pull-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE, *,
                 alpha: int = ALPHA, beta: int = BETA, bu_probe: int = BU_PROBE,
                 bu_warp_threshold: int | None = None, direction: str = "auto",
                 visit_batch: int = VISIT_BATCH, share_short_queues: bool = SHARE_SHORT_QUEUES,
                 check_before_claim: bool = CHECK_BEFORE_CLAIM,
                 claim_bits: bool | None = CLAIM_BITS, pull_growth: int = PULL_GROWTH,
                 counting_crossing: bool = COUNTING_CROSSING,
                 write_after_arrival: bool = WRITE_AFTER_ARRIVAL, wide_pulls: bool = WIDE_PULLS,
                 max_blocks: int | None = None, count_paths: bool = False, **balanced):
        if claim_bits is None:
            claim_bits = claims_by_bit(device, graph)
        self._push_pull = tunables(device.warp_size, block_size, alpha=alpha, beta=beta,
                                   bu_probe=bu_probe, bu_warp_threshold=bu_warp_threshold,
                                   direction=direction, visit_batch=visit_batch,
                                   share_short_queues=share_short_queues,
                                   check_before_claim=check_before_claim,
                                   claim_bits=claim_bits, pull_growth=pull_growth,
                                   counting_crossing=counting_crossing,
                                   write_after_arrival=write_after_arrival,
                                   wide_pulls=wide_pulls, **balanced)
        if min(alpha, beta, self._push_pull["BU_WARP_THRESHOLD"]) < 1 or bu_probe < 0:
            raise RodiniaBFSError(
                f"need alpha >= 1, beta >= 1, bu_warp_threshold >= 1 and bu_probe >= 0, got "
                f"{alpha}, {beta}, {self._push_pull['BU_WARP_THRESHOLD']} and {bu_probe}")
        if max_blocks is not None and max_blocks < 1:
            raise RodiniaBFSError(f"max_blocks must be at least 1, got {max_blocks}")
        n = graph.num_vertices
        # Set-up, once per graph: the two CSR arrays go to the device, and what a
        # bottom-up sweep reads beyond them is built there (graph_prep.py, the device's
        # way of bottom_up_inputs).
        check_prep_fits(device, graph)
        prepared = Buffers(device)
        try:
            self._on_device = DeviceGraph.upload(graph, prepared)
            inputs = device_bottom_up_inputs(device, self._on_device, prepared)
            self.symmetric, self.active_count = inputs.symmetric, inputs.active_count
            # Step 4's arrays (32 B per vertex, 4 B per edge, and the large queues), plus:
            # the active list and the per-level records (4 B per vertex each), three
            # bitmaps (3 bits per vertex), and the reverse graph (8 B per vertex, 4 B per
            # edge) when the graph is directed.
            directed = 0 if self.symmetric else 1
            check_fits(device, graph, bytes_per_vertex=32 + 4 + 4 + 1 + 8 * directed,
                       bytes_per_edge=4 + 4 * directed)
            if self.symmetric:
                # A symmetric graph's in-lists are its out-lists: the kernel reads one
                # array, ordered hubs first, both ways (_out_targets).
                prepared.release(self._on_device.targets)
                self._on_device.targets = inputs.in_edges
            super().__init__(device, graph, block_size, max_blocks=MAX_BLOCKS,
                             count_paths=count_paths, **balanced)
        except BaseException:
            prepared.free()
            raise
        self._memory.buffers += prepared.buffers  # freed with the step's own
        self.in_offsets, self.in_edges = inputs.in_offsets, inputs.in_edges
        self.active = inputs.active
        self.words = ceil_div(max(n, 1), BITMAP_WORD_BITS)  # words of a bitmap
        self.bitmaps = self._alloc(3 * 4 * self.words)
        self.claim_bits = bool(claim_bits)
        # The visited bitmap of claims by bit (CLAIM_BITS): the kernel writes it at the
        # start of a search from one source; from several, the host does (_reset_many).
        self.visited = self._alloc(4 * self.words)
        self._staged_bits = None  # pinned, for _reset_many
        self.tallies = self._alloc(TALLY_SETS * TALLY_STRIDE * 8)  # bfs_u64
        self.records = self._alloc(4 * max(n, 1))  # bfs_u32 per level
        self.control = self._alloc(CONTROL_BYTES)  # status, then the grid barrier
        self.status = self.control.view(0, 4 * STATUS_WORDS)
        self.barrier = self.control.view(4 * STATUS_WORDS, GRID_BARRIER_BYTES)
        self._control_clean = False  # zeroed by the first reset
        self.h_control = device.host_malloc(CONTROL_BYTES // 4, np.uint32)
        self.clocks = self._alloc(8)  # the clock at each level: grown when profiling
        # One block per slot the device can keep resident: all of them run at once,
        # which the grid barrier needs.
        self.grid = device.cooperative_grid(self.kernel, block_size)
        if max_blocks is not None:
            self.grid = min(self.grid, max_blocks)
        self.grid = min(self.grid, CROSSING_MAX_BLOCKS)
        #: The edges a frontier must have more than for Beamer's rule to pull it: the
        #: grid's threads with WIDE_PULLS (rule_table's ``wide``), else 0.
        self.pull_edges = self.grid * block_size if wide_pulls else 0
        # The kernel's argument record, passed by value: every field but those of the
        # source is set here, once.
        self.h_args = np.zeros(1, ARGS)  # step 7's fields stay null
        (small_0, medium_0, large_0), (small_1, medium_1, large_1) = (
            (q["small"], q["medium"], q["large"]) for q in self.queues)
        buffers = dict(offsets=self.offsets, edges=self.edges, in_offsets=self.in_offsets,
                       in_edges=self.in_edges, active=self.active, levels=self.levels,
                       parents=self.parents, small_0=small_0, medium_0=medium_0,
                       large_0=large_0, small_1=small_1, medium_1=medium_1, large_1=large_1,
                       bitmaps=self.bitmaps, counts=self.counts, tallies=self.tallies,
                       records=self.records, status=self.status, barrier=self.barrier,
                       path_counts=self.path_counts, visited=self.visited)
        for field, buffer in buffers.items():
            self.h_args[field] = buffer.ptr  # a device address
        self.h_args["num_edges"] = graph.num_edges
        self.h_args["num_vertices"] = n
        self.h_args["active_count"] = self.active_count
        self.h_args["large_capacity"] = self.large_capacity
        self.h_args["words"] = self.words
        self.h_args["count_words"] = self.counts.nbytes // 4
        self.h_args["tally_words"] = self.tallies.nbytes // 8
        # The fields each search writes (_host_loop), through views made once.
        self._search_fields = field_views(self.h_args, (
            "clocks", "record_clocks", "source", "start_edges", "start_vertices", "max_levels",
            "small_count", "medium_count", "large_count"))
        self.h_args["path_words"] = self.path_counts.nbytes // 8
        self.h_args["max_levels"] = NO_DEPTH_LIMIT
        self.launch = device.prepare_launch(self.kernel, self.grid, block_size, [self.h_args],
                                            cooperative=True)
    # [push-pull-setup-end]

    def _out_targets(self, graph: CSRGraph) -> DeviceBuffer:
        # On the device already: the graph's targets, or a symmetric graph's in-lists
        # (top-down levels do not care in which order a list is walked).
        return self._on_device.targets

    def _upload(self, array):
        """Step 4's constructor uploads the graph: it gets the arrays the set-up has
        put on the device already."""
        if isinstance(array, DeviceBuffer):
            return array
        on_device = self._on_device.buffer_of(array, self.graph)
        return on_device if on_device is not None else super()._upload(array)

    def _compile(self, defines: dict):
        # Step 4's constructor compiles with its own tunables: add this step's.
        return super()._compile({**defines, **self._push_pull})

    # [push-pull-source-begin]
    #: The source goes to the large queue whatever its degree: one block expands its list,
    #: BLOCK_SIZE edges a trip, where a warp would take degree / WARP_SIZE trips and a
    #: thread degree trips, each waiting on a load. (Level 0 is a single vertex: the rest
    #: of the grid has nothing else to do.) Spare slots hold its pieces: a source that is
    #: not large has fewer than BLOCK_THRESHOLD edges, in as many pieces as those take.
    @property
    def spare_pieces(self) -> int:
        return max(1, ceil_div(self.block_threshold - 1, self.block_piece))

    def _reset(self, source: int) -> list[int]:
        """The kernel writes the start state itself, its status included; the host zeroes
        the status and the grid barrier (one memset) only before the first search and
        after a search that failed (a barrier that gave up stays failed). Returns the
        lengths of the source's queues at level 0: the source's pieces in the large
        queue, or the source alone in the small one if it has no edges."""
        self._clean_control()
        degree = int(self.degrees[source])
        self.source, self.start_edges, self.start_vertices = source, degree, 1
        if degree == 0:
            return [1, 0, 0]
        return [0, 0, ceil_div(degree, self.block_piece)]
    # [push-pull-source-end]

    def _clean_control(self) -> None:
        """Zero the status and the grid barrier where the last search left them dirty."""
        if not self._control_clean:
            self.device.memset(self.control, 0, stream=self.stream)
            self._control_clean = True

    # [push-pull-reset-many-begin]
    def _reset_many(self, starts) -> list[int]:
        """Start state of a search from several vertices: step 4's (the levels and
        parents built on the host and uploaded, each start vertex in the queue of level 0
        its degree says), and source -1, which tells the kernel to leave them as they
        are. Level 0 has the starts' count as n_f and their degrees as m_f, so Beamer's
        rule may take it bottom-up as it would a source of that many edges."""
        self._clean_control()
        queues = super()._reset_many(starts)
        if self.claim_bits:  # the start vertices' bits, as the levels have them
            # Staged in pinned memory, as the levels are: the stream was waited for before
            # they were overwritten (_start_state), so no upload still reads it.
            if self._staged_bits is None:
                self._staged_bits = self.device.host_malloc(self.words, np.uint32)
            self._staged_bits[:] = bitmap_of(starts, self.words)
            self.device.memcpy_htod_async(self.visited, self._staged_bits, self.stream)
        self.source, self.start_vertices = -1, int(starts.size)
        self.start_edges = int(self.degrees[starts].sum())
        return queues
    # [push-pull-reset-many-end]

    # [push-pull-search-begin]
    def _host_loop(self, start: list[int], timer: LevelTimer) -> BFSResult:
        """The whole search: one cooperative launch (the argument record goes with it),
        one wait."""
        args, profile = self._search_fields, bool(timer.marks)  # profile: a clock per level
        if profile and self.clocks.nbytes < 8 * (self.graph.num_vertices + 1):
            self.clocks = self._alloc(8 * (self.graph.num_vertices + 1))
        args["clocks"][0], args["record_clocks"][0] = self.clocks.ptr, profile
        # What differs from one search to the next: the source (or -1, several), the
        # start vertices' count and degrees, their queues, and the depth limit.
        args["source"][0], args["start_edges"][0] = self.source, self.start_edges
        args["start_vertices"][0], args["max_levels"][0] = self.start_vertices, self.max_levels
        args["small_count"][0], args["medium_count"][0], args["large_count"][0] = start
        self.launch(self.stream)
        self.device.memcpy_dtoh_async(self.h_control, self.control, self.stream)
        self.stream.synchronize()  # the one wait of the search
        status = self.h_control
        if status[BARRIER_FAILED] or status[STATUS_ERROR]:
            self._failed(status)
        if self.count_paths:
            self._read_path_counts()
        return BFSResult(iterations=int(status[STATUS_LEVELS]))

    def _failed(self, status) -> None:
        """Raise the error of a search the kernel could not finish; the next reset
        zeroes the status and the grid barrier again."""
        self._control_clean = False
        if status[BARRIER_FAILED]:
            raise DeviceError(f"{self.kernel_name}: {BARRIER_GAVE_UP}")
        problem = ERRORS.get(int(status[STATUS_ERROR]), "unknown error")
        raise DeviceError(f"{self.name} BFS did not finish: {problem} "
                          f"(after {int(status[STATUS_LEVELS])} levels)")

    def search(self, source: int | None, profile: bool = False, *, sources=None,
               depth_limit: int | None = None) -> BFSResult:
        """One BFS from ``source`` (the contract's search: check, reset, host loop). With
        ``profile=True`` the kernel reads the device's clock at each level
        (``device_clock`` in ``bfs_common.h``): still one launch, and a time per level."""
        outcome = super().search(source, profile=profile, sources=sources,
                                 depth_limit=depth_limit)
        if profile:
            ticks = self.device.from_device(self.clocks, outcome.iterations + 1, np.uint64)
            seconds = np.diff(ticks.astype(np.float64)) / self.device.clock_rate_hz
            outcome.level_times_ms = (seconds * 1e3).tolist()
        return outcome
    # [push-pull-search-end]

    def _read_path_counts(self) -> None:
        counted = self.device.from_device(self.path_counts, self.path_count_slots, np.uint64)
        q = len(QUEUES)
        self.last_path_counts = {
            name: {"entries": int(counted[k]), "edges": int(counted[q + k])}
            for k, name in enumerate(QUEUES)
        }
        #: Bottom-up sweeps of the last search: vertices looked at, and those found.
        self.last_sweep_counts = {"looked_at": int(counted[2 * q]),
                                  "found": int(counted[2 * q + 1])}

    def run(self, source: int, profile: bool = False) -> BFSResult:
        """One BFS, its levels and parents, and its per-level record: the frontier's size
        (``frontier_sizes``) and the direction each level took (:attr:`last_directions`)."""
        outcome = super().run(source, profile=profile)
        sizes, directions = self.records_of(outcome.iterations)
        outcome.frontier_sizes = sizes
        #: ``"push"`` or ``"pull"`` for each level of the last run.
        self.last_directions = directions
        return outcome

    def records_of(self, levels: int) -> tuple[list[int], list[str]]:
        """Download the per-level records of the last search (``levels`` of them): each
        frontier's size, and ``"push"`` or ``"pull"``."""
        records = self.device.from_device(self.records, levels, np.uint32)
        sizes = (records & ~np.uint32(RECORD_BOTTOM_UP)).astype(np.int64).tolist()
        directions = ["pull" if r & RECORD_BOTTOM_UP else "push" for r in records.tolist()]
        return sizes, directions


# [push-pull-rule-host-begin]
def rule_table(graph: CSRGraph, source, levels: np.ndarray, alpha: int = ALPHA,
               beta: int = BETA, growth: int = PULL_GROWTH, wide: int = 0) -> list[dict]:
    """Beamer's rule on the host, level by level, from the levels of a finished search
    and the out-degrees: the counts the kernel sums on the device (n_f, m_f, m_u) and
    the direction it must then take. The chapter's table, and the tests' check.
    ``source`` may be a list: the start vertices of a search from several.
    ``growth``: the eighths by which a frontier must grow to be pulled
    (``PULL_GROWTH``); ``wide``: the edges it must have more than (``WIDE_PULLS``: the
    grid's threads, :attr:`PushPullBFS.pull_edges`; 0: any)."""
    degrees = graph.degrees()
    reached = levels >= 0
    vertices = np.bincount(levels[reached])
    edges = np.bincount(levels[reached], weights=degrees[reached]).astype(np.int64)
    n = graph.num_vertices
    unvisited = graph.num_edges - int(degrees[np.atleast_1d(source)].sum())
    direction, previous, rows = "push", 0, []
    for level, (n_f, m_f) in enumerate(zip(vertices.tolist(), edges.tolist())):
        if (direction == "push" and m_f * alpha > unvisited and m_f > wide
                and n_f * 8 > previous * (8 + growth)):
            direction = "pull"
        elif direction == "pull" and n_f * beta < n and n_f < previous:
            direction = "push"
        rows.append({"level": level, "n_f": n_f, "m_f": m_f, "m_u": unvisited,
                     "direction": direction})
        found = int(edges[level + 1]) if level + 1 < edges.size else 0
        unvisited = max(unvisited - found, 0)
        previous = n_f
    return rows
# [push-pull-rule-host-end]
