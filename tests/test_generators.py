"""The graph generators: reproducible, the sizes and degrees they promise, the right structure."""

import hashlib
import io
import sys

import numpy as np
import pytest

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs import csr, generators
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import (
    GENERATORS,
    GeneratorError,
    default_graph,
    graphgen_edges,
    grid2d,
    grid_with_hubs,
    kronecker,
    rodinia_graphgen,
)


def arc_keys(graph: CSRGraph, reverse: bool = False) -> np.ndarray:
    """Every arc as one sortable key, duplicates kept."""
    sources, targets = graph.edges()
    if reverse:
        sources, targets = targets, sources
    return np.sort(sources.astype(np.int64) * graph.num_vertices + targets)


def is_symmetric(graph: CSRGraph) -> bool:
    """Each arc u -> v is matched by an arc v -> u, duplicates counted."""
    return np.array_equal(arc_keys(graph), arc_keys(graph, reverse=True))


SEEDED = {
    "rodinia": lambda seed: rodinia_graphgen(2000, seed=seed),
    "kronecker": lambda seed: kronecker(10, seed=seed),
    "hubs": lambda seed: grid_with_hubs(60, 50, seed=seed),
}


@pytest.mark.parametrize("kind", sorted(SEEDED))
def test_same_seed_same_graph_other_seed_other_graph(kind):
    make = SEEDED[kind]
    assert make(3) == make(3)
    assert make(3) != make(4)


@pytest.mark.parametrize(
    "graph",
    [rodinia_graphgen(3001, seed=1), kronecker(9, seed=2), grid2d(7, 5), grid_with_hubs(45, 40)],
    ids=["rodinia", "kronecker", "grid", "hubs"],
)
def test_undirected_and_named(graph):
    assert not graph.directed
    assert is_symmetric(graph)
    assert graph.name


# Rodinia graphgen ------------------------------------------------------------------


def test_graphgen_draws_two_to_four_edges_per_node():
    sources, targets = graphgen_edges(10_000, seed=5)
    drawn = np.bincount(sources, minlength=10_000)
    assert drawn.min() == 2 and drawn.max() == 4
    assert abs(drawn.mean() - 3) < 0.05
    assert targets.min() >= 0 and targets.max() < 10_000


def test_rodinia_graph_stores_each_drawn_edge_both_ways_in_drawing_order():
    n = 500
    sources, targets = graphgen_edges(n, seed=9)
    graph = rodinia_graphgen(n, seed=9)
    assert graph.num_edges == 2 * sources.size
    # The arcs, interleaved as drawn, grouped by vertex with from_edges' stable order.
    both_src = np.stack([sources, targets], axis=1).ravel()
    both_dst = np.stack([targets, sources], axis=1).ravel()
    assert graph == CSRGraph.from_edges(both_src, both_dst, n).as_undirected()


def test_rodinia_average_degree_is_about_six():
    graph = rodinia_graphgen(100_000, seed=0)
    degrees = graph.degrees()
    assert degrees.min() >= 2  # each node drew at least 2 edges itself
    assert abs(degrees.mean() - 6) < 0.05


def test_default_graph_is_the_rodinia_65536_graph():
    graph = default_graph()
    assert graph.num_vertices == 65_536
    assert graph == rodinia_graphgen(65_536, seed=0)


def test_fast_csr_builder_matches_from_edges():
    rng = np.random.default_rng(1)
    sources = rng.integers(0, 300, size=5000)
    targets = rng.integers(0, 300, size=5000)
    fast = generators._csr_from_arcs(sources, targets, 310, directed=True, name="x")
    assert fast == CSRGraph.from_edges(sources, targets, 310)


# Kronecker ---------------------------------------------------------------------------


@pytest.mark.parametrize("scale,edge_factor", [(1, 1), (8, 16), (11, 5)])
def test_kronecker_sizes(scale, edge_factor):
    graph = kronecker(scale, edge_factor=edge_factor)
    assert graph.num_vertices == 2**scale
    assert graph.num_edges == 2 * edge_factor * 2**scale


def test_kronecker_degrees_are_skewed():
    degrees = kronecker(14).degrees()
    assert degrees.mean() == 32
    assert degrees.max() > 30 * degrees.mean()  # hubs
    assert np.count_nonzero(degrees == 0) > 0.1 * degrees.size  # and many isolated vertices


def test_kronecker_neighbours_sorted():
    graph = kronecker(8)
    sources, targets = graph.edges()
    keys = sources.astype(np.int64) * graph.num_vertices + targets
    assert np.all(np.diff(keys) >= 0)


@pytest.mark.parametrize(
    "a,b,c,same_vertex",
    [(1, 0, 0, True), (0, 1, 0, False), (0, 0, 1, False), (0, 0, 0, True)],
    ids=["top-left", "top-right", "bottom-left", "bottom-right"],
)
def test_kronecker_quadrants(a, b, c, same_vertex):
    """With all the probability on one quadrant every edge takes the same bits: all
    edges join row 0 or 2**scale - 1 to column 0 or 2**scale - 1 (before relabelling)."""
    graph = kronecker(6, edge_factor=4, a=a, b=b, c=c)
    ends = np.flatnonzero(graph.degrees())
    sources, targets = graph.edges()
    if same_vertex:
        assert ends.size == 1 and np.all(sources == targets)
    else:
        assert ends.size == 2 and np.all(sources != targets)


