"""Validation: exact levels, and each of Graph500's five parent rules catching a broken tree."""

import os

import numpy as np
import pytest

from rodinia_bfs.errors import RodiniaBFSError, ValidationError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import BFSResult, bfs_reference
from rodinia_bfs.validate import check_levels, check_parents, validate_result

from helpers import awkward_graph


def undirected(n, edges):
    src, dst = zip(*edges)
    return CSRGraph.from_edges(src, dst, n, directed=False)


def fails(rule: int):
    """pytest.raises for a ValidationError naming Graph500 rule ``rule``."""
    return pytest.raises(ValidationError, match=rf"^Graph500 rule {rule} \(")


# Correct results pass ------------------------------------------------------------------


@pytest.mark.parametrize(
    "graph",
    [awkward_graph(), grid2d(17, 13), kronecker(12, seed=4)],
    ids=["awkward", "grid", "kronecker"],
)
def test_reference_results_pass(graph):
    for source in (0, graph.num_vertices // 3, int(graph.degrees().argmax())):
        result = bfs_reference(graph, source, method="frontier")
        check_levels(result.levels, result.levels.copy())
        check_parents(graph, source, result.levels, result.parents)


def test_any_valid_parent_passes_not_only_the_references():
    # 0 - 1 - 3 and 0 - 2 - 3: vertex 3 may take 1 or 2 as its parent.
    graph = undirected(4, [(0, 1), (0, 2), (1, 3), (2, 3)])
    levels = [0, 1, 1, 2]
    check_parents(graph, 0, levels, [0, 0, 0, 1])
    check_parents(graph, 0, levels, [0, 0, 0, 2])


# check_levels --------------------------------------------------------------------------


def test_check_levels_catches_one_wrong_level():
    expected = np.array([0, 1, 2, 1, -1], dtype=np.int32)
    got = expected.copy()
    got[2] = 3
    with pytest.raises(ValidationError) as caught:
        check_levels(got, expected)
    message = str(caught.value)
    assert message == "levels: 1 of 5 vertices differ (vertex 2 got 3 expected 2)"


def test_check_levels_lists_the_first_few():
    expected = np.zeros(100, dtype=np.int32)
    message = r"^costs: 100 of 100 vertices differ \(vertex 0 got -1 .*, \.\.\.\)$"
    with pytest.raises(ValidationError, match=message):
        check_levels(np.full(100, -1), expected, what="costs")


def test_check_levels_catches_unreached_as_reached_and_wrong_length():
    with pytest.raises(ValidationError, match="vertex 1 got 1 expected -1"):
        check_levels([0, 1], [0, -1])
    with pytest.raises(ValidationError, match="got 3 values, expected 2"):
        check_levels([0, 1, 2], [0, 1])


# One deliberately broken parent array per rule ------------------------------------------


def test_rule_1_cycle():
    # 0 - 1, 1 - 2, 2 - 3, 3 - 1: levels 0, 1, 2, 2. Make 1 and 3 each other's parent.
    graph = undirected(4, [(0, 1), (1, 2), (2, 3), (3, 1)])
    levels = [0, 1, 2, 2]
    check_parents(graph, 0, levels, [0, 0, 1, 1])
    with fails(1) as caught:
        check_parents(graph, 0, levels, [0, 3, 1, 1])
    assert "cycle" in str(caught.value)


def test_rule_1_source_not_its_own_parent():
    graph = undirected(3, [(0, 1), (1, 2)])
    with fails(1) as caught:
        check_parents(graph, 0, [0, 1, 2], [1, 0, 1])
    assert "the source 0 has parent 1" in str(caught.value)


def test_rule_1_chain_that_stops_before_the_source():
    # Vertex 2's parent is the unreached vertex 3, which has no parent.
    graph = undirected(4, [(0, 1), (1, 2), (2, 3)])
    with fails(1) as caught:
        check_parents(graph, 0, [0, 1, 2, -1], [0, 0, 3, -1])
    assert "lead to vertex 3, which has no parent" in str(caught.value)


def test_rule_2_tree_edge_within_a_level():
    # Triangle 0 - 1 - 2: vertices 1 and 2 are both at level 1; 2 takes 1 as its parent.
    graph = undirected(3, [(0, 1), (0, 2), (1, 2)])
    with fails(2) as caught:
        check_parents(graph, 0, [0, 1, 1], [0, 0, 1])
    assert "vertex 2 has level 1, its parent 1 has level 1" in str(caught.value)


def test_rule_3_depth_first_tree():
    """A depth-first tree is a fine tree with consistent depths, but not a BFS tree:
    the edge 0 - 2 skips a level. Only rule 3 sees it."""
    graph = undirected(3, [(0, 1), (1, 2), (0, 2)])
    with fails(3) as caught:
        check_parents(graph, 0, [0, 1, 2], [0, 0, 1])
    assert "the edge 0 -> 2 goes from level 0 to level 2" in str(caught.value)


def test_rule_3_directed_edge_to_an_unreached_vertex():
    # 0 -> 1 -> 2, but 2 is left out of the tree (and its level).
    graph = CSRGraph.from_edges([0, 1], [1, 2], 3, directed=True)
    check_parents(graph, 0, [0, 1, 2], [0, 0, 1])
    with fails(3) as caught:
        check_parents(graph, 0, [0, 1, -1], [0, 0, -1])
    assert "goes from level 1 to an unreached vertex" in str(caught.value)


def test_rule_3_allows_directed_edges_back_up():
    # 0 -> 1 -> 2 -> 0: the edge 2 -> 0 goes two levels up, which is fine.
    graph = CSRGraph.from_edges([0, 1, 2], [1, 2, 0], 3, directed=True)
    check_parents(graph, 0, [0, 1, 2], [0, 0, 1])


@pytest.mark.parametrize(
    "levels,parents,vertex",
    [
        ([0, 1, 2, -1], [0, 0, -1, -1], 2),  # reached vertex 2 without a parent
        ([0, 1, 2, -1], [0, 0, 1, 0], 3),  # unreached vertex 3 with a parent
    ],
    ids=["reached-without-parent", "parent-but-unreached"],
)
def test_rule_4_tree_spans_exactly_the_reached_vertices(levels, parents, vertex):
    graph = undirected(4, [(0, 1), (1, 2)])  # 3 is isolated
    with fails(4) as caught:
        check_parents(graph, 0, levels, parents)
    assert f"vertex {vertex} has level" in str(caught.value)


def test_rule_5_tree_edge_not_in_graph():
    # 3x3 grid from the corner 0: vertex 2 (level 2) takes 3 (level 1) as its parent,
    # but 2 and 3 are not neighbours.
    graph = grid2d(3, 3)
    result = bfs_reference(graph, 0)
    parents = result.parents.copy()
    parents[2] = 3
    with fails(5) as caught:
        check_parents(graph, 0, result.levels, parents)
    assert "the tree edge 3 -> 2 is not in the graph" in str(caught.value)


def test_rule_5_on_a_directed_graph_checks_the_direction():
    # 0 -> 1 and 2 -> 1 -> ... : the tree edge must be parent -> child, not child -> parent.
    graph = CSRGraph.from_edges([0, 0, 2], [1, 2, 1], 3, directed=True)
    check_parents(graph, 0, [0, 1, 1], [0, 0, 0])
    graph_back = CSRGraph.from_edges([0, 1, 2], [2, 0, 1], 3, directed=True)
    with fails(5):
        check_parents(graph_back, 0, [0, 1, 1], [0, 0, 0])


def test_rules_on_a_large_graph():
    graph = kronecker(13, seed=1)
    source = int(graph.degrees().argmax())
    result = bfs_reference(graph, source)
    levels, parents = result.levels, result.parents
    # Rule 2: give a level-2 vertex a parent on its own level (a real neighbour).
    sources, targets = graph.edges()
    same_level = np.flatnonzero(
        (levels[sources] == 2) & (levels[targets] == 2) & (sources != targets)
    )
    child, other = targets[same_level[0]], sources[same_level[0]]
    broken = parents.copy()
    broken[child] = other
    with fails(2):
        check_parents(graph, source, levels, broken)
    # Rule 4: drop the parent of one reached vertex.
    broken = parents.copy()
    broken[child] = -1
    with fails(4):
        check_parents(graph, source, levels, broken)


def _broken_trees(graph, levels, parents) -> dict:
    """Rule -> (levels, parents) breaking only that rule, at the far end of the tree.
    Rule 5: a far vertex given a parent one level up that is no neighbour of it. Rule 3:
    a far vertex (a leaf) called unreached, though its neighbours were expanded."""
    far = np.flatnonzero(levels == levels.max())
    v = int(far[-1])
    neighbours = set(graph.targets[graph.offsets[v]:graph.offsets[v + 1]].tolist())
    up = np.flatnonzero(levels == levels[v] - 1)
    rule5 = parents.copy()
    rule5[v] = int(next(u for u in up[::-1] if int(u) not in neighbours))
    rule3_levels, rule3 = levels.copy(), parents.copy()
    rule3_levels[v], rule3[v] = -1, -1
    return {5: (levels, rule5), 3: (rule3_levels, rule3)}


@pytest.mark.parametrize("rule", [3, 5])
def test_rules_3_and_5_in_pieces_on_threads(rule, monkeypatch):
    """The pass over the arcs goes to threads when a graph has many pieces: a broken
    tree is caught with the same message (count and first example) as in one piece."""
    import rodinia_bfs.validate as validate

    graph = kronecker(12, seed=3)
    source = int(graph.degrees().argmax())
    result = bfs_reference(graph, source)
    levels, parents = _broken_trees(graph, result.levels, result.parents)[rule]
    messages = []
    for piece in (1 << 30, 64):  # one piece; then ~1,000 pieces
        monkeypatch.setattr(validate, "EDGES_PER_PIECE", piece)
        pieces = len(validate._piece_bounds(graph))
        assert (pieces == 1) == (piece == 1 << 30)
        check_parents(graph, source, result.levels, result.parents)  # the true tree passes
        with fails(rule) as caught:
            check_parents(graph, source, levels, parents)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    # The second check ran on as many threads as CPUs (and pieces) allow:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    assert validate._workers(pieces) == 4 and validate._workers(8) == 2


# Bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "levels,parents,message",
    [
        ([0, 1], [0, 0, 1], r"levels: got shape \(2,\), expected one value per vertex \(3\)"),
        ([0, 1, 2], [0, 0, 7], "parents: vertex 2 has 7, outside -1..2"),
        ([0, 1, -2], [0, 0, 1], "levels: vertex 2 has -2, outside -1..2"),
        ([0.0, 1.0, 2.0], [0, 0, 1], "levels: got float64 values, expected integers"),
        ([1, 2, 2], [0, 0, 1], "levels: the source 0 has level 1, not 0"),
    ],
)
def test_malformed_results(levels, parents, message):
    graph = undirected(3, [(0, 1), (1, 2)])
    with pytest.raises(ValidationError, match=message):
        check_parents(graph, 0, levels, parents)


