"""A graph whose arcs were built both ways says so (CSRGraph.known_symmetric), and the
device set-up of steps 6 and 7 then skips its symmetry check: each constructor that
claims it is held to the check itself, on a copy that knows nothing."""

import numpy as np
import pytest

from rodinia_bfs.graphs import generators
from rodinia_bfs.graphs.csr import CSRGraph

BUILT_BOTH_WAYS = {
    "rodinia": lambda: generators.rodinia_graphgen(3000, seed=1),
    "kronecker": lambda: generators.kronecker(scale=10, edge_factor=8, seed=2),
    "grid": lambda: generators.grid2d(17, 23),
    "hubs": lambda: generators.grid_with_hubs(20, 20, seed=3),
    "delaunay": lambda: generators.delaunay(8, seed=4),
    "from_edges": lambda: CSRGraph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 2, 0], 5,
                                              directed=False),
    "symmetrize": lambda: CSRGraph.from_edges([0, 0, 1, 3], [1, 2, 1, 0], 4).symmetrize(),
    "as_undirected": lambda: CSRGraph.from_edges([0, 1], [1, 0], 2).as_undirected(),
}


@pytest.mark.parametrize("build", BUILT_BOTH_WAYS.values(), ids=BUILT_BOTH_WAYS.keys())
def test_a_graph_built_both_ways_is_symmetric(build):
    graph = build()
    assert graph.known_symmetric
    unknown = CSRGraph(graph.offsets, graph.targets)
    assert not unknown.known_symmetric
    assert unknown.is_symmetric()


def test_other_graphs_are_checked_and_the_answer_kept():
    directed = CSRGraph.from_edges([0, 1, 2], [1, 2, 0], 3)
    assert not directed.known_symmetric
    assert not directed.is_symmetric()
    assert not directed.known_symmetric  # known not to be
    paired = CSRGraph(np.array([0, 1, 2]), np.array([1, 0]))
    assert not paired.known_symmetric
    assert paired.is_symmetric()
    assert paired.known_symmetric


def test_a_label_alone_is_no_promise():
    """``directed=False`` given by a caller only labels: the arcs are still checked."""
    one_way = CSRGraph(np.array([0, 1, 1]), np.array([1]), directed=False)
    assert not one_way.known_symmetric
    assert not one_way.is_symmetric()


@pytest.mark.parametrize("variant", ["push_pull_basic", "adaptive_basic", "out_of_memory",
                                     "multi_gpu"])
def test_host_set_up_skips_the_reverse_of_a_graph_built_both_ways(variant, monkeypatch):
    """The steps that build their in-lists on the host (the basic pull, step 9's host
    in-lists, step 8's pull under the edge cut) reverse a graph only when it may be directed: a graph built both ways is
    searched with its out-lists as in-lists, and still exactly."""
    from rodinia_bfs.reference import bfs_reference
    from rodinia_bfs.runtime import get_device
    from rodinia_bfs.validate import validate_result
    from rodinia_bfs.variants import STEPS

    graph = generators.grid_with_hubs(20, 20, seed=5)
    options = {"out_of_memory": {"host_edges": "zero_copy"},
               "multi_gpu": {"gpus": 2, "policy": "oec", "direction": "auto"}}.get(variant, {})
    reversed_ = []
    reverse = CSRGraph.reverse
    monkeypatch.setattr(CSRGraph, "reverse", lambda g: reversed_.append(g) or reverse(g))
    with STEPS[variant](get_device("cpu"), graph, **options) as step:
        run = step.run(0)
    assert reversed_ == []
    validate_result(graph, 0, run.levels, run.parents, bfs_reference(graph, 0))
    directed = CSRGraph(graph.offsets, graph.targets)  # the same arcs, nothing known
    with STEPS[variant](get_device("cpu"), directed, **options) as step:
        run = step.run(0)
    assert reversed_  # checked: the same arcs, but nothing known about them
    validate_result(directed, 0, run.levels, run.parents, bfs_reference(directed, 0))
