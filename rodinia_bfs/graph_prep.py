"""Preparing the graph on the GPU (the kernels are in ``hip_kernels/graph_prep.hip``).

Steps 5 to 7 read more than the CSR arrays: step 5 each edge with its target's list
(``EdgeRecord``) or the graph as rows; steps 6 and 7 the in-lists hubs first (the
reverse graph, each list by decreasing degree of its vertices), whether the graph is
symmetric, and the vertices that have in-edges. This module builds all of them on the
device from the uploaded CSR arrays, with four textbook kernels and a few maps:

* a histogram (``count_in_degrees``; ``radix_count_digits``, privatized per block),
* an exclusive scan in three launches (``scan_tiles``, ``scan_tile_sums``,
  ``add_tile_sums``), 64-bit so that offsets past 2^32 edges are right,
* a stable scatter (``radix_scatter``): with the histogram and the scan, one pass of a
  least-significant-digit radix sort,
* and the ordering built from them: the vertices sorted by degree, their rows laid end
  to end in that order (``gather_rows``), and the arcs sorted by target.

The results are byte for byte what the host functions give
(:func:`~rodinia_bfs.variants.persistent.build_edge_records`,
:func:`~rodinia_bfs.variants.persistent.build_rows`,
:func:`~rodinia_bfs.variants.push_pull.bottom_up_inputs`), which stay as the reference
the tests compare with. The host only uploads the two CSR arrays and reads back two
numbers: how many vertices have in-edges, and whether the graph is symmetric.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime.base import Device, DeviceBuffer, Stream, ceil_div

#: The kernel file, compiled once per device (:func:`kernels_for`).
KERNEL_FILE = "graph_prep.hip"

#: Threads per block of every kernel (a power of two: the block scan halves it).
BLOCK_SIZE = 256
#: Entries each thread scans in a scan tile, and keys each thread places in a radix
#: sort pass (the kernel file's defaults).
SCAN_ITEMS = 4
RADIX_ITEMS = 16
#: Bits of the key a radix sort pass sorts by: 16 digits.
RADIX_BITS = 4

#: The tiles on the cpu backend: its threads are fibers that switch at every barrier,
#: so fewer threads with longer runs each take less time (a third, on the Kronecker
#: graph of scale 15).
EMULATOR_TILES = dict(block_size=64, scan_items=16, radix_items=256)

#: Vertex degrees are clamped to this in the hubs-first key (as CSRGraph.hubs_first).
DEGREE_CAP = 2**31 - 1


class Buffers:
    """Device buffers allocated together and freed together: a step's
    :class:`~rodinia_bfs.variants.base.DeviceMemory` holds what it keeps; this holds a
    set-up's temporaries (freed after the device has finished with them)."""

    def __init__(self, device: Device):
        self.device = device
        self.buffers: list[DeviceBuffer] = []

    def alloc(self, nbytes: int) -> DeviceBuffer:
        buf = self.device.malloc(max(int(nbytes), 1))
        self.buffers.append(buf)
        return buf

    def upload(self, array: np.ndarray) -> DeviceBuffer:
        buf = self.device.to_device(array)
        self.buffers.append(buf)
        return buf

    def release(self, buf: DeviceBuffer) -> None:
        """Free one buffer now (after the device has finished with it)."""
        self.buffers.remove(buf)
        self.device.synchronize()
        self.device.free(buf)

    def hand_over(self, buf: DeviceBuffer, memory) -> DeviceBuffer:
        """Give ``buf`` to ``memory`` (anything with a ``buffers`` list, as
        DeviceMemory): it is no longer freed with these."""
        self.buffers.remove(buf)
        memory.buffers.append(buf)
        return buf

    def free(self) -> None:
        """Wait for the device, then free every buffer."""
        if self.buffers:
            self.device.synchronize()
        while self.buffers:
            self.device.free(self.buffers.pop())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


