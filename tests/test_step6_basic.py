"""Step 6's basic version (push_pull_basic) on the cpu emulator at warp size 32 and 64.

What is special to it: both directions run, and are converted between, in one search;
the direction of each level is Beamer's rule on the counts the kernels read back (the
same as the rule on the reference levels), from one source or several, up to a depth
limit; a directed graph is pulled through its in-lists; the kernels' argument records
have the layout the host describes; the host rule itself on hand-made numbers; the
guard that ends a broken kernel.
"""

import importlib.util

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import rule_table
from rodinia_bfs.variants.push_pull_basic import (ALPHA, BETA, LevelCounts, PushPullBasicArgs,
                                                  PushPullBasicBFS, beamer_direction)

from helpers import ROOT, awkward_graph, check_run, ctypes_layouts, edit_kernel, with_kernel


def star(leaves: int = 300) -> CSRGraph:
    """Vertex 0 joined both ways to 1..leaves, then two isolated vertices."""
    centre, rim = np.zeros(leaves, np.int64), np.arange(1, leaves + 1)
    return CSRGraph.from_edges(np.r_[centre, rim], np.r_[rim, centre], leaves + 3, name="star")


def random_directed(n: int = 700, m: int = 3000, seed: int = 3) -> CSRGraph:
    """One-way arcs (duplicates and self loops among them): u -> v says nothing of v -> u."""
    rng = np.random.default_rng(seed)
    return CSRGraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n,
                               name="random-directed")


GRAPHS = {
    "awkward": awkward_graph,  # directed; components, isolated vertices, loops, duplicates
    "random-directed": random_directed,
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
    "star": star,
    "grid-23x19": lambda: grid2d(23, 19),
}


