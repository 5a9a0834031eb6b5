"""Synthetic graphs: seeded, reproducible, and large enough to measure.

Five families, each a different challenge for a GPU BFS:

* :func:`rodinia_graphgen` -- Rodinia's own uniform random graphs (``graph1MW_6.txt``):
  every vertex has a handful of edges, so every level has plenty of even work.
* :func:`kronecker` -- the Graph500 R-MAT graphs: a skewed degree distribution
  (a few vertices with huge degree) and a diameter of only a few levels.
* :func:`grid2d` -- a 2D grid: degree 4 and a diameter of ``rows + cols - 2``, like a
  road network; per-level overhead dominates.
* :func:`grid_with_hubs` -- the grid plus a few hubs of very high degree, the
  irregular graphs of Liu et al. (2014) that break one-thread-per-vertex kernels.
* :func:`delaunay` -- the Delaunay triangulation of random points in the unit square:
  planar, mean degree about 6 and a diameter that grows as ``sqrt(n)``, a road-like
  graph of any size up to 2**24 vertices (like DIMACS-10's ``delaunay_n20`` .. ``n24``).

The random generators take a ``seed`` for a :class:`numpy.random.Generator`, so the
same arguments always give the same graph. All are vectorised over all edges.
:data:`GENERATORS` lists them with their parameters for ``rodinia-bfs generate``.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import MAX_VERTICES, CSRGraph, run_all, sorted_csr, worker_count
from rodinia_bfs.progress import Progress

#: Rodinia graphgen: each vertex draws between MIN_EDGES and MAX_INIT_EDGES edges.
MIN_EDGES = 2
MAX_INIT_EDGES = 4

#: Graph500 R-MAT quadrant probabilities (the fourth is 1 - A - B - C = 0.05).
GRAPH500_A, GRAPH500_B, GRAPH500_C = 0.57, 0.19, 0.19
GRAPH500_EDGE_FACTOR = 16

#: Kronecker graphs from this scale up print their progress on stderr.
PROGRESS_SCALE = 18


class GeneratorError(RodiniaBFSError, ValueError):
    """Generator parameters that describe no graph (a grid of 0 rows, a scale of 40, ...)."""


def _csr_from_arcs(sources, targets, num_vertices, *, directed, name) -> CSRGraph:
    """Same result as :meth:`CSRGraph.from_edges` (arcs grouped by source, input order
    kept within a vertex), but about three times faster on tens of millions of arcs.

    The stable argsort in ``from_edges`` is the slow part; sorting one int64 key
    ``source * m + position`` gives the same order, and NumPy sorts plain int64
    keys with vectorised instructions.
    """
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets)
    m = sources.size
    if m == 0 or num_vertices * m >= 2**63:
        arcs = CSRGraph.from_edges(sources, targets, num_vertices)  # arcs as given, both ways
        return CSRGraph(arcs.offsets, arcs.targets, directed=directed, name=name)
    keys = sources * m
    keys += np.arange(m, dtype=np.int64)
    keys.sort()
    # The key of the first arc of vertex v is at least v * m: a binary search per vertex.
    offsets = np.searchsorted(keys, np.arange(num_vertices + 1, dtype=np.int64) * m)
    return CSRGraph(offsets, targets[keys % m], directed=directed, name=name)


def _both_ways(sources, targets) -> tuple[np.ndarray, np.ndarray]:
    """Store each edge ``u - v`` as the two arcs ``u -> v`` and ``v -> u``, interleaved,
    so that every vertex sees its edges in the order they were generated."""
    both_src = np.empty(2 * sources.size, dtype=np.int64)
    both_dst = np.empty(2 * sources.size, dtype=np.int64)
    both_src[0::2], both_src[1::2] = sources, targets
    both_dst[0::2], both_dst[1::2] = targets, sources
    return both_src, both_dst


def _check_vertex_count(n: int, what: str) -> None:
    if not 1 <= n <= MAX_VERTICES:
        raise GeneratorError(f"{what} gives {n} vertices; it must be between 1 and {MAX_VERTICES}")


# [generator-rodinia-begin]
def graphgen_edges(num_nodes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The edges Rodinia graphgen draws, before they are stored both ways: node ``i``
    draws 2 to 4 (``MIN_EDGES`` .. ``MAX_INIT_EDGES``) edges ``i - j`` to uniformly
    random nodes ``j``. Returns ``(sources, targets)``, int64, grouped by source."""
    _check_vertex_count(num_nodes, f"num_nodes={num_nodes}")
    rng = np.random.default_rng(seed)
    edges_drawn = rng.integers(MIN_EDGES, MAX_INIT_EDGES + 1, size=num_nodes)
    sources = np.repeat(np.arange(num_nodes, dtype=np.int64), edges_drawn)
    targets = rng.integers(0, num_nodes, size=sources.size, dtype=np.int64)
    return sources, targets