def test_source_outside_the_graph():
    with pytest.raises(RodiniaBFSError, match="source 9 is outside the graph"):
        check_parents(grid2d(2, 2), 9, [0, 1, 1, 2], [0, 0, 0, 1])


def test_messages_are_one_line():
    graph = grid2d(5, 5)
    result = bfs_reference(graph, 0)
    parents = result.parents.copy()
    parents[parents >= 0] = 0  # many tree edges that do not exist
    with pytest.raises(ValidationError) as caught:
        check_parents(graph, 0, result.levels, parents)
    assert "\n" not in str(caught.value) and "more vertices" in str(caught.value)


# validate_result -----------------------------------------------------------------------


def test_validate_result():
    graph = awkward_graph()
    reference = bfs_reference(graph, 650)
    assert np.array_equal(validate_result(graph, 650, reference.levels).levels, reference.levels)
    validate_result(graph, 650, reference.levels, reference.parents, reference=reference)
    wrong = reference.levels.copy()
    wrong[651] += 1
    with pytest.raises(ValidationError, match="^levels: 1 of 1237 vertices differ"):
        validate_result(graph, 650, wrong)
    broken = reference.parents.copy()
    broken[651] = 651
    with fails(1):
        validate_result(graph, 650, reference.levels, broken)


def test_validate_result_uses_the_reference_it_is_given():
    graph = grid2d(2, 2)
    claimed = BFSResult(np.array([0, 5, 5, 5], np.int32), np.array([0, 0, 0, 0], np.int32))
    validate_result(graph, 0, [0, 5, 5, 5], reference=claimed)
    with pytest.raises(ValidationError):
        validate_result(graph, 0, [0, 1, 1, 2], reference=claimed)
