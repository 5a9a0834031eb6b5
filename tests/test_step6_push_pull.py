"""Step 6 (direction-optimizing BFS) on the cpu emulator at warp size 32 and 64.

What is special to this step: the direction each level takes (Beamer's rule, counted on
the device, must be what the same rule gives on the host from the reference levels);
both directions on Kronecker graphs; directed graphs searched bottom-up through their
reverse, symmetric ones through themselves (detected); vertices without in-edges never
swept; forced all-push and all-pull runs, with tunables that send every in-edge list
down each path of the bottom-up sweep; the guards that end a broken kernel.
"""

import re

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graph_prep import GraphPrep
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import delaunay, grid2d, grid_with_hubs, kronecker
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.push_pull import (ALPHA, STATUS_CLEAN, PushPullBFS, claims_by_bit,
                                           rule_table, tunables)

import helpers
from helpers import (awkward_graph, edit_kernel, hiprtc_or_skip, nvrtc_or_skip, run_per_case,
                     pairwise_params, scipy_levels)
from test_step5_persistent import check_search


def star(leaves: int = 3000) -> CSRGraph:
    """Vertex 0 joined both ways to 1..leaves, then two isolated vertices."""
    centre, rim = np.zeros(leaves, np.int64), np.arange(1, leaves + 1)
    return CSRGraph.from_edges(np.r_[centre, rim], np.r_[rim, centre], leaves + 3, name="star")


def random_directed(n: int = 2000, m: int = 9000, seed: int = 3) -> CSRGraph:
    """One-way arcs: u -> v says nothing of v -> u."""
    rng = np.random.default_rng(seed)
    return CSRGraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n,
                               name="random-directed")


GRAPHS = {
    "kronecker-12": lambda: kronecker(12, seed=1, progress=False),
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
    "awkward": awkward_graph,  # directed: one-way arcs, a one-way star, isolated vertices
    "random-directed": random_directed,
    "star": star,
    "hubs-50x50": lambda: grid_with_hubs(50, 50, seed=2),
    "grid-23x19": lambda: grid2d(23, 19),
}

#: GRAPHS with the awkward graph's features on a path of 24 vertices, not 300: for the
#: tests whose point is its shape (one-way arcs and star, isolated vertices), not its depth.
SMALL_GRAPHS = {**{name: make for name, make in GRAPHS.items() if name != "awkward"},
                "awkward-237": helpers.small_awkward_graph}


def sources_of(graph):
    """0, the highest-degree vertex (a hub), and two others."""
    n = graph.num_vertices
    return sorted({0, n // 3, n - 4, int(np.argmax(graph.degrees()))})


def check_run(graph, source, result):
    """Levels as scipy has them, a Graph500-valid parent tree (a bottom-up parent is
    any frontier in-neighbour), and one record per level with the frontier's size."""
    levels = scipy_levels(graph, source)
    np.testing.assert_array_equal(result.levels, levels)
    check_parents(graph, source, result.levels, result.parents)
    assert result.iterations == int(levels.max()) + 1
    assert result.frontier_sizes == np.bincount(levels[levels >= 0]).tolist()


def beamer_directions(graph, source, levels, wide: int) -> list[str]:
    """The direction of each level by Beamer's rule, on the host, from the reference
    levels and the out-degrees: what the kernel must have counted and decided (``wide``:
    the step's pull_edges, WIDE_PULLS)."""
    return [row["direction"] for row in rule_table(graph, source, levels, wide=wide)]


def test_registered():
    assert STEPS["push_pull"] is PushPullBFS
    assert PushPullBFS.returns_parents
    assert list(STEPS).index("push_pull") > list(STEPS).index("balanced")


#: The grid of the one launch: two blocks, whose grid-stride loops go round, or as many
#: blocks as the device runs at once (the default; on the emulator a launch takes time in
#: proportion to its threads, and each level waits at a barrier for them all).
GRIDS = {"2-blocks": dict(max_blocks=2), "full-grid": {}}


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=sorted(SMALL_GRAPHS),
                                          grid=list(GRIDS), wide=[True, False]),
                         indirect=["device"])
def test_directions_follow_beamers_rule(device, name, grid, wide):
    """The device's counts of n_f and m_f, and its decisions, equal the host's: each
    graph at warp 32 and 64, one of them with a grid of two blocks, with and without
    WIDE_PULLS (the grid's threads, the edges a pulled frontier has more than)."""
    graph = SMALL_GRAPHS[name]()
    with PushPullBFS(device, graph, wide_pulls=wide, **GRIDS[grid]) as step:
        assert step.pull_edges == (step.grid * step.block_size if wide else 0)
        for source in sources_of(graph):
            result = step.run(source)
            check_run(graph, source, result)
            assert step.last_directions == beamer_directions(graph, source, result.levels, step.pull_edges)


