"""The compressed sparse row (CSR) graph every step of the tutorial works on.

A graph of ``n`` vertices and ``m`` directed edges is two arrays:

* ``offsets`` (``int64``, length ``n + 1``): the out-edges of vertex ``v`` are
  ``targets[offsets[v]:offsets[v + 1]]``. 64-bit, so graphs past 2**31 edges work.
* ``targets`` (``int32``, length ``m``): the head of each edge. Vertex ids are 32-bit.

An undirected graph stores each edge both ways; ``directed`` only records what the
file said, the arrays are what the kernels read. The arrays of a graph are read-only
(``flags.writeable`` is False): steps, caches and later searches rely on them not
changing. :meth:`CSRGraph.edge_counts` states how
edges are counted, and what happens to duplicate edges and self loops.
"""

from __future__ import annotations

import math
import numbers
import operator
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rodinia_bfs.errors import ArgumentError, ArgumentTypeError, RodiniaBFSError

#: Largest vertex count a 32-bit vertex id can address.
MAX_VERTICES = 2**31 - 1


# -- vertex ids from the caller ---------------------------------------------------------
# The rule for every id the API takes (a source, the ids of from_edges, a vertex count):
# an integer (Python, NumPy, anything with __index__), or a float whose value is whole
# (2.0, as np.loadtxt reads ids) -- never a float with a fraction (2.7 is refused, not
# truncated), never a bool (True is not vertex 1), never a string.


def as_vertex_id(value, what: str = "source") -> int:
    """``value`` as a Python int by the rule above; :class:`ArgumentTypeError` or
    :class:`ArgumentError` in one sentence naming ``what`` otherwise."""
    if type(value) is int:  # the common case, first: a search's host time counts
        return value
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{what} must be an integer vertex id, got the bool {bool(value)}")
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value != int(value):
            raise ArgumentError(f"{what} must be an integer vertex id, got {float(value)!r}")
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"{what} must be an integer vertex id, got "
                                f"{type(value).__name__} {value!r}") from None


def as_id_array(values, what: str) -> np.ndarray:
    """``values`` (a sequence or array of ids) as a flat int64 array, by the rule of
    :func:`as_vertex_id`, checked element by element; the first bad one is named."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ArgumentTypeError(f"{what} must be a sequence of integer vertex ids "
                                f"({exc})") from None
    array = array.ravel()
    kind = array.dtype.kind
    if kind == "b":
        raise ArgumentTypeError(f"{what} must hold integer vertex ids, got bools")
    if kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ArgumentError(f"{what} holds {array.max()}, too large for a vertex id")
    if kind in "iu":
        return array.astype(np.int64, copy=False)
    if kind == "f":
        whole = np.isfinite(array) & (array == np.floor(array))
        if not whole.all():
            i = int(np.flatnonzero(~whole)[0])
            raise ArgumentError(f"{what}[{i}] = {array[i].item()!r} is not an integer vertex id "
                                "(floats are taken only when whole, never truncated)")
        return array.astype(np.int64)
    if kind == "O":  # mixed Python objects: each one by the scalar rule
        return np.array([as_vertex_id(v, f"{what}[{i}]") for i, v in enumerate(array)],
                        dtype=np.int64)
    raise ArgumentTypeError(f"{what} must hold integer vertex ids, got dtype {array.dtype}")


def as_vertex_count(value) -> int:
    """A vertex count: an id by :func:`as_vertex_id`'s rule, 0 to :data:`MAX_VERTICES`."""
    n = as_vertex_id(value, "num_vertices")
    if not 0 <= n <= MAX_VERTICES:
        raise ArgumentError(f"num_vertices={n} must be 0 to {MAX_VERTICES} (32-bit vertex ids)")
    return n


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the caller's own array keeps its flags)."""
    view = array.view()
    view.flags.writeable = False
    return view


