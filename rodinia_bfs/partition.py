"""Partitioning a graph over several GPUs, in CuSP's terms (Hoang et al., IPDPS 2019).

A *partition plan* for ``P`` partitions gives

* every vertex a **master** partition: here always contiguous blocks of vertex ids,
  balanced by edges (:func:`master_blocks`);
* every edge an **owner** partition, the one GPU that stores it. A *policy* is the rule
  that picks the owner of an edge ``u -> v`` from the masters of ``u`` and ``v``
  (and, for the hybrid, the degree of ``u``): a line or two each, in :data:`POLICIES`.

A vertex that appears on a partition (as an end of one of its edges) without being
mastered there is a **mirror** on that partition. Mirrors are what partitioning costs:
each one is a copy of a vertex's state that must hear about the vertex when the BFS
reaches it. :class:`PartitionPlan` reports the mirrors, the edges each partition
holds, and the bytes the frontier exchange of ``multi_gpu`` moves.

Each partition's edges are kept as a CSR graph over *all* ``n`` vertex ids (a vertex
without edges on that partition has an empty list), so that one GPU runs step 4's
kernels on its partition unchanged, with global vertex ids throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph

#: The policy ``multi_gpu`` uses unless told otherwise.
DEFAULT_POLICY = "oec"

#: The hybrid cut treats a vertex as a hub from this many times the average degree on.
HUB_FACTOR = 10


def master_blocks(graph: CSRGraph, parts: int) -> np.ndarray:
    """Bounds ``b`` (``parts + 1`` ints) of contiguous vertex blocks: partition ``p``
    masters vertices ``b[p] .. b[p+1]-1``. The cuts fall where the running count of
    edges (plus one per vertex, so that a graph with few edges still spreads its
    vertices) crosses ``k / parts`` of the total."""
    n = graph.num_vertices
    weight = graph.offsets + np.arange(n + 1)  # edges + vertices before each vertex
    goals = weight[-1] * np.arange(1, parts) / parts
    cuts = np.searchsorted(weight, goals, side="left")
    return np.concatenate([[0], np.minimum(cuts, n), [n]]).astype(np.int64)


def grid_shape(parts: int) -> tuple[int, int]:
    """``(rows, cols)`` of the most nearly square grid of ``parts`` partitions, rows >= cols."""
    cols = max(c for c in range(1, int(np.sqrt(parts)) + 1) if parts % c == 0)
    return parts // cols, cols


# [partition-policies-begin]
def owner_oec(src_master, dst_master, src_degree, parts, hub_degree):
    """Outgoing edge cut (1D): an edge lives with the master of its source, so each
    partition holds the whole out-list of each vertex it masters."""
    return src_master


def owner_hvc(src_master, dst_master, src_degree, parts, hub_degree):
    """Hybrid vertex cut: as the edge cut, except that the out-edges of a hub (degree
    at least ``hub_degree``) live with the masters of their targets, which spreads a
    hub's edges, and the work of expanding it, over every partition."""
    return np.where(src_degree >= hub_degree, dst_master, src_master)


