"""The compressed sparse row (CSR) graph every step of the tutorial works on.

A graph of ``n`` vertices and ``m`` directed edges is two arrays:

* ``offsets`` (``int64``, length ``n + 1``): the out-edges of vertex ``v`` are
  ``targets[offsets[v]:offsets[v + 1]]``. 64-bit, so graphs past 2**31 edges work.
* ``targets`` (``int32``, length ``m``): the head of each edge. Vertex ids are 32-bit.

An undirected graph stores each edge both ways; ``directed`` only records what the
file said, the arrays are what the kernels read.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError

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

    def check_source(self, source) -> int:
        """``source`` as a Python int; a one-line error if the graph has no such vertex."""
        source = operator.index(source)
        n = self.num_vertices
        if not 0 <= source < n:
            where = f"0..{n - 1}" if n else "it has no vertices"
            raise RodiniaBFSError(f"source {source} is outside the graph ({where})")
        return source

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

    def reverse(self) -> "CSRGraph":
        """The transpose: every edge ``u -> v`` becomes ``v -> u``."""
        sources, targets = self.edges()
        return CSRGraph.from_edges(
            targets, sources, self.num_vertices, directed=self.directed, name=self.name
        )

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