@pytest.mark.parametrize("a,b,c", [(0.5, 0, 0), (0.3, 0, 0), (0, 0, 0.0)])
def test_kronecker_diagonal_quadrants_give_self_loops(a, b, c):
    """With b = c = 0 the row and column take the same bit at every step: every edge
    is a self loop, on many different vertices."""
    graph = kronecker(8, edge_factor=8, a=a, b=b, c=c)
    sources, targets = graph.edges()
    assert np.all(sources == targets)
    assert np.count_nonzero(graph.degrees()) > (1 if 0 < a < 1 else 0)


@pytest.mark.parametrize("a,b,c", [(0.5, 0.5, 0), (0.5, 0, 0.5), (0.2, 0.8, 0)])
def test_kronecker_half_quadrants_give_a_star(a, b, c):
    """With c = d = 0 every row is 0 (and with b = d = 0 every column): one vertex is
    an end of every edge."""
    graph = kronecker(8, edge_factor=8, a=a, b=b, c=c)
    sources, targets = graph.edges()
    centre = np.bincount(sources).argmax()
    assert np.all((sources == centre) | (targets == centre))
    assert np.count_nonzero(graph.degrees()) > 100


def test_kronecker_self_loop_share_follows_the_probabilities():
    """Row and column agree on a bit with probability a + d = 0.62, so an edge is a self
    loop with probability 0.62 ** scale (labels are permuted, but loops stay loops)."""
    scale, edge_factor = 4, 4096
    graph = kronecker(scale, edge_factor=edge_factor, seed=3)
    sources, targets = graph.edges()
    loops = np.count_nonzero(sources == targets) / 2  # each loop is stored twice
    expected = 0.62**scale * edge_factor * 2**scale
    assert abs(loops - expected) < 5 * np.sqrt(expected)


def test_kronecker_progress(monkeypatch, capsys):
    """In a log (stderr is not a terminal): a line when it starts and one when it is done,
    never one line per bit, chunk or phase. Its units are the generator's four phases."""
    monkeypatch.setattr(generators, "PROGRESS_SCALE", 5)
    monkeypatch.setattr(generators, "KRONECKER_CHUNK", 32)  # 512 edges: 16 chunks
    kronecker(5)
    err = capsys.readouterr().err
    assert "4/4 phases" in err and "done" in err
    assert err.splitlines() == ["kronecker scale 5 ...", err.splitlines()[-1]]
    assert "bit" not in err and "16/16" not in err
    kronecker(5, progress=False)
    kronecker(4)
    assert capsys.readouterr().err == ""


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_kronecker_progress_on_a_terminal(monkeypatch):
    """On a terminal: one line that tqdm rewrites in place (carriage returns), ending
    with the whole count (four phases), and no line per bit."""
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(generators, "PROGRESS_SCALE", 5)
    kronecker(6)
    shown = terminal.getvalue()
    assert "\r" in shown and "4/4" in shown and "kronecker scale 6" in shown
    assert shown.count("\n") <= 1


#: Fingerprints of graphs made by the first generator of this project (all edges drawn
#: at once, one sort of all the arcs): the chunked one must give the same graphs.
KRONECKER_FINGERPRINTS = {
    (5, 16, 3): "49f65fbe4eccc1c2c6fe97273a3f1abacf44ab173be47ee261c556b50c6d34fe",
    (12, 5, 7): "3ac49d7b71e1d589fad3b9fc93a6812971c4d3e7941f44ff7a06556c02c78604",
    (16, 16, 0): "5ae62597594cabb7f497fb30e42dbc4ac1f20772f354eba17dc98f07dce64dc1",
}


def fingerprint(graph: CSRGraph) -> str:
    return hashlib.sha256(graph.offsets.tobytes() + graph.targets.tobytes()).hexdigest()


@pytest.mark.parametrize("scale,edge_factor,seed", sorted(KRONECKER_FINGERPRINTS))
def test_kronecker_same_graphs_as_before(scale, edge_factor, seed):
    graph = kronecker(scale, edge_factor=edge_factor, seed=seed, progress=False)
    assert fingerprint(graph) == KRONECKER_FINGERPRINTS[scale, edge_factor, seed]


@pytest.mark.parametrize("workers", [1, 3])
def test_kronecker_chunks_and_threads_change_nothing(monkeypatch, workers):
    """Tiny chunks and buckets: many chunks per phase, many buckets, hubs alone in a
    bucket, on 1 or 3 threads; the graph is the one the defaults give."""
    expected = KRONECKER_FINGERPRINTS[12, 5, 7]
    monkeypatch.setattr(generators, "KRONECKER_CHUNK", 2 * 97)
    monkeypatch.setattr(csr, "CSR_CHUNK", 2 * 1001)
    monkeypatch.setattr(csr, "BUCKET_BITS", 5)
    graph = kronecker(12, edge_factor=5, seed=7, progress=False, workers=workers)
    assert fingerprint(graph) == expected