def star_and_path() -> CSRGraph:
    """A star of 40 leaves around vertex 0, and a path of 3 behind leaf 1 (41, 42)."""
    leaves, path = np.arange(1, 41), [(1, 41), (41, 42)]
    src = np.r_[np.zeros(40, np.int64), leaves, [a for a, b in path], [b for a, b in path]]
    dst = np.r_[leaves, np.zeros(40, np.int64), [b for a, b in path], [a for a, b in path]]
    return CSRGraph.from_edges(src, dst, 43)


def test_the_host_rule_on_a_hand_made_search():
    """The host's rule itself, on numbers worked out by hand: a star of 40 leaves and a
    path of 3 behind leaf 1. From leaf 2: level 0 {2} (m_f 1), level 1 {0} (m_f 40),
    level 2 the other 39 leaves (m_f 38 + 2: leaf 1 has 41 too), level 3 {41} (m_f 2),
    level 4 {42} (m_f 1); 84 arcs in all."""
    graph = star_and_path()
    rows = rule_table(graph, 2, scipy_levels(graph, 2), alpha=2, beta=18)
    assert [(r["n_f"], r["m_f"], r["m_u"]) for r in rows] == [
        (1, 1, 83), (1, 40, 43), (39, 40, 3), (1, 2, 1), (1, 1, 0)]
    # 40 * 2 > 43 but the frontier does not grow (1 -> 1): still push; 40 * 2 > 3 and it
    # grows: pull; 1 * 18 < 43 and it shrinks: push.
    assert [r["direction"] for r in rows] == ["push", "push", "pull", "push", "push"]


def test_the_host_rule_with_a_growth_margin():
    """PULL_GROWTH: a frontier must grow by more than that many eighths to be pulled.
    The hand-made search above grows from 1 to 39 vertices at level 2: pulled with any
    margin up to 38 * 8 eighths, and not with more."""
    graph = star_and_path()
    levels = scipy_levels(graph, 2)
    for growth in (0, 1, 38 * 8 - 1):
        rows = rule_table(graph, 2, levels, alpha=2, beta=18, growth=growth)
        assert [r["direction"] for r in rows] == ["push", "push", "pull", "push", "push"]
    rows = rule_table(graph, 2, levels, alpha=2, beta=18, growth=38 * 8)
    assert [r["direction"] for r in rows] == ["push"] * 5


@pytest.mark.parametrize("device", [32, 64], indirect=True)
def test_directions_follow_the_rule_with_a_growth_margin(device):
    """The kernel's PULL_GROWTH is the host's: on a small Delaunay mesh, whose tail
    wavers by a few vertices where few edges are left, Beamer's rule pulls levels that
    a margin of one eighth keeps top-down; exact either way."""
    graph = delaunay(12)
    source = 64
    levels = scipy_levels(graph, source)
    want = {g: [r["direction"] for r in rule_table(graph, source, levels, growth=g)] for g in (0, 1)}
    assert want[0].count("pull") > want[1].count("pull")
    for growth in (0, 1):
        with PushPullBFS(device, graph, pull_growth=growth, wide_pulls=False) as step:
            result = step.run(source)
            check_run(graph, source, result)
            assert step.last_directions == want[growth]
    with pytest.raises(RodiniaBFSError, match="pull_growth must be an integer from 0 to 64"):
        PushPullBFS(device, graph, pull_growth=-1)


def test_the_host_rule_pulls_only_wide_frontiers():
    """WIDE_PULLS on the host: the hand-made search pulls level 2 (m_f 40) only where a
    pulled frontier must have more than 39 edges, not 40."""
    graph = star_and_path()
    levels = scipy_levels(graph, 2)
    rows = rule_table(graph, 2, levels, alpha=2, beta=18, wide=39)
    assert [r["direction"] for r in rows] == ["push", "push", "pull", "push", "push"]
    rows = rule_table(graph, 2, levels, alpha=2, beta=18, wide=40)
    assert [r["direction"] for r in rows] == ["push"] * 5


@pytest.mark.parametrize("device", [32, 64], indirect=True)
def test_narrow_frontiers_are_not_pulled(device):
    """WIDE_PULLS (off by default): the tail of a small Delaunay mesh, which Beamer's
    rule pulls, has fewer edges (at most 1,509) than a grid of four blocks has threads
    (2,048) and stays top-down; a Kronecker graph's wide middle levels are pulled as
    before. Exact."""
    for graph, source, pulled in ((delaunay(12), 64, False), (kronecker(12, seed=3), 0, True)):
        levels = scipy_levels(graph, source)
        assert "pull" in [r["direction"] for r in rule_table(graph, source, levels)]
        with PushPullBFS(device, graph, max_blocks=4, wide_pulls=True) as step:
            result = step.run(source)
            check_run(graph, source, result)
            assert step.pull_edges == 4 * step.block_size
            assert step.last_directions == beamer_directions(graph, source, levels,
                                                             step.pull_edges)
            assert ("pull" in step.last_directions) == pulled