def rodinia_graphgen(num_nodes: int, seed: int = 0) -> CSRGraph:
    """A uniform random graph with Rodinia graphgen's rules.

    Each node draws 2 to 4 edges to uniformly random nodes (:func:`graphgen_edges`),
    and each edge is stored both ways, in the order drawn: about 3 edges are drawn per
    node, so a node stores about 6. Like graphgen, nothing is deduplicated: a node may
    draw the same neighbour twice, or itself (a self loop, stored twice).
    """
    sources, targets = graphgen_edges(num_nodes, seed)
    both_src, both_dst = _both_ways(sources, targets)
    return _csr_from_arcs(
        both_src, both_dst, num_nodes, directed=False, name=f"rodinia-{num_nodes}-seed{seed}"
    )._paired()
# [generator-rodinia-end]


# [generator-kronecker-begin]
def kronecker(
    scale: int,
    edge_factor: int = GRAPH500_EDGE_FACTOR,
    seed: int = 0,
    a: float = GRAPH500_A,
    b: float = GRAPH500_B,
    c: float = GRAPH500_C,
    *,
    progress: bool = True,
    workers: int | None = None,
) -> CSRGraph:
    """A Graph500 Kronecker (R-MAT) graph: ``2**scale`` vertices, ``edge_factor * 2**scale`` edges.

    Each edge picks its row and column one bit at a time: the adjacency matrix is split
    into four quadrants chosen with probabilities ``a``, ``b``, ``c`` and ``1 - a - b - c``,
    and the chosen quadrant is split again, ``scale`` times. The vertex labels are then
    randomly permuted, so that vertex 0 is not always the biggest hub. Edges are
    undirected (stored both ways, neighbours in increasing id order); like the Graph500
    edge list, self loops and duplicate edges are kept.

    The edges are drawn a chunk at a time (:data:`KRONECKER_CHUNK` edges), so that the
    temporary arrays stay in cache, and the chunks are shared by ``workers`` threads
    (default: every CPU this process may use; NumPy releases the interpreter lock in
    the heavy calls). The graph depends on neither. The finished graph takes 8 bytes
    per edge; building it holds about 20 bytes per edge at the peak (scale 25, 2**29
    edges: 4 GiB for the graph, about 10.5 GiB at the peak).

    From scale :data:`PROGRESS_SCALE` up, progress goes to stderr unless ``progress=False``.
    """
    if not 1 <= scale <= 30:
        raise GeneratorError(f"scale={scale}: it must be between 1 and 30 (32-bit vertex ids)")
    if edge_factor < 1:
        raise GeneratorError(f"edge_factor={edge_factor}: it must be at least 1")
    if min(a, b, c) < 0 or a + b + c > 1:
        raise GeneratorError(f"a={a}, b={b}, c={c}: they must be >= 0 with a + b + c <= 1")
    if workers is not None and workers < 1:
        raise GeneratorError(f"workers={workers}: it must be at least 1")
    num_vertices = 2**scale
    num_edges = edge_factor * num_vertices
    # The random numbers are those of one generator used in this order: one 32-bit
    # draw per edge for bit 0 of every edge, then for bit 1, ..., then the permutation
    # of the labels. Each chunk starts its generators at its own place in that stream.
    stream = _RandomStream(seed)
    permutation = stream.generator(scale * num_edges // 2).permutation(num_vertices)
    permutation = permutation.astype(np.int32)
    thresholds = _quadrant_thresholds(a, b, c)
    rows = np.empty(num_edges, dtype=np.int32)
    cols = np.empty(num_edges, dtype=np.int32)

    def draw(lo: int, hi: int) -> None:
        _kronecker_chunk(stream, scale, num_edges, thresholds, lo, rows[lo:hi], cols[lo:hi])
        # Relabel the vertices, so that vertex 0 is not always the biggest hub. The
        # edges were drawn independently, so their order is already random: unlike the
        # Graph500 reference code there is no need to shuffle the edge list.
        np.take(permutation, rows[lo:hi], out=rows[lo:hi])
        np.take(permutation, cols[lo:hi], out=cols[lo:hi])

    report = _Progress(f"kronecker scale {scale}", enabled=progress and scale >= PROGRESS_SCALE)
    with ThreadPoolExecutor(worker_count(workers)) as pool:
        _run_chunks(pool, draw, num_edges, KRONECKER_CHUNK, report, "drawing the edges")
        # Each edge stored both ways, every vertex's neighbours in increasing id order.
        offsets, targets = sorted_csr(rows, cols, num_vertices, both_ways=True, pool=pool,
                                      progress=report.update)
    report.done()
    name = f"kronecker-{scale}-ef{edge_factor}-seed{seed}"
    return CSRGraph(offsets, targets, directed=False, name=name)._paired()
# [generator-kronecker-end]


#: Edges a chunk of :func:`kronecker` draws at once: its temporaries (about 15 bytes
#: per edge) stay in a core's cache. Even, so that every chunk starts at a whole
#: 64-bit draw.
KRONECKER_CHUNK = 2**18

class _RandomStream:
    """The stream of one seeded PCG64 generator (what ``np.random.default_rng(seed)``
    uses), entered at any place: :meth:`at` gives a bit generator that has already
    made ``draws`` 64-bit draws, in time independent of ``draws``."""

    def __init__(self, seed: int):
        self.state = np.random.PCG64(seed).state

    def at(self, draws: int) -> np.random.PCG64:
        bits = np.random.PCG64()
        bits.state = self.state
        return bits.advance(draws)

    def generator(self, draws: int) -> np.random.Generator:
        return np.random.Generator(self.at(draws))


def _quadrant_thresholds(a: float, b: float, c: float) -> tuple[int, int, int]:
    """The quadrant boundaries ``a``, ``a + b``, ``a + b + c`` for 32-bit draws.

    A float32 draw of NumPy's generator is ``(u >> 8) * 2**-24`` for a 32-bit ``u``, so
    ``draw >= t`` exactly when ``u >= ceil(t * 2**24) * 256``: the integer comparison
    gives the same quadrants as the float one, without making the floats.
    """
    bounds = np.array([a, a + b, a + b + c], dtype=np.float32)
    return tuple(min(math.ceil(float(t) * 2**24) << 8, 2**32) for t in bounds)


def _kronecker_chunk(stream, scale, num_edges, thresholds, first, rows, cols) -> None:
    """Draw edges ``first .. first + rows.size - 1`` of a Kronecker graph into ``rows``
    and ``cols`` (before relabelling)."""
    count = rows.size
    top_right, bottom, bottom_right = thresholds
    lower = np.empty(count, dtype=bool)
    right = np.empty(count, dtype=bool)
    last = np.empty(count, dtype=bool)
    rows[:] = 0
    cols[:] = 0
    for bit in range(scale):
        # This bit's draws for these edges: two 32-bit draws per 64-bit one (the low half
        # first), and the chunk starts at an even edge, so at a whole 64-bit draw.
        start = (bit * num_edges + first) // 2
        draws = stream.at(start).random_raw(count // 2).view(np.uint32)
        # The draw picks the quadrant: [0, a) top left, [a, a+b) top right,
        # [a+b, a+b+c) bottom left, [a+b+c, 1) bottom right.
        np.greater_equal(draws, bottom, out=lower)
        np.greater_equal(draws, top_right, out=right)
        right ^= lower  # a <= draw < a+b: top right
        np.greater_equal(draws, bottom_right, out=last)
        right |= last  # or bottom right
        # Append the bit to row and column (the bits are identically distributed, so
        # filling them from the top, as here, or from the bottom gives the same graph law).
        rows <<= 1
        rows |= lower
        cols <<= 1
        cols |= right


def _run_chunks(pool, work, total: int, chunk: int, report: "_Progress", what: str) -> None:
    """``work(lo, hi)`` for every chunk ``[lo, hi)`` of ``range(total)``, on the pool's
    threads, reporting progress as chunks finish."""
    run_all(pool, [(work, lo, min(lo + chunk, total)) for lo in range(0, total, chunk)],
            report.update, what)


class _Progress:
    """The progress of :func:`kronecker` through :class:`rodinia_bfs.progress.Progress`:
    one updating line on a terminal, two lines (start and end) in a log. Its four
    phases are the units; within a phase, the pieces done show as its status."""

    PHASES = 4  # drawing the edges, then sorted_csr's three: count, group, sort

    def __init__(self, label: str, *, enabled: bool):
        self._bar = Progress(label, total=self.PHASES, unit="phase", enabled=enabled)

    def update(self, what: str, done: int, total: int) -> None:
        """``done`` of the ``total`` pieces of the phase ``what`` are finished."""
        self._bar.status(f"{what} {done}/{total}")
        if done == total:
            self._bar.update()

    def done(self) -> None:
        self._bar.close()


def _grid_arcs(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The arcs of the 4-neighbour grid, grouped by source, neighbours in increasing id."""
    n = rows * cols
    r, c = np.divmod(np.arange(n, dtype=np.int64), cols)
    # Candidate neighbours up, left, right, down: already in increasing id order.
    steps = np.array([-cols, -1, 1, cols], dtype=np.int64)
    exists = np.stack([r > 0, c > 0, c < cols - 1, r < rows - 1], axis=1)
    sources = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], (n, 4))[exists]
    targets = (np.arange(n, dtype=np.int64)[:, None] + steps)[exists]
    return sources, targets


# [generator-grid-begin]
def grid2d(rows: int, cols: int) -> CSRGraph:
    """A ``rows`` x ``cols`` grid: vertex ``r * cols + c`` is joined to its up, left, right
    and down neighbours (undirected). Its diameter ``rows + cols - 2`` makes it the
    road-network stand-in: thousands of BFS levels with little work in each."""
    if rows < 1 or cols < 1:
        raise GeneratorError(f"grid {rows}x{cols}: rows and cols must be at least 1")
    _check_vertex_count(rows * cols, f"grid {rows}x{cols}")
    sources, targets = _grid_arcs(rows, cols)
    # The arcs come out grouped by source already: the offsets are a running count.
    offsets = np.zeros(rows * cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(sources, minlength=rows * cols), out=offsets[1:])
    return CSRGraph(offsets, targets, directed=False, name=f"grid-{rows}x{cols}")._paired()
# [generator-grid-end]


# [generator-hubs-begin]
def grid_with_hubs(
    rows: int,
    cols: int,
    seed: int = 0,
    hub_fraction: float = 0.001,
    hub_degree_factor: float = 100,
) -> CSRGraph:
    """The grid of :func:`grid2d` plus hubs: about ``hub_fraction`` of the vertices, chosen
    at random, get extra undirected edges to random other vertices until their degree is
    about ``hub_degree_factor`` times the average degree (of the final graph).

    This mixes the two worst cases of Liu et al. (2014): a high diameter and a few
    vertices with a huge degree, which leave one thread doing most of a level's work.
    """
    if rows < 1 or cols < 1:
        raise GeneratorError(f"grid {rows}x{cols}: rows and cols must be at least 1")
    n = rows * cols
    _check_vertex_count(n, f"grid {rows}x{cols}")
    if n < 2:
        raise GeneratorError("a grid with hubs needs at least 2 vertices")
    if hub_degree_factor < 1:
        raise GeneratorError(f"hub_degree_factor={hub_degree_factor}: it must be at least 1")
    if not 0 < hub_fraction <= 1:
        raise GeneratorError(f"hub_fraction={hub_fraction}: it must be in (0, 1]")
    rng = np.random.default_rng(seed)
    grid_src, grid_dst = _grid_arcs(rows, cols)
    num_hubs = max(1, round(hub_fraction * n))
    hubs = rng.choice(n, size=num_hubs, replace=False)
    # Each hub gets k extra edges (stored both ways, so they also raise the average).
    # A hub should end with degree F * average:  d + k = F * (grid_arcs + 2 * hubs * k) / n,
    # with d the grid's average degree; solve for k.
    grid_degree = grid_src.size / n
    room = 1 - 2 * hub_degree_factor * num_hubs / n
    if room <= 0:
        raise GeneratorError(
            f"grid {rows}x{cols} with {num_hubs} hubs of {hub_degree_factor}x the average "
            "degree: impossible, the hubs would hold more than all the edges; use a larger "
            "grid or a lower hub_fraction or hub_degree_factor"
        )
    extra = max(0, round((hub_degree_factor - 1) * grid_degree / room))
    hub_src = np.repeat(hubs.astype(np.int64), extra)
    # Uniform over the other n - 1 vertices: draw from 0..n-2 and skip the hub itself.
    hub_dst = rng.integers(0, n - 1, size=hub_src.size, dtype=np.int64)
    hub_dst += hub_dst >= hub_src
    both_src, both_dst = _both_ways(hub_src, hub_dst)
    name = f"hubs-{rows}x{cols}-seed{seed}"
    return _csr_from_arcs(
        np.concatenate([grid_src, both_src]),
        np.concatenate([grid_dst, both_dst]),
        n,
        directed=False,
        name=name,
    )._paired()
# [generator-hubs-end]


#: Largest scale :func:`delaunay` accepts: 2**24 points (16.8M vertices).
DELAUNAY_MAX_SCALE = 24

#: Host memory :func:`delaunay` takes at its peak, per point: Qhull's facets and
#: vertices, measured at 2**16 to 2**22 points (about 850 bytes a point, most of it
#: Qhull's), rounded up. A triangulation that would not fit the memory available now
#: is refused before it starts, rather than driving the machine into swap or the
#: out-of-memory killer.
DELAUNAY_BYTES_PER_POINT = 1024


def _available_memory() -> int | None:
    """Bytes of host memory available now (Linux ``MemAvailable``), None where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _locality_order(points: np.ndarray) -> np.ndarray:
    """An order of ``points`` in which neighbours in the plane are mostly near each
    other: by cells of about 4 points, row by row, every other row reversed (a snake).
    Qhull triangulates the points in this order about 1.5x faster than in random order
    (its working set stays in cache); the triangulation, and so the graph, is the same."""
    side = max(1, math.isqrt(points.shape[0] // 4))
    cells = np.minimum((points * side).astype(np.int64), side - 1)
    col, row = cells[:, 0], cells[:, 1]
    col = np.where(row % 2 == 1, side - 1 - col, col)
    return np.argsort(row * side + col, kind="stable")


# [generator-delaunay-begin]
def delaunay(scale: int, seed: int = 0) -> CSRGraph:
    """The Delaunay triangulation of ``2**scale`` uniform random points in the unit square.

    Vertex ``i`` is the ``i``-th point drawn (ids in generation order, so neighbours in
    the plane have unrelated ids, as in a graph file nobody reordered). Each edge of a
    triangle is an undirected edge, stored both ways once (no duplicates, no self
    loops), every vertex's neighbours in increasing id order. A triangulation of ``n``
    points with ``h`` of them on the convex hull has ``3n - 3 - h`` edges: the mean
    degree is just under 6. The graph is planar and connected, and its diameter grows
    as ``sqrt(n)``: a road-like graph of any size.

    scipy's Qhull does the triangulation; at the peak it holds about
    :data:`DELAUNAY_BYTES_PER_POINT` bytes a point (2**24 points: about 16 GiB, several
    minutes). A scale whose triangulation would not fit the host memory available now
    is refused with a :class:`GeneratorError`.
    """
    if not 2 <= scale <= DELAUNAY_MAX_SCALE:
        raise GeneratorError(f"scale={scale}: it must be between 2 and {DELAUNAY_MAX_SCALE}")
    n = 2**scale
    need, have = n * DELAUNAY_BYTES_PER_POINT, _available_memory()
    if have is not None and need > have:
        raise GeneratorError(
            f"scale={scale}: a Delaunay triangulation of {n:,} points needs about "
            f"{need / 2**30:.1f} GiB of host memory, {have / 2**30:.1f} GiB are available"
        )
    from scipy.spatial import Delaunay, QhullError

    points = np.random.default_rng(seed).random((n, 2))
    order = _locality_order(points)
    try:
        triangulation = Delaunay(points[order])
    except QhullError as exc:  # only for degenerate input, which random points are not
        raise GeneratorError(f"scale={scale}, seed={seed}: Qhull failed: {exc}") from None
    # Back to generation order: simplices name points by their place in `order`.
    triangles = order.astype(np.int32)[triangulation.simplices]
    # The three sides of every triangle, each as the two arcs u -> v and v -> u.
    u = triangles.ravel()
    v = triangles[:, [1, 2, 0]].ravel()
    sources = np.concatenate([u, v]).astype(np.int64)
    targets = np.concatenate([v, u]).astype(np.int64)
    # Qhull may leave a point out of every triangle when it is too close to another
    # (triangulation.coplanar; never seen with random points): join it to the three
    # corners of the triangle it lies in, so that the graph stays connected.
    if len(triangulation.coplanar):
        left_out = order[triangulation.coplanar[:, 0]]
        corners = triangles[triangulation.coplanar[:, 1]]
        sources = np.concatenate([sources, np.repeat(left_out, 3), corners.ravel()])
        targets = np.concatenate([targets, corners.ravel(), np.repeat(left_out, 3)])
    # An inner side belongs to two triangles: one 64-bit key per arc (source in the
    # high half), sorted, with repeats dropped, gives each arc once, grouped by source
    # and in increasing target order within a source.
    keys = sources << 32
    keys |= targets
    del sources, targets
    keys.sort()
    keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
    offsets = np.searchsorted(keys, np.arange(n + 1, dtype=np.int64) << 32)
    return CSRGraph(offsets, (keys & 0xFFFFFFFF).astype(np.int32), directed=False,
                    name=f"delaunay-{scale}-seed{seed}")._paired()
# [generator-delaunay-end]


#: Size of the built-in default graph, as Rodinia's ``graph65536.txt`` input.
DEFAULT_NUM_NODES = 65_536


def default_graph() -> CSRGraph:
    """The graph ``rodinia-bfs run`` uses when no file is given: Rodinia-style, 65,536
    nodes, seed 0 (393,074 stored edges). It takes about 10 ms to build, so it is built
    afresh at each call rather than shared (callers may then modify it freely)."""
    return rodinia_graphgen(DEFAULT_NUM_NODES, seed=0)


@dataclass(frozen=True)
class Parameter:
    """One parameter of a generator, as the command line offers it."""

    name: str
    type: type
    default: object = None  # None: required
    help: str = ""

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class Generator:
    """A graph family for ``rodinia-bfs generate KIND``: call it with its parameters."""

    kind: str
    function: Callable[..., CSRGraph]
    summary: str
    parameters: tuple[Parameter, ...]

    def __call__(self, **kwargs) -> CSRGraph:
        """Make the graph. Parameters left out or ``None`` take their defaults; a
        ``seed`` given to a deterministic generator (the grid) is ignored."""
        known = {p.name for p in self.parameters}
        if "seed" not in known:
            kwargs.pop("seed", None)
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise TypeError(f"generator {self.kind!r} has no parameter {unknown[0]!r}")
        missing = [p.name for p in self.parameters if p.required and kwargs.get(p.name) is None]
        if missing:
            raise TypeError(f"generator {self.kind!r} needs {missing[0]!r}")
        given = {k: v for k, v in kwargs.items() if v is not None}
        return self.function(**given)


_SEED = Parameter("seed", int, 0, "seed of the random generator (same seed, same graph)")

#: The generators by the name ``rodinia-bfs generate KIND`` knows them.
GENERATORS: dict[str, Generator] = {
    "rodinia": Generator(
        "rodinia",
        rodinia_graphgen,
        "Rodinia graphgen: 2-4 random edges per node, stored both ways (average degree 6)",
        (Parameter("num_nodes", int, help="number of vertices"), _SEED),
    ),
    "kronecker": Generator(
        "kronecker",
        kronecker,
        "Graph500 Kronecker / R-MAT: 2**scale vertices, skewed degrees, permuted labels",
        (
            Parameter("scale", int, help="log2 of the number of vertices"),
            Parameter("edge_factor", int, GRAPH500_EDGE_FACTOR, "edges per vertex (undirected)"),
            _SEED,
            Parameter("a", float, GRAPH500_A, "R-MAT probability of the top-left quadrant"),
            Parameter("b", float, GRAPH500_B, "R-MAT probability of the top-right quadrant"),
            Parameter("c", float, GRAPH500_C, "R-MAT probability of the bottom-left quadrant"),
        ),
    ),
    "grid": Generator(
        "grid",
        grid2d,
        "2D grid with 4 neighbours: high diameter, like a road network",
        (
            Parameter("rows", int, help="number of rows"),
            Parameter("cols", int, help="number of columns"),
        ),
    ),
    "hubs": Generator(
        "hubs",
        grid_with_hubs,
        "2D grid plus hubs of about 100x the average degree (Liu et al. 2014)",
        (
            Parameter("rows", int, help="number of rows"),
            Parameter("cols", int, help="number of columns"),
            _SEED,
            Parameter("hub_fraction", float, 0.001, "fraction of vertices that are hubs"),
            Parameter("hub_degree_factor", float, 100.0, "hub degree / average degree"),
        ),
    ),
    "delaunay": Generator(
        "delaunay",
        delaunay,
        "Delaunay triangulation of 2**scale random points: planar, degree about 6, road-like",
        (Parameter("scale", int, help="log2 of the number of vertices (at most 24)"), _SEED),
    ),
}