def test_kronecker_quadrant_thresholds_match_float_draws():
    """The integer thresholds pick the quadrant the float32 draws would."""
    rng = np.random.default_rng(4)
    draws = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    draws[:4] = [0, 2**32 - 1, 0x91EB8500, 0x91EB84FF]  # the ends, and either side of 0.57
    floats = (draws >> 8).astype(np.float32) * np.float32(2**-24)
    for a, b, c in [(0.57, 0.19, 0.19), (1, 0, 0), (0, 0, 1), (0.25, 0.25, 0.25)]:
        bounds = np.array([a, a + b, a + b + c], dtype=np.float32)
        for t, limit in zip(bounds, generators._quadrant_thresholds(a, b, c)):
            assert np.array_equal(draws >= limit, floats >= t)


def test_kronecker_workers_must_be_positive():
    with pytest.raises(GeneratorError, match="workers"):
        kronecker(4, workers=0)


# Grids -------------------------------------------------------------------------------


def test_grid_structure():
    graph = grid2d(3, 4)  # vertex r * 4 + c
    assert graph.num_vertices == 12
    assert graph.num_edges == 2 * (3 * 3 + 2 * 4)
    assert graph.neighbors(0).tolist() == [1, 4]
    assert graph.neighbors(5).tolist() == [1, 4, 6, 9]
    assert graph.neighbors(11).tolist() == [7, 10]
    assert sorted(np.unique(graph.degrees()).tolist()) == [2, 3, 4]


def test_thin_grids_are_paths():
    assert grid2d(1, 1).num_edges == 0
    path = grid2d(1, 6)
    assert path.degrees().tolist() == [1, 2, 2, 2, 2, 1]
    assert grid2d(6, 1) == path


def test_hubs_have_about_100x_the_average_degree():
    rows, cols = 300, 200
    graph = grid_with_hubs(rows, cols, seed=2)
    degrees = graph.degrees()
    num_hubs = round(0.001 * rows * cols)
    ranked = np.sort(degrees)[::-1]
    hub_ratio = ranked[:num_hubs] / degrees.mean()
    assert np.all((hub_ratio > 90) & (hub_ratio < 110))
    assert ranked[num_hubs] < 20  # everyone else keeps a grid-like degree


def test_hubs_keep_the_grid():
    grid = grid2d(30, 40)
    hubs = grid_with_hubs(30, 40, seed=1, hub_fraction=0.002, hub_degree_factor=20)
    extra = np.setdiff1d(arc_keys(grid), arc_keys(hubs))
    assert extra.size == 0
    assert hubs.num_edges > grid.num_edges


def test_hub_degree_factor_is_a_parameter():
    graph = grid_with_hubs(200, 200, hub_degree_factor=10)
    degrees = graph.degrees()
    assert 8 < degrees.max() / degrees.mean() < 12


@pytest.mark.parametrize(
    "make",
    [
        lambda: grid2d(0, 5),
        lambda: grid_with_hubs(10, 10),  # 1 hub of 100x the average of 100 vertices
        lambda: grid_with_hubs(50, 50, hub_fraction=0),
        lambda: kronecker(0),
        lambda: kronecker(31),
        lambda: kronecker(5, a=0.9, b=0.2),
        lambda: rodinia_graphgen(0),
    ],
)
def test_impossible_parameters_raise_one_clear_error(make):
    with pytest.raises(GeneratorError) as caught:
        make()
    assert isinstance(caught.value, RodiniaBFSError) and isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)


# The registry used by `rodinia-bfs generate` ---------------------------------------------


def test_registry_names_and_parameters():
    assert sorted(GENERATORS) == ["delaunay", "grid", "hubs", "kronecker", "rodinia"]
    for kind, generator in GENERATORS.items():
        assert generator.kind == kind and generator.summary
        for parameter in generator.parameters:
            assert parameter.help
            assert parameter.required or isinstance(parameter.default, parameter.type)


@pytest.mark.parametrize(
    "kind,options,direct",
    [
        ("rodinia", {"num_nodes": 100, "seed": 2}, lambda: rodinia_graphgen(100, seed=2)),
        ("kronecker", {"scale": 6, "edge_factor": None}, lambda: kronecker(6)),
        ("grid", {"rows": 4, "cols": 3, "seed": 7}, lambda: grid2d(4, 3)),
        ("hubs", {"rows": 40, "cols": 40}, lambda: grid_with_hubs(40, 40)),
    ],
)
def test_registry_calls_the_generator(kind, options, direct):
    assert GENERATORS[kind](**options) == direct()


def test_registry_rejects_missing_and_unknown_parameters():
    with pytest.raises(TypeError, match="needs 'scale'"):
        GENERATORS["kronecker"]()
    with pytest.raises(TypeError, match="no parameter 'size'"):
        GENERATORS["grid"](rows=3, cols=3, size=9)
