"""Step 8: BFS over several GPUs (host side).

The kernels are in ``hip_kernels/multi_gpu.hip``. One process drives every GPU. The
graph is cut by a partition policy (:mod:`rodinia_bfs.partition`) and each GPU holds
only the edges it owns, plus the state of every vertex. A level is

1. on each GPU, top-down over its own frontier (step 4's gathers), then a kernel that
   turns what it discovered into bits of a bitmap;
2. one collective: an all-gather of the bitmaps (NCCL on NVIDIA, RCCL on AMD, an
   in-process stand-in on the cpu emulator);
3. on each GPU, a merge: the vertices the others found take their level here, and
   those this GPU has edges of join its next frontier.

The host reads one counter set per GPU per level, to see whether anything is left.
At the end one more collective (a max-reduce) combines the parents each GPU found
onto the first GPU. With one GPU there is no exchange: the same expand kernel runs
alone, which is the baseline the speed-up is measured against.

With ``direction="auto"`` (or ``"pull"``) the search is direction-optimizing, as step 6:
before each level the host applies Beamer's rule to the counts the merges left next to
the queue counters, and in a bottom-up level step 6's sweep over the unvisited vertices
each GPU masters takes the place of the expand and the mark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rodinia_bfs.collective import Collective, open_collective
from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.partition import (DEFAULT_POLICY, Partition, PartitionPlan, masters_lists,
                                   partition)
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime import get_device
from rodinia_bfs.runtime.base import Device, ceil_div
from rodinia_bfs.variants.balanced import BLOCK_SIZE, COUNTER_STRIDE, QUEUES, BalancedBFS, tunables
from rodinia_bfs.variants.base import DeviceMemory, GPUStep, LevelTimer
from rodinia_bfs.variants.push_pull import ALPHA, BETA, BU_PROBE, bottom_up_inputs

#: Emulated devices the cpu backend uses when no GPU count is given: enough to exchange.
CPU_DEFAULT_GPUS = 2

#: How GPUs tell each other what they discovered: ``bitmap`` (an all-gather of a bit per
#: vertex) or ``queue`` (send/receive pairs of vertex ids, to the GPUs that hold them).
EXCHANGES = ("bitmap", "queue")
DEFAULT_EXCHANGE = "bitmap"

#: Which way the levels go: ``push`` (top-down, every level), ``pull`` (bottom-up,
#: every level) or ``auto`` (Beamer's rule with step 6's ALPHA and BETA, level by level).
DIRECTIONS = ("push", "pull", "auto")
DEFAULT_DIRECTION = "push"

#: One set of counters on the device: the three queue counters, then a line with the
#: tally of the next frontier (two bfs_u64: its vertices and their out-edges), which the
#: merge of a direction-optimizing search counts. Where the tally starts, in bfs_u32.
TALLY_AT = len(QUEUES) * COUNTER_STRIDE
COUNTER_SET_BYTES = (len(QUEUES) + 1) * COUNTER_STRIDE * 4

#: The merge's flags (multi_gpu.hip): keep and count the frontier bitmap; the level was
#: bottom-up.
MERGE_FRONTIER, MERGE_AFTER_PULL = 1, 2


def open_devices(first: Device, gpus: int | None) -> list[Device]:
    """``first`` and ``gpus - 1`` more devices of its backend (every visible GPU when
    ``gpus`` is None; two emulated devices on the cpu backend)."""
    if first.backend == "cpu":
        gpus = CPU_DEFAULT_GPUS if gpus is None else gpus
        if gpus < 1:
            raise RodiniaBFSError(f"--gpus must be at least 1, got {gpus}")
        return [first] + [get_device("cpu", warp_size=first.warp_size, workers=first.workers,
                                     sanitize=first.sanitize) for _ in range(gpus - 1)]
    if gpus is not None and gpus < 1:
        raise RodiniaBFSError(f"--gpus must be at least 1, got {gpus}")
    devices, k = [first], 0
    while gpus is None or len(devices) < gpus:
        k += int(k == first.device_id)  # the first device is in the list already
        try:
            devices.append(get_device(first.backend, device_id=k))
        except DeviceError as exc:
            if gpus is None:
                break
            raise DeviceError(f"--gpus {gpus}: only {len(devices)} {first.backend} GPU(s) "
                              f"are visible ({exc})") from None
        k += 1
    first.activate()
    return devices


def format_size(nbytes: float) -> str:
    if nbytes >= 2**30:
        return f"{nbytes / 2**30:.2f} GiB"
    if nbytes >= 2**20:
        return f"{nbytes / 2**20:.1f} MiB"
    return f"{nbytes / 2**10:.1f} KiB" if nbytes >= 2**10 else f"{int(nbytes)} bytes"


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def size(text: str) -> int:
    """Bytes from ``"8GiB"``, ``"512M"``, ``"1.5G"`` or a plain number (``--gpu-memory-limit``)."""
    value = str(text).strip().upper().removesuffix("B").removesuffix("I")
    unit = value[-1:] if value[-1:] in _UNITS else ""
    number = float(value[: len(value) - len(unit)])
    if not number > 0:
        raise ValueError(f"a memory size must be positive, got {text!r}")
    return int(number * _UNITS[unit])


def pieces(degrees, defines: dict) -> np.ndarray:
    """Pieces each vertex takes in a large queue (step 4's rule)."""
    degrees = np.asarray(degrees, dtype=np.int64)
    return np.where(degrees >= defines["BLOCK_THRESHOLD"], -(-degrees // defines["BLOCK_PIECE"]), 0)


@dataclass(frozen=True, eq=False)
class PullInputs:
    """What a bottom-up level reads on one GPU, besides what a top-down one does."""

    #: The in-edges of the vertices the GPU masters, as a CSR graph over all vertex ids;
    #: None where the GPU's own edges are those already.
    in_graph: CSRGraph | None
    #: The vertices it masters that have in-edges, in increasing order (step 6's
    #: active list, cut to the GPU's block): a bottom-up sweep visits these only.
    active: np.ndarray
    #: The whole graph's offsets, for the out-degrees of the next frontier (m_f); None
    #: where the GPU's own offsets give them.
    out_offsets: np.ndarray | None


# [multi-gpu-pull-inputs-begin]
def pull_inputs(graph: CSRGraph, plan: PartitionPlan) -> tuple[list[PullInputs], bool]:
    """For each partition, what its bottom-up levels read; and whether the graph is
    symmetric (detected, as in step 6, not taken from the file). Under the edge cut
    (``oec``) a GPU holds the whole out-list of each vertex it masters: on a symmetric
    graph those are the in-lists too, and nothing more is stored. Otherwise (a directed
    graph, or a policy that spreads a vertex's edges) the GPU gets the in-lists of its
    masters from the reverse graph: the reverse partitioned by the same master blocks."""
    edge_cut = plan.policy == "oec"
    if edge_cut and graph.known_symmetric:
        # Built both ways: the out-lists are the in-lists, and no reverse is needed; the
        # vertices with in-edges are those with out-edges.
        reverse, symmetric = None, True
        active = np.flatnonzero(np.diff(graph.offsets) > 0).astype(np.int32)
    else:
        # In id order: under the edge cut a GPU's own out-lists serve, in id order.
        reverse, symmetric, active = bottom_up_inputs(graph, hubs_first=False)
    inputs = []
    for part in plan.parts:
        first, end = np.searchsorted(active, [part.first_master, part.end_master])
        inputs.append(PullInputs(
            in_graph=None if symmetric and edge_cut else masters_lists(reverse, part),
            active=active[first:end],
            out_offsets=None if edge_cut else graph.offsets))
    return inputs, symmetric
# [multi-gpu-pull-inputs-end]


# [multi-gpu-memory-begin]
def buffer_sizes(part: Partition, parts: int, defines: dict,
                 exchange: str = DEFAULT_EXCHANGE,
                 pull: PullInputs | None = None) -> dict[str, int]:
    """Bytes of each buffer one GPU allocates for its partition. The edges are the
    GPU's own; everything else is per vertex of the whole graph. ``pull``: what a
    direction-optimizing search adds (:func:`pull_inputs`)."""
    n = part.graph.num_vertices
    large_capacity = max(int(pieces(part.graph.degrees(), defines).sum()), 1)
    bitmap = 4 * ceil_div(n, 32) * parts  # a block of one bit per vertex for each GPU
    sizes = {
        "offsets": 8 * (n + 1), "edges": 4 * part.num_edges,
        "levels": 4 * n, "parents": 4 * n,
        "small": 2 * 4 * n, "medium": 2 * 4 * n,  # two of each queue, n slots each
        "large": 2 * 8 * large_capacity,  # pieces of 8 bytes
        "counts": 2 * COUNTER_SET_BYTES, "path_counts": 2 * len(QUEUES) * 8,
        "send_counts": 4 * parts,
    }
    if exchange == "bitmap":
        sizes["bits"] = bitmap  # what each GPU discovered, gathered
    else:  # which vertices each GPU holds; n ids to each GPU, from each other GPU
        sizes.update(holds=bitmap, send=4 * n * parts, recv=4 * n * max(parts - 1, 1))
    if pull is not None:  # the whole frontier as a bitmap, the active list, the in-edges
        sizes.update(frontier=4 * ceil_div(n, 32), active=4 * pull.active.size)
        if pull.in_graph is not None:
            sizes.update(in_offsets=8 * (n + 1), in_edges=4 * pull.in_graph.num_edges)
        if pull.out_offsets is not None:
            sizes["out_offsets"] = 8 * (n + 1)
    return sizes
# [multi-gpu-memory-end]


class _Gpu(DeviceMemory):
    """One GPU's share: its device, stream, partition, buffers and kernels."""

    def __init__(self, rank: int, device: Device, part: Partition):
        super().__init__(device)
        self.rank, self.part = rank, part
        self.h_starts = None  # pinned: the start vertices of a search from several

    def free(self) -> None:
        self.device.activate()  # its buffers are freed in its own context
        super().free()


class MultiGpuBFS(GPUStep):
    """Partitioned BFS, top-down or direction-optimizing; the frontier is exchanged as a
    bitmap every level."""

    name = "multi_gpu"
    kernel_file = "multi_gpu.hip"
    returns_parents = True
    takes_sources = True

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        # Step 4's (the expand kernel is step 4's gathers) and step 6's for its sweep.
        return {**tunables(warp_size), "BU_PROBE": BU_PROBE, "BU_WARP_THRESHOLD": warp_size}

    # [multi-gpu-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, gpus: int | None = None,
                 policy: str = DEFAULT_POLICY, memory_limit: int | None = None,
                 exchange: str = DEFAULT_EXCHANGE, max_blocks: int | None = None,
                 devices: list[Device] | None = None, direction: str = DEFAULT_DIRECTION):
        if exchange not in EXCHANGES:
            raise RodiniaBFSError(f"unknown exchange {exchange!r}; choose {' or '.join(EXCHANGES)}")
        if direction not in DIRECTIONS:
            raise RodiniaBFSError(f"unknown direction {direction!r}; choose "
                                  f"{', '.join(DIRECTIONS)}")
        if direction != "push" and exchange != "bitmap":
            raise RodiniaBFSError(f"direction {direction!r} needs the bitmap exchange: a "
                                  "bottom-up level reads the whole frontier, which only the "
                                  "bitmap all-gather gives every GPU")
        device.activate()
        super().__init__(device, graph)
        self.devices = devices if devices is not None else open_devices(device, gpus)
        if self.devices[0] is not device:
            raise RodiniaBFSError("devices[0] must be the step's device")
        self.num_gpus = len(self.devices)
        defines = self.default_defines(device.warp_size)
        BalancedBFS._check_tunables(device, defines, max_blocks or 1)
        self.defines = defines
        self.exchange, self.direction = exchange, direction
        self.memory_limit = memory_limit
        self.plan = partition(graph, self.num_gpus, policy)
        #: Per GPU, what its bottom-up levels read (None for a top-down search).
        self.pulls: list[PullInputs | None] = [None] * self.num_gpus
        self.symmetric = None  # known only where a bottom-up level needs it
        if direction != "push":
            self.pulls, self.symmetric = pull_inputs(graph, self.plan)
        #: ``"push"`` or ``"pull"`` for each level of the last search.
        self.last_directions: list[str] = []
        n = graph.num_vertices
        self.words = ceil_div(n, 32)  # one bit per vertex, in 32-bit words

        # What each GPU will allocate, checked against its budget before anything is.
        self.gpus = [_Gpu(k, d, p) for k, (d, p) in enumerate(zip(self.devices, self.plan.parts))]
        sizes = [buffer_sizes(g.part, self.num_gpus, defines, exchange, pull)
                 for g, pull in zip(self.gpus, self.pulls)]
        holds = self._holds() if exchange == "queue" and self.num_gpus > 1 else None
        for g, wanted in zip(self.gpus, sizes):
            self._check_budget(g, sum(wanted.values()))

        for g, wanted in zip(self.gpus, sizes):
            dev = g.device
            dev.activate()  # the calls below work on the current GPU
            g.stream = self.stream if g.rank == 0 else dev.stream()
            module = dev.compile(self.kernel_text(), self.kernel_file, defines=defines,
                                 headers=kernel_headers())
            g.expand = module.get_function("multi_gpu_expand")
            g.mark = module.get_function("multi_gpu_mark")
            g.merge = module.get_function("multi_gpu_merge")
            g.merge_list = module.get_function("multi_gpu_merge_list")
            g.pull = module.get_function("multi_gpu_pull")
            # A fixed grid of as many blocks as the GPU runs at once: the kernels
            # stride over queues whose lengths only the device knows.
            g.grid = max(1, dev.cooperative_grid(g.expand, BLOCK_SIZE))
            if max_blocks is not None:
                g.grid = min(g.grid, max_blocks)
            g.degrees = g.part.graph.degrees()  # out-degrees on this GPU
            g.large_capacity = wanted["large"] // 16
            g.offsets = g.upload(g.part.graph.offsets)  # this GPU's edges, all vertex ids
            g.edges = g.upload(g.part.graph.targets)
            g.levels = g.alloc(wanted["levels"])
            g.parents = g.alloc(wanted["parents"])
            g.queues = [{name: g.alloc(wanted[name] // 2) for name in QUEUES}  # this level's
                        for _ in range(2)]  # and the next's, swapped every level
            g.counts = g.alloc(wanted["counts"])  # two sets: queue counters and tally
            g.path_counts = g.alloc(wanted["path_counts"])
            g.send_counts = g.alloc(wanted["send_counts"])
            g.h_send_counts = dev.host_malloc(self.num_gpus, np.uint32)
            if exchange == "bitmap":
                g.bits = g.alloc(wanted["bits"])  # a block of `words` words per GPU
            else:
                g.holds = g.upload(holds) if holds is not None else g.alloc(wanted["holds"])
                g.send, g.recv = g.alloc(wanted["send"]), g.alloc(wanted["recv"])
            if self.pulls[g.rank] is not None:
                self._set_up_pull(g, self.pulls[g.rank], wanted)
            g.h_counts = dev.host_malloc(COUNTER_SET_BYTES // 4, np.uint32)
            g.h_source = dev.host_malloc(
                2 * max(int(pieces(g.degrees, defines).max(initial=1)), 1), np.int32)
        device.activate()
        self._staged_frontier = None  # pinned, for _reset_many's frontier bitmap
        self.levels, self.parents = self.gpus[0].levels, self.gpus[0].parents
        self.collective: Collective | None = (
            open_collective(self.devices) if self.num_gpus > 1 else None)
    # [multi-gpu-setup-end]

    @staticmethod
    def _set_up_pull(g: _Gpu, pull: PullInputs, wanted: dict) -> None:
        """GPU ``g``'s buffers for bottom-up levels: the whole frontier as a bitmap, its
        active list, and its masters' in-edges (its own edges where those are they)."""
        g.frontier = g.alloc(wanted["frontier"])
        g.active_count = int(pull.active.size)
        g.active = g.upload(pull.active) if pull.active.size else g.alloc(4)
        if pull.in_graph is None:
            g.in_offsets, g.in_edges = g.offsets, g.edges
        else:
            g.in_offsets = g.upload(pull.in_graph.offsets)
            g.in_edges = g.upload(pull.in_graph.targets)
        g.out_offsets = g.offsets if pull.out_offsets is None else g.upload(pull.out_offsets)
        g.h_word = g.device.host_malloc(1, np.uint32)  # the source's word of the frontier

    def _holds(self) -> np.ndarray:
        """For the queue exchange: one bitmap per GPU of the vertices it holds a copy of
        (an end of one of its edges), as the 32-bit words the kernels read."""
        words = []
        for part in self.plan.parts:
            present = np.zeros(32 * self.words, dtype=bool)
            present[part.graph.targets] = True
            present[: part.graph.num_vertices][part.graph.degrees() > 0] = True
            words.append(np.packbits(present, bitorder="little").view(np.uint32))
        return np.concatenate(words)

    def kernel_text(self) -> str:
        """The source every GPU compiles (the tests break it on purpose)."""
        return kernel_source(self.kernel_file)

    @classmethod
    def memory_per_gpu(cls, graph: CSRGraph, gpus: int, policy: str = DEFAULT_POLICY,
                       warp_size: int = 32, exchange: str = DEFAULT_EXCHANGE,
                       direction: str = DEFAULT_DIRECTION) -> list[int]:
        """Bytes each of ``gpus`` GPUs would allocate for ``graph`` (no device needed)."""
        plan = partition(graph, gpus, policy)
        defines = cls.default_defines(warp_size)
        pulls = pull_inputs(graph, plan)[0] if direction != "push" else [None] * gpus
        return [sum(buffer_sizes(p, gpus, defines, exchange, pull).values())
                for p, pull in zip(plan.parts, pulls)]

    # [multi-gpu-budget-begin]
    def _check_budget(self, gpu: _Gpu, need: int) -> None:
        """Refuse, before allocating, a partition that does not fit its GPU's budget."""
        budget = gpu.device.total_memory
        what = f"{gpu.device.name} has {format_size(budget)}"
        if self.memory_limit is not None and self.memory_limit < budget:
            budget = self.memory_limit
            what = f"the memory limit is {format_size(budget)}"
        if need > budget:
            raise RodiniaBFSError(
                f"partition {gpu.rank} of {self.num_gpus} needs {format_size(need)} "
                f"({format_size(4 * gpu.part.num_edges)} of it edges) on GPU {gpu.rank}, but "
                f"{what}; use more GPUs (--gpus) or a larger --gpu-memory-limit")
    # [multi-gpu-budget-end]

    def _reset(self, source: int) -> tuple[int, int]:
        """On every GPU: every level and parent -1, the source at level 0 and its own
        parent, and the source in the queue its degree there says (on the GPUs that
        have edges out of it); for a direction-optimizing search, the source alone in
        the frontier bitmap too. Returns the first frontier's vertices and out-edges (1
        and the source's degree), for Beamer's rule."""
        for g in self.gpus:
            dev, s = g.device, g.stream
            dev.activate()
            dev.memset(g.levels, 0xFF, stream=s)
            dev.memset(g.parents, 0xFF, stream=s)
            dev.memset(g.counts, 0, stream=s)
            if self.exchange == "bitmap":
                dev.memset(g.bits, 0, stream=s)
            dev.memset(g.levels.view(4 * source, 4), 0, stream=s)
            staged = g.h_source
            staged[0] = source
            dev.memcpy_htod_async(g.parents.view(4 * source, 4), staged[:1], s)
            degree = int(g.degrees[source])
            counts = g.h_counts
            counts[:] = 0
            if degree >= self.defines["BLOCK_THRESHOLD"]:
                cut = int(pieces(g.degrees[source: source + 1], self.defines)[0])
                staged[0: 2 * cut: 2] = source
                staged[1: 2 * cut: 2] = np.arange(cut)
                dev.memcpy_htod_async(g.queues[0]["large"].view(0, 8 * cut), staged[:2 * cut], s)
                counts[2 * COUNTER_STRIDE] = cut
            elif degree > 0:
                queue = 0 if degree < self.defines["WARP_THRESHOLD"] else 1  # small or medium
                dev.memcpy_htod_async(g.queues[0][QUEUES[queue]].view(0, 4), staged[:1], s)
                counts[queue * COUNTER_STRIDE] = 1
            # Level 0's counters are set 0 (the kernels use set level % 2).
            dev.memcpy_htod_async(g.counts.view(0, COUNTER_SET_BYTES), counts, s)
            if self.direction != "push":
                dev.memset(g.frontier, 0, stream=s)
                g.h_word[0] = 1 << (source % 32)
                dev.memcpy_htod_async(g.frontier.view(4 * (source // 32), 4), g.h_word, s)
        self.devices[0].activate()
        return 1, int(self.graph.offsets[source + 1] - self.graph.offsets[source])

    # [multi-gpu-reset-many-begin]
    def _reset_many(self, starts: np.ndarray) -> tuple[int, int]:
        """Start state of a search from several vertices, on every GPU: the levels and
        parents built once on the host (each start at level 0, its own parent) and
        uploaded whole; each start in the queue its degree on that GPU says, on the GPUs
        that have edges out of it; for a direction-optimizing search, every start in the
        frontier bitmap. Returns the first frontier's vertices and out-edges."""
        levels, parents, _ = self._start_state(starts)
        if self.direction != "push":
            bitmap = self._start_bitmap(starts)
        for g in self.gpus:
            dev, s = g.device, g.stream
            dev.activate()
            dev.memset(g.counts, 0, stream=s)
            if self.exchange == "bitmap":
                dev.memset(g.bits, 0, stream=s)
            dev.memcpy_htod_async(g.levels.view(0, levels.nbytes), levels, s)
            dev.memcpy_htod_async(g.parents.view(0, parents.nbytes), parents, s)
            g.h_counts[:] = 0
            for queue, ids in self._stage_starts(g, starts).items():
                if ids.size:
                    dev.memcpy_htod_async(g.queues[0][queue].view(0, ids.nbytes), ids, s)
                    # A large vertex's pieces are (vertex, index) pairs: 2 ints each.
                    g.h_counts[QUEUES.index(queue) * COUNTER_STRIDE] = (
                        ids.size // 2 if queue == "large" else ids.size)
            dev.memcpy_htod_async(g.counts.view(0, COUNTER_SET_BYTES), g.h_counts, s)
            if self.direction != "push":
                dev.memcpy_htod_async(g.frontier.view(0, bitmap.nbytes), bitmap, s)
        self.devices[0].activate()
        offsets = self.graph.offsets
        return int(starts.size), int((offsets[starts + 1] - offsets[starts]).sum())

    def _stage_starts(self, g: _Gpu, starts: np.ndarray) -> dict[str, np.ndarray]:
        """The start vertices GPU ``g`` expands at level 0, in its pinned staging area by
        queue: those with edges on it, small and medium ones as ids, large ones as one
        (vertex, index) pair per piece."""
        degrees = g.degrees[starts]
        small = starts[(degrees > 0) & (degrees < self.defines["WARP_THRESHOLD"])]
        medium = starts[(degrees >= self.defines["WARP_THRESHOLD"])
                        & (degrees < self.defines["BLOCK_THRESHOLD"])]
        large = starts[degrees >= self.defines["BLOCK_THRESHOLD"]]
        cuts = pieces(g.degrees[large], self.defines)
        need = small.size + medium.size + 2 * int(cuts.sum())
        if g.h_starts is None or g.h_starts.size < need:
            g.h_starts = g.device.host_malloc(max(need, 1), np.int32)
        staged, at = g.h_starts, small.size + medium.size
        staged[: small.size] = small
        staged[small.size: at] = medium
        pairs = staged[at: at + 2 * int(cuts.sum())]
        pairs[0::2] = np.repeat(large, cuts)
        pairs[1::2] = np.arange(int(cuts.sum())) - np.repeat(np.cumsum(cuts) - cuts, cuts)
        return {"small": staged[: small.size], "medium": staged[small.size: at],
                "large": pairs}
    # [multi-gpu-reset-many-end]

    def _start_bitmap(self, starts: np.ndarray) -> np.ndarray:
        """The start vertices as a frontier bitmap (32-bit words), in pinned memory that
        every GPU's upload reads."""
        if self._staged_frontier is None:
            self._staged_frontier = self.devices[0].host_malloc(max(self.words, 1), np.uint32)
        bitmap = self._staged_frontier[: self.words]
        bitmap.fill(0)
        bits = np.left_shift(np.uint32(1), (starts % 32).astype(np.uint32))
        np.bitwise_or.at(bitmap, starts // 32, bits)  # several starts may share a word
        return bitmap

    def _host_loop(self, start: tuple[int, int], timer: LevelTimer) -> BFSResult:
        n, gpus = self.graph.num_vertices, self.gpus
        exchange = self.collective is not None
        # A direction-optimizing search marks and merges on one GPU too: the merge keeps
        # the frontier bitmap and counts it.
        counting = self.direction != "push"
        merging = exchange or counting
        profile = bool(timer.marks)
        split = []  # per level: (compute ms, exchange ms), the slowest GPU's
        enqueued = [0] * len(gpus)
        pieces_in = [0] * len(gpus)
        # Beamer's counts: the frontier's vertices and out-edges (at first the source's,
        # or every start vertex's), those of the frontier before, and the out-edges of
        # the vertices not reached yet.
        start_vertices, start_edges = start
        rule = {"n_f": start_vertices, "m_f": start_edges, "previous": 0,
                "m_u": self.graph.num_edges - start_edges}
        going, self.last_directions, reached = "push", [], start_vertices

        # [multi-gpu-host-loop-begin]
        level = 0
        while level < self.max_levels:  # a depth_limit stops it early
            current, following = level % 2, (level + 1) % 2
            going = self._choose(going, rule)
            self.last_directions.append(going)
            for g in gpus:  # 1. expand and publish on every GPU, without waiting
                g.device.activate()
                g.events = self._event(g, profile)
                next_counts = g.counts.view(following * COUNTER_SET_BYTES, COUNTER_SET_BYTES)
                g.device.memset(next_counts, 0, stream=g.stream)
                q, nq = g.queues[current], g.queues[following]
                if going == "pull":  # bottom-up: into its block of the bitmap directly
                    self._pull(g, level + 1)
                else:
                    g.device.launch(g.expand, g.grid, BLOCK_SIZE, (
                        g.offsets, g.edges, g.levels, g.parents, q["small"], q["medium"],
                        q["large"], nq["small"], nq["medium"], nq["large"], g.counts,
                        np.int32(level + 1), g.path_counts), stream=g.stream)
                    if merging:
                        self._publish(g, nq, level + 1)
                g.events += self._event(g, profile)
            if exchange:  # 2. one collective: every GPU learns what the others found
                self._exchange()
            for g in gpus:  # 3. merge what the others found; read the counters back
                g.device.activate()
                g.events += self._event(g, profile)
                if merging:
                    self._merge(g, g.queues[following], level + 1, after_pull=going == "pull")
                g.events += self._event(g, profile)
                g.device.memcpy_dtoh_async(
                    g.h_counts, g.counts.view(following * COUNTER_SET_BYTES, COUNTER_SET_BYTES),
                    g.stream)
            for g in gpus:
                g.device.activate()
                g.stream.synchronize()  # h_counts holds the next queues' lengths
            self.devices[0].activate()
            timer.end_level()
            level += 1
            if profile:
                split.append(self._split(gpus))
            found, tally = 0, np.zeros(2, dtype=np.uint64)
            for k, g in enumerate(gpus):
                small, medium, large = (int(g.h_counts[i * COUNTER_STRIDE]) for i in range(3))
                found += small + medium + large
                tally += g.h_counts[TALLY_AT: TALLY_AT + 4].view(np.uint64)
                # Each vertex enters a GPU's queues once per BFS: more is a broken kernel.
                enqueued[k] += small + medium
                pieces_in[k] += large
                self._runaway_guard(level, enqueued[k], n, f"vertices enqueued on GPU {k}")
                self._runaway_guard(level, pieces_in[k], g.large_capacity,
                                    f"pieces enqueued on GPU {k}")
            if counting:  # the next frontier, counted once by each vertex's master
                found = int(tally[0])
                reached += found
                self._runaway_guard(level, reached, n, "vertices reached")
                rule.update(previous=rule["n_f"], n_f=found, m_f=int(tally[1]),
                            m_u=max(rule["m_u"] - int(tally[1]), 0))
            if found == 0:
                break  # no GPU discovered anything: the search is over
        # [multi-gpu-host-loop-end]
        if level == 0:  # depth_limit=0: no level waited for the reset's uploads
            for g in gpus:
                g.device.activate()
                g.stream.synchronize()
            self.devices[0].activate()

        outcome = BFSResult(iterations=level)
        if exchange:  # the parents each GPU found, combined on the first (max of candidates)
            reduce_events = self._event(gpus[0], profile)
            self.collective.reduce_max_i32([g.parents for g in gpus], n, 0,
                                           [g.stream for g in gpus])
            if self.exchange == "queue":  # a GPU knows the levels of what it holds only
                self.collective.reduce_max_i32([g.levels for g in gpus], n, 0,
                                               [g.stream for g in gpus])
            reduce_events += self._event(gpus[0], profile)  # queued behind the reduce
            for g in gpus:
                g.device.activate()
                g.stream.synchronize()
            self.devices[0].activate()
            outcome.reduce_ms = reduce_events[0].elapsed_ms(reduce_events[1]) if profile else None
        #: With profile=True, each level's time split into compute and exchange (ms),
        #: the slowest GPU's of each; the bench plots them next to level_times_ms.
        outcome.compute_times_ms = [c for c, _ in split]
        outcome.exchange_times_ms = [x for _, x in split]
        return outcome

    # [multi-gpu-exchange-begin]
    def _publish(self, g: _Gpu, nq: dict, next_level: int) -> None:
        """Queue the kernel that publishes what GPU ``g`` discovered: bits of its block
        of the bitmap, or ids in a send list per GPU that holds them."""
        lists = self.exchange == "queue"
        if lists:
            g.device.memset(g.send_counts, 0, stream=g.stream)
            targets = (g.holds, g.holds, g.send)
        else:  # its own block of the bitmap (the other pointers are not read)
            own = g.bits.view(4 * self.words * g.rank, 4 * self.words)
            targets = (own, g.bits, g.send_counts)
        g.device.launch(g.mark, g.grid, BLOCK_SIZE, (
            nq["small"], nq["medium"], nq["large"], g.counts, np.int32(next_level),
            np.uint32(lists), *targets[:2], np.uint32(self.words), np.uint32(self.num_gpus),
            np.uint32(g.rank), targets[2], g.send_counts, np.uint32(self.graph.num_vertices)),
            stream=g.stream)

    def _exchange(self) -> None:
        """The one collective of a level. The queue exchange first needs the lengths of
        the send lists on the host: the receivers must know how much comes."""
        gpus, streams = self.gpus, [g.stream for g in self.gpus]
        if self.exchange == "bitmap":
            self.collective.all_gather_u32([g.bits for g in gpus], self.words, streams)
            return
        for g in gpus:
            g.device.activate()
            g.device.memcpy_dtoh_async(g.h_send_counts, g.send_counts, g.stream)
        for g in gpus:
            g.device.activate()
            g.stream.synchronize()
        counts = np.array([g.h_send_counts for g in gpus], dtype=np.int64)  # [from, to]
        for k, g in enumerate(gpus):
            g.received = int(counts[:, k].sum())
        n = self.graph.num_vertices
        self.collective.send_recv_i32([g.send for g in gpus], counts, n,
                                      [g.recv for g in gpus], streams)

    def _merge(self, g: _Gpu, nq: dict, next_level: int, after_pull: bool = False) -> None:
        """Queue the merge of what the other GPUs found, on GPU ``g``; in a
        direction-optimizing search it also keeps the next frontier as a bitmap and
        counts it (``MERGE_FRONTIER``), and after a bottom-up level it queues what this
        GPU found itself (``MERGE_AFTER_PULL``)."""
        tail = (nq["small"], nq["medium"], nq["large"], g.counts, np.int32(next_level),
                g.path_counts)
        if self.exchange == "bitmap":
            if self.direction == "push":  # no frontier bitmap: the kernel reads no more
                extra = (np.uint32(0), g.bits, g.offsets, np.int32(0), np.int32(0))
            else:
                flags = MERGE_FRONTIER | (MERGE_AFTER_PULL if after_pull else 0)
                extra = (np.uint32(flags), g.frontier, g.out_offsets,
                         np.int32(g.part.first_master), np.int32(g.part.end_master))
            g.device.launch(g.merge, g.grid, BLOCK_SIZE, (
                g.offsets, g.levels, g.bits, np.uint32(self.words), np.uint32(self.num_gpus),
                np.uint32(g.rank), *tail, *extra), stream=g.stream)
        elif g.received:
            g.device.launch(g.merge_list, g.grid, BLOCK_SIZE, (
                g.offsets, g.levels, g.recv, np.uint32(g.received), *tail), stream=g.stream)
    # [multi-gpu-exchange-end]

    # [multi-gpu-rule-begin]
    def _choose(self, going: str, rule: dict) -> str:
        """The direction of the next level: forced, or Beamer's rule as step 6 applies it
        (with its ALPHA and BETA), from the global counts the merges left."""
        if self.direction != "auto":
            return self.direction
        if going == "push" and rule["m_f"] * ALPHA > rule["m_u"] and rule["n_f"] > rule["previous"]:
            return "pull"
        if going == "pull" and rule["n_f"] * BETA < self.graph.num_vertices \
                and rule["n_f"] < rule["previous"]:
            return "push"
        return going
    # [multi-gpu-rule-end]

    def _pull(self, g: _Gpu, next_level: int) -> None:
        """Queue a bottom-up level on GPU ``g``: what it finds goes into its own block of
        the exchange bitmap, which the last merge left zeroed."""
        own = g.bits.view(4 * self.words * g.rank, 4 * self.words)
        g.device.launch(g.pull, g.grid, BLOCK_SIZE, (
            g.out_offsets, g.in_offsets, g.in_edges, g.active, np.uint32(g.active_count),
            g.levels, g.parents, np.int32(next_level), g.frontier, own, g.path_counts),
            stream=g.stream)

    @staticmethod
    def _event(g: _Gpu, profile: bool) -> list:
        """With profiling, an event recorded now on the GPU's stream (as a list to add)."""
        if not profile:
            return []
        g.device.activate()  # an event belongs to the context it is made and recorded in
        event = g.device.event()
        event.record(g.stream)
        return [event]

    @staticmethod
    def _split(gpus: list[_Gpu]) -> tuple[float, float]:
        """(compute, exchange) ms of the level just done: for each GPU, expand + mark and
        merge are compute, the time from its mark to its merge the collective."""
        compute, exchange = 0.0, 0.0
        for g in gpus:
            g.device.activate()
            start, sent, received, merged = g.events
            merged.synchronize()
            compute = max(compute, start.elapsed_ms(sent) + received.elapsed_ms(merged))
            exchange = max(exchange, sent.elapsed_ms(received))
        gpus[0].device.activate()
        return compute, exchange

    def results(self, out=None, *, parents: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        self.devices[0].activate()
        return super().results(out, parents=parents)

    def close(self) -> None:
        if getattr(self, "collective", None) is not None:
            self.collective.close()
            self.collective = None
        for g in getattr(self, "gpus", []):
            g.free()
        if hasattr(self, "devices"):
            self.devices[0].activate()
        super().close()
