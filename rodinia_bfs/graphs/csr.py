"""The compressed sparse row (CSR) graph every step of the tutorial works on.

A graph of ``n`` vertices and ``m`` directed edges is two arrays:

* ``offsets`` (``int64``, length ``n + 1``): the out-edges of vertex ``v`` are
  ``targets[offsets[v]:offsets[v + 1]]``. 64-bit, so graphs past 2**31 edges work.
* ``targets`` (``int32``, length ``m``): the head of each edge. Vertex ids are 32-bit.

An undirected graph stores each edge both ways; ``directed`` only records what the
file said, the arrays are what the kernels read.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

#: Largest vertex count a 32-bit vertex id can address.
MAX_VERTICES = 2**31 - 1


# [csr-graph-begin]
@dataclass(frozen=True, eq=False)
class CSRGraph:
    """A directed graph in CSR form: ``offsets`` (int64, n + 1) and ``targets`` (int32, m)."""

    offsets: np.ndarray
    targets: np.ndarray
    directed: bool = True
    name: str = field(default="", compare=False)

    def __post_init__(self):
        offsets = np.ascontiguousarray(self.offsets, dtype=np.int64)
        targets = np.ascontiguousarray(self.targets, dtype=np.int32)
        if offsets.ndim != 1 or offsets.size < 1:
            raise ValueError("offsets must be a 1-D array of length num_vertices + 1")
        if offsets[0] != 0 or offsets[-1] != targets.size:
            raise ValueError("offsets must start at 0 and end at the number of edges")
        if offsets.size > 1 and np.any(np.diff(offsets) < 0):
            raise ValueError("offsets must not decrease")
        n = offsets.size - 1
        if targets.size and (targets.min() < 0 or targets.max() >= n):
            raise ValueError("an edge target is outside 0..num_vertices-1")
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "targets", targets)

    @property
    def num_vertices(self) -> int:
        return self.offsets.size - 1

    @property
    def num_edges(self) -> int:
        """Directed edges stored (an undirected edge counts twice)."""
        return int(self.targets.size)

    def degrees(self) -> np.ndarray:
        """Out-degree of every vertex (int64)."""
        return np.diff(self.offsets)

    def neighbors(self, v: int) -> np.ndarray:
        return self.targets[self.offsets[v] : self.offsets[v + 1]]
    # [csr-graph-end]

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """The edge list ``(sources, targets)`` in CSR order."""
        sources = np.repeat(np.arange(self.num_vertices, dtype=np.int32), self.degrees())
        return sources, self.targets

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
        """Build a CSR graph from arcs ``sources[i] -> targets[i]``.

        Duplicate edges and self loops are kept as given (BFS does not mind them, and
        the tests use them). Within a vertex, edges keep their input order.
        """
        if not 0 <= num_vertices <= MAX_VERTICES:
            raise ValueError(f"num_vertices={num_vertices} does not fit a 32-bit vertex id")
        sources = np.asarray(sources, dtype=np.int64).ravel()
        targets = np.asarray(targets, dtype=np.int64).ravel()
        if sources.size != targets.size:
            raise ValueError("sources and targets differ in length")
        if sources.size and (
            min(sources.min(), targets.min()) < 0
            or max(sources.max(), targets.max()) >= num_vertices
        ):
            raise ValueError("an edge endpoint is outside 0..num_vertices-1")
        order = np.argsort(sources, kind="stable")
        counts = np.bincount(sources, minlength=num_vertices)
        offsets = np.zeros(num_vertices + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return cls(offsets, targets[order].astype(np.int32), directed=directed, name=name)

    def reverse(self, workers: int | None = None) -> "CSRGraph":
        """The transpose: every edge ``u -> v`` becomes ``v -> u``; each vertex's new
        neighbours in increasing id order. ``workers``: as :func:`sorted_csr`."""
        sources, targets = self.edges()
        offsets, neighbours = sorted_csr(targets, sources, self.num_vertices, workers=workers)
        return CSRGraph(offsets, neighbours, directed=self.directed, name=self.name)

    def is_symmetric(self, reverse: "CSRGraph | None" = None) -> bool:
        """Whether every arc ``u -> v`` is matched by an arc ``v -> u`` (duplicates
        counted), whatever ``directed`` says. ``reverse``: :meth:`reverse`, if at hand."""
        in_degrees = np.bincount(self.targets, minlength=self.num_vertices)
        if not np.array_equal(in_degrees, self.degrees()):
            return False  # the cheap test: in-degree == out-degree everywhere
        reverse = self.reverse() if reverse is None else reverse
        if np.array_equal(reverse.targets, self.targets):
            return True
        # The lists may hold the same neighbours in another order: the reverse of the
        # reverse is this graph with its lists sorted.
        return np.array_equal(reverse.reverse().targets, reverse.targets)

    def symmetrize(self) -> "CSRGraph":
        """The undirected version: each edge both ways, duplicates removed, self loops kept once."""
        sources, targets = self.edges()
        both_src = np.concatenate([sources, targets]).astype(np.int64)
        both_dst = np.concatenate([targets, sources]).astype(np.int64)
        keys = np.unique(both_src * self.num_vertices + both_dst) if both_src.size else both_src
        n = max(self.num_vertices, 1)
        return CSRGraph.from_edges(
            keys // n, keys % n, self.num_vertices, directed=False, name=self.name
        )

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