#: Claims by bit (CLAIM_BITS) at both warp widths, and a batch at a time after a read of
#: the bit (or, by atomicCAS, of the level) on a grid of two small blocks, one width each.
#: (The atomicCAS one edge at a time is the default on every graph of the tests: the step
#: contract and the tests above run it at both widths.)
CLAIM_CONFIGS = {
    "bits": dict(claim_bits=True),
    "bits-batch-checked": dict(claim_bits=True, visit_batch=2, check_before_claim=True,
                               max_blocks=2, block_size=64),
    "cas-batch-checked": dict(claim_bits=False, visit_batch=2, check_before_claim=True,
                              max_blocks=2, block_size=64),
    # every claim of the batch sent before the first answer is read (claim_request)
    "bits-batch-at-once": dict(claim_bits=True, visit_batch=2, check_before_claim=False,
                               max_blocks=2, block_size=64),
}


@pytest.mark.parametrize("device, config", [(32, "bits"), (64, "bits"),
                                            (64, "bits-batch-checked"),
                                            (32, "cas-batch-checked"),
                                            (32, "bits-batch-at-once"),
                                            (64, "bits-batch-at-once")],
                         indirect=["device"])
def test_claims_are_exact(device, config):
    """Either way of claiming gives the reference's levels and a valid parent tree, on a
    Kronecker graph (pushed and pulled levels), a mesh (hundreds of pushed ones) and from
    several starts. With claims by bit, the visited bitmap after a search holds only
    vertices reached, and all of them when the last level was pushed: the pulled ones
    too, which the switch back to top-down rebuilt it with."""
    options = CLAIM_CONFIGS[config]
    for graph in (GRAPHS["kronecker-12"](), delaunay(10)):
        with PushPullBFS(device, graph, **options) as step:
            for source in sources_of(graph)[:2]:
                result = step.run(source)
                check_run(graph, source, result)
                if options["claim_bits"]:
                    words = step.device.from_device(step.visited, step.words, np.uint32)
                    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
                    marked = bits[: graph.num_vertices].astype(bool)
                    assert not np.any(marked & (result.levels < 0))
                    assert step.last_directions[-1] == "push"
                    np.testing.assert_array_equal(marked, result.levels >= 0)
            if graph.name.startswith("kronecker"):
                assert "pull" in step.last_directions
            starts = [1, graph.num_vertices // 2, graph.num_vertices - 1]
            for depth in (None, 2):
                check_search(step, starts, depth)


@pytest.mark.parametrize("device", [32], indirect=True)
def test_claims_by_bit_where_the_graph_outgrows_the_l2(device, monkeypatch):
    """By default a step claims by bit exactly when its graph's level, parent and offset
    (16 bytes a vertex) outgrow the device's L2 cache; an explicit choice wins."""
    graph = GRAPHS["grid-23x19"]()
    n = graph.num_vertices
    for l2, want in ((16 * n, False), (16 * n - 1, True), (0, True)):
        monkeypatch.setattr(device, "l2_cache_bytes", l2)
        assert claims_by_bit(device, graph) is want
        for cls in (PushPullBFS, AdaptiveBFS):
            with cls(device, graph) as step:
                assert step._push_pull["CLAIM_BITS"] == int(want)
                check_run_levels(graph, step)
            with cls(device, graph, claim_bits=not want) as step:
                assert step._push_pull["CLAIM_BITS"] == int(not want)


def check_run_levels(graph, step):
    result = step.run(7)
    np.testing.assert_array_equal(result.levels, scipy_levels(graph, 7))


def test_kronecker_takes_both_directions(device):
    """Small frontiers top-down, the wide middle bottom-up, the tail top-down again."""
    graph = GRAPHS["kronecker-12"]()
    low = int(np.flatnonzero(graph.degrees() == 1)[0])  # a source of degree 1
    with PushPullBFS(device, graph, count_paths=True) as step:
        result = step.run(low)
        check_run(graph, low, result)
        directions = step.last_directions
        counted = step.last_sweep_counts
    assert directions[0] == "push" and "pull" in directions and directions[-1] == "push"
    assert counted["found"] > 0
    # Each pull level found exactly the next level's frontier.
    pulled = [i for i, d in enumerate(directions) if d == "pull"]
    assert counted["found"] == sum(result.frontier_sizes[i + 1] for i in pulled
                                   if i + 1 < len(result.frontier_sizes))


@pytest.mark.parametrize("leaves", [40, 3000])
def test_the_source_is_expanded_by_a_block(device, leaves):
    """The source goes to the large queue whatever its degree (a warp or a thread alone
    would walk its list trip by trip): its list is expanded as pieces, by blocks, and
    nothing else of level 0 goes to the small or medium paths."""
    graph = star(leaves)
    with PushPullBFS(device, graph, direction="push", count_paths=True) as step:
        result = step.run(0)
        check_run(graph, 0, result)
        counted = step.last_path_counts
        assert counted["large"] == {"entries": -(-leaves // step.block_piece), "edges": leaves}
        assert counted["medium"]["entries"] == 0
        assert counted["small"] == {"entries": leaves, "edges": leaves}  # the rim, one edge each
        # A source without edges is alone in the small queue, and the search ends there.
        lone = graph.num_vertices - 1
        assert step.run(lone).iterations == 1
        assert step.last_path_counts["small"] == {"entries": 1, "edges": 0}


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=["kronecker-10", "hubs-50x50", "star"],
                                          grid=list(GRIDS)), indirect=["device"])
def test_short_queues_are_shared_out(device, name, grid):
    """Several warps or threads sharing a vertex of a short queue expand the same
    entries and edges, once each, as one warp or thread per vertex does; both are exact.
    Each graph at warp 32 and 64, one of them with a grid of two blocks."""
    graph = GRAPHS[name]()
    counted = {}
    for share in (True, False):
        with PushPullBFS(device, graph, direction="push", share_short_queues=share,
                         count_paths=True, **GRIDS[grid]) as step:
            counted[share] = []
            for source in sources_of(graph):
                check_run(graph, source, step.run(source))
                counted[share].append(step.last_path_counts)
    assert counted[True] == counted[False]
    assert any(c["small"]["entries"] or c["medium"]["entries"] for c in counted[True])


@pytest.mark.parametrize("name", ["kronecker-12", "random-directed"])
def test_in_lists_are_hubs_first(device, name):
    """The sweep reads each in-list by decreasing out-degree, so that it meets the hubs,
    which a BFS reaches first, before the rest; a symmetric graph's one array serves
    both directions, a directed graph's out-lists stay in id order."""
    graph = GRAPHS[name]()
    reverse = graph.reverse()
    with PushPullBFS(device, graph) as step:
        in_edges = device.from_device(step.in_edges, graph.num_edges, np.int32)
        out_edges = device.from_device(step.edges, graph.num_edges, np.int32)
        assert (step.in_edges is step.edges) == step.symmetric == (name == "kronecker-12")
    degrees = graph.degrees()
    for v in range(graph.num_vertices):
        mine = in_edges[reverse.offsets[v] : reverse.offsets[v + 1]]
        assert sorted(mine.tolist()) == reverse.neighbors(v).tolist()
        assert np.all(np.diff(degrees[mine]) <= 0), v
    if not step.symmetric:
        np.testing.assert_array_equal(out_edges, graph.targets)


#: Tunables: step 4's tiny ones (every queue path, overflowing local queues, a grid of
#: two blocks); every in-edge list scanned by the warp (no probe, threshold 1); every
#: list scanned by its own thread (a probe longer than any list); targets claimed with
#: no read of their level first a batch at a time (an edge at a time is the default).
CONFIGS = {
    "default": {},
    "tiny": dict(block_size=64, warp_threshold=2, block_threshold=5, block_piece=3,
                 local_small=3, local_medium=2, max_blocks=2),
    "warp-scans": dict(bu_probe=0, bu_warp_threshold=1),
    "thread-scans": dict(bu_probe=100_000),
    "one-block": dict(max_blocks=1, block_size=128),
    "claim-batch-at-once": dict(check_before_claim=False, visit_batch=2, max_blocks=2,
                                block_size=64),
}


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=["kronecker-10", "awkward-237", "star", "hubs-50x50"],
    direction=["push", "pull", "auto"], config=sorted(CONFIGS)), indirect=["device"])
