"""Step 5: one launch, many levels (host side).

The grid's kernel is in ``hip_kernels/persistent.hip``, the single block's in
``hip_kernels/single_block.h``. ``persistent_single`` is one block that
runs level after level while the frontier fits its shared memory; ``persistent_grid`` is a
cooperative launch that runs the levels of a larger frontier with step 4's queues and a
grid-wide barrier between levels. Each leaves a ``Control`` record saying where it
stopped, and whose turn it is. The host queues the two kernels alternately, ``rounds``
pairs at a time, and reads the record back once per batch: on a road network the single
block runs the whole search and the host waits once. There the single block reads the
graph as rows (:func:`build_rows`) and logs what it finds; ``persistent_flush``, launched
behind each single block, writes the levels and parents out with the whole GPU.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graph_prep import DeviceGraph, device_edge_records, device_rows
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES, Device, ceil_div
from rodinia_bfs.variants import balanced
from rodinia_bfs.variants.base import NO_DEPTH_LIMIT, GPUStep, LevelTimer, bitmap_of, check_fits

# [persistent-tunables-begin]
#: Threads of the single block: the most a block may have, for the widest levels.
SB_BLOCK_SIZE = 1024

#: Entries of each of the single block's two queues (32 bytes per entry for the pair;
#: 8 with rows).
#: Road networks and meshes have at most a few thousand vertices in a level.
SB_CAPACITY = 2048

#: The most edges a level may have for the single block to expand it: 16 per thread.
#: Past that the grid, with a hundred times the threads, takes the level.
SB_EDGE_LIMIT = 16 * 1024

#: Edges a thread of the single block loads before it claims any, so that their loads
#: are in flight together.
EDGE_BATCH = 4

#: The single block gathers a level by warps (a warp takes a slot per lane, then the
#: edges of those lists, a lane per edge), instead of a thread per edge of the whole
#: level, while no vertex of the frontier has more edges than this (0: never). Road
#: networks have at most 8, meshes 4; a hub would keep one warp busy while the others
#: wait.
VP_MAX_DEGREE = 16

#: ... and while the frontier has at least this many vertices: a narrower level leaves
#: most warps without a slot, and the whole block, a thread per edge, takes it in fewer
#: trips. On the H100 (chapter 5) 256 was 1-2 % faster than by warps at every width on
#: Delaunay 2^20 and 2^22, 1024 no faster, and a thread per edge at every width 4-7 %
#: slower (graphs read as rows, the roads and the grid, never take this path).
VP_MIN_VERTICES = 256

#: A graph whose every vertex has at most this many edges (a road network, a mesh) is
#: read by the single block as rows: each vertex's neighbours padded to a fixed width,
#: the smallest power of two that holds the largest degree (``rows=None``).
ROW_WIDTH_MAX = 8

#: The widest rows the single block can read (``rows=True``): 128 bytes a row.
ROW_WIDTH_LIMIT = 32

#: Where a row holds at most half its width in most warps (``row_halves=None``): the
#: share of warps, of a frontier drawn at random, whose lanes' vertices all have at most
#: half the row width's edges, at or above which the single block reads the upper halves
#: of its rows only in the warps that have entries there. A road network's rows of 8
#: hold two or three neighbours (a few vertices in a thousand have more than four); a
#: grid's rows of 4 are full.
ROW_HALVES_SKIP = 0.5

#: Rows a thread of the single block loads before it claims any (with rows): a level
#: wider than the block is then one chain of loads, not one per SB_BLOCK_SIZE slots.
ROW_BATCH = 1

#: Pairs of kernels (single block, grid) queued between two read-backs of the Control
#: record: each kernel of a pair either runs levels or returns at once.
ROUNDS = 2
# [persistent-tunables-end]

#: Threads per block of persistent_flush.
FLUSH_BLOCK_SIZE = 256

#: Threads per block of the grid kernel: as many as a block may have. A grid barrier
#: costs more the more blocks take part (the runtime chapter measures it), so the grid
#: is a few large blocks; step 4's thresholds and local queues follow the block size.
BLOCK_SIZE = 1024

#: Static shared memory the single kernel needs beyond step 4's local queues: its
#: counters, and what the compiler reserves (1 KiB per block on recent NVIDIA GPUs).
SB_STATIC_EXTRA = 2048

# [persistent-control-py-begin]
#: The Control record (persistent_records.h), field for field; ``align=True`` lays it out as a
#: C compiler does (tests/test_kernel_structure.py checks it against the header). And
#: its modes.
CONTROL = np.dtype([
    ("mode", "<u4"), ("level", "<i4"), ("source", "<i4"), ("enqueued", "<u4"),
    ("pieces", "<u4"), ("previous", "<u4"), ("visited_edges", "<u8"), ("log_to", "<u4"),
    ("log_level", "<i4"), ("grid_ns", "<u4"), ("slow_vertices", "<u4"),
    ("switch_ns", "<u4"), ("hand_backs", "<u4"),
], align=True)
#: Where :meth:`numpy.ndarray.item` puts the fields the host loop reads.
CONTROL_MODE, CONTROL_LEVEL, CONTROL_ENQUEUED, CONTROL_PIECES, CONTROL_HAND_BACKS = (
    CONTROL.names.index(name)
    for name in ("mode", "level", "enqueued", "pieces", "hand_backs"))
# [persistent-control-py-end]

# [persistent-args-py-begin]
#: The kernels' arguments (PersistentArgs in persistent_records.h), field for field: a device
#: address is 8 bytes, and ``align=True`` lays the record out as a C compiler does.
ARGS = np.dtype([
    ("offsets", "<u8"), ("edges", "<u8"), ("records", "<u8"), ("rows", "<u8"),
    ("levels", "<u8"), ("parents", "<u8"), ("global_bitmap", "<u8"), ("control", "<u8"),
    ("smalls", "<u8"), ("mediums", "<u8"), ("larges", "<u8"), ("counts", "<u8"),
    ("overflow", "<u8"), ("stamps", "<u8"), ("log", "<u8"), ("log_levels", "<u8"),
    ("n", "<i4"), ("large_capacity", "<u4"), ("overflow_capacity", "<u4"),
    ("stamp_capacity", "<u4"), ("max_levels", "<i4"),
], align=True)
# [persistent-args-py-end]
MODE_SINGLE, MODE_GRID, MODE_DONE, MODE_RUNAWAY, MODE_FAILED = 1, 2, 3, 4, 5
#: The single block's `start` argument for a launch that carries on from the Control
#: record (the first launch of a search passes the source instead).
CARRY_ON = np.int32(-1)

#: A LevelStamp's kernel field for a single-block level gathered by warps, and read as
#: rows.
STAMP_SINGLE_BY_WARP, STAMP_SINGLE_BY_ROW = 7, 8

#: What a profile run records at the start of each level (LevelStamp in persistent_records.h).
LEVEL_STAMP = np.dtype([("clock", "<u8"), ("kernel", "<u4"), ("entries", "<u4")])

#: An edge with its target's adjacency list (EdgeRecord in persistent_records.h): 16 bytes.
EDGE_RECORD = np.dtype([("vertex", "<i4"), ("degree", "<u4"), ("begin", "<i8")])


def tunables(warp_size: int, block_size: int = BLOCK_SIZE, sb_block_size: int = SB_BLOCK_SIZE,
             sb_capacity: int = SB_CAPACITY, sb_edge_limit: int = SB_EDGE_LIMIT,
             edge_batch: int = EDGE_BATCH, shared_bitmap: bool = True,
             edge_records: bool = True, hand_back: bool = True,
             vp_max_degree: int = VP_MAX_DEGREE, vp_min_vertices: int = VP_MIN_VERTICES,
             row_width: int = 0, log: bool = False, row_batch: int = ROW_BATCH,
             measured_handover: bool = False, row_halves: bool = False, **grid) -> dict:
    """The ``-D`` macros of both kernels: step 4's for the grid (``grid`` takes its
    ``warp_threshold``, ``block_threshold``, ``block_piece``, ``local_small`` and
    ``local_medium``), and the single block's. ``measured_handover`` is step 7's (its grid
    measures what a level costs it; step 5's grid does not)."""
    defines = balanced.tunables(warp_size, block_size, **grid)
    defines.update(SB_BLOCK_SIZE=sb_block_size, SB_CAPACITY=sb_capacity,
                   SB_EDGE_LIMIT=sb_edge_limit, EDGE_BATCH=edge_batch,
                   SHARED_BITMAP=int(bool(shared_bitmap)), EDGE_RECORDS=int(bool(edge_records)),
                   HAND_BACK=int(bool(hand_back)), VP_MAX_DEGREE=vp_max_degree,
                   VP_MIN_VERTICES=vp_min_vertices, SB_ROW_WIDTH=row_width, SB_LOG=int(bool(log)),
                   SB_ROW_BATCH=row_batch, MEASURED_HANDOVER=int(bool(measured_handover)),
                   SB_ROW_HALVES=int(bool(row_halves)))
    return defines


def row_width(graph: CSRGraph, rows: bool | None) -> int:
    """The width of the single block's rows (0: none): the smallest power of two that
    holds every vertex's edges, where ``rows`` asks for them (``None``: where that is at
    most ROW_WIDTH_MAX)."""
    if rows is False:
        return 0
    most = int(graph.degrees().max()) if graph.num_vertices else 0
    width = 1 << max(most - 1, 0).bit_length()
    if rows is None:
        return width if width <= ROW_WIDTH_MAX else 0
    if width > ROW_WIDTH_LIMIT:
        raise RodiniaBFSError(f"rows need every degree to be at most {ROW_WIDTH_LIMIT}; this "
                              f"graph has a vertex "
                              f"of {most} edges")
    return width


def rows_by_halves(graph: CSRGraph, width: int, warp_size: int, halves: bool | None) -> bool:
    """Whether the single block reads the upper halves of its rows (entries ``width // 2``
    on) only in the warps that have entries there (``SB_ROW_HALVES``): where ``halves``
    asks for it (rows of at least 2 entries), or (``None``) where at least
    ROW_HALVES_SKIP of the warps would skip them: every lane's vertex of at most
    ``width // 2`` edges, ``(1 - p) ** warp_size`` of them where a share ``p`` of the
    vertices has more."""
    if halves is not None:
        if halves and width < 2:
            raise RodiniaBFSError(f"row_halves needs rows of at least 2 entries (rows of {width})")
        return bool(halves)
    if width < 2:
        return False
    upper = np.count_nonzero(graph.degrees() > width // 2) / max(graph.num_vertices, 1)
    return (1.0 - upper) ** warp_size >= ROW_HALVES_SKIP


def graph_defaults(graph: CSRGraph | None, warp_size: int) -> dict:
    """The tunables that depend on the graph, as the step chooses them by default: rows
    (and the log with them, and no edge records) where the degrees allow, their halves
    where most warps' rows are half empty."""
    width = row_width(graph, None) if graph is not None else 0
    halves = rows_by_halves(graph, width, warp_size, None) if graph is not None else False
    return dict(edge_records=not width, row_width=width, log=bool(width), row_halves=halves)


def build_rows(graph: CSRGraph, width: int, halves: bool = False) -> np.ndarray:
    """Row v: vertex v's neighbours, padded with -1 to ``width`` entries (Row in
    persistent_records.h); with ``halves``, entry ``width // 2 - 1`` of a vertex of more
    than ``width // 2`` neighbours has its top bit set (ROW_MORE_BIT). The step builds the
    same on the device (:func:`~rodinia_bfs.graph_prep.device_rows`); this is the
    reference."""
    n = graph.num_vertices
    rows = np.full((max(n, 1), width), -1, np.int32)
    degrees = graph.degrees()
    owner = np.repeat(np.arange(n), degrees)
    position = np.arange(graph.num_edges) - np.repeat(graph.offsets[:-1], degrees)
    rows[owner, position] = graph.targets
    if halves and width >= 2:
        more = np.flatnonzero(degrees > width // 2)
        rows[more, width // 2 - 1] |= np.int32(-2**31)
    return rows


def build_edge_records(graph: CSRGraph) -> np.ndarray:
    """Each edge with where its target's list begins and how long it is. The step
    builds the same on the device (:func:`~rodinia_bfs.graph_prep.device_edge_records`);
    this is the reference."""
    targets = graph.targets.astype(np.int64)
    records = np.empty(graph.num_edges, EDGE_RECORD)
    records["vertex"] = graph.targets
    records["begin"] = graph.offsets[targets]
    records["degree"] = graph.offsets[targets + 1] - graph.offsets[targets]
    return records


def start_queues(starts: np.ndarray, degrees: np.ndarray, defines: dict) -> list[np.ndarray]:
    """The start vertices of a search from several, as level 0 of the grid's queues: the
    small ids, the medium ids, and the (vertex, piece) pairs of the large ones (int32),
    each vertex in the queue its degree says, as step 4's kernel would have put it."""
    degree = degrees[starts]
    small = starts[degree < defines["WARP_THRESHOLD"]]
    medium = starts[(degree >= defines["WARP_THRESHOLD"]) & (degree < defines["BLOCK_THRESHOLD"])]
    large = starts[degree >= defines["BLOCK_THRESHOLD"]]
    pieces = balanced.pieces_of(degrees[large], defines["BLOCK_THRESHOLD"], defines["BLOCK_PIECE"])
    pairs = np.empty((int(pieces.sum()), 2), np.int32)
    pairs[:, 0] = np.repeat(large, pieces)
    pairs[:, 1] = np.arange(len(pairs)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    return [small, medium, pairs.reshape(-1)]


class PersistentBFS(GPUStep):
    """The levels run on the device: a single block while the frontier is small, the
    whole grid (launched cooperatively) while it is large; the host waits once."""

    name = "persistent"
    kernel_file = "persistent.hip"
    #: The kernel that runs the levels of a large frontier.
    grid_kernel = "persistent_grid"
    returns_parents = True
    # ``iterations`` is the number of levels the kernels ran, as in the steps before,
    # although the host loop goes round once per batch of kernels, not once per level.
    one_level_per_iteration = True
    # Several sources and a depth limit: the host stages the start (_reset_many), the
    # kernels stop at the record's max_levels.
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return tunables(warp_size, **graph_defaults(graph, warp_size))

    # [persistent-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE,
                 sb_block_size: int = SB_BLOCK_SIZE, sb_capacity: int | None = None,
                 sb_edge_limit: int = SB_EDGE_LIMIT, edge_batch: int = EDGE_BATCH,
                 shared_bitmap: bool | None = None, edge_records: bool = True,
                 hand_back: bool = True, vp_max_degree: int = VP_MAX_DEGREE,
                 vp_min_vertices: int = VP_MIN_VERTICES, rows: bool | None = None,
                 log: bool | None = None, rounds: int = ROUNDS,
                 max_grid_blocks: int | None = None, row_batch: int = ROW_BATCH,
                 row_halves: bool | None = None, **grid):
        """``sb_capacity=None`` takes the default, or less where the device's shared
        memory is smaller; ``shared_bitmap=None`` puts the visited bitmap in shared
        memory where it fits; ``rows=None`` reads the graph as rows where its degrees
        allow (:func:`row_width`); ``log=None`` logs the single block's finds (for
        ``persistent_flush``) where it reads rows; ``row_batch`` rows a thread loads at
        once; ``row_halves=None`` reads the upper halves of the rows only in the warps
        that have entries there, where most warps have none (:func:`rows_by_halves`).
        ``grid`` holds step 4's tunables for the grid kernel (and, from step 7,
        ``measured_handover``)."""
        super().__init__(device, graph)
        n = graph.num_vertices
        self._check_options(device, sb_block_size, sb_edge_limit, edge_batch, rounds,
                            max_grid_blocks)
        if min(vp_max_degree, vp_min_vertices) < 0:
            raise RodiniaBFSError(f"vp_max_degree and vp_min_vertices must be at least 0, got "
                                  f"{vp_max_degree} and {vp_min_vertices}")
        width = row_width(graph, rows)
        if row_batch < 1 or row_batch * max(width, 1) > 32:
            raise RodiniaBFSError(f"row_batch must be at least 1 and row_batch times the row "
                                  f"width ({width}) at most 32, got {row_batch}")
        halves = rows_by_halves(graph, width, device.warp_size, row_halves)
        edge_records = edge_records and not width  # rows hold what the records would
        log = bool(width) if log is None else bool(log)
        defines = tunables(device.warp_size, block_size, sb_block_size, SB_CAPACITY,
                           sb_edge_limit, edge_batch, True, edge_records, hand_back,
                           vp_max_degree, vp_min_vertices, width, log, row_batch,
                           row_halves=halves, **grid)
        balanced.BalancedBFS._check_tunables(device, defines, 1)
        capacity, in_shared, self.dynamic_shared = self._plan_shared_memory(
            device, defines, sb_capacity, shared_bitmap)
        defines.update(SB_CAPACITY=capacity, SHARED_BITMAP=int(in_shared))
        self.defines = defines
        self.block_size, self.sb_block_size, self.rounds = block_size, sb_block_size, rounds
        self.sb_capacity, self.shared_bitmap, self.row_width = capacity, in_shared, width
        self.log = log
        degrees = graph.degrees()
        if edge_records and degrees.size and int(degrees.max()) >= 2**32:
            raise RodiniaBFSError("edge_records needs every degree below 2^32")
        # Each large vertex enters the grid's large queue once per BFS, as all its pieces.
        pieces = balanced.pieces_of(degrees, defines["BLOCK_THRESHOLD"], defines["BLOCK_PIECE"])
        self.large_capacity = max(int(pieces.sum()), 1)
        self.overflow_capacity = max(min(n, sb_edge_limit), 1)
        # offsets (8 B), levels, parents, two small and two medium queues (4 B each),
        # the overflow and the bitmap per vertex, its row and its log entry (8 B, and 4 B
        # of the log's level index); an edge (4 B) and its record (16 B); two large
        # queues of 8-byte pieces.
        check_fits(device, graph,
                   bytes_per_vertex=(37 + 4 * width + 12 * log
                                     + ceil_div(16 * self.large_capacity, max(n, 1))),
                   bytes_per_edge=20 if edge_records else 4)
        module = self._compile(defines)
        self.single = module.get_function("persistent_single")
        self.grid = module.get_function(self.grid_kernel)
        self.flush = module.get_function("persistent_flush")
        blocks = device.cooperative_grid(self.grid, block_size)
        self.grid_blocks = min(blocks, max_grid_blocks or blocks)

        self.offsets = self._upload(graph.offsets)  # hipMalloc + hipMemcpy
        self.edges = self._upload(graph.targets)
        # Each edge with its target's list, or the rows: built on the device from the two
        # arrays (graph_prep.py; build_edge_records and build_rows are the host's way).
        on_device = DeviceGraph(self.offsets, self.edges, n, graph.num_edges)
        self.records = (device_edge_records(device, on_device, self._memory) if edge_records
                        else self._upload(np.zeros(1, EDGE_RECORD)))
        self.rows = (device_rows(device, on_device, width, self._memory, halves) if width
                     else self._upload(np.zeros(1, np.int32)))
        # The single block's log (SB_LOG): a LogEntry per vertex, and where each level's
        # entries begin.
        self.log_entries = self._alloc(8 * n if log else 8)
        self.log_levels = self._alloc(4 * (n + 2) if log else 4)
        # Levels and parents in one allocation, and the bitmap with the grid barriers in
        # another, so that the reset is one memset each.
        self.levels_and_parents = self._alloc(8 * n)
        self.levels = self.levels_and_parents.view(0, 4 * n)  # level_t, -1 until claimed
        self.parents = self.levels_and_parents.view(4 * n, 4 * n)  # vertex_t: who claimed it
        bitmap_bytes = 4 * ceil_div(n, 32)
        self.cleared = self._alloc(bitmap_bytes + GRID_BARRIER_BYTES * rounds)
        self.bitmap = self.cleared.view(0, bitmap_bytes)  # visited, one bit per vertex
        # The grid's queues, two of each (this level's and the next), three counter sets.
        self.smalls = self._alloc(2 * 4 * n)
        self.mediums = self._alloc(2 * 4 * n)
        self.larges = self._alloc(2 * 8 * self.large_capacity)
        self.counts = self._alloc(3 * len(balanced.QUEUES) * balanced.COUNTER_STRIDE * 4)
        self.overflow = self._alloc(4 * self.overflow_capacity)  # the single block's spill
        self.control = self._alloc(CONTROL.itemsize)  # the Control record
        # A GridBarrier per grid launch of a batch. A barrier is as good as new after any
        # number of whole crossings, so one memset per search does for every batch.
        self.barriers = self.cleared.view(bitmap_bytes, GRID_BARRIER_BYTES * rounds)
        self.stamps = None  # device clock per level, allocated by the first profile run
        self._launches = {}  # profile or not -> the kernels' prepared launches (_host_loop)
        self._cleared = False  # bitmap and barriers zeroed (by the first reset)
        self.no_stamps = self._alloc(LEVEL_STAMP.itemsize)
        # The kernels' argument records, passed by value: one for timed searches, one for
        # profiled ones (their stamps differ), filled in by _arguments.
        self.args = np.zeros(2, ARGS)
        self.args["max_levels"] = self._levels_limit = NO_DEPTH_LIMIT
        self._record(False, self.no_stamps, 0)
        # With SB_LOG, the whole GPU writes out what the single block logged
        # (persistent_flush): the same launch behind every launch of the single block.
        self._flush_launch = device.prepare_launch(
            self.flush, device.cooperative_grid(self.flush, FLUSH_BLOCK_SIZE), FLUSH_BLOCK_SIZE,
            [self._record_of(False)]) if log else None
        # Pinned host memory: the Control record comes back there.
        self.h_control = device.host_malloc(1, CONTROL)
        self._staged_start = None  # pinned, for _reset_many: allocated by the first one
    # [persistent-setup-end]

    @staticmethod
    def _check_options(device, sb_block_size, sb_edge_limit, edge_batch, rounds, max_grid_blocks):
        warp = device.warp_size
        most = device.max_threads_per_block
        if not warp <= sb_block_size <= most or sb_block_size % warp:
            raise RodiniaBFSError(f"sb_block_size must be a multiple of the warp size ({warp}) "
                                  f"up to {most}, got {sb_block_size}")
        if not 0 <= sb_edge_limit < 2**20:
            raise RodiniaBFSError(f"sb_edge_limit must be 0..{2**20 - 1}, got {sb_edge_limit}")
        if not 1 <= edge_batch <= 32:
            raise RodiniaBFSError(f"edge_batch must be 1..32, got {edge_batch}")
        if rounds < 1:
            raise RodiniaBFSError(f"rounds must be at least 1, got {rounds}")
        if max_grid_blocks is not None and max_grid_blocks < 1:
            raise RodiniaBFSError(f"max_grid_blocks must be at least 1, got {max_grid_blocks}")

    # [persistent-plan-begin]
    def _plan_shared_memory(self, device, defines, capacity, shared_bitmap) -> tuple[int, bool, int]:
        """The single block's queue capacity, whether its bitmap is in shared memory, and
        the dynamic shared memory of its launch, within what a block may have on this
        device. The queues take 32 bytes per entry (8 with rows: the vertex alone), the
        bitmap one bit per vertex; step 4's local queues (for a hand-over) are static."""
        budget = device.max_shared_memory_per_block
        static = 4 * (defines["LOCAL_SMALL"] + defines["LOCAL_MEDIUM"]) + SB_STATIC_EXTRA
        entry = 8 if defines["SB_ROW_WIDTH"] else 32
        bitmap = 4 * ceil_div(self.graph.num_vertices, 32)
        if capacity is None:  # the default, halved until the queues fit
            capacity = SB_CAPACITY
            while capacity > 1 and static + entry * capacity > budget:
                capacity //= 2
        if capacity < 1 or static + entry * capacity > budget:
            raise RodiniaBFSError(
                f"sb_capacity {capacity} needs {static + entry * capacity:,} bytes of shared "
                f"memory; a block of {device.name} may have {budget:,}")
        fits = static + entry * capacity + bitmap <= budget
        if shared_bitmap and not fits:
            raise RodiniaBFSError(
                f"the visited bitmap of {self.graph.num_vertices:,} vertices ({bitmap:,} bytes) "
                f"and queues of {capacity} entries do not fit the {budget:,} bytes of shared "
                f"memory of a block of {device.name}; use shared_bitmap=False")
        in_shared = fits if shared_bitmap is None else bool(shared_bitmap)
        return capacity, in_shared, entry * capacity + (bitmap if in_shared else 0)
    # [persistent-plan-end]

    def _reset(self, source: int) -> None:
        """Start state: every level and parent -1, nothing visited, the source at level
        0, and the single block's turn."""
        dev, s = self.device, self.stream
        dev.memset(self.levels_and_parents, 0xFF, stream=s)  # every int32 is -1
        # The single block clears the visited bitmap when it starts at level 0, and a grid
        # barrier is as good as new after whole crossings: the bitmap and the barriers are
        # zeroed only before the first search and after a search that failed.
        if not self._cleared:
            dev.memset(self.cleared, 0, stream=s)
        # The Control record is the single block's to write: the first launch of a
        # search gives it the source (_host_loop), and it starts at level 0 from there.
        self.source = source

    # [persistent-reset-many-begin]
    def _reset_many(self, starts: np.ndarray) -> None:
        """Start state of a search from several vertices, staged by the host as a
        hand-back at level 0 would leave it: the levels and parents, the start vertices
        in the grid's queues of level 0 with their counts, and a Control record that
        gives level 0 to the single block or to the grid (:meth:`_single_block_starts`).
        For the single block, the visited bitmap holds the starts."""
        dev, s = self.device, self.stream
        levels, parents, _ = self._start_state(starts)
        if not self._cleared:
            dev.memset(self.cleared, 0, stream=s)  # the grid barriers (and the bitmap)
        n = self.graph.num_vertices
        dev.memcpy_htod_async(self.levels.view(0, 4 * n), levels, s)
        dev.memcpy_htod_async(self.parents.view(0, 4 * n), parents, s)
        degrees = self.graph.degrees()
        single = self._single_block_starts(starts, degrees)
        # The single block reads small and medium queues alike: all the starts go to the
        # small one. The grid reads each queue its own way: each start goes where its
        # degree says.
        queues = ([starts, starts[:0], starts[:0]] if single
                  else start_queues(starts, degrees, self.defines))
        control = np.zeros(1, CONTROL)
        control["mode"] = MODE_SINGLE if single else MODE_GRID
        control["source"] = -1
        counts = np.zeros((3, len(balanced.QUEUES), balanced.COUNTER_STRIDE), np.uint32)
        counts[0, :, 0] = [queues[0].size, queues[1].size, queues[2].size // 2]
        words = ceil_div(n, 32)
        parts = [*queues, counts.reshape(-1), control.view(np.int32)]
        if single:
            parts.append(bitmap_of(starts, words).view(np.int32))
        need = sum(part.size for part in parts)
        if self._staged_start is None or self._staged_start.size < need:
            self._staged_start = dev.host_malloc(need, np.int32)
        at = 0
        targets = [self.smalls, self.mediums, self.larges, self.counts, self.control,
                   self.bitmap]
        for part, target in zip(parts, targets):
            staged = self._staged_start[at:at + part.size]
            staged[:] = part
            at += part.size
            if part.size:
                dev.memcpy_htod_async(target.view(0, 4 * part.size), staged, s)
        # The single block's first launch carries on from the Control record.
        self.source = int(CARRY_ON)

    def _single_block_starts(self, starts: np.ndarray, degrees: np.ndarray) -> bool:
        """Whether the single block takes level 0 of a search from ``starts``, as it takes
        a source: where they fit it by the rule it applies to every level (no more than
        its queue holds, no more edges than its limit, counted as it counts them: a
        row's width each with rows), which sends a larger level 0 to the grid."""
        limit = self.defines["SB_EDGE_LIMIT"]
        edges = (starts.size * self.row_width if self.row_width
                 else int(np.minimum(degrees[starts], limit + 1).sum()))
        return starts.size <= self.sb_capacity and edges <= limit
    # [persistent-reset-many-end]

    def _record_of(self, profile: bool) -> np.ndarray:
        """The argument record for timed (0) or profiled (1) searches: one element that
        a launch passes by value."""
        return self.args[int(profile):int(profile) + 1]

    def _record(self, profile: bool, stamps, stamp_capacity: int) -> None:
        """Fill in the argument record of timed or profiled searches."""
        record = self._record_of(profile)
        buffers = dict(offsets=self.offsets, edges=self.edges, records=self.records,
                       rows=self.rows, levels=self.levels, parents=self.parents,
                       global_bitmap=self.bitmap, control=self.control, smalls=self.smalls,
                       mediums=self.mediums, larges=self.larges, counts=self.counts,
                       overflow=self.overflow, stamps=stamps, log=self.log_entries,
                       log_levels=self.log_levels)
        for field, buffer in buffers.items():
            record[field] = buffer.ptr  # a device address
        record["n"] = self.graph.num_vertices
        record["large_capacity"] = self.large_capacity
        record["overflow_capacity"] = self.overflow_capacity
        record["stamp_capacity"] = stamp_capacity

    def _arguments(self, stamps, stamp_capacity):
        """The launches' arguments: the record, and the single block's start (the last:
        _host_loop sets it), or the grid's barrier."""
        profile = self._profile
        self._record(profile, stamps, stamp_capacity)
        single = [self._record_of(profile), CARRY_ON]
        grid = [(self._record_of(profile), self._barrier(r)) for r in range(self.rounds)]
        return single, grid

    def _barrier(self, r: int):
        """The GridBarrier of the r-th grid launch of a batch."""
        return self.barriers.view(GRID_BARRIER_BYTES * r, GRID_BARRIER_BYTES)

    def search(self, source: int | None, profile: bool = False, *, sources=None,
               depth_limit: int | None = None) -> BFSResult:
        """The contract's search; with ``profile=True`` the level times come from the
        device clock (the levels run on the device: no host event falls between them)."""
        self._profile = profile
        outcome = super().search(source, profile=profile, sources=sources,
                                 depth_limit=depth_limit)
        if profile:
            outcome.level_times_ms = self._level_times(outcome.iterations)
        return outcome

    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        dev, stream = self.device, self.stream
        n = self.graph.num_vertices
        if self._profile and self.stamps is None:
            # A LevelStamp per level, and one for the end.
            self.stamps = self._alloc(LEVEL_STAMP.itemsize * (n + 1))
        # The arguments are the same for every search but for the single block's last,
        # `start`: the launches are prepared once for timed searches and once for
        # profiled ones (Device.prepare_launch).
        if self._profile not in self._launches:
            stamps, capacity = (self.stamps, n + 1) if self._profile else (self.no_stamps, 0)
            single_args, grid_args = self._arguments(stamps, capacity)
            self._launches[self._profile] = (
                dev.prepare_launch(self.single, 1, self.sb_block_size, single_args,
                                   shared_mem=self.dynamic_shared),
                [dev.prepare_launch(self.grid, self.grid_blocks, self.block_size, args,
                                    cooperative=True) for args in grid_args])
        single, grids = self._launches[self._profile]
        self._limit_levels()

        # [persistent-host-loop-begin]
        reached = -1  # the level the last batch stopped at
        #: How many times the host waited for the device in the last search.
        self.last_host_waits = 0
        self._cleared = False  # until this search has ended well
        # The first launch starts the search from the source, or (-1, several sources)
        # carries on from the Control record that _reset_many wrote.
        start = np.int32(self.source)
        while True:
            self._queue_batch(single, grids, start)
            start = CARRY_ON  # every later batch carries on
            dev.memcpy_dtoh_async(self.h_control, self.control, stream)
            stream.synchronize()  # the one wait of a batch: where did the kernels stop?
            self.last_host_waits += 1
            # The whole record as Python ints at once (a field read of a record array
            # costs the host about as much as the levels of a small search take).
            control = self.h_control.item()
            mode, level = control[CONTROL_MODE], control[CONTROL_LEVEL]
            if mode == MODE_DONE:
                self._last_control = control
                break
            if mode == MODE_RUNAWAY:  # the kernels' guard: what a working BFS cannot reach
                enqueued, pieces = control[CONTROL_ENQUEUED], control[CONTROL_PIECES]
                self._runaway_guard(level, level, n - 1, "levels")
                self._runaway_guard(level, enqueued, n, "vertices enqueued")
                self._runaway_guard(level, pieces, self.large_capacity, "pieces enqueued")
                raise DeviceError(f"{self.name} BFS did not finish after {level} levels: "
                                  "the single block's queues overflowed")
            if mode == MODE_FAILED:  # a grid barrier gave up: the barrier says why
                for r in range(self.rounds):
                    dev.check_grid_barrier(self._barrier(r), self.grid.name)
            # A kernel whose turn it is runs at least one level, so a batch that ends
            # where the last one did means a bug.
            if mode == MODE_FAILED or level <= reached:
                raise DeviceError(f"{self.name} BFS made no progress past level {level}")
            reached = level
        # [persistent-host-loop-end]
        self._cleared = True
        return BFSResult(iterations=level)

    def _limit_levels(self) -> None:
        """The search's depth limit into the argument records, where the kernels check it
        before each level. A launch reads its record when it is queued; the value changes
        only with the depth_limit."""
        if self._levels_limit != self.max_levels:  # kept on the host: a field read costs
            self.args["max_levels"] = self._levels_limit = self.max_levels

    # [persistent-batch-begin]
    def _queue_batch(self, single, grids, start) -> None:
        """One batch: the single block, then the grid, ``rounds`` times. The first launch
        of a search has ``start``, its source, and starts it; every other launch carries
        on from the Control record (start -1), or returns at once if it is not its turn."""
        for grid_launch in grids:
            single[-1], start = start, CARRY_ON
            self._launch_single(single)
            grid_launch(self.stream)

    def _launch_single(self, single) -> None:
        """The single block, and with SB_LOG the flush that writes out its log behind it."""
        single(self.stream)
        if self.log:
            self._flush_launch(self.stream)
    # [persistent-batch-end]

    # [persistent-profile-begin]
    def _level_times(self, iterations: int) -> list[float]:
        """Milliseconds of each level, from the device clock: stamp L is taken when level
        L starts, stamp ``iterations`` when the search ends (``device.clock_rate_hz``
        ticks a second). Also keeps which kernel ran each level, and its queue entries,
        in ``last_profile``."""
        stamps = self.device.from_device(self.stamps, iterations + 1, LEVEL_STAMP)
        kernels = {MODE_SINGLE: "single", STAMP_SINGLE_BY_WARP: "single",
                   STAMP_SINGLE_BY_ROW: "single", MODE_GRID: "grid"}
        expansions = {MODE_SINGLE: "edge", STAMP_SINGLE_BY_WARP: "warp",
                      STAMP_SINGLE_BY_ROW: "row", MODE_GRID: "grid"}
        ran = stamps["kernel"][:iterations].tolist()
        #: Per level of the last profile run: the kernel that ran it, its queue entries
        #: (vertices for the single block; small, medium and large pieces for the grid),
        #: and how the single block shared the level out (a thread per ``"edge"`` or per
        #: ``"vertex"``; ``"grid"`` for the grid's levels).
        self.last_profile = {
            "kernel": [kernels.get(int(k), "?") for k in ran],
            "entries": stamps["entries"][:iterations].tolist(),
            "expansion": [expansions.get(int(k), "?") for k in ran],
        }
        ticks = np.diff(stamps["clock"].astype(np.int64))
        return (ticks * (1000.0 / self.device.clock_rate_hz)).tolist()
    # [persistent-profile-end]    # [persistent-profile-end]
