"""Every mistake a caller of the Python API can make is a RodiniaBFSError in one line.

Sources and edge ids follow one rule (an integer; a float only when whole; never a bool
or a string); ``from_edges(directed=False)`` adds the reverse arcs; the graph's arrays
are read-only and the arrays handed out are the caller's; the results relate to scipy's
functions as the docstrings say.
"""

import re

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

import rodinia_bfs
from rodinia_bfs.errors import ArgumentError, ArgumentTypeError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph

from helpers import awkward_graph, scipy_levels

PATH = CSRGraph.from_edges([0, 1, 2], [1, 2, 3], 5)  # 0 -> 1 -> 2 -> 3, and 4 alone


def reference_bfs(graph, source):
    return rodinia_bfs.bfs(graph, source, variant="reference")


# -- sources ----------------------------------------------------------------------------


@pytest.mark.parametrize("source, error, builtin, message", [
    (1.5, ArgumentError, ValueError, "source must be an integer vertex id, got 1.5"),
    (float("nan"), ArgumentError, ValueError, "source must be an integer vertex id, got nan"),
    (True, ArgumentTypeError, TypeError, "source must be an integer vertex id, got the bool True"),
    (np.bool_(False), ArgumentTypeError, TypeError, "got the bool False"),
    ("1", ArgumentTypeError, TypeError, "source must be an integer vertex id, got str '1'"),
    (None, ArgumentTypeError, TypeError, "got NoneType None"),
    (-1, ArgumentError, ValueError, "source -1 is outside the graph (0..4)"),
    (5, ArgumentError, ValueError, "source 5 is outside the graph (0..4)"),
    (np.int64(7), ArgumentError, ValueError, "source 7 is outside the graph (0..4)"),
])
def test_a_bad_source_is_one_clear_error(source, error, builtin, message):
    with pytest.raises(error, match=re.escape(message)) as caught:
        reference_bfs(PATH, source)
    assert isinstance(caught.value, RodiniaBFSError) and isinstance(caught.value, builtin)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("source", [1, np.int8(1), np.uint32(1), np.int64(1), np.array(1), 1.0,
                                    np.float32(1.0)])
def test_integer_sources_of_any_kind_are_taken(source):
    """NumPy integers, 0-d integer arrays and whole floats are vertex 1; bool is not."""
    levels, parents = reference_bfs(PATH, source)
    np.testing.assert_array_equal(levels, [-1, 0, 1, 2, -1])
    assert parents[1] == 1


def test_a_graph_without_vertices_has_no_source():
    empty = CSRGraph.from_edges([], [], 0)
    with pytest.raises(ArgumentError, match=re.escape("source 0 is outside the graph (it has no vertices)")):
        reference_bfs(empty, 0)


def test_a_gpu_step_checks_the_source_the_same_way():
    with pytest.raises(ArgumentError, match="got 2.5"):
        rodinia_bfs.bfs(PATH, 2.5, variant="queue", backend="cpu")
    with pytest.raises(ArgumentTypeError, match="bool"):
        rodinia_bfs.bfs(PATH, True, variant="queue", backend="cpu")


# -- from_edges -------------------------------------------------------------------------


@pytest.mark.parametrize("sources, targets, n, error, message", [
    ([0, 1], [1, 2.7], 3, ArgumentError, "targets[1] = 2.7 is not an integer vertex id"),
    ([0.5], [1], 3, ArgumentError, "sources[0] = 0.5 is not an integer vertex id"),
    ([0, np.inf], [1, 1], 3, ArgumentError, "sources[1] = inf is not an integer vertex id"),
    ([0, 1, 2], [1, 2], 3, ArgumentError, "sources has 3 ids and targets 2: one target per source"),
    ([0, -1], [1, 2], 3, ArgumentError, "sources[1] = -1 is negative"),
    ([0, 1], [1, 3], 3, ArgumentError, "targets[1] = 3 is not below num_vertices"),
    ([True, False], [1, 0], 3, ArgumentTypeError, "sources must hold integer vertex ids, got bools"),
    (["0", "1"], [1, 0], 3, ArgumentTypeError, "sources must hold integer vertex ids, got dtype <U1"),
    ([0], [1], 2.5, ArgumentError, "num_vertices must be an integer vertex id, got 2.5"),
    ([0], [1], True, ArgumentTypeError, "num_vertices must be an integer vertex id, got the bool"),
    ([0], [1], -1, ArgumentError, "num_vertices=-1 must be 0 to"),
    ([0], [1], 2**31, ArgumentError, "(32-bit vertex ids)"),
])
def test_from_edges_refuses_bad_ids_in_one_line(sources, targets, n, error, message):
    with pytest.raises(error, match=re.escape(message)) as caught:
        CSRGraph.from_edges(sources, targets, n)
    assert isinstance(caught.value, RodiniaBFSError)
    assert "\n" not in str(caught.value)