def owner_cvc(src_master, dst_master, src_degree, parts, hub_degree):
    """Cartesian vertex cut (2D): partitions form a rows x cols grid; an edge goes to the
    row of its source's block and the column of its target's block. A vertex is then
    a source on at most cols partitions and a target on at most rows of them."""
    rows, cols = grid_shape(parts)
    return (src_master // cols) * cols + dst_master % cols
# [partition-policies-end]


#: Policies by name (``--partition`` on the command line).
POLICIES = {"oec": owner_oec, "hvc": owner_hvc, "cvc": owner_cvc}


@dataclass(frozen=True, eq=False)
class Partition:
    """What one GPU holds: the vertices it masters and the edges it owns."""

    index: int
    #: Masters: vertex ids ``first_master .. end_master - 1``.
    first_master: int
    end_master: int
    #: Its edges, as a CSR graph over all vertex ids.
    graph: CSRGraph
    #: Vertices that appear in its edges but are mastered elsewhere.
    mirrors: int

    @property
    def num_edges(self) -> int:
        return self.graph.num_edges

    @property
    def num_masters(self) -> int:
        return self.end_master - self.first_master


@dataclass(frozen=True, eq=False)
class PartitionPlan:
    """A graph cut into partitions by one policy, with what the cut costs."""

    policy: str
    num_vertices: int
    num_edges: int
    parts: list[Partition]

    @property
    def num_parts(self) -> int:
        return len(self.parts)

    @property
    def mirrors(self) -> int:
        return sum(p.mirrors for p in self.parts)

    @property
    def replication_factor(self) -> float:
        """Copies of a vertex's state per vertex: (masters + mirrors) / vertices."""
        return (self.num_vertices + self.mirrors) / max(self.num_vertices, 1)

    # [partition-costs-begin]
    def bitmap_bytes_per_level(self) -> int:
        """Bytes one level's bitmap all-gather moves in all: each partition sends a bit
        per vertex (in 4-byte words) to each of the others. It does not depend on the
        policy, nor on the frontier."""
        words = -(-self.num_vertices // 32)
        return self.num_parts * (self.num_parts - 1) * 4 * words

    def queue_bytes_per_search(self) -> int:
        """Bytes a queue all-to-all moves over a whole BFS that reaches every vertex once
        from one discoverer: a 4-byte id to each other partition holding a copy of
        the vertex, i.e. about 4 bytes per mirror. It grows with the mirrors."""
        return 4 * self.mirrors
    # [partition-costs-end]

    def summary(self) -> dict:
        """The plan's costs as plain numbers (for tables and JSON)."""
        return {
            "policy": self.policy,
            "parts": self.num_parts,
            "vertices": self.num_vertices,
            "edges": self.num_edges,
            "edges_per_part": [p.num_edges for p in self.parts],
            "masters_per_part": [p.num_masters for p in self.parts],
            "mirrors_per_part": [p.mirrors for p in self.parts],
            "replication_factor": round(self.replication_factor, 3),
            "bitmap_bytes_per_level": self.bitmap_bytes_per_level(),
            "queue_bytes_per_search": self.queue_bytes_per_search(),
        }


def _mirrors(graph: CSRGraph, first: int, end: int) -> int:
    """Vertices that are an end of an edge of ``graph`` but are not in ``first..end-1``."""
    seen = np.zeros(graph.num_vertices, dtype=bool)
    seen[graph.targets] = True
    seen[graph.degrees() > 0] = True
    return int(seen.sum() - seen[first:end].sum())


def _slice_graph(graph: CSRGraph, first_edge: int, end_edge: int) -> CSRGraph:
    """The edge slots ``first_edge .. end_edge-1`` of ``graph`` (the out-lists of a run
    of vertices), as a CSR graph over all of its vertices."""
    offsets = np.clip(graph.offsets, first_edge, end_edge) - first_edge
    return CSRGraph(offsets, graph.targets[first_edge:end_edge], directed=graph.directed,
                    name=graph.name)


def _select_graph(graph: CSRGraph, sources: np.ndarray, keep: np.ndarray) -> CSRGraph:
    """The edges of ``graph`` selected by the mask ``keep`` (``sources`` holds each
    edge's source), as a CSR graph over all of its vertices."""
    offsets = np.zeros(graph.num_vertices + 1, dtype=np.int64)
    np.cumsum(np.bincount(sources[keep], minlength=graph.num_vertices), out=offsets[1:])
    return CSRGraph(offsets, graph.targets[keep], directed=graph.directed, name=graph.name)


def masters_lists(graph: CSRGraph, part: Partition) -> CSRGraph:
    """The lists ``graph`` holds for the vertices ``part`` masters, as a CSR graph over
    all of its vertices. Given the reverse graph: the in-edges of those vertices, which a
    bottom-up level on that partition reads (``multi_gpu``'s direction-optimizing search)."""
    return _slice_graph(graph, int(graph.offsets[part.first_master]),
                        int(graph.offsets[part.end_master]))


def partition(graph: CSRGraph, parts: int, policy: str = DEFAULT_POLICY,
              hub_degree: int | None = None) -> PartitionPlan:
    """Cut ``graph`` into ``parts`` partitions by ``policy`` (a name in :data:`POLICIES`).

    ``hub_degree`` (the hybrid cut's threshold) defaults to :data:`HUB_FACTOR` times
    the average degree."""
    if policy not in POLICIES:
        raise RodiniaBFSError(f"unknown partition policy {policy!r}; choose one of: "
                              f"{', '.join(POLICIES)}")
    parts = int(parts)
    if parts < 1:
        raise RodiniaBFSError(f"the number of partitions must be at least 1, got {parts}")
    n, m = graph.num_vertices, graph.num_edges
    bounds = master_blocks(graph, parts)
    if hub_degree is None:
        hub_degree = max(1, int(np.ceil(HUB_FACTOR * m / max(n, 1))))

    if policy == "oec":
        # The owner depends on the source alone, and a block's out-edges are one
        # contiguous run of the CSR arrays: slice them, no per-edge work.
        graphs = [_slice_graph(graph, int(graph.offsets[bounds[p]]),
                               int(graph.offsets[bounds[p + 1]])) for p in range(parts)]
    else:
        sources, targets = graph.edges()
        master = np.repeat(np.arange(parts, dtype=np.int64), np.diff(bounds))
        owner = POLICIES[policy](master[sources], master[targets],
                                 graph.degrees()[sources], parts, hub_degree)
        graphs = [_select_graph(graph, sources, owner == p) for p in range(parts)]

    return PartitionPlan(policy, n, m, [
        Partition(p, int(bounds[p]), int(bounds[p + 1]), g,
                  _mirrors(g, int(bounds[p]), int(bounds[p + 1])))
        for p, g in enumerate(graphs)
    ])