@dataclass
class DeviceGraph:
    """A CSR graph's two arrays on the device: ``offsets`` (int64, n + 1) and
    ``targets`` (int32, m)."""

    offsets: DeviceBuffer
    targets: DeviceBuffer
    num_vertices: int
    num_edges: int
    #: Whether the arcs are known to pair up (:attr:`CSRGraph.known_symmetric`): a
    #: graph built both ways needs no check on the device.
    known_symmetric: bool = False

    @classmethod
    def upload(cls, graph: CSRGraph, memory) -> "DeviceGraph":
        """``hipMalloc`` + ``hipMemcpy`` of the graph's arrays into ``memory``."""
        return cls(memory.upload(graph.offsets), memory.upload(graph.targets),
                   graph.num_vertices, graph.num_edges, graph.known_symmetric)

    def buffer_of(self, array: np.ndarray, graph: CSRGraph) -> DeviceBuffer | None:
        """The device copy of ``graph.offsets`` or ``graph.targets`` (None for any other
        array): a step whose set-up uploaded them first hands these to the code that
        would upload them again."""
        if array is graph.offsets:
            return self.offsets
        if array is graph.targets:
            return self.targets
        return None


@dataclass
class BottomUpInputs:
    """What a bottom-up sweep reads (:func:`device_bottom_up_inputs`)."""

    #: Where each in-list begins (int64, n + 1); the graph's own offsets when it is
    #: symmetric.
    in_offsets: DeviceBuffer
    #: The in-lists, each hubs first (int32, m).
    in_edges: DeviceBuffer
    #: Whether every arc u -> v has a partner v -> u, copies counted.
    symmetric: bool
    #: The vertices that have in-edges, in increasing order (int32, ``active_count``).
    active: DeviceBuffer
    active_count: int


