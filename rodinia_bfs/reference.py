"""The CPU reference every GPU result is checked against.

Two implementations of the same breadth-first search:

* :func:`bfs_serial` -- the textbook BFS with a FIFO queue, one vertex at a time.
  It is the algorithm the tutorial starts from, and short enough to trust by reading.
* :func:`bfs_frontier` -- the same search one *level* at a time, vectorised with NumPy:
  all out-edges of the frontier are gathered at once. It is the shape every GPU step
  takes, and fast enough for graphs of millions of vertices.

Both return the BFS level of every vertex (``-1``: unreachable) and a parent tree. The
frontier version picks, among the frontier vertices that reach a new vertex, the first
in queue order, so both give the same parents, not just the same levels.

Both also search from several start vertices at once (``sources=``: a vertex's level is
its distance to the nearest of them, each is its own parent) and stop after
``depth_limit`` levels (farther vertices stay ``-1``), as networkx and cuGraph offer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from rodinia_bfs.errors import ArgumentError
from rodinia_bfs.graphs.csr import CSRGraph, as_vertex_id

#: ``bfs_reference(method="auto")`` uses the serial BFS up to this many vertices.
SERIAL_MAX_VERTICES = 5_000

#: bfs_frontier gathers the edges of a frontier in pieces of about this many edges
#: (2 MiB of int64 indices: small enough to stay in the cache).
EDGES_PER_PIECE = 1 << 18

_NO_EDGE = np.iinfo(np.int64).max


@dataclass
class BFSResult:
    """The outcome of a BFS from one source, from the CPU reference or a GPU step.

    ``levels[v]`` is the number of edges on a shortest path from the source to ``v``,
    ``-1`` if ``v`` is unreachable. ``parents[v]`` is the vertex ``v`` was discovered
    from (``parents[source] == source``), ``-1`` if ``v`` is unreachable; ``None`` for a
    step that keeps no parents. Both int32. A GPU step's ``search`` leaves both on the
    device (``None`` here) and its ``results`` downloads them.
    """

    levels: np.ndarray | None = None
    parents: np.ndarray | None = None
    #: How many times a GPU step's host loop went round (0 for the reference).
    iterations: int = 0
    #: Milliseconds of each iteration, when a step runs with ``profile=True``.
    level_times_ms: list[float] = field(default_factory=list)
    #: Vertices in the frontier of each iteration, where the step counts them on the device.
    frontier_sizes: list[int] = field(default_factory=list)


def start_vertices(graph: CSRGraph, source=None, sources=None) -> np.ndarray:
    """The start vertices of a search, checked: ``[source]``, or ``sources`` sorted and
    without repeats (int32). Exactly one of the two is given."""
    if sources is None:
        if source is None:
            raise ArgumentError("a search needs a source (or sources=[...])")
        return np.array([graph.check_source(source)], dtype=np.int32)
    if source is not None:
        raise ArgumentError("give a source or sources=[...], not both")
    return graph.check_sources(sources)


def check_depth_limit(depth_limit) -> int | None:
    """``None`` (no limit) or a level count ``>= 0``, by the rule of vertex ids."""
    if depth_limit is None:
        return None
    depth = as_vertex_id(depth_limit, "depth_limit")
    if depth < 0:
        raise ArgumentError(f"depth_limit must be 0 or more levels, got {depth}")
    return depth


# [reference-serial-begin]
def bfs_serial(graph: CSRGraph, source: int | None = None, *, sources=None,
               depth_limit: int | None = None) -> BFSResult:
    """Textbook BFS: a FIFO queue of discovered vertices; each vertex taken from the
    queue discovers its unvisited neighbours, one level further from the source."""
    if sources is not None or depth_limit is not None:
        return _bfs_serial_many(graph, start_vertices(graph, source, sources),
                                check_depth_limit(depth_limit))
    source = graph.check_source(source)
    # Plain Python lists: reading NumPy arrays one element at a time is much slower.
    offsets, targets = graph.offsets.tolist(), graph.targets.tolist()
    levels = [-1] * graph.num_vertices
    parents = [-1] * graph.num_vertices
    levels[source], parents[source] = 0, source
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in targets[offsets[u] : offsets[u + 1]]:
            if levels[v] == -1:  # first visit: v is one level below u
                levels[v] = levels[u] + 1
                parents[v] = u
                queue.append(v)
    return BFSResult(np.array(levels, dtype=np.int32), np.array(parents, dtype=np.int32))
# [reference-serial-end]


def _bfs_serial_many(graph: CSRGraph, starts: np.ndarray, depth_limit: int | None) -> BFSResult:
    """:func:`bfs_serial` from every vertex of ``starts`` at once (all at level 0, each its
    own parent, queued in increasing order), expanding no vertex at ``depth_limit``."""
    offsets, targets = graph.offsets.tolist(), graph.targets.tolist()
    levels = [-1] * graph.num_vertices
    parents = [-1] * graph.num_vertices
    queue = deque(starts.tolist())
    for s in queue:
        levels[s], parents[s] = 0, s
    while queue:
        u = queue.popleft()
        if depth_limit is not None and levels[u] >= depth_limit:
            continue  # the queue is in level order: nothing after u is expanded either
        for v in targets[offsets[u] : offsets[u + 1]]:
            if levels[v] == -1:
                levels[v] = levels[u] + 1
                parents[v] = u
                queue.append(v)
    return BFSResult(np.array(levels, dtype=np.int32), np.array(parents, dtype=np.int32))


# [reference-frontier-begin]
def bfs_frontier(graph: CSRGraph, source: int | None = None, *, sources=None,
                 depth_limit: int | None = None) -> BFSResult:
    """Level-synchronous BFS with NumPy: expand the whole frontier at once.

    Per level: gather every out-edge of the frontier, keep those that reach unvisited
    vertices, and give each new vertex one parent -- the first frontier vertex (in
    frontier order) that reaches it, as the serial queue would. The new vertices, in
    the order they were first reached, are the next frontier. (With ``sources`` the
    first frontier is all of them, in increasing order; ``depth_limit`` stops it after
    that many levels.)
    """
    starts = start_vertices(graph, source, sources).astype(np.int64)
    depth = check_depth_limit(depth_limit)
    n = graph.num_vertices
    levels = np.full(n, -1, dtype=np.int32)
    parents = np.full(n, -1, dtype=np.int32)
    levels[starts], parents[starts] = 0, starts
    first_edge = np.full(n, _NO_EDGE, dtype=np.int64)  # scratch space of _expand
    frontier = starts
    level = 0
    while frontier.size and (depth is None or level < depth):
        level += 1
        # Expand the frontier in pieces of about EDGES_PER_PIECE edges, in order: the
        # temporary arrays then stay in the cache, and a vertex reached by an earlier
        # piece is already visited for the later ones, so the first edge still wins.
        ends = np.cumsum(graph.offsets[frontier + 1] - graph.offsets[frontier])
        cuts = np.searchsorted(ends, np.arange(EDGES_PER_PIECE, ends[-1], EDGES_PER_PIECE))
        pieces = [piece for piece in np.split(frontier, cuts) if piece.size]
        frontier = np.concatenate(
            [_expand(graph, piece, level, levels, parents, first_edge) for piece in pieces]
        )
    return BFSResult(levels, parents)


def _expand(graph, frontier, level, levels, parents, first_edge) -> np.ndarray:
    """Visit the unvisited out-neighbours of ``frontier`` at ``level``; return them in
    the order they are first reached."""
    starts = graph.offsets[frontier]
    counts = graph.offsets[frontier + 1] - starts
    ends = np.cumsum(counts)  # the edges of frontier[i] are gathered just before ends[i]
    # Position in `targets` of every gathered edge: the k-th edge of frontier[i]
    # is at starts[i] + k, and it is gathered at ends[i] - counts[i] + k.
    edge_index = np.arange(ends[-1], dtype=np.int64)
    edge_index += np.repeat(starts - (ends - counts), counts)
    neighbors = graph.targets[edge_index]
    reaching = np.flatnonzero(levels[neighbors] == -1)  # gathered edges to unvisited vertices
    candidates = neighbors[reaching]
    # Several edges may reach the same vertex (from different frontier vertices, or
    # duplicate edges): the first in gather order wins, as in the serial queue BFS.
    # first_edge[v] is the first such edge; only the entries touched are reset after,
    # so a level costs O(its edges), not O(vertices).
    np.minimum.at(first_edge, candidates, reaching)
    wins = first_edge[candidates] == reaching
    first_edge[candidates] = _NO_EDGE
    new = candidates[wins].astype(np.int64)
    # Gathered edge j came from frontier[i] with ends[i - 1] <= j < ends[i].
    parents[new] = frontier[np.searchsorted(ends, reaching[wins], side="right")]
    levels[new] = level
    return new
# [reference-frontier-end]


def bfs_reference(graph: CSRGraph, source: int | None = None, method: str = "auto", *,
                  sources=None, depth_limit: int | None = None) -> BFSResult:
    """The CPU reference BFS: ``method`` is ``"serial"``, ``"frontier"``, or ``"auto"``
    (serial up to :data:`SERIAL_MAX_VERTICES` vertices, frontier above). ``sources``
    (instead of ``source``) and ``depth_limit``: see the module docstring."""
    if method == "auto":
        method = "serial" if graph.num_vertices <= SERIAL_MAX_VERTICES else "frontier"
    options = {"sources": sources, "depth_limit": depth_limit}
    if method == "serial":
        return bfs_serial(graph, source, **options)
    if method == "frontier":
        return bfs_frontier(graph, source, **options)
    raise ValueError(f"unknown reference method {method!r} (serial, frontier or auto)")