def test_forced_directions_are_exact(device, name, direction, config):
    """Pairwise: every pair of graph, direction, tunables and warp size meets in a test."""
    graph = SMALL_GRAPHS[name]()
    with PushPullBFS(device, graph, direction=direction, **CONFIGS[config]) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(graph, source, result)
            want = {"push": {"push"}, "pull": {"pull"}, "auto": {"push", "pull"}}[direction]
            assert set(step.last_directions) <= want


def directed_path(n: int = 40) -> CSRGraph:
    """0 -> 1 -> ... -> n-1, one way only."""
    return CSRGraph.from_edges(np.arange(n - 1), np.arange(1, n), n, name="directed-path")


def test_directed_graphs_use_the_reverse(device):
    """Bottom-up, vertex k finds its parent k - 1 among its in-edges; its out-edges hold
    only k + 1. The step must see that the graph is not symmetric."""
    graph = directed_path()
    with PushPullBFS(device, graph, direction="pull") as step:
        assert not step.symmetric
        assert step.in_edges is not step.edges
        check_run(graph, 0, step.run(0))


def test_out_edges_as_in_edges_would_be_wrong(device, monkeypatch):
    """The test above can fail: a step told the directed path is symmetric reads the
    out-edges bottom-up and finds no parent for vertex 1."""
    # The set-up's symmetry check compares arrays on the device: make it find no difference.
    monkeypatch.setattr(GraphPrep, "differ", lambda self, *arrays: False)
    graph = directed_path()
    with PushPullBFS(device, graph, direction="pull") as step:
        levels = step.run(0).levels
    assert not np.array_equal(levels, scipy_levels(graph, 0))