class GraphPrep:
    """The kernels of ``graph_prep.hip`` compiled for one device, and the launches that
    chain them. Every method queues its work on ``stream``; those that return a number
    to the host wait for the device."""

    KERNELS = ("count_in_degrees", "scan_tiles", "scan_tile_sums", "add_tile_sums",
               "radix_count_digits", "radix_scatter", "degree_keys", "row_lengths",
               "gather_rows", "mark_nonempty", "compact_marked", "compare_words",
               "edge_records", "fill_rows")

    def __init__(self, device: Device, stream: Stream | None = None,
                 block_size: int = BLOCK_SIZE, scan_items: int = SCAN_ITEMS,
                 radix_items: int = RADIX_ITEMS):
        """``block_size``, ``scan_items`` and ``radix_items`` size the tiles (the tests
        make them small, so that small arrays take many tiles)."""
        self.device, self.stream = device, stream
        self.block_size = block_size
        self.scan_tile, self.radix_tile = block_size * scan_items, block_size * radix_items
        module = device.compile(kernel_source(KERNEL_FILE), KERNEL_FILE,
                                defines={"PREP_BLOCK_SIZE": block_size, "SCAN_ITEMS": scan_items,
                                         "RADIX_ITEMS": radix_items},
                                headers=kernel_headers())
        self.kernels = {name: module.get_function(name) for name in self.KERNELS}

    def _launch(self, name: str, blocks: int, args) -> None:
        if blocks:
            self.device.launch(self.kernels[name], blocks, self.block_size, args,
                               stream=self.stream)

    def _per_item(self, name: str, items: int, args) -> None:
        """A launch of a thread per item."""
        self._launch(name, ceil_div(items, self.block_size), args)

    def _read(self, buf: DeviceBuffer, dtype) -> int:
        """Wait for the device, then read one number."""
        self.device.synchronize()
        return int(self.device.from_device(buf, 1, dtype)[0])

    # -- the three primitives ------------------------------------------------------------
    def exclusive_scan(self, values: DeviceBuffer, count: int, scratch: Buffers,
                       tile_sums: DeviceBuffer | None = None) -> None:
        """In place: ``values[i]`` (uint64) becomes the sum of the ``count`` entries
        before ``i``, for i = 0 .. count; ``values`` has room for count + 1 entries, and
        the last one gets the sum of them all. ``tile_sums``: room for a uint64 per
        tile, where a caller that scans again and again has it."""
        tiles = ceil_div(count + 1, self.scan_tile)
        if tile_sums is None:
            tile_sums = scratch.alloc(8 * tiles)
        self._launch("scan_tiles", tiles, [values, np.uint64(count), values, tile_sums])
        if tiles > 1:  # one tile is scanned already
            self._launch("scan_tile_sums", 1, [tile_sums, np.uint64(tiles)])
            self._launch("add_tile_sums", tiles, [values, np.uint64(count), tile_sums])

    def radix_sort(self, keys: DeviceBuffer, values: DeviceBuffer, count: int, bits: int,
                   spare_keys: DeviceBuffer, spare_values: DeviceBuffer,
                   scratch: Buffers) -> tuple[DeviceBuffer, DeviceBuffer]:
        """Sort ``count`` uint32 ``keys`` below ``2**bits``, each with its int32 value,
        stably (equal keys keep their order): a pass per RADIX_BITS bits, from the
        lowest, each a histogram of the digit per tile, a scan of the histograms, and a
        scatter from one pair of buffers to the other. Returns the pair that holds the
        result: ``(keys, values)`` after an even number of passes, else the spares."""
        tiles = ceil_div(count, self.radix_tile)
        digits = (1 << RADIX_BITS) * tiles
        digit_starts = scratch.alloc(8 * (digits + 1))
        tile_sums = scratch.alloc(8 * ceil_div(digits + 1, self.scan_tile))
        for shift in range(0, bits, RADIX_BITS):
            self._launch("radix_count_digits", tiles,
                         [keys, np.uint64(count), np.uint32(shift), digit_starts])
            self.exclusive_scan(digit_starts, digits, scratch, tile_sums)
            self._launch("radix_scatter", tiles,
                         [keys, values, np.uint64(count), np.uint32(shift), digit_starts,
                          spare_keys, spare_values])
            keys, values, spare_keys, spare_values = spare_keys, spare_values, keys, values
        return keys, values

    @staticmethod
    def passes(bits: int) -> int:
        """Passes of :meth:`radix_sort` over ``bits`` bits."""
        return ceil_div(bits, RADIX_BITS)

    def in_offsets(self, graph: DeviceGraph, out: DeviceBuffer, scratch: Buffers) -> None:
        """Where each vertex's in-list begins (int64, n + 1): the in-degrees, a histogram
        of the targets, scanned."""
        n = graph.num_vertices
        self.device.memset(out, 0, 8 * (n + 1), stream=self.stream)
        self._per_item("count_in_degrees", graph.num_edges,
                       [graph.targets, np.uint64(graph.num_edges), out])
        self.exclusive_scan(out, n, scratch)

    # -- the orderings -------------------------------------------------------------------
    def hubs_first_order(self, graph: DeviceGraph, scratch: Buffers) -> DeviceBuffer:
        """The vertices by decreasing out-degree, equal degrees by increasing id
        (int32, n): a radix sort of the keys ``DEGREE_CAP - min(degree, DEGREE_CAP)``.
        No degree exceeds m, and below 2^31 that key is ``DEGREE_CAP`` XOR the degree:
        its bits above those of m are all ones, so the sort needs only m's bits."""
        n = graph.num_vertices
        keys, ids, spare_keys, spare_ids = (scratch.alloc(4 * n) for _ in range(4))
        self._per_item("degree_keys", n, [graph.offsets, np.uint32(n), keys, ids])
        bits = min(graph.num_edges, DEGREE_CAP).bit_length()
        return self.radix_sort(keys, ids, n, bits, spare_keys, spare_ids, scratch)[1]

    def id_order(self, n: int, scratch: Buffers) -> DeviceBuffer:
        """The vertices in increasing id order (int32, n)."""
        return scratch.upload(np.arange(n, dtype=np.int32))

    def lists_by_target(self, graph: DeviceGraph, order: DeviceBuffer, out: DeviceBuffer,
                        scratch: Buffers) -> None:
        """The reverse graph's lists (int32, m, into ``out``; their offsets are
        :meth:`in_offsets`): the list of v holds every u of an arc u -> v, in the order
        of u in ``order``. The rows are laid end to end in that order (a scan of their
        lengths, then an arc per thread finds its row), which puts the arcs in the order
        of their sources; a stable radix sort by target then keeps that order within
        each target's list."""
        n, m = graph.num_vertices, graph.num_edges
        if m == 0:
            return
        starts = scratch.alloc(8 * (n + 1))
        self._per_item("row_lengths", n, [graph.offsets, order, np.uint32(n), starts])
        self.exclusive_scan(starts, n, scratch)
        bits = max(n - 1, 0).bit_length()
        # The sort ends in the first pair after an even number of passes: put the
        # values' buffer of that pair where the result must go.
        first, second = (out, scratch.alloc(4 * m))[:: 1 if self.passes(bits) % 2 == 0 else -1]
        keys, spare_keys = scratch.alloc(4 * m), scratch.alloc(4 * m)
        self._per_item("gather_rows", m, [graph.offsets, graph.targets, order, starts,
                                          np.uint32(n), np.uint64(m), keys, first])
        self.radix_sort(keys, first, m, bits, spare_keys, second, scratch)

    # -- what else the steps read --------------------------------------------------------
    def nonempty(self, offsets: DeviceBuffer, n: int, out: DeviceBuffer,
                 scratch: Buffers) -> int:
        """The vertices whose list in ``offsets`` is not empty, in increasing order (int32,
        into ``out``): marks, scanned, compacted. Returns how many there are."""
        places = scratch.alloc(8 * (n + 1))
        self._per_item("mark_nonempty", n, [offsets, np.uint32(n), places])
        self.exclusive_scan(places, n, scratch)
        self._per_item("compact_marked", n, [places, np.uint32(n), out])
        return self._read(places.view(8 * n, 8), np.uint64)

    def differ(self, a: DeviceBuffer, b: DeviceBuffer, nbytes: int, scratch: Buffers) -> bool:
        """Whether the first ``nbytes`` (a multiple of 4) of two buffers differ."""
        flag = scratch.alloc(4)
        self.device.memset(flag, 0, stream=self.stream)
        words = nbytes // 4
        self._per_item("compare_words", words, [a, b, np.uint64(words), flag])
        return bool(self._read(flag, np.uint32))

    def edge_records(self, graph: DeviceGraph, out: DeviceBuffer) -> None:
        """Step 5's EdgeRecord of every arc (16 bytes each, into ``out``)."""
        m = graph.num_edges
        self._per_item("edge_records", m, [graph.offsets, graph.targets, np.uint64(m), out])

    def rows(self, graph: DeviceGraph, width: int, out: DeviceBuffer, halves: bool = False) -> None:
        """Step 5's rows (int32, ``max(n, 1) * width``, into ``out``); with ``halves``, the
        last entry of each lower half marked where the upper half has entries."""
        n = graph.num_vertices
        if n == 0:
            self.device.memset(out, 0xFF, 4 * width, stream=self.stream)
        self._per_item("fill_rows", n * width,
                       [graph.offsets, graph.targets, np.uint32(n), np.uint32(width),
                        np.uint32(width // 2 if halves else 0), out])


def kernels_for(device: Device) -> GraphPrep:
    """The preparation kernels of ``device``, compiled on first use and kept with the
    device (so that they live exactly as long as it does)."""
    prep = getattr(device, "_graph_prep", None)
    if prep is None:
        tiles = EMULATOR_TILES if device.backend == "cpu" else {}
        prep = device._graph_prep = GraphPrep(device, **tiles)
    return prep


# -- what each step calls --------------------------------------------------------------

def check_prep_fits(device: Device, graph: CSRGraph) -> None:
    """Refuse, in one line, a graph whose set-up would not fit the device: the CSR
    arrays and the in-lists (12 B per vertex, 8 per edge) and, while they are built,
    a radix sort's two pairs of buffers and the ordering (16 B per edge, 40 per vertex)."""
    need = 52 * graph.num_vertices + 24 * graph.num_edges
    if need > device.total_memory:
        raise RodiniaBFSError(
            f"preparing the graph needs about {need / 2**30:.1f} GiB of device memory; "
            f"{device.name} has {device.total_memory / 2**30:.1f} GiB")


def device_bottom_up_inputs(device: Device, graph: DeviceGraph, memory) -> BottomUpInputs:
    """What a bottom-up sweep reads, built on the device (what
    :func:`~rodinia_bfs.variants.push_pull.bottom_up_inputs` builds on the host, byte
    for byte): the in-lists hubs first, whether the graph is symmetric, the vertices
    with in-edges. Kept buffers come from ``memory``. A symmetric graph's in-lists are
    its out-lists: it is symmetric when its in-degrees are its out-degrees and its
    out-lists, ordered hubs first as well, equal the in-lists. A graph known to be
    symmetric (built both ways: :attr:`DeviceGraph.known_symmetric`) skips that check,
    which costs as much as building the in-lists."""
    prep, n, m = kernels_for(device), graph.num_vertices, graph.num_edges
    with Buffers(device) as scratch:
        order = prep.hubs_first_order(graph, scratch)
        in_edges = memory.alloc(4 * m)
        prep.lists_by_target(graph, order, in_edges, scratch)
        symmetric = graph.known_symmetric
        if not symmetric:
            in_offsets = scratch.alloc(8 * (n + 1))
            prep.in_offsets(graph, in_offsets, scratch)
            symmetric = not prep.differ(in_offsets, graph.offsets, 8 * (n + 1), scratch)
            if symmetric and m:  # the reverse of the reverse: the out-lists hubs first
                reverse = DeviceGraph(in_offsets, in_edges, n, m)
                out_lists = scratch.alloc(4 * m)
                prep.lists_by_target(reverse, order, out_lists, scratch)
                symmetric = not prep.differ(out_lists, in_edges, 4 * m, scratch)
        # A symmetric graph's in-offsets are its offsets: keep them only when they differ.
        in_offsets = graph.offsets if symmetric else scratch.hand_over(in_offsets, memory)
        active = memory.alloc(4 * n)
        active_count = prep.nonempty(in_offsets, n, active, scratch)
    return BottomUpInputs(in_offsets, in_edges, symmetric, active, active_count)


def device_reverse(device: Device, graph: DeviceGraph,
                   memory) -> tuple[DeviceBuffer, DeviceBuffer]:
    """The reverse graph's ``(offsets, targets)`` on the device, each list in increasing
    id order: :meth:`CSRGraph.reverse`, byte for byte."""
    prep, n, m = kernels_for(device), graph.num_vertices, graph.num_edges
    offsets, targets = memory.alloc(8 * (n + 1)), memory.alloc(4 * m)
    with Buffers(device) as scratch:
        prep.in_offsets(graph, offsets, scratch)
        prep.lists_by_target(graph, prep.id_order(n, scratch), targets, scratch)
    return offsets, targets


def device_hubs_first(device: Device, graph: DeviceGraph,
                      memory) -> tuple[DeviceBuffer, DeviceBuffer]:
    """The reverse graph's ``(offsets, targets)`` on the device, each list by decreasing
    out-degree, ties by id: ``graph.reverse().hubs_first(graph.degrees())``, byte for
    byte."""
    prep, n, m = kernels_for(device), graph.num_vertices, graph.num_edges
    offsets, targets = memory.alloc(8 * (n + 1)), memory.alloc(4 * m)
    with Buffers(device) as scratch:
        prep.in_offsets(graph, offsets, scratch)
        prep.lists_by_target(graph, prep.hubs_first_order(graph, scratch), targets, scratch)
    return offsets, targets


def device_edge_records(device: Device, graph: DeviceGraph, memory) -> DeviceBuffer:
    """Step 5's edge records on the device (16 bytes an arc): what
    :func:`~rodinia_bfs.variants.persistent.build_edge_records` builds on the host."""
    records = memory.alloc(16 * graph.num_edges)
    kernels_for(device).edge_records(graph, records)
    device.synchronize()  # the step's own stream runs next
    return records


def device_rows(device: Device, graph: DeviceGraph, width: int, memory,
                halves: bool = False) -> DeviceBuffer:
    """Step 5's rows on the device: what
    :func:`~rodinia_bfs.variants.persistent.build_rows` builds on the host."""
    rows = memory.alloc(4 * max(graph.num_vertices, 1) * width)
    kernels_for(device).rows(graph, width, rows, halves)
    device.synchronize()
    return rows