def test_whole_float_ids_are_taken_as_integers():
    """Float ids without a fraction (np.loadtxt's) are accepted, as sources are."""
    as_floats = CSRGraph.from_edges(np.array([0.0, 1.0, 2.0]), [1.0, 2.0, 3.0], 5.0)
    assert as_floats == PATH
    mixed = CSRGraph.from_edges(np.array([0, 1.0, 2], dtype=object), [1, 2, 3], 5)
    assert mixed == PATH
    with pytest.raises(ArgumentError, match=re.escape("sources[1] must be an integer vertex id, got 1.5")):
        CSRGraph.from_edges(np.array([0, 1.5], dtype=object), [1, 2], 5)


@pytest.mark.parametrize("pairs", [
    [(0, 1), (1, 2), (0, 2), (3, 4)],
    [(0, 1), (0, 1), (2, 1)],  # a duplicate edge, and one written "backwards"
])
def test_undirected_from_edges_adds_the_reverse_arcs(pairs):
    sources, targets = map(list, zip(*pairs))
    n = 5
    graph = CSRGraph.from_edges(sources, targets, n, directed=False)
    both = CSRGraph.from_edges(sources + targets, targets + sources, n)
    assert not graph.directed
    assert np.array_equal(graph.offsets, both.offsets)
    assert np.array_equal(graph.targets, both.targets)
    assert graph == both.as_undirected()
    assert graph.is_symmetric()
    assert graph.edge_counts().undirected_edges == len(pairs)


def test_an_undirected_self_loop_is_one_arc():
    graph = CSRGraph.from_edges([0, 1], [1, 1], 2, directed=False)
    assert graph.num_arcs == 3  # 0 -> 1, 1 -> 0 and the loop 1 -> 1 once
    assert graph.edge_counts().undirected_edges == 2 and graph.edge_counts().self_loops == 1


def test_validation_checks_the_undirected_graph():
    """A BFS from the end of an undirected path walks back along the added arcs, and
    validation agrees: it checks the graph with both directions."""
    graph = CSRGraph.from_edges([0, 1, 2], [1, 2, 3], 4, directed=False)
    levels, parents = rodinia_bfs.bfs(graph, 3, variant="queue", backend="cpu", validate=True)
    np.testing.assert_array_equal(levels, [3, 2, 1, 0])
    np.testing.assert_array_equal(parents, [1, 2, 3, 3])


# -- whose arrays -----------------------------------------------------------------------


def test_the_graph_arrays_are_read_only():
    graph = awkward_graph()
    for array in (graph.offsets, graph.targets, graph.neighbors(3), graph.edges()[1]):
        assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        graph.targets[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        graph.offsets[-1] = 0


def test_the_callers_arrays_keep_their_flags_and_values():
    offsets = np.array([0, 1, 2], dtype=np.int64)
    targets = np.array([1, 0], dtype=np.int32)
    graph = CSRGraph(offsets, targets)
    assert offsets.flags.writeable and targets.flags.writeable
    assert not graph.targets.flags.writeable
    sources = np.array([2, 0, 1])
    CSRGraph.from_edges(sources, [0, 1, 2], 3, directed=False)
    np.testing.assert_array_equal(sources, [2, 0, 1])


@pytest.mark.parametrize("variant", ["reference", "queue", "rodinia"])
def test_the_results_belong_to_the_caller(variant):
    """The arrays returned are new and writeable: changing them changes nothing the next
    call sees."""
    graph = awkward_graph()
    levels, parents = rodinia_bfs.bfs(graph, 3, variant=variant, backend="cpu")
    expected = scipy_levels(graph, 3)
    assert levels.flags.writeable and (parents is None or parents.flags.writeable)
    levels[:] = 99
    if parents is not None:
        parents[:] = 99
    again, _ = rodinia_bfs.bfs(graph, 3, variant=variant, backend="cpu")
    np.testing.assert_array_equal(again, expected)


# -- what the results are, next to scipy ------------------------------------------------


def test_levels_are_scipy_shortest_path_unweighted():
    matrix = scipy.sparse.random(400, 400, density=0.006, format="csr", random_state=4)
    for source in (0, 17, 399):
        levels, _ = rodinia_bfs.bfs(matrix, source, variant="reference")
        distances = scipy.sparse.csgraph.shortest_path(matrix, unweighted=True, indices=source)
        np.testing.assert_array_equal(levels, np.where(np.isinf(distances), -1, distances))


def test_parents_next_to_breadth_first_order():
    """breadth_first_order gives an order and predecessors (-9999 for the source and the
    unreachable); our parents are -1 where unreachable and the source's is itself."""
    matrix = scipy.sparse.random(400, 400, density=0.006, format="csr", random_state=5)
    source = 11
    levels, parents = rodinia_bfs.bfs(matrix, source, variant="reference")
    order, predecessors = scipy.sparse.csgraph.breadth_first_order(matrix, source)
    reached = np.zeros(400, bool)
    reached[order] = True
    np.testing.assert_array_equal(levels >= 0, reached)
    assert parents[source] == source and predecessors[source] == -9999
    np.testing.assert_array_equal(np.delete(parents == -1, source), np.delete(~reached, source))