def test_symmetry_is_detected_not_assumed(device):
    """A symmetric graph whose file said 'directed' is searched through itself."""
    grid = grid2d(9, 7)
    graph = CSRGraph(grid.offsets, grid.targets, directed=True, name="grid-as-directed")
    with PushPullBFS(device, graph) as step:
        assert step.symmetric and step.in_edges is step.edges
        check_run(graph, 5, step.run(5))


@pytest.mark.parametrize("name", ["kronecker-10", "awkward"])
def test_vertices_without_in_edges_are_never_swept(device, name):
    """Every pull level looks at each vertex that has in-edges once, and at nothing
    else: Kronecker graphs have many isolated vertices, the awkward graph isolated
    ones and a star centre with out-edges only."""
    graph = GRAPHS[name]()
    in_degrees = np.bincount(graph.targets, minlength=graph.num_vertices)
    swept = int(np.count_nonzero(in_degrees))
    assert swept < graph.num_vertices - 30
    with PushPullBFS(device, graph, direction="pull", count_paths=True) as step:
        assert step.active_count == swept
        for source in sources_of(graph):
            result = step.run(source)
            check_run(graph, source, result)
            assert step.last_sweep_counts == {
                "looked_at": result.iterations * swept,
                "found": int(np.count_nonzero(result.levels >= 0)) - 1,
            }


def test_reruns_start_clean(device):
    """Bitmaps, queues and counters of one search do not leak into the next."""
    graph = GRAPHS["kronecker-12"]()
    with PushPullBFS(device, graph) as step:
        first = step.run(11)
        for source in (int(np.argmax(graph.degrees())), 0):
            step.run(source)
        again = step.run(11)
        directions = step.last_directions
    np.testing.assert_array_equal(again.levels, first.levels)
    check_run(graph, 11, again)
    assert "pull" in directions


# -- several sources and a depth limit ----------------------------------------------------------

def start_sets(graph) -> dict:
    """The largest hub alone; vertices of every queue of level 0 (the second hub, leaves,
    an isolated vertex); and the next hubs, none of which would pull level 0 alone, but
    whose edges together outnumber m_u / ALPHA."""
    degrees = graph.degrees()
    by_degree = np.argsort(degrees, kind="stable")[::-1]
    mixed = {int(by_degree[1]), *np.flatnonzero(degrees == 1)[:3].tolist(),
             *np.flatnonzero(degrees == 0)[:1].tolist(), *np.flatnonzero(degrees == 7)[:2].tolist()}
    edges = np.cumsum(degrees[by_degree[1:]])
    enough = 1 + int(np.searchsorted(edges * (ALPHA + 1), graph.num_edges, side="right"))
    return {"hub": [int(by_degree[0])], "mixed": sorted(mixed),
            "pulling": sorted(by_degree[1:enough + 1].tolist())}


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], direction=["push", "pull", "auto"],
                                          config=["default", "tiny", "one-block"]),
                         indirect=["device"])
def test_several_sources_and_a_depth_limit(device, direction, config):
    """Searches from a hub, from vertices of every queue, and from hubs that pull level 0
    together, each stopped at every depth: the levels are the distances to the nearest
    start; the records of the levels run (n_f, direction) are those of the whole search;
    and Beamer's rule takes level 0 from the starts' count and edges."""
    from test_step5_persistent import check_search

    graph = GRAPHS["kronecker-10"]()
    degrees = graph.degrees()
    with PushPullBFS(device, graph, direction=direction, **CONFIGS[config]) as step:
        for name, starts in start_sets(graph).items():
            full, levels = check_search(step, starts)
            sizes, directions = step.records_of(full.iterations)
            assert sizes == np.bincount(levels[levels >= 0]).tolist()
            if direction == "auto":
                assert directions == beamer_directions(graph, starts, levels, step.pull_edges)
                if name == "pulling":
                    assert directions[0] == "pull" and len(starts) > 1
                    assert degrees[starts].max() * (ALPHA + 1) <= graph.num_edges
            for depth in range(full.iterations + 1):
                result, _ = check_search(step, starts, depth)
                assert step.records_of(result.iterations) == (sizes[:depth], directions[:depth])


