"""The CPU reference BFS against scipy's, on awkward, generated and real graphs."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse
import scipy.sparse.csgraph

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker, rodinia_graphgen
from rodinia_bfs.reference import (
    SERIAL_MAX_VERTICES,
    BFSResult,
    bfs_frontier,
    bfs_reference,
    bfs_serial,
)
from rodinia_bfs.validate import check_parents

from helpers import DATA, awkward_graph


def scipy_bfs_levels(graph: CSRGraph, source: int) -> np.ndarray:
    """Levels from scipy's breadth_first_order: the rows of the matrix are the out-edges.
    (Duplicate entries are kept as they are: they do not change reachability.)"""
    n = graph.num_vertices
    matrix = scipy.sparse.csr_matrix(
        (np.ones(graph.num_edges, dtype=np.int8), graph.targets, graph.offsets), shape=(n, n)
    )
    order, predecessors = scipy.sparse.csgraph.breadth_first_order(
        matrix, source, directed=True, return_predecessors=True
    )
    levels = np.full(n, -1, dtype=np.int32)
    levels[source] = 0
    # BFS order lists every vertex after its predecessor: one pass sets all levels.
    for v, p in zip(order[1:].tolist(), predecessors[order[1:]].tolist()):
        levels[v] = levels[p] + 1
    return levels


def mtx_graph(name: str) -> CSRGraph:
    """A MatrixMarket graph read by scipy itself (symmetric files come back with both triangles)."""
    matrix = scipy.io.mmread(DATA / "social" / name).tocoo()
    return CSRGraph.from_edges(matrix.row, matrix.col, matrix.shape[0], name=name).as_undirected()


def road_graph(name: str) -> CSRGraph:
    from rodinia_bfs.graphs.formats import load_graph

    return load_graph(DATA / "road" / name)


def hand_graph(n, edges, directed=True):
    src, dst = zip(*edges) if edges else ((), ())
    return CSRGraph.from_edges(src, dst, n, directed=directed)


def one_way_at_random(graph: CSRGraph) -> CSRGraph:
    """A directed graph: keep each stored arc with probability 1/2 (some edges end up one-way)."""
    sources, targets = graph.edges()
    keep = np.random.default_rng(0).random(sources.size) < 0.5
    return CSRGraph.from_edges(sources[keep], targets[keep], graph.num_vertices, directed=True)


SMALL = {
    "single-vertex": lambda: hand_graph(1, []),
    "isolated-pair": lambda: hand_graph(2, []),
    "self-loops-duplicates": lambda: hand_graph(
        5, [(0, 0), (0, 1), (0, 1), (1, 1), (1, 2), (2, 0), (2, 2), (3, 4)]
    ),
    "directed-one-way": lambda: hand_graph(6, [(0, 1), (1, 2), (2, 3), (3, 1), (5, 0), (4, 4)]),
    "awkward": awkward_graph,
    "random-directed": lambda: CSRGraph.from_edges(
        *np.random.default_rng(4).integers(0, 2500, size=(2, 6000)), 2503
    ),
    "rodinia-3001": lambda: rodinia_graphgen(3001, seed=1),
    "kronecker-10": lambda: kronecker(10, seed=5),
    "grid-37x29": lambda: grid2d(37, 29),
    "hubs-60x45": lambda: grid_with_hubs(60, 45, seed=3),
    "kronecker-10-directed": lambda: one_way_at_random(kronecker(10, edge_factor=4)),
}

REAL = {
    "email-Enron": lambda: mtx_graph("email-Enron.mtx"),
    "as-22july06": lambda: mtx_graph("as-22july06.mtx"),
    "NY": lambda: road_graph("NY.gr.xz"),
    "BAY": lambda: road_graph("BAY.gr.xz"),
}


def sources_of(graph: CSRGraph) -> list[int]:
    """Vertex 0, the last vertex, a middle one, the biggest hub and a vertex without out-edges."""
    n = graph.num_vertices
    degrees = graph.degrees()
    chosen = {0, n - 1, n // 2 + 1 if n > 2 else 0, int(degrees.argmax())}
    no_out_edges = np.flatnonzero(degrees == 0)
    if no_out_edges.size:
        chosen.add(int(no_out_edges[no_out_edges.size // 2]))
    return sorted(chosen)


def check_both_methods(graph: CSRGraph, source: int) -> None:
    expected = scipy_bfs_levels(graph, source)
    serial = bfs_serial(graph, source)
    frontier = bfs_frontier(graph, source)
    for result in (serial, frontier):
        assert result.levels.dtype == np.int32 and result.parents.dtype == np.int32
        np.testing.assert_array_equal(result.levels, expected)
        check_parents(graph, source, result.levels, result.parents)
    # The frontier BFS picks the parent the queue would have: the same tree.
    np.testing.assert_array_equal(frontier.parents, serial.parents)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_and_generated_graphs(name):
    graph = SMALL[name]()
    for source in sources_of(graph):
        check_both_methods(graph, source)


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_graphs(name):
    if not DATA.is_dir():
        pytest.skip(f"the real graphs are not here ({DATA})")
    graph = REAL[name]()
    for source in sources_of(graph)[:3]:
        check_both_methods(graph, source)


def test_hand_checked_levels_and_parents():
    #   0 -> 1 -> 2, 0 -> 3 -> 2, 2 -> 2, 4 isolated, 5 -> 0 (not reachable from 0)
    graph = hand_graph(6, [(0, 1), (0, 3), (1, 2), (3, 2), (3, 2), (2, 2), (5, 0)])
    for bfs in (bfs_serial, bfs_frontier):
        result = bfs(graph, 0)
        assert result.levels.tolist() == [0, 1, 2, 1, -1, -1]
        assert result.parents.tolist() == [0, 0, 1, 0, -1, -1]  # 2 is found from 1 first
        from_5 = bfs(graph, 5)
        assert from_5.levels.tolist() == [1, 2, 3, 2, -1, 0]


def test_source_without_out_edges_reaches_only_itself():
    graph = hand_graph(4, [(1, 0), (2, 0), (3, 2)])
    for bfs in (bfs_serial, bfs_frontier):
        result = bfs(graph, 0)
        assert result.levels.tolist() == [0, -1, -1, -1]
        assert result.parents.tolist() == [0, -1, -1, -1]


def test_directed_edges_are_followed_one_way():
    graph = hand_graph(3, [(0, 1), (2, 1)])
    assert bfs_frontier(graph, 0).levels.tolist() == [0, 1, -1]
    assert bfs_serial(graph, 2).levels.tolist() == [-1, 1, 0]
    assert bfs_serial(graph, 1).levels.tolist() == [-1, 0, -1]


def test_long_path_many_levels():
    graph = grid2d(1, 5000)
    result = bfs_frontier(graph, 4999)
    assert result.levels.tolist() == list(range(4999, -1, -1))


def test_numpy_integer_source():
    graph = grid2d(3, 3)
    assert bfs_serial(graph, np.int64(4)).levels.tolist() == [2, 1, 2, 1, 0, 1, 2, 1, 2]
    assert bfs_frontier(graph, np.int32(4)).levels.tolist() == [2, 1, 2, 1, 0, 1, 2, 1, 2]


@pytest.mark.parametrize("bfs", [bfs_serial, bfs_frontier, bfs_reference])
@pytest.mark.parametrize("source", [-1, 12, 1000])
def test_source_outside_the_graph(bfs, source):
    expected = rf"^source {source} is outside the graph \(0\.\.11\)$"
    with pytest.raises(RodiniaBFSError, match=expected):
        bfs(grid2d(3, 4), source)


def test_empty_graph_has_no_source():
    empty = CSRGraph(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))
    with pytest.raises(RodiniaBFSError, match="source 0 is outside the graph"):
        bfs_reference(empty, 0)


def test_reference_method_choice():
    small = rodinia_graphgen(SERIAL_MAX_VERTICES, seed=2)
    large = rodinia_graphgen(SERIAL_MAX_VERTICES + 1, seed=2)
    for graph in (small, large):
        auto = bfs_reference(graph, 7)
        assert isinstance(auto, BFSResult)
        for method in ("serial", "frontier"):
            np.testing.assert_array_equal(bfs_reference(graph, 7, method).levels, auto.levels)
    with pytest.raises(ValueError, match="unknown reference method 'dfs'"):
        bfs_reference(small, 0, method="dfs")


def test_frontier_pieces_do_not_change_the_result(monkeypatch):
    """bfs_frontier expands big frontiers in pieces; tiny pieces must give the same tree."""
    import rodinia_bfs.reference as reference

    graph = kronecker(11, seed=1)
    source = int(graph.degrees().argmax())
    whole = bfs_frontier(graph, source)
    monkeypatch.setattr(reference, "EDGES_PER_PIECE", 7)
    pieces = bfs_frontier(graph, source)
    np.testing.assert_array_equal(pieces.levels, whole.levels)
    np.testing.assert_array_equal(pieces.parents, whole.parents)
    np.testing.assert_array_equal(whole.parents, bfs_serial(graph, source).parents)
