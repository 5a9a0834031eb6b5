"""The CSR graph's bucket-sorted builder, its reverse and its symmetry test."""

import numpy as np
import pytest

from rodinia_bfs.graphs import csr
from rodinia_bfs.graphs.csr import CSRGraph, sorted_csr
from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen

from helpers import awkward_graph


def sorted_by_numpy(sources, targets, n):
    """The same CSR by one lexicographic sort of all the arcs."""
    order = np.lexsort((targets, sources))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sources, minlength=n), out=offsets[1:])
    return offsets, np.asarray(targets)[order]


@pytest.mark.parametrize("n", [1, 7, 1000, 70_001])
@pytest.mark.parametrize("both_ways", [False, True])
@pytest.mark.parametrize("small", [False, True], ids=["default", "tiny-chunks"])
def test_sorted_csr_matches_one_big_sort(monkeypatch, n, both_ways, small):
    """Any vertex count (not a power of two), duplicates, self loops, a hub, empty
    buckets; with tiny chunks and buckets, many of each."""
    if small:  # about 30 chunks and 2 to 70 buckets
        monkeypatch.setattr(csr, "CSR_CHUNK", max(n // 5, 6))
        monkeypatch.setattr(csr, "BUCKET_BITS", max(n.bit_length() - 6, 1))
    rng = np.random.default_rng(n)
    m = 3 * n + 5
    sources = rng.integers(0, n, m).astype(np.int32)
    targets = rng.integers(0, n, m).astype(np.int32)
    sources[: m // 4] = n // 2  # a hub, alone in its bucket
    sources[-3:] = targets[-3:]  # self loops
    offsets, neighbours = sorted_csr(sources, targets, n, both_ways=both_ways, workers=2)
    if both_ways:
        sources, targets = np.r_[sources, targets], np.r_[targets, sources]
    expected_offsets, expected = sorted_by_numpy(sources, targets, n)
    np.testing.assert_array_equal(offsets, expected_offsets)
    np.testing.assert_array_equal(neighbours, expected)


@pytest.mark.parametrize("n", [1, 7, 1000, 70_001])
@pytest.mark.parametrize("small", [False, True], ids=["default", "tiny-groups"])
def test_hubs_first_matches_one_big_sort(monkeypatch, n, small):
    """Each list by decreasing degree, ties in their old order (one lexicographic sort
    of all the arcs says the same), over one or many groups of rows; the offsets, the
    name and the direction as they were."""
    if small:
        monkeypatch.setattr(csr, "BUCKET_BITS", max(n.bit_length() - 6, 1))
    rng = np.random.default_rng(n + 1)
    m = 3 * n + 5
    sources = rng.integers(0, n, m).astype(np.int32)
    sources[: m // 4] = n // 2  # a hub
    graph = CSRGraph.from_edges(sources, rng.integers(0, n, m), n, name="mixed")
    degrees = graph.degrees()
    ordered = graph.hubs_first(workers=2)
    rows = np.repeat(np.arange(n), degrees)
    place = np.arange(m)  # the old order, for ties
    expected = graph.targets[np.lexsort((place, -degrees[graph.targets], rows))]
    np.testing.assert_array_equal(ordered.targets, expected)
    np.testing.assert_array_equal(ordered.offsets, graph.offsets)
    assert (ordered.name, ordered.directed) == ("mixed", graph.directed)
    # Any ranking may be given, one value per vertex.
    by_id = graph.hubs_first(np.arange(n))
    assert all(np.all(np.diff(by_id.neighbors(v)) <= 0) for v in range(min(n, 50)))
    with pytest.raises(ValueError, match="one per vertex"):
        graph.hubs_first(np.arange(n + 1))


def test_sorted_csr_without_arcs():
    offsets, neighbours = sorted_csr(np.zeros(0, np.int32), np.zeros(0, np.int32), 5)
    assert offsets.tolist() == [0] * 6 and neighbours.size == 0


def test_reverse_is_the_transpose():
    graph = awkward_graph()
    reverse = graph.reverse()
    sources, targets = graph.edges()
    assert reverse == CSRGraph.from_edges(targets, sources, graph.num_vertices)
    assert reverse.reverse().reverse() == reverse


def test_symmetric_graphs_are_detected():
    assert grid2d(5, 7).is_symmetric()
    # Rodinia-style graphs store their neighbours in the order drawn, not sorted.
    graph = rodinia_graphgen(500, seed=1)
    assert any(np.any(np.diff(graph.neighbors(v)) < 0) for v in range(500))
    assert graph.is_symmetric()
    assert graph.is_symmetric(graph.reverse())


@pytest.mark.parametrize("arcs", [
    [(0, 1), (1, 2), (2, 0)],          # a directed cycle: in-degree == out-degree
    [(0, 1), (1, 0), (0, 1), (1, 2)],  # a duplicate one way only
    [(0, 1), (1, 0), (0, 2), (2, 1)],  # in- and out-degrees differ
    [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2), (2, 0), (0, 1), (1, 2), (2, 0)],  # + a cycle
])
def test_directed_graphs_are_detected(arcs):
    sources, targets = zip(*arcs)
    arcs = CSRGraph.from_edges(sources, targets, 3)
    graph = CSRGraph(arcs.offsets, arcs.targets, directed=False)  # whatever the label says
    assert not graph.is_symmetric()


def test_one_way_arcs_are_not_symmetric():
    assert awkward_graph().is_symmetric() is False