def test_isolated_source(device):
    graph = awkward_graph()
    with PushPullBFS(device, graph) as step:
        result = step.run(1236)
    assert result.iterations == 1 and result.frontier_sizes == [1]
    assert np.count_nonzero(result.levels >= 0) == 1 and result.parents[1236] == 1236


@pytest.mark.parametrize("name", ["kronecker-10", "awkward-237"])
def test_profile_times_every_level_of_the_one_launch(device, name):
    """With profile=True the kernel reads the device clock at each level: the same
    levels and directions as without, and a time for each level."""
    graph = SMALL_GRAPHS[name]()
    with PushPullBFS(device, graph) as step:
        whole = step.run(3)
        directions = step.last_directions
        result = step.run(3, profile=True)
        assert step.last_directions == directions
        assert step.run(3).level_times_ms == []
    check_run(graph, 3, result)
    np.testing.assert_array_equal(result.levels, whole.levels)
    assert len(result.level_times_ms) == result.iterations
    assert all(t >= 0 for t in result.level_times_ms) and sum(result.level_times_ms) > 0


def _with_source(device, graph, header, name="push_pull_grid.h", **options):
    """A PushPullBFS whose kernel is built with `header` instead of its header `name`."""

    class Patched(PushPullBFS):
        def _compile(self, defines):
            return self.device.compile(kernel_source("push_pull.hip"), "patched.hip",
                                       defines={**defines, **self._push_pull},
                                       headers={**kernel_headers(), name: header})

    return Patched(device, graph, **options)


#: How a top-down level ends: copy_out and grid_sync (off), the counting crossing with
#: the entries copied before the arrival (counting), and written after it (after).
CROSSINGS = {"off": dict(counting_crossing=False, write_after_arrival=False),
             "counting": dict(counting_crossing=True, write_after_arrival=False),
             "after": dict(counting_crossing=True, write_after_arrival=True)}


@pytest.mark.parametrize("device", [32, 64], indirect=True)
@pytest.mark.parametrize("crossing", sorted(CROSSINGS))
def test_counting_crossing_is_exact(device, crossing):
    """Each way a top-down level ends, with block-local queues of 3 small and 2 medium
    entries (most small vertices overflow to the queue word), on two blocks, in every
    direction: a graph of hubs (medium and large vertices: flagged levels, whose counts
    are read after the crossing) and a mesh (small only); several searches in a row, and
    each stopped at every depth, then the whole search again. With the entries written
    after the arrival, every slot of both small queues is -1 again after each whole
    search (each reader cleared what it read)."""
    from test_step5_persistent import check_search

    for graph in (grid_with_hubs(50, 50, seed=2), delaunay(10)):
        for direction in ("auto", "push"):
            with PushPullBFS(device, graph, direction=direction, **CONFIGS["tiny"],
                             **CROSSINGS[crossing]) as step:
                def clean():  # STATUS_CLEAN: the grid skips emptying the queues
                    return step.device.from_device(step.status, 4, np.uint32)[STATUS_CLEAN]

                for source in sources_of(graph)[:3]:
                    result = step.run(source)
                    check_run(graph, source, result)
                    assert clean() == 1
                    if crossing == "after":
                        n = graph.num_vertices
                        for queues in step.queues:
                            small = step.device.from_device(queues["small"], n, np.int32)
                            assert (small == -1).all()
                full, _ = check_search(step, [sources_of(graph)[1]])
                for depth in range(1, full.iterations, 7):
                    check_search(step, [sources_of(graph)[1]], depth)
                    assert clean() == 0  # its last frontier is left in a queue
                check_run(graph, 0, step.run(0))


def test_a_source_in_pieces_fits_the_large_queue(device):
    """The source goes to the large queue whatever its degree: one not large enough for
    it (fewer than block_threshold edges) but longer than a piece takes several spare
    slots. With pieces of 3 edges and medium lists up to 4, a source of 4 edges on a
    mesh whose every other list is large fills the queue to its last slot."""
    graph = delaunay(10)
    degrees = graph.degrees()
    source = int(np.flatnonzero(degrees == 4)[0])
    with PushPullBFS(device, graph, direction="push", **CONFIGS["tiny"]) as step:
        assert step.spare_pieces == 2
        check_run(graph, source, step.run(source))


#: cross_counted's copy of a block's small entries after its arrival.
LATE_COPY = """    for (bfs_u32 i = threadIdx.x; i < late; i += blockDim.x)
        L.next_small[local.global_first[SMALL] + i] = local.small[i];
#endif"""