# [csr-graph-begin]
@dataclass(frozen=True, eq=False)
class CSRGraph:
    """A directed graph in CSR form: ``offsets`` (int64, n + 1) and ``targets`` (int32, m).

    Both are read-only views. The constructor does not copy arrays that already have the
    right type: keep no writeable reference to them (:meth:`from_edges` and the readers
    build arrays nobody else holds)."""

    offsets: np.ndarray
    targets: np.ndarray
    directed: bool = True
    name: str = field(default="", compare=False)
    #: Each vertex's id in the file it was read from, where the reader renumbered sparse
    #: ids (an edge list's ``10, 10**9, ...``); ``None`` when vertex ``v`` is id ``v``.
    vertex_ids: np.ndarray | None = field(default=None, compare=False, repr=False)
    #: Whether every arc has its partner (:meth:`is_symmetric`), once known: the code
    #: that builds the arcs both ways says so (:meth:`_paired`), or the first check
    #: finds out. The arrays are read-only, so the answer never goes stale.
    _symmetric: bool | None = field(default=None, init=False, compare=False, repr=False)
    _degrees: np.ndarray | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self):
        offsets = np.ascontiguousarray(self.offsets, dtype=np.int64)
        targets = np.ascontiguousarray(self.targets, dtype=np.int32)
        if offsets.ndim != 1 or offsets.size < 1:
            raise ArgumentError("offsets must be a 1-D array of length num_vertices + 1")
        if offsets[0] != 0 or offsets[-1] != targets.size:
            raise ArgumentError("offsets must start at 0 and end at the number of edges")
        if offsets.size > 1 and np.any(np.diff(offsets) < 0):
            raise ArgumentError("offsets must not decrease")
        n = offsets.size - 1
        if targets.size and (targets.min() < 0 or targets.max() >= n):
            raise ArgumentError("an edge target is outside 0..num_vertices-1")
        object.__setattr__(self, "offsets", _read_only(offsets))
        object.__setattr__(self, "targets", _read_only(targets))

    @property
    def num_vertices(self) -> int:
        return self.offsets.size - 1

    @property
    def num_edges(self) -> int:
        """Arcs stored: directed edges as the kernels read them (an undirected edge
        counts twice). The same as :attr:`num_arcs`."""
        return int(self.targets.size)

    def degrees(self) -> np.ndarray:
        """Out-degree of every vertex (int64, read-only: computed once and kept)."""
        if self._degrees is None:
            object.__setattr__(self, "_degrees", _read_only(np.diff(self.offsets)))
        return self._degrees

    def neighbors(self, v: int) -> np.ndarray:
        return self.targets[self.offsets[v] : self.offsets[v + 1]]
    # [csr-graph-end]

    def check_source(self, source) -> int:
        """``source`` as a Python int: an integer vertex id of this graph (NumPy integers
        and whole floats such as ``2.0`` are taken; ``1.5``, ``True`` and ``"3"`` are
        not). A one-line :class:`~rodinia_bfs.errors.ArgumentError` (or
        :class:`~rodinia_bfs.errors.ArgumentTypeError`) otherwise."""
        source = as_vertex_id(source, "source")
        n = self.num_vertices
        if not 0 <= source < n:
            where = f"0..{n - 1}" if n else "it has no vertices"
            raise ArgumentError(f"source {source} is outside the graph ({where})")
        return source

    def check_sources(self, sources) -> np.ndarray:
        """The start vertices of a multi-source search: at least one, each by the rule of
        :meth:`check_source`; returned sorted and without repeats (int32)."""
        ids = as_id_array(sources, "sources")
        if ids.size == 0:
            raise ArgumentError("sources is empty: a search needs at least one start vertex")
        n = self.num_vertices
        bad = np.flatnonzero((ids < 0) | (ids >= n))
        if bad.size:
            where = f"0..{n - 1}" if n else "it has no vertices"
            raise ArgumentError(f"sources[{bad[0]}] = {ids[bad[0]]} is outside the graph ({where})")
        return np.unique(ids).astype(np.int32)

    @property
    def num_arcs(self) -> int:
        """Arcs stored (``u -> v`` entries of ``targets``), duplicates and self loops included."""
        return int(self.targets.size)

    def edge_counts(self) -> "EdgeCounts":
        """How many edges the graph has, in the words the files use.

        **The policy for duplicate edges and self loops: keep them.** Every reader, every
        generator and :meth:`symmetrize` store edges exactly as the input lists them,
        with or without ``--symmetrize``: an edge listed twice is stored twice, and a self
        loop ``u -> u`` is stored. Nothing is removed behind the user's back; a BFS does
        not mind either (a duplicate is one more edge to look at, a self loop leads
        nowhere new), and the generators this tutorial copies, Rodinia's and Graph500's,
        produce both and count them.

        * An **arc** is one stored entry ``u -> v`` (:attr:`num_arcs`): what a BFS reads.
        * An undirected graph stores the edge ``{u, v}`` as the two arcs ``u -> v`` and
          ``v -> u``, and a self loop ``{u, u}`` as the one arc ``u -> u``, which is how
          the readers store a MatrixMarket ``symmetric`` or PACE ``p tw`` file (one line
          per undirected edge). So it has ``(arcs + self loops) / 2`` **undirected
          edges**: the count in such a file's header, and what the writers write.
        * A graph is **directed** when its input says so: MatrixMarket ``general`` and
          DIMACS ``p sp`` are directed, ``symmetric`` and PACE ``p tw`` undirected,
          ``.npz`` stores the flag. Rodinia text and edge lists cannot say; they are read
          as undirected exactly when their arcs pair up (:meth:`is_symmetric`), so a
          generated undirected graph reads back undirected from every format.
        * :meth:`symmetrize` adds ``v -> u`` to every arc ``u -> v`` that has no partner,
          pair by pair, copies counted: ``k`` arcs ``u -> v`` and ``j <= k`` arcs
          ``v -> u`` become ``k`` of each. An undirected graph symmetrizes to itself.
        """
        self_loops = int(np.count_nonzero(self.targets == self._arc_sources()))
        undirected = None if self.directed else (self.num_arcs + self_loops) // 2
        return EdgeCounts(self.num_arcs, self_loops, undirected)

    def _arc_sources(self) -> np.ndarray:
        """The tail of every arc, in CSR order (int32)."""
        return np.repeat(np.arange(self.num_vertices, dtype=np.int32), self.degrees())

    def _arc_keys(self, reverse: bool = False) -> np.ndarray:
        """Every arc as one int64 key ``tail * n + head`` (``head * n + tail`` with
        ``reverse``), sorted: equal multisets of arcs give equal arrays."""
        tails, heads = self._arc_sources().astype(np.int64), self.targets.astype(np.int64)
        if reverse:
            tails, heads = heads, tails
        keys = tails * self.num_vertices
        keys += heads
        keys.sort()
        return keys

    def is_symmetric(self, reverse: "CSRGraph | None" = None) -> bool:
        """Whether every arc ``u -> v`` has a partner ``v -> u``, copies counted (a self
        loop is its own partner): the arcs of an undirected graph, whatever ``directed``
        says. ``reverse``: :meth:`reverse`, if at hand. The answer is kept."""
        if self._symmetric is None:
            object.__setattr__(self, "_symmetric", self._check_symmetric(reverse))
        return self._symmetric

    @property
    def known_symmetric(self) -> bool:
        """Whether the arcs are known to pair up without a check: the graph was built
        both ways (an undirected generator, :meth:`from_edges` with ``directed=False``,
        :meth:`symmetrize`) or checked already. A step that needs to know checks the
        other graphs itself."""
        return bool(self._symmetric)

    def _paired(self) -> "CSRGraph":
        """Mark the arcs as built both ways; for the code that builds them so (the tests
        hold each such constructor to :meth:`is_symmetric`)."""
        object.__setattr__(self, "_symmetric", True)
        return self

    def _check_symmetric(self, reverse: "CSRGraph | None") -> bool:
        # In-degree equals out-degree for every vertex of a symmetric graph: a cheap test
        # that settles most directed graphs before anything is sorted.
        in_degrees = np.bincount(self.targets, minlength=self.num_vertices)
        if not np.array_equal(in_degrees, self.degrees()):
            return False
        # Symmetric exactly when the graph equals its reverse, list by list. The reverse's
        # lists are sorted; if this graph's are not, the reverse of the reverse is this
        # graph with its lists sorted.
        reverse = self.reverse() if reverse is None else reverse
        if np.array_equal(reverse.targets, self.targets):
            return True
        return bool(np.array_equal(reverse.reverse().targets, reverse.targets))

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """The edge list ``(sources, targets)`` in CSR order."""
        return self._arc_sources(), self.targets

    @classmethod
    def from_edges(
        cls,
        sources,
        targets,
        num_vertices: int,
        *,
        directed: bool = True,
        name: str = "",
    ) -> "CSRGraph":
        """Build a CSR graph from edges ``sources[i] -> targets[i]``.

        ``directed=True``: each pair is one arc. ``directed=False``: each pair is an
        undirected edge ``{u, v}``, stored as the two arcs ``u -> v`` and ``v -> u`` (a
        self loop as one arc, the policy of :meth:`edge_counts`); pass each edge once.
        Duplicate edges and self loops are kept as given (BFS does not mind them, and
        the tests use them). Within a vertex, edges keep their input order (the arcs of
        the pairs first, then the reversed ones).

        Ids are integers; floats are taken only when whole (``2.0``; ``2.7`` is an
        error, never truncated). Errors are one line: :class:`~rodinia_bfs.errors.ArgumentError`
        for lengths that differ and ids below 0 or not below ``num_vertices``,
        :class:`~rodinia_bfs.errors.ArgumentTypeError` for bools and strings.
        """
        num_vertices = as_vertex_count(num_vertices)
        sources = as_id_array(sources, "sources")
        targets = as_id_array(targets, "targets")
        if sources.size != targets.size:
            raise ArgumentError(f"sources has {sources.size} ids and targets {targets.size}: "
                                "one target per source")
        for what, ids in (("sources", sources), ("targets", targets)):
            if not ids.size or (ids.min() >= 0 and ids.max() < num_vertices):
                continue  # min and max first: no temporary array of a large list's size
            bad = np.flatnonzero((ids < 0) | (ids >= num_vertices))
            if bad.size:
                i = int(bad[0])
                reason = "is negative" if ids[i] < 0 else "is not below num_vertices"
                raise ArgumentError(f"{what}[{i}] = {ids[i]} {reason}: vertex ids run from 0 to "
                                    f"num_vertices - 1 = {num_vertices - 1}")
        if not directed:  # the reverse of every arc but a self loop
            loop = sources == targets
            sources, targets = (np.concatenate([sources, targets[~loop]]),
                                np.concatenate([targets, sources[~loop]]))
        order = np.argsort(sources, kind="stable")
        counts = np.bincount(sources, minlength=num_vertices)
        offsets = np.zeros(num_vertices + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        graph = cls(offsets, targets[order].astype(np.int32), directed=directed, name=name)
        return graph if directed else graph._paired()

    def reverse(self, workers: int | None = None) -> "CSRGraph":
        """The transpose: every edge ``u -> v`` becomes ``v -> u``; each vertex's new
        neighbours in increasing id order. ``workers``: as :func:`sorted_csr`."""
        sources, targets = self.edges()
        offsets, neighbours = sorted_csr(targets, sources, self.num_vertices, workers=workers)
        return CSRGraph(offsets, neighbours, directed=self.directed, name=self.name)

    # [csr-hubs-first-begin]
    def hubs_first(self, degrees: np.ndarray | None = None,
                   workers: int | None = None) -> "CSRGraph":
        """The same graph with each vertex's neighbours in decreasing order of
        ``degrees`` (default: their out-degrees), ties in the order they had. A
        bottom-up sweep that stops at the first neighbour in the frontier then looks at
        the hubs first: the vertices a BFS reaches earliest. Rows are sorted in groups of
        ``2**BUCKET_BITS``, on ``workers`` threads (as :func:`sorted_csr`)."""
        degrees = self.degrees() if degrees is None else np.asarray(degrees, np.int64)
        if degrees.shape != (self.num_vertices,):
            raise ArgumentError(f"degrees: one per vertex ({self.num_vertices}), "
                             f"got shape {degrees.shape}")
        offsets, targets = self.offsets, self.targets
        ordered = np.empty_like(targets)
        rank_bits = 32  # a key: the row in its group, then the rank of the degree

        def sort_rows(first: int, last: int) -> None:
            lo, hi = int(offsets[first]), int(offsets[last])
            if lo == hi:
                return
            rows = np.repeat(np.arange(last - first, dtype=np.int64),
                             np.diff(offsets[first : last + 1]))
            rank = (2**31 - 1) - np.minimum(degrees[targets[lo:hi]], 2**31 - 1)
            order = np.argsort((rows << rank_bits) | rank, kind="stable")
            ordered[lo:hi] = targets[lo:hi][order]

        step = 1 << BUCKET_BITS
        groups = [(first, min(first + step, self.num_vertices))
                  for first in range(0, self.num_vertices, step)]
        with ThreadPoolExecutor(worker_count(workers)) as pool:
            run_all(pool, [(sort_rows, first, last) for first, last in groups], None,
                    "ordering the neighbours")
        return CSRGraph(offsets, ordered, directed=self.directed, name=self.name)
    # [csr-hubs-first-end]

    def symmetrize(self) -> "CSRGraph":
        """The undirected version: every arc ``u -> v`` without a partner gets ``v -> u``.

        Copies are counted, duplicates and self loops kept (the policy of
        :meth:`edge_counts`): the result holds ``max(k, j)`` arcs ``u -> v`` where the
        graph holds ``k`` arcs ``u -> v`` and ``j`` arcs ``v -> u``. So an undirected
        graph symmetrizes to the same arcs. Neighbours come out in increasing order.
        """
        n = self.num_vertices
        forward, backward = self._arc_keys(), self._arc_keys(reverse=True)
        keys, forward_count = np.unique(forward, return_counts=True)
        back_keys, back_count = np.unique(backward, return_counts=True)
        # Every key of either list, with the larger of its two multiplicities.
        all_keys = np.union1d(keys, back_keys)
        count = np.zeros(all_keys.size, dtype=np.int64)
        count[np.searchsorted(all_keys, keys)] = forward_count
        where = np.searchsorted(all_keys, back_keys)
        count[where] = np.maximum(count[where], back_count)
        arcs = np.repeat(all_keys, count)
        width = max(n, 1)
        both_ways = CSRGraph.from_edges(arcs // width, arcs % width, n)  # arcs already paired
        return CSRGraph(both_ways.offsets, both_ways.targets, directed=False,
                        name=self.name)._paired()

    @classmethod
    def from_scipy(cls, matrix, *, directed: bool | None = None, name: str = "") -> "CSRGraph":
        """The graph of a square ``scipy.sparse`` matrix (any format, matrix or array).

        Each stored entry ``(i, j)`` is an arc ``i -> j``; the values are ignored, as in a
        MatrixMarket file, so an explicitly stored zero is an edge too (COO duplicates are
        summed into one entry by scipy first). ``directed=None`` decides from the pattern:
        undirected when it is symmetric (:meth:`is_symmetric`). ``directed=True`` keeps
        the arcs as stored; ``directed=False`` makes every entry an undirected edge, as
        ``scipy.sparse.csgraph`` does with ``directed=False`` (:meth:`symmetrize`).
        """
        import scipy.sparse

        if not scipy.sparse.issparse(matrix):
            raise ArgumentTypeError(f"expected a scipy.sparse matrix, got {type(matrix).__name__}")
        rows, columns = matrix.shape
        if rows != columns:
            raise ArgumentError(f"a {rows} x {columns} matrix: a graph's adjacency matrix is "
                                "square")
        if rows > MAX_VERTICES:
            raise ArgumentError(f"{rows} vertices do not fit a 32-bit vertex id")
        csr = scipy.sparse.csr_matrix(matrix)  # sums COO duplicates, as scipy always does
        graph = cls(csr.indptr.astype(np.int64), csr.indices.astype(np.int32), name=name)
        if directed is False:
            return graph.symmetrize()
        if directed is None and graph.is_symmetric():
            return graph.as_undirected()
        return graph

    def to_scipy(self, dtype=np.float64):
        """The adjacency matrix as a ``scipy.sparse.csr_matrix``: one stored entry of value
        1 per arc, duplicates as separate entries (scipy sums them when it converts), in
        the dtype the ``scipy.sparse.csgraph`` routines use by default. It shares no
        memory with the graph."""
        import scipy.sparse

        n = self.num_vertices
        index = np.int64 if self.num_arcs > np.iinfo(np.int32).max else np.int32
        return scipy.sparse.csr_matrix(
            (np.ones(self.num_arcs, dtype=dtype), self.targets.astype(index),
             self.offsets.astype(index)),
            shape=(n, n),
        )

    def as_undirected(self) -> "CSRGraph":
        """The same arcs marked undirected; refuses (:class:`~rodinia_bfs.errors.ArgumentError`,
        a ``ValueError``) unless they pair up."""
        if not self.is_symmetric():
            raise ArgumentError(f"{self!r}: some arc u -> v has no partner v -> u; "
                                "use symmetrize()")
        return CSRGraph(self.offsets, self.targets, directed=False, name=self.name)._paired()

    def __eq__(self, other) -> bool:
        if not isinstance(other, CSRGraph):
            return NotImplemented
        return (
            self.directed == other.directed
            and np.array_equal(self.offsets, other.offsets)
            and np.array_equal(self.targets, other.targets)
        )

    __hash__ = None

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        label = f" {self.name!r}" if self.name else ""
        return f"<CSRGraph{label}: {self.num_vertices} vertices, {self.num_edges} edges, {kind}>"

    def describe(self) -> str:
        """One line for people: ``264,346 vertices, 730,100 arcs = 365,050 undirected edges``."""
        return f"{self.num_vertices:,} vertices, {self.edge_counts()}"


@dataclass(frozen=True)
class EdgeCounts:
    """What :meth:`CSRGraph.edge_counts` returns: ``arcs`` stored, of them ``self_loops``
    (``u -> u``), and ``undirected_edges`` (``None`` for a directed graph)."""

    arcs: int
    self_loops: int
    undirected_edges: int | None

    def __str__(self) -> str:
        if self.undirected_edges is None:
            return f"{self.arcs:,} arcs (directed)"
        return f"{self.arcs:,} arcs = {self.undirected_edges:,} undirected edges"


#: Arcs per chunk when :func:`sorted_csr` counts and places them.
CSR_CHUNK = 2**22

#: A bucket of :func:`sorted_csr` holds the arcs out of ``2**BUCKET_BITS`` consecutive
#: vertices (at most 16 bits: a vertex's place in its bucket is a uint16).
BUCKET_BITS = 16


def worker_count(workers: int | None = None) -> int:
    """``workers`` threads, or by default every CPU this process may use."""
    if workers is None:
        if hasattr(os, "sched_getaffinity"):
            return max(len(os.sched_getaffinity(0)), 1)
        return os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers={workers}: it must be at least 1")
    return workers


def run_all(pool: ThreadPoolExecutor, calls, progress: Callable | None, what: str) -> None:
    """Run ``function(*args)`` for each ``(function, *args)`` of ``calls`` on the pool's
    threads; ``progress(what, done, total)`` after each one (the one place progress is
    reported from)."""
    futures = [pool.submit(*call) for call in calls]
    for done, future in enumerate(as_completed(futures), 1):
        future.result()  # an exception in a worker is raised here
        if progress is not None:
            progress(what, done, len(futures))


# [csr-sorted-begin]
def sorted_csr(sources, targets, num_vertices: int, *, both_ways: bool = False,
               workers: int | None = None, pool: ThreadPoolExecutor | None = None,
               progress: Callable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, targets)`` of the CSR graph with arcs ``sources[i] -> targets[i]``
    (and ``targets[i] -> sources[i]`` as well with ``both_ways``), every vertex's
    neighbours in increasing id order, duplicates kept.

    A bucket sort, not one sort of all the arcs (which takes minutes at 2**30 arcs):
    bucket ``b`` holds the arcs out of vertices ``b << BUCKET_BITS`` to
    ``((b + 1) << BUCKET_BITS) - 1``. The arcs are counted per chunk and bucket, placed
    in their bucket's part of the result (each chunk into room counted for it
    beforehand, so the chunks run in parallel), and each bucket is then sorted on its
    own, by source and target. Meanwhile an arc is held as its target (int32) and its
    source's place in the bucket (uint16). The work is shared by ``workers`` threads
    (or those of ``pool``); NumPy releases the interpreter lock in the heavy calls.
    """
    if pool is None:
        with ThreadPoolExecutor(worker_count(workers)) as own:
            return sorted_csr(sources, targets, num_vertices, both_ways=both_ways, pool=own,
                              progress=progress)
    sources = np.asarray(sources, dtype=np.int32)
    targets = np.asarray(targets, dtype=np.int32)
    n, m = num_vertices, sources.size
    bits = max(int(n - 1).bit_length(), 1)  # bits of a vertex id
    shift = min(bits, BUCKET_BITS)
    count = ((n - 1) >> shift) + 1 if n else 0  # buckets
    ends = [(sources, targets), (targets, sources)] if both_ways else [(sources, targets)]
    arcs = m * len(ends)

    # Room for each chunk of edges in each bucket: a chunk's arcs go after those of the
    # chunks before it.
    chunk = max(CSR_CHUNK // len(ends), 1)
    pieces = [(lo, min(lo + chunk, m)) for lo in range(0, m, chunk)]
    counts = np.zeros((len(pieces) + 1, count), dtype=np.int64)

    def count_arcs(j: int, lo: int, hi: int) -> None:
        for u, _ in ends:
            counts[j + 1] += np.bincount(u[lo:hi] >> shift, minlength=count)

    run_all(pool, [(count_arcs, j, lo, hi) for j, (lo, hi) in enumerate(pieces)],
            progress, "counting the arcs")
    np.cumsum(counts, axis=0, out=counts)  # row j: where chunk j's arcs start, per bucket
    bucket_first = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(counts[-1], out=bucket_first[1:])
    counts += bucket_first[:-1]

    arc_targets = np.empty(arcs, dtype=np.int32)
    arc_sources = np.empty(arcs, dtype=np.uint16)  # the source's place in its bucket

    def place(j: int, lo: int, hi: int) -> None:
        u = np.concatenate([u[lo:hi] for u, _ in ends])
        v = np.concatenate([v[lo:hi] for _, v in ends])
        order = np.argsort((u >> shift).astype(np.uint16), kind="stable")  # a radix sort
        u, v = u[order], v[order]
        # Now each bucket's arcs are one slice of the chunk: copy it to its room.
        begin = 0
        for b in np.flatnonzero(counts[j + 1] - counts[j]):
            size = counts[j + 1, b] - counts[j, b]
            room = slice(counts[j, b], counts[j, b] + size)
            arc_targets[room] = v[begin : begin + size]
            arc_sources[room] = u[begin : begin + size] & ((1 << shift) - 1)
            begin += size

    run_all(pool, [(place, j, lo, hi) for j, (lo, hi) in enumerate(pieces)],
            progress, "grouping the arcs")
    offsets = np.zeros(n + 1, dtype=np.int64)

    def sort_bucket(b: int) -> None:
        lo, hi = bucket_first[b], bucket_first[b + 1]
        local = arc_sources[lo:hi]
        first, last = b << shift, min((b + 1) << shift, n)
        degrees = np.bincount(local, minlength=last - first)
        np.cumsum(degrees, out=offsets[first + 1 : last + 1])
        offsets[first + 1 : last + 1] += lo
        # By source first (a radix sort of 16-bit keys), then by (source, target): the
        # keys are then in short runs, which the stable sort (Timsort) merges quickly.
        order = np.argsort(local, kind="stable")
        keys = local[order].astype(np.int64)
        keys <<= bits
        keys |= arc_targets[lo:hi][order]
        keys.sort(kind="stable")
        keys &= (1 << bits) - 1
        arc_targets[lo:hi] = keys

    run_all(pool, [(sort_bucket, b) for b in range(count)], progress, "sorting the neighbours")
    return offsets, arc_targets
# [csr-sorted-end]
