"""Step 7: adaptive BFS, the kernel that suits each level.

The kernels are in ``hip_kernels/adaptive.hip``: step 5's single block
(``persistent_single``) and step 6's direction-optimizing kernel (``push_pull_bfs``)
built to start a search, and to start from and return to step 5's Control record.
The grid starts each search; the single block runs the levels of small frontiers once
the grid hands them back, and when a frontier outgrows it, the grid runs the levels
again, top-down or bottom-up by Beamer's rule. The host loop is step 5's, with the pair
the other way round: batches of (grid, single) launches, one read-back of the Control
record per batch.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graph_prep import Buffers, DeviceGraph, check_prep_fits, device_bottom_up_inputs
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants import persistent, push_pull
from rodinia_bfs.variants.base import NO_DEPTH_LIMIT, check_fits, field_views
from rodinia_bfs.variants.persistent import CARRY_ON, LEVEL_STAMP, PersistentBFS

# [adaptive-tunables-begin]
#: Which kernel ran a level, as the LevelStamp record says: the single block (MODE_SINGLE,
#: STAMP_SINGLE_BY_WARP gathered by warps, STAMP_SINGLE_BY_ROW read as rows), the grid
#: top-down (MODE_GRID) or bottom-up (STAMP_PULL in push_pull_grid.h).
CHOICES = {1: "single", 7: "single", 8: "single", 2: "push", 6: "pull"}


#: The grid gives a frontier back to the single block only after this many levels in a
#: row have fitted it: a small-world graph's tail of a few small levels stays in the
#: grid, where a hand-back, a second batch and its host round trip would cost more than
#: they save; a long tail goes back. Timed in turns against 3 (``benchmarks/tune.py``,
#: chapter 7): faster on email-Enron and as-22july06, the same elsewhere.
HAND_BACK_AFTER = 5

#: The single block gathers a level by warps only from this many vertices up (step 5's
#: VP_MIN_VERTICES, 256): step 7's single block takes the narrow levels and leaves the
#: wide ones to the grid, and a warp per 32 of them pays only once every warp of the
#: block has its slots. On the H100 (chapter 7) Delaunay 2^20 and 2^22 took 3-5 % less
#: than by warps at every width, and 1-2 % less than from 256.
VP_MIN_VERTICES = 1024

#: How the single block and the grid decide who runs a level: ``"capacity"``, the single
#: block hands over a frontier that outgrows its queues or edge limit, and the grid gives
#: back one that fits half of both; ``"measured"``, also each kernel times its levels with
#: the device clock: the single block hands over once the time it lost to the grid's
#: levels exceeds what a switch costs (what the grid's last run spent outside its
#: levels), and the grid gives back only a frontier as narrow as the single block expects
#: to run as fast as the grid.
HANDOVERS = ("capacity", "measured")
HANDOVER = "measured"

#: With the measured hand-over: a fresh search keeps the measures of the last search's
#: grid (its last run's mean level and switch), where the first run of a search would
#: replace them with those of its first levels, a few vertices wide. Timed in turns on
#: the H100 in two runs (chapter 7): road-BAY 1.5 and 1.7 % faster, road-FLA (held out)
#: 1.0 and 1.2 %, road-NY 1.5 % and the same, Delaunay 2^20 1.4 % slower and 2.1 % faster.
KEEP_MEASURES = True

#: Threads per block of the grid: step 6's (512), not step 5's (1024). Step 6's kernel
#: holds more registers a thread than step 5's grid, so a multiprocessor takes two blocks
#: of 512 or one of 1024 alike; with 512 the levels of Delaunay 2^20 ran 8 % faster on
#: the H100 (chapter 7's ladder).
GRID_BLOCK_SIZE = push_pull.BLOCK_SIZE

#: Pairs of kernels (single block, grid) queued between two read-backs of the Control
#: record. One pair runs a search that starts in the single block, goes to the grid and
#: ends there, or never leaves the single block; a search that is handed back takes
#: another batch.
ROUNDS = 1

#: The grid alone in a search's first batch when the last search never needed the
#: single block (its grid handed nothing back: a small-world graph, whose every level is
#: the grid's). The single block's launch behind it would return at once, and even so
#: costs the GPU a few microseconds; a search that does need it takes one batch more.
GRID_ALONE = True
#: By how many eighths a frontier must grow before the grid pulls it (PULL_GROWTH in
#: push_pull_grid.h): by more than an eighth, so that the wavering tail of a mesh is not
#: pulled a level at a time (chapter 7, "A frontier that grows"; step 6 keeps 0).
PULL_GROWTH = 1


#: Step 6's macros that this step takes: its switch, its bottom-up sweep, its batched
#: top-down visits and its shared-out short queues. The queues' thresholds are step 5's,
#: which the single block's hand-over and the grid share.
PUSH_PULL_MACROS = ("ALPHA", "BETA", "BU_PROBE", "BU_WARP_THRESHOLD", "FORCE_DIRECTION",
                    "VISIT_BATCH", "SHARE_SHORT_QUEUES", "CHECK_BEFORE_CLAIM", "CLAIM_BITS",
                    "PULL_GROWTH", "COUNTING_CROSSING", "WRITE_AFTER_ARRIVAL", "WIDE_PULLS")


def tunables(warp_size: int, block_size: int = GRID_BLOCK_SIZE, *,
             alpha: int = push_pull.ALPHA, beta: int = push_pull.BETA,
             bu_probe: int = push_pull.BU_PROBE, bu_warp_threshold: int | None = None,
             direction: str = "auto", hand_back_after: int = HAND_BACK_AFTER,
             handover: str = HANDOVER, keep_measures: bool = KEEP_MEASURES,
             check_before_claim: bool = push_pull.CHECK_BEFORE_CLAIM,
             claim_bits: bool = False, pull_growth: int = PULL_GROWTH,
             vp_min_vertices: int = VP_MIN_VERTICES,
             counting_crossing: bool = push_pull.COUNTING_CROSSING,
             write_after_arrival: bool = push_pull.WRITE_AFTER_ARRIVAL,
             wide_pulls: bool = push_pull.WIDE_PULLS,
             visit_batch: int = push_pull.VISIT_BATCH, **single) -> dict:
    """The ``-D`` macros of both kernels: step 5's (``single`` takes the single block's
    ``sb_capacity``, ``sb_edge_limit``, ... and step 4's queue tunables) and step 6's
    switch and bottom-up tunables. The choice between the kernels is made by step 5's
    rules: the single block hands over when its frontier has more than SB_CAPACITY
    vertices or SB_EDGE_LIMIT edges, the grid hands back when one fits in half of both."""
    defines = persistent.tunables(warp_size, block_size, vp_min_vertices=vp_min_vertices,
                                  **single)
    pp = push_pull.tunables(warp_size, block_size, alpha=alpha, beta=beta, bu_probe=bu_probe,
                            bu_warp_threshold=bu_warp_threshold, direction=direction,
                            check_before_claim=check_before_claim, claim_bits=claim_bits,
                            pull_growth=pull_growth, counting_crossing=counting_crossing,
                            write_after_arrival=write_after_arrival, wide_pulls=wide_pulls,
                            visit_batch=visit_batch)
    defines.update({k: pp[k] for k in PUSH_PULL_MACROS})
    defines["HAND_BACK_AFTER"] = hand_back_after
    defines["MEASURED_HANDOVER"] = int(handover == "measured")
    defines["KEEP_MEASURES"] = int(bool(keep_measures))
    return defines
# [adaptive-tunables-end]


class AdaptiveBFS(PersistentBFS):
    """Step 5's single block for small frontiers, step 6's push or pull for large ones:
    the device chooses per level, the host waits once per batch of launches."""

    name = "adaptive"
    kernel_file = "adaptive.hip"
    #: Step 6's kernel runs the levels of a large frontier: step 5's grid is not built.
    grid_kernel = "push_pull_bfs"
    #: Several sources (step 5's _reset_many, the grid first) and a depth limit (both
    #: kernels stop at their records' max_levels).
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return tunables(warp_size, **persistent.graph_defaults(graph, warp_size))

    # [adaptive-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, *, alpha: int = push_pull.ALPHA,
                 beta: int = push_pull.BETA, bu_probe: int = push_pull.BU_PROBE,
                 bu_warp_threshold: int | None = None, direction: str = "auto",
                 hand_back_after: int = HAND_BACK_AFTER, handover: str = HANDOVER,
                 keep_measures: bool = KEEP_MEASURES,
                 check_before_claim: bool = push_pull.CHECK_BEFORE_CLAIM,
                 claim_bits: bool | None = push_pull.CLAIM_BITS,
                 pull_growth: int = PULL_GROWTH,
                 vp_min_vertices: int = VP_MIN_VERTICES, rounds: int = ROUNDS,
                 grid_alone: bool = GRID_ALONE,
                 counting_crossing: bool = push_pull.COUNTING_CROSSING,
                 write_after_arrival: bool = push_pull.WRITE_AFTER_ARRIVAL,
                 wide_pulls: bool = push_pull.WIDE_PULLS,
                 visit_batch: int = push_pull.VISIT_BATCH, **options):
        """``options`` are step 5's (the single block, the grid's queues,
        ``max_grid_blocks``); ``hand_back_after``, ``handover`` (:data:`HANDOVERS`),
        ``keep_measures`` (:data:`KEEP_MEASURES`), ``rounds`` and ``grid_alone``
        (:data:`GRID_ALONE`) this step's; the others step 6's."""
        if claim_bits is None:
            claim_bits = push_pull.claims_by_bit(device, graph)
        if handover not in HANDOVERS:
            raise RodiniaBFSError(f"handover must be one of {', '.join(HANDOVERS)}, got "
                                  f"{handover!r}")
        # Step 6's switch and bottom-up macros only: the queues' are step 5's.
        self._push_pull = {key: value for key, value in push_pull.tunables(
            device.warp_size, options.setdefault("block_size", GRID_BLOCK_SIZE), alpha=alpha,
            beta=beta, bu_probe=bu_probe, bu_warp_threshold=bu_warp_threshold,
            direction=direction, check_before_claim=check_before_claim,
            claim_bits=claim_bits, pull_growth=pull_growth,
            counting_crossing=counting_crossing,
            write_after_arrival=write_after_arrival, wide_pulls=wide_pulls,
            visit_batch=visit_batch).items()
            if key in PUSH_PULL_MACROS}
        # The counting crossing counts at most CROSSING_MAX_BLOCKS arrivals.
        options["max_grid_blocks"] = min(options.get("max_grid_blocks") or
                                         push_pull.CROSSING_MAX_BLOCKS,
                                         push_pull.CROSSING_MAX_BLOCKS)
        if min(alpha, beta, self._push_pull["BU_WARP_THRESHOLD"]) < 1 or bu_probe < 0:
            raise RodiniaBFSError("need alpha >= 1, beta >= 1, bu_warp_threshold >= 1 and "
                                  "bu_probe >= 0")
        if hand_back_after < 1:
            raise RodiniaBFSError(f"hand_back_after must be at least 1, got {hand_back_after}")
        self._push_pull["HAND_BACK_AFTER"] = hand_back_after
        self._push_pull["MEASURED_HANDOVER"] = int(handover == "measured")
        self._push_pull["KEEP_MEASURES"] = int(bool(keep_measures))
        self.handover = handover
        self.grid_alone = bool(grid_alone)
        self._grid_alone_next = False  # the first search queues both kernels
        # The two CSR arrays go to the device first, and step 6's inputs are built there
        # (graph_prep.py): whether the graph is symmetric decides what it needs.
        check_prep_fits(device, graph)
        prepared = Buffers(device)
        try:
            self._on_device = DeviceGraph.upload(graph, prepared)
            inputs = device_bottom_up_inputs(device, self._on_device, prepared)
            # Step 5's arrays, plus step 6's: the active list and the per-level records
            # (4 B per vertex each), three bitmaps, the stamps (16 B per vertex), and the
            # in-lists hubs first (4 B per edge; and 8 B per vertex of offsets when the
            # graph is directed: a symmetric graph's in-lists have its own offsets).
            directed = 0 if inputs.symmetric else 1
            check_fits(device, graph, bytes_per_vertex=37 + 4 + 4 + 1 + 16 + 8 * directed,
                       bytes_per_edge=20 + 4)
            super().__init__(device, graph, rounds=rounds, vp_min_vertices=vp_min_vertices,
                             **options)  # compiles both kernels
        except BaseException:
            prepared.free()
            raise
        self._memory.buffers += prepared.buffers  # freed with the step's own
        #: The edges a frontier must have more than for the grid to pull it (WIDE_PULLS:
        #: its threads; push_pull.rule_table's ``wide``).
        self.pull_edges = self.grid_blocks * self.block_size if wide_pulls else 0
        n = graph.num_vertices
        self.degrees = graph.degrees()  # the source's: its queue at level 0 (_reset)
        self.symmetric, self.active_count = inputs.symmetric, inputs.active_count
        # Step 5's kernels read the lists in id order; the bottom-up sweep reads its own
        # copy, hubs first (with the graph's own offsets when it is symmetric).
        self.in_offsets, self.in_edges = inputs.in_offsets, inputs.in_edges
        self.active = inputs.active
        self.words = ceil_div(max(n, 1), push_pull.BITMAP_WORD_BITS)
        self.frontier_bitmaps = self._alloc(3 * 4 * self.words)  # step 6's three bitmaps
        self.tallies = self._alloc(push_pull.TALLY_SETS * push_pull.TALLY_STRIDE * 8)
        self.direction_records = self._alloc(4 * max(n, 1))  # step 6's per-level record
        self.status = self._alloc(4 * push_pull.STATUS_WORDS)
        # Zero: the grid's first search empties the small queues (STATUS_CLEAN).
        self.device.memset(self.status, 0, stream=self.stream)
        self.unused = self._alloc(8)  # step 6's clocks and path counters: not used here
        # The LevelStamp record, always: it says which kernel ran each level.
        self.stamps = self._alloc(LEVEL_STAMP.itemsize * (n + 1))
        # No measures yet: the first search's grid writes its own (KEEP_MEASURES).
        self.device.memset(self.control, 0, stream=self.stream)
        self._grid_records()
    # [adaptive-setup-end]

    def _compile(self, defines: dict):
        self._module = super()._compile({**defines, **self._push_pull})
        return self._module

    def _upload(self, array):
        """Step 5's constructor uploads the graph: it gets the arrays the set-up has put
        on the device already."""
        on_device = self._on_device.buffer_of(array, self.graph)
        return on_device if on_device is not None else super()._upload(array)

    # [adaptive-arguments-begin]
    def _grid_records(self) -> None:
        """Step 6's argument record for each launch of the grid in a batch: the first
        launch of a search starts it (record 0, whose source fields :meth:`_reset`
        writes), every other one carries on from the Control record (records 1 to
        ``rounds``, source -1), each with its grid barrier. Step 5's grid queues stand in
        for step 6's (set L % 2 holds the frontier of level L)."""
        n, cap = self.graph.num_vertices, self.large_capacity
        records = np.zeros(self.rounds + 1, push_pull.ARGS)  # no clocks, no path counters
        halves = {"small": (self.smalls, 4 * n), "medium": (self.mediums, 4 * n),
                  "large": (self.larges, 8 * cap)}
        buffers = dict(offsets=self.offsets, edges=self.edges, in_offsets=self.in_offsets,
                       in_edges=self.in_edges, active=self.active, levels=self.levels,
                       parents=self.parents, bitmaps=self.frontier_bitmaps,
                       counts=self.counts, tallies=self.tallies,
                       records=self.direction_records, clocks=self.unused, status=self.status,
                       path_counts=self.unused, control=self.control, visited=self.bitmap,
                       stamps=self.stamps)
        for queue, (whole, size) in halves.items():
            buffers[f"{queue}_0"], buffers[f"{queue}_1"] = whole.view(0, size), whole.view(size, size)
        for field, buffer in buffers.items():
            records[field] = buffer.ptr  # a device address
        records["num_edges"], records["num_vertices"] = self.graph.num_edges, n
        records["active_count"], records["large_capacity"] = self.active_count, cap
        records["words"], records["stamp_capacity"] = self.words, n + 1
        records["count_words"] = self.counts.nbytes // 4
        records["tally_words"] = self.tallies.nbytes // 8
        records["source"], records["start_vertices"] = CARRY_ON, 1
        records["max_levels"] = NO_DEPTH_LIMIT
        for r in range(self.rounds):
            records["barrier"][1 + r] = self._barrier(r).ptr
        records["barrier"][0] = self._barrier(0).ptr  # the first launch of a search
        self.grid_args = records  # each launch passes its own by value
        self._start_fields = field_views(records, (
            "source", "start_edges", "small_count", "medium_count", "large_count"))

    def _arguments(self, stamps, stamp_capacity):
        """Step 5's single block as in step 5 (with the stamps, always); the grid's
        launches take their records: the search's start, then one per round."""
        single, _ = super()._arguments(self.stamps, self.graph.num_vertices + 1)
        grid = [[self.grid_args[k:k + 1]] for k in range(self.rounds + 1)]
        return single, grid
    # [adaptive-arguments-end]

    # [adaptive-start-begin]
    def _reset(self, source: int) -> None:
        """The grid kernel writes the start state, as step 6's does: the host zeroes the
        visited bitmap and the grid barriers only before the first search and after a
        failed one, and puts the source in the queue its degree says."""
        if not self._cleared:
            self.device.memset(self.cleared, 0, stream=self.stream)
        self.source = source
        degree, d = int(self.degrees[source]), self.defines
        if degree < d["WARP_THRESHOLD"]:
            queues = (1, 0, 0)
        elif degree < d["BLOCK_THRESHOLD"]:
            queues = (0, 1, 0)
        else:
            queues = (0, 0, ceil_div(degree, d["BLOCK_PIECE"]))
        # The record of the search's first grid launch: its source, degree and queue,
        # each written through a view of its field made once (base.field_views).
        start = self._start_fields
        start["source"][0], start["start_edges"][0] = source, degree
        start["small_count"][0], start["medium_count"][0], start["large_count"][0] = queues

    def _queue_batch(self, single, grids, start) -> None:
        """The grid first: its first launch of a search starts it from the source (the
        reset and the first levels, which its short queues share out), and the single
        block takes the levels the grid hands back. (The single block first, as in
        step 5, would leave the GPU idle while the host queued the grid's launch after
        it: longer than the first levels take.)"""
        first, carry_on = grids[0], grids[1:]  # the launches of records 0, 1, ...
        if start >= 0 and self._grid_alone_next:
            first(self.stream)  # the last search was the grid's alone (_host_loop)
            return
        for grid_launch in carry_on:
            (first if start >= 0 else grid_launch)(self.stream)
            start = CARRY_ON
            self._launch_single(single)

    def _host_loop(self, start, timer):
        """Step 5's host loop; after it, whether the next search's first batch is the
        grid's launch alone (``grid_alone``): when this one's grid handed nothing back."""
        outcome = super()._host_loop(start, timer)
        self._grid_alone_next = (self.grid_alone and
                                 self._last_control[persistent.CONTROL_HAND_BACKS] == 0)
        return outcome
    # [adaptive-start-end]

    # [adaptive-many-begin]
    def _single_block_starts(self, starts, degrees) -> bool:
        """The grid takes level 0 of a search from several vertices, as it takes a
        source's (_queue_batch says why): step 5's _reset_many stages them in the grid's
        queues by degree, with a Control record of level 0 whose turn is the grid's, and
        the grid's resume counts their n_f and m_f for Beamer's rule."""
        return False

    def _limit_levels(self) -> None:
        """The depth limit into the single block's records and the grid's."""
        if self._levels_limit != self.max_levels:
            self.grid_args["max_levels"] = self.max_levels
        super()._limit_levels()
    # [adaptive-many-end]

    def run(self, source: int, profile: bool = False) -> BFSResult:
        """One BFS, its levels and parents, and what ran each level
        (:attr:`last_choices`)."""
        outcome = super().run(source, profile=profile)
        stamps = self.device.from_device(self.stamps, outcome.iterations, LEVEL_STAMP)
        #: ``"single"``, ``"push"`` or ``"pull"`` for each level of the last run.
        self.last_choices = [CHOICES.get(int(k), "?") for k in stamps["kernel"]]
        #: The frontier's vertices at each level of the last run (queue entries for
        #: the single block, n_f for the grid).
        self.last_frontiers = stamps["entries"].astype(np.int64).tolist()
        return outcome