def sources_of(graph):
    """Not only 0: a middle vertex, the last one, and the hub."""
    n = graph.num_vertices
    return sorted({0, n // 3, n - 1, int(np.argmax(graph.degrees()))})


def kronecker_low_source():
    graph = GRAPHS["kronecker-10"]()
    return graph, int(np.flatnonzero(graph.degrees() == 1)[0])  # a source of degree 1


def test_registered_before_the_tuned_step():
    names = list(STEPS)
    assert STEPS["push_pull_basic"] is PushPullBasicBFS
    assert names.index("push_pull_basic") + 1 == names.index("push_pull")


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_matches_independent_bfs(device, name, direction):
    """Levels as scipy has them and a Graph500-valid tree, whichever way each level runs;
    a grid of at most two blocks of 96 threads makes every kernel stride."""
    graph = GRAPHS[name]()
    with PushPullBasicBFS(device, graph, block_size=96, max_blocks=2,
                          direction=direction) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(step, source, result)
            assert len(step.last_directions) == result.iterations
            if direction != "auto":
                assert set(step.last_directions) == {direction}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_directions_follow_beamers_rule(device, name):
    """The counts the kernels read back give the directions the same rule gives from
    the reference levels and the out-degrees (push_pull.rule_table)."""
    graph = GRAPHS[name]()
    with PushPullBasicBFS(device, graph) as step:
        for source in sources_of(graph):
            result = step.run(source)
            rows = rule_table(graph, source, result.levels, alpha=ALPHA, beta=BETA)
            assert step.last_directions == [row["direction"] for row in rows]


def test_both_directions_run(device, monkeypatch):
    """On a Kronecker graph from a source of degree 1: push, then pull through the wide
    levels, then push again; the pull kernel and both conversions are launched."""
    graph, source = kronecker_low_source()
    launched = []
    launch = device.launch

    def spy(kernel, *args, **kwargs):
        launched.append(kernel.name)
        return launch(kernel, *args, **kwargs)

    with PushPullBasicBFS(device, graph) as step:
        monkeypatch.setattr(device, "launch", spy)
        result = step.run(source)
        monkeypatch.undo()
        check_run(step, source, result)
        directions = step.last_directions
    assert directions[0] == "push" and "pull" in directions and directions[-1] == "push"
    kinds = [name.removeprefix("push_pull_basic_") for name in launched]
    assert kinds.count("pull") == directions.count("pull")
    assert kinds.count("push") == directions.count("push")
    # One conversion each way: into a bitmap before the first pull, back after the last.
    assert kinds.count("queue_to_bitmap") == 1 and kinds.count("bitmap_to_queue") == 1


def beamer_directions(graph, levels):
    """Beamer's rule on the counts of a finished search's levels, level 0 being every
    start vertex: the directions its levels must take."""
    degrees, reached = graph.degrees(), levels >= 0
    n_fs = np.bincount(levels[reached]).tolist()
    m_fs = np.bincount(levels[reached], weights=degrees[reached]).astype(int).tolist()
    m_u, direction, previous, directions = graph.num_edges - m_fs[0], "push", 0, []
    for n_f, m_f, next_m_f in zip(n_fs, m_fs, m_fs[1:] + [0]):
        direction = beamer_direction(direction, n_f, m_f, m_u, graph.num_vertices, previous)
        directions.append(direction)
        m_u, previous = m_u - next_m_f, n_f
    return directions


@pytest.mark.parametrize("depth_limit", [None, 2])
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_several_sources_and_a_depth_limit(device, direction, depth_limit):
    """Level 0 is every start vertex, in the queue the host staged (a pull level turns
    it into a bitmap first), and Beamer's rule counts them all; the search stops after
    the depth limit's levels, as step 2's does."""
    graph, low = kronecker_low_source()
    starts = sorted({0, low, int(np.argmax(graph.degrees()))})
    expected = bfs_reference(graph, sources=starts, depth_limit=depth_limit).levels
    with PushPullBasicBFS(device, graph, block_size=96, max_blocks=2,
                          direction=direction) as step:
        result = step.search(None, sources=starts, depth_limit=depth_limit)
        levels, parents = step.results()
    np.testing.assert_array_equal(levels, expected)
    check_parents(graph, None, levels, parents, sources=starts, depth_limit=depth_limit)
    per_level = np.bincount(expected[expected >= 0]).tolist()[:depth_limit]
    assert result.iterations == len(per_level) and result.frontier_sizes == per_level
    want = beamer_directions(graph, expected) if direction == "auto" else [direction] * 99
    assert step.last_directions == want[:result.iterations]


def test_a_directed_graph_is_pulled_through_its_in_lists(device):
    """0 -> 1 <- 2, 1 -> 3: vertex 1 finds its parent 0 only in its in-list (its out-list
    is {3}); 2 stays unreached although its out-list leads into the frontier."""
    graph = CSRGraph.from_edges([0, 2, 1], [1, 1, 3], 4, name="in-lists")
    with PushPullBasicBFS(device, graph, direction="pull") as step:
        assert not step.symmetric
        result = step.run(0)
        check_run(step, 0, result)
    assert result.levels.tolist() == [0, 1, -1, 2]
    assert result.parents.tolist() == [0, 0, -1, 1]


def test_a_symmetric_graph_is_pulled_through_its_out_lists(device):
    with PushPullBasicBFS(device, grid2d(5, 4), direction="pull") as step:
        assert step.symmetric
        check_run(step, 7, step.run(7))


def test_beamers_rule_on_hand_made_counts():
    """push -> pull only when m_f * alpha > m_u while the frontier grows; pull -> push
    only when n_f * beta < n while it shrinks; otherwise the direction stays."""
    assert (ALPHA, BETA) == (14, 24)  # the SC 2012 paper's values
    # m_u = 1400: 101 edges * 14 > 1400 pulls, 100 does not (not strictly more).
    assert beamer_direction("push", 10, 101, 1400, 10_000, 5) == "pull"
    assert beamer_direction("push", 10, 100, 1400, 10_000, 5) == "push"
    assert beamer_direction("push", 10, 101, 1400, 10_000, 10) == "push"  # not growing
    # n = 2400: 99 vertices * 24 < 2400 pushes again, 100 does not.
    assert beamer_direction("pull", 99, 5000, 10, 2400, 500) == "push"
    assert beamer_direction("pull", 100, 5000, 10, 2400, 500) == "pull"
    assert beamer_direction("pull", 99, 5000, 10, 2400, 99) == "pull"  # not shrinking
    # Other constants: gapbs's defaults (alpha 15, beta 18).
    assert beamer_direction("push", 10, 94, 1400, 10_000, 5, alpha=15, beta=18) == "pull"
    assert beamer_direction("pull", 133, 5000, 10, 2400, 500, alpha=15, beta=18) == "push"


@pytest.mark.parametrize("options", [dict(alpha=0), dict(beta=0), dict(max_blocks=0),
                                     dict(direction="sideways"), dict(block_size=0)])
def test_bad_options_are_refused(device, options):
    with pytest.raises(RodiniaBFSError):
        PushPullBasicBFS(device, grid2d(3, 3), **options)


def test_argument_records_match_the_header(device):
    """The ctypes records are laid out as the C compiler lays out the header's structs."""
    c_side, host_side = ctypes_layouts(device, [LevelCounts, PushPullBasicArgs],
                                       "push_pull_basic_args.h")
    assert c_side == host_side


def test_a_kernel_that_finds_too_much_is_stopped(device):
    """A pull kernel that forgets that a vertex is reached finds it at every level: the
    host's guard ends the search with a clear error instead of looping."""
    broken = edit_kernel("push_pull_basic.hip", "if (a.levels[v] != -1) continue;", "")
    step_class = with_kernel(PushPullBasicBFS, broken)
    with step_class(device, grid2d(6, 6), direction="pull") as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def _example_6():
    path = ROOT / "examples" / "06_push_pull.py"
    spec = importlib.util.spec_from_file_location("example_06", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("way", ["push", "pull"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_spmv_bfs_gives_the_reference_levels(name, way):
    """Chapter 6's sparse matrix-vector BFS (examples/06_push_pull.py) against the CPU
    reference, directed graphs included (pulling reads A^T's rows: the in-lists)."""
    spmv_bfs = _example_6().spmv_bfs
    graph = GRAPHS[name]()
    for source in sources_of(graph):
        np.testing.assert_array_equal(spmv_bfs(graph, source, way),
                                      bfs_reference(graph, source).levels)