def never_writing_block(device, graph):
    """Step 6 with the entries written after the arrival, whose block 1 never writes
    them, and waits for an entry bounded at 2^14 polls."""
    broken = edit_kernel("push_pull_parts.h", LATE_COPY, LATE_COPY.replace(
        "    for (", "    if (blockIdx.x != 1)\n    for ("))

    class Patched(PushPullBFS):
        def _compile(self, defines):
            return self.device.compile(kernel_source("push_pull.hip"), "patched.hip",
                                       defines={**defines, **self._push_pull,
                                                "ENTRY_MAX_SPINS": 1 << 14},
                                       headers={**kernel_headers(), "push_pull_parts.h": broken})

    return Patched(device, graph, direction="push", max_blocks=2, **CROSSINGS["after"])


@pytest.mark.parametrize("device", [32], indirect=True)
def test_an_entry_never_written_ends_the_search(device):
    """A block that never writes the entries its arrival placed: the readers' wait for
    them gives up, and the search ends with a clear error, not a hang."""
    with never_writing_block(device, grid2d(40, 40)) as step:
        with pytest.raises(DeviceError, match="waited too long .* for an entry of a queue"):
            step.run(0)


def test_write_after_arrival_needs_the_crossing(device):
    with pytest.raises(RodiniaBFSError, match="write_after_arrival needs counting_crossing"):
        PushPullBFS(device, grid2d(5, 5), counting_crossing=False, write_after_arrival=True)


def test_never_ending_search_is_an_error(device):
    """Without its end test the kernel runs empty levels; the bound on the level count
    ends it with a clear error instead of a hang."""
    broken = edit_kernel("push_pull_grid.h", "if (st.frontier_vertices == 0) break;", ";")
    with _with_source(device, grid2d(5, 5), broken) as step:
        with pytest.raises(DeviceError, match="more levels than the graph has vertices"):
            step.run(0)


def test_queue_overflow_is_an_error(device):
    """A kernel that would enqueue more than a BFS can is stopped before it writes past
    a queue's end."""
    broken = edit_kernel("push_pull_parts.h", "st.enqueued + st.small_count + st.medium_count;",
                         "st.enqueued + st.small_count + st.medium_count + num_vertices;")
    with _with_source(device, grid2d(5, 5), broken, "push_pull_parts.h", direction="push") as step:
        with pytest.raises(DeviceError, match="queues held more entries"):
            step.run(0)


@pytest.mark.parametrize("options, message", [
    (dict(direction="sideways"), "direction"),
    (dict(alpha=0), "alpha"),
    (dict(beta=0), "beta"),
    (dict(bu_probe=-1), "bu_probe"),
    (dict(bu_warp_threshold=0), "bu_warp_threshold"),
    (dict(max_blocks=0), "max_blocks"),
    (dict(visit_batch=0), "visit_batch"),
])
def test_bad_tunables_are_refused(device, options, message):
    with pytest.raises(RodiniaBFSError, match=message):
        PushPullBFS(device, grid2d(3, 3), **options)


