"""The Delaunay generator: a planar, road-like graph of mean degree about 6."""

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph
from scipy.spatial import Delaunay

from rodinia_bfs.cli import main
from rodinia_bfs.graphs import generators
from rodinia_bfs.graphs.formats import load_graph
from rodinia_bfs.graphs.generators import GENERATORS, GeneratorError, delaunay

from helpers import scipy_levels


def arcs(graph) -> np.ndarray:
    """The arcs ``(u, v)`` of ``graph``, one row each, in CSR order."""
    sources = np.repeat(np.arange(graph.num_vertices), graph.degrees())
    return np.stack([sources, graph.targets], axis=1)


def matrix(graph) -> scipy.sparse.csr_matrix:
    n = graph.num_vertices
    return scipy.sparse.csr_matrix(
        (np.ones(graph.num_edges), graph.targets, graph.offsets), shape=(n, n))


@pytest.mark.parametrize("scale,seed", [(6, 0), (9, 4), (11, 1)])
def test_a_simple_symmetric_planar_graph(scale, seed):
    graph = delaunay(scale, seed=seed)
    n = graph.num_vertices
    assert n == 2**scale and not graph.directed
    pairs = arcs(graph)
    assert not np.any(pairs[:, 0] == pairs[:, 1]), "self loop"
    keys = pairs[:, 0] * n + pairs[:, 1]
    assert np.unique(keys).size == keys.size, "duplicate arc"
    # every neighbour list in increasing order, and every arc stored both ways
    assert np.all(np.diff(keys) > 0)
    assert np.array_equal(np.sort(keys), np.sort(pairs[:, 1] * n + pairs[:, 0]))
    # Euler: a planar simple graph has at most 3n - 6 edges
    assert graph.num_edges // 2 <= 3 * n - 6
    # one component
    components, _ = scipy.sparse.csgraph.connected_components(matrix(graph), directed=False)
    assert components == 1


@pytest.mark.parametrize("scale", [8, 10, 12])
def test_mean_degree_just_under_six(scale):
    graph = delaunay(scale, seed=2)
    assert 5 < graph.num_edges / graph.num_vertices < 6


def test_the_triangulation_of_the_points_drawn_in_order():
    """Vertex i is the i-th point drawn; its neighbours are those of scipy's triangulation
    of the points in that order (the generator triangulates them in another order)."""
    scale, seed = 9, 7
    points = np.random.default_rng(seed).random((2**scale, 2))
    expected = set()
    for triangle in Delaunay(points).simplices.tolist():
        for a, b in zip(triangle, triangle[1:] + triangle[:1]):
            expected |= {(a, b), (b, a)}
    assert set(map(tuple, arcs(delaunay(scale, seed=seed)).tolist())) == expected


def test_reproducible_by_seed():
    first, again, other = delaunay(10, seed=3), delaunay(10, seed=3), delaunay(10, seed=4)
    assert np.array_equal(first.offsets, again.offsets)
    assert np.array_equal(first.targets, again.targets)
    assert not np.array_equal(first.targets, other.targets)
    assert first.name == "delaunay-10-seed3"


@pytest.mark.parametrize("scale", [1, 25, -3])
def test_scales_out_of_range(scale):
    with pytest.raises(GeneratorError, match=f"scale={scale}"):
        delaunay(scale)


def test_refused_where_memory_is_short(monkeypatch):
    monkeypatch.setattr(generators, "_available_memory", lambda: 2**20)
    with pytest.raises(GeneratorError, match=r"needs about .* GiB of host memory"):
        delaunay(12)


def test_registered_for_generate():
    graph = GENERATORS["delaunay"](scale=7, seed=5)
    assert np.array_equal(graph.targets, delaunay(7, seed=5).targets)


def test_cli_generate_round_trip(tmp_path, capsys):
    out = tmp_path / "d.mtx"
    assert main(["generate", "delaunay", "--scale", "10", "--seed", "3", "-o", str(out)]) == 0
    assert "delaunay graph written" in capsys.readouterr().out
    graph, made = load_graph(out), delaunay(10, seed=3)
    assert graph.num_vertices == made.num_vertices and not graph.directed
    assert set(map(tuple, arcs(graph).tolist())) == set(map(tuple, arcs(made).tolist()))
    assert main(["run", str(out), "--source", "17", "--validate"]) == 0
    levels = scipy_levels(graph, 17)
    assert levels.min() == 0 and levels.max() > 10  # a road-like depth, growing as sqrt(n)


def test_cli_rejects_a_scale_too_large(tmp_path, capsys):
    assert main(["generate", "delaunay", "--scale", "30", "-o", str(tmp_path / "d.mtx")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--scale 30" in err[0]


def test_large_suite_skips_a_triangulation_that_cannot_fit(monkeypatch, capsys):
    """Qhull's memory, not the graph's, decides: skipped before anything is generated."""
    from rodinia_bfs.bench import runner

    def refuse(*args, **kwargs):
        raise AssertionError("generated a graph that was to be skipped")

    monkeypatch.setattr(generators, "delaunay", refuse)
    monkeypatch.setattr(runner, "available_host_memory", lambda: 8 << 30)
    code = main(["bench", "--suite", "large", "--graphs", "delaunay-24", "--variants", "reference"])
    assert code == 1  # nothing measured
    assert "skipping delaunay-24: needs about 16.0 GiB of free host memory, there are 8.0 GiB" \
        in capsys.readouterr().err