def test_kernel_has_no_hard_coded_warp_width():
    """The warp width comes from WARP_SIZE (bfs_common.h), never from a literal."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "",
                  "".join(kernel_source(name) for name in ("push_pull.hip", "push_pull_grid.h",
                                                           "push_pull_parts.h", "top_down.h",
                                                           "tally.h")), flags=re.S)
    assert not re.search(r"\b(32|64)\b", code)


@pytest.mark.parametrize("missing", ["ALPHA", "BETA", "BU_PROBE", "BU_WARP_THRESHOLD",
                                     "FORCE_DIRECTION", "VISIT_BATCH", "SHARE_SHORT_QUEUES",
                                     "CLAIM_BITS"])
def test_missing_tunable_is_a_compile_error(device, missing):
    helpers.compile_fails_without(device, "push_pull.hip", tunables(device.warp_size), missing)


# Chapter 6's table (docs/tables/push_pull_levels.csv) is checked against what the
# example writes in tests/test_examples.py, which runs each example once.


# -- run-time compilers: forced directions, extreme tunables, the sweep counters --------

def _define_sets(warp_size):
    tiny = tunables(warp_size, block_size=warp_size, warp_threshold=1, block_threshold=1,
                    block_piece=1, local_small=1, local_medium=1, bu_probe=0,
                    bu_warp_threshold=1, direction="pull", visit_batch=2)
    largest = tunables(warp_size, block_size=1024, local_small=8_000, local_medium=2_000,
                       bu_probe=1_000, direction="push", visit_batch=4, check_before_claim=True,
                       claim_bits=True)
    return [tunables(warp_size), {**tiny, "BFS_COUNT_PATHS": 1}, largest]


DEFINE_SETS = ["default", "tiny-counted", "largest"]


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    PushPullBFS, _define_sets, DEFINE_SETS, [("gfx90a", 64), ("gfx1030", 32)]))
def test_hiprtc_compiles(arch, warp_size, which):
    """Each set the step contract does not compile (it compiles the defaults)."""
    code = hiprtc_or_skip().compile_for_arch(kernel_source("push_pull.hip"), arch,
                                             "push_pull.hip", _define_sets(warp_size)[which],
                                             headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    PushPullBFS, _define_sets, DEFINE_SETS, [("sm_90", 32)]))
def test_nvrtc_compiles(arch, warp_size, which):
    """Each set the step contract does not compile (it compiles the defaults)."""
    code = nvrtc_or_skip().compile_for_arch(kernel_source("push_pull.hip"), arch,
                                            "push_pull.hip", _define_sets(warp_size)[which],
                                            headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


# -- on a GPU -------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_matches_independent_bfs(gpu, name, direction):
    graph = GRAPHS[name]()
    with PushPullBFS(gpu, graph, direction=direction) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(graph, source, result)
            if direction == "auto":
                assert step.last_directions == beamer_directions(graph, source, result.levels, step.pull_edges)


@pytest.mark.gpu
@pytest.mark.parametrize("crossing", sorted(CROSSINGS))
@pytest.mark.parametrize("config", ["default", "tiny"])
def test_gpu_counting_crossing_is_exact(gpu, crossing, config):
    """Each way a top-down level ends, on the GPU, where a reader of an entry written
    after its block's arrival may come first and wait for it: a mesh, a graph of hubs
    and a Kronecker graph, every direction, and the small queues all -1 after each whole
    search with the entries written after the arrival."""
    for graph in (delaunay(14), grid_with_hubs(50, 50, seed=2), kronecker(12, seed=1)):
        for direction in ("auto", "push"):
            with PushPullBFS(gpu, graph, direction=direction, **CONFIGS[config],
                             **CROSSINGS[crossing]) as step:
                for source in sources_of(graph):
                    check_run(graph, source, step.run(source))
                    if crossing == "after":
                        for queues in step.queues:
                            small = gpu.from_device(queues["small"], graph.num_vertices, np.int32)
                            assert (small == -1).all()


@pytest.mark.gpu
def test_gpu_an_entry_never_written_ends_the_search(gpu):
    with never_writing_block(gpu, grid2d(40, 40)) as step:
        with pytest.raises(DeviceError, match="waited too long .* for an entry of a queue"):
            step.run(0)


# -- how many units share a short queue's entry ---------------------------------------------

SHARES_KERNEL = """
#include "top_down.h"
extern "C" __global__ void shares(const bfs_u32* in, bfs_u32* out, bfs_u32 n)
{
    const bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = log_share(in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]);
}
"""


def log_share_by_loop(count: int, units: int, lanes: int, longest: int) -> int:
    """The definition, one power of two at a time: the largest k <= 16 with
    count << k <= units and lanes << k <= longest (0 for an empty queue)."""
    k = 0
    while k < 16 and count > 0 and count <= units >> (k + 1) and lanes << (k + 1) <= longest:
        k += 1
    return k


def test_log_share_is_the_largest_share_that_fits(device):
    """log_share (top_down.h) computes the bound from leading zeros instead of a loop: the
    same answer as the loop on edge cases and on random queues, grids and list lengths."""
    rng = np.random.default_rng(5)
    cases = [(0, 1 << 17, 1, 32), (1, 1, 1, 32), (1, 2, 1, 32), (3, 7, 1, 32), (3, 6, 1, 32),
             (1, 1 << 30, 1, 1 << 30), (1, 1 << 20, 32, 32), (1, 1 << 20, 32, 64),
             (5, 1 << 17, 33, 64), (2, 1 << 17, 1, 1), (1 << 17, 1 << 17, 1, 32),
             (4000, 135168, 1, 32), (4000, 4224, 32, 1024), (1, 4224, 32, 1 << 31)]
    for _ in range(3000):
        cases.append((int(rng.integers(0, 1 << rng.integers(1, 20))),
                      int(rng.integers(1, 1 << rng.integers(1, 31))),
                      int(1 << rng.integers(0, 7)), int(rng.integers(1, 1 << rng.integers(1, 20)))))
    module = device.compile(SHARES_KERNEL, "shares.hip", defines=tunables(device.warp_size),
                            headers=kernel_headers())
    got = run_per_case(device, module, "shares", np.array(cases).ravel(), len(cases), 1)[:, 0]
    expected = [log_share_by_loop(*case) for case in cases]
    wrong = [(case, int(g), e) for case, g, e in zip(cases, got, expected) if g != e]
    assert not wrong, wrong[:5]
    assert max(expected) == 16 and min(expected) == 0  # both ends are reached
