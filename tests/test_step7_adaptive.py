"""Step 7 (adaptive): what is special to it. The step contract (tests/test_step_contract.py)
runs it on every contract graph at warp 32 and 64 with the default tunables; here the
single block's capacities are made small so that every search hands its frontier over to
the grid and back, and each graph is checked with those tunables too."""

import itertools

import numpy as np
import pytest

from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import delaunay, grid2d, kronecker
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime.cpu_backend import kernel_names
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import (CHOICES, HAND_BACK_AFTER, PULL_GROWTH, AdaptiveBFS,
                                          tunables)
from rodinia_bfs.variants.persistent import LEVEL_STAMP
from rodinia_bfs.variants.push_pull import rule_table

import helpers
from helpers import (GRAPHS, check_run, edit_kernel, hiprtc_or_skip, nvrtc_or_skip,
                     pairwise_params, run_per_case, sources_of)
from test_step5_persistent import (SMALL_BLOCKS, check_search, frontier_sizes, one_way, path_graph,
                                   spider, stopped_in)

#: The hand-over by capacity alone: which kernel runs each level then depends on the
#: frontier only, not on the device clock, so that these tests can say which one did.
#: (The step's default, the measured hand-over, runs in the step contract's tests and in
#: test_measured_hand_over below.)
BY_CAPACITY = dict(SMALL_BLOCKS, handover="capacity")

#: Single-block queues of 16 entries and levels of at most 1024 edges: a frontier of
#: more than 16 vertices goes to the grid, one of at most 8 comes back.
SWITCHING = dict(BY_CAPACITY, sb_capacity=16, sb_edge_limit=1024)


def runs(choices: list[str]) -> list[str]:
    """The kernels in the order they ran, each run of levels once: single, grid, single."""
    kinds = ["single" if c == "single" else "grid" for c in choices]
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]


def test_registered_between_push_pull_and_multi_gpu():
    names = list(STEPS)
    assert names.index("adaptive") == names.index("adaptive_basic") + 1  # its basic version first
    assert names.index("multi_gpu") == names.index("adaptive") + 1


def test_kernels_found_in_included_headers():
    """adaptive.hip is two includes: the emulator finds the kernels inside them, and
    step 5's grid kernel, which this step does not launch, is not among them."""
    names = kernel_names(kernel_source("adaptive.hip"), kernel_headers())
    assert names == ["persistent_single", "persistent_flush", "push_pull_bfs"]
    assert kernel_names(kernel_source("adaptive.hip")) == []


#: The grid the large frontiers go to: two blocks, whose grid-stride loops go round, or as
#: many blocks as the device runs at once (the default; on the emulator a launch takes
#: time in proportion to its threads, and each grid level waits at a barrier for them all).
GRIDS = {"2-blocks": dict(max_grid_blocks=2), "full-grid": {}}


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=[*GRAPHS, "spider", "one-way"],
                                          grid=list(GRIDS)), indirect=["device"])
def test_graphs_with_hand_overs(device, name, grid):
    """Every contract graph, a spider and a directed graph, with a single block small
    enough that large frontiers go to the grid: levels exact, parents by Graph500's rules.
    Each graph at warp 32 and 64, one of them with a grid of two blocks."""
    graph = {**GRAPHS, "spider": spider, "one-way": one_way}[name]()
    with AdaptiveBFS(device, graph, **SWITCHING, **GRIDS[grid]) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(step, source, result)
            assert len(step.last_choices) == result.iterations
            assert set(step.last_choices) <= {"single", "push", "pull"}


def test_hand_over_and_back_on_a_grid(device):
    """A 40 x 40 mesh from a corner: the grid starts the search and hands its small first
    levels back, the single block runs the next ones, the grid the wide middle ones, and
    the single block the tail again; the levels each kernel ran had the frontier sizes
    that rule asks for."""
    with AdaptiveBFS(device, grid2d(40, 40), **SWITCHING) as step:
        result = step.run(0)
        check_run(step, 0, result)
        choices, sizes = step.last_choices, step.last_frontiers
    assert runs(choices) == ["grid", "single", "grid", "single"]
    after = HAND_BACK_AFTER
    # The grid hands back once HAND_BACK_AFTER levels in a row fitted half the capacity:
    # it ran all but the last of them, the single block takes the last.
    first_back = choices.index("single")
    assert first_back == after - 1 and choices[:first_back] == ["push"] * (after - 1)
    assert max(sizes[:after]) <= 8
    over = next(i for i in range(first_back, len(choices)) if choices[i] != "single")
    assert max(sizes[first_back:over]) <= 16 < sizes[over]
    back = next(i for i in range(over, len(choices)) if choices[i] == "single")
    assert max(sizes[back - after + 1:back + 1]) <= 8 < sizes[back - after]
    assert choices[back - after + 1:back] == ["push"] * (after - 1)
    assert step.last_host_waits == 2  # one pair of kernels per batch: the hand-over is a second


@pytest.mark.parametrize("after", [1, 3, HAND_BACK_AFTER])
def test_a_short_tail_stays_in_the_grid(device, after):
    """A Kronecker graph's tail is a level or two of a few vertices: waiting for 3 small
    levels (or the default HAND_BACK_AFTER) the grid runs it and the search ends in one
    batch; handing back at the first small level (hand_back_after=1) sends it to the
    single block."""
    graph = kronecker(11, seed=3)
    with AdaptiveBFS(device, graph, **SWITCHING, hand_back_after=after) as step:
        result = step.run(28)  # levels of 1, 2, 319, 1338, 67 and 1 vertices
        check_run(step, 28, result)
        choices, waits = step.last_choices, step.last_host_waits
    assert frontier_sizes(result) == [1, 2, 319, 1338, 67, 1]
    if after > 1:
        assert choices[-1] != "single" and waits == 1
    else:
        assert choices[-1] == "single" and waits == 2


@pytest.mark.parametrize("grid_alone", [True, False])
def test_the_grid_alone_after_a_search_it_ran_whole(device, grid_alone):
    """After a search whose grid handed nothing back (a Kronecker graph's, its short tail
    kept in the grid), the next search's first batch is the grid's launch alone; a search
    that then needs the single block (down a path of the same graph) takes a batch more
    and ends exact, and the search after it queues both kernels again. With
    grid_alone=False every batch has both."""
    core = kronecker(11, seed=3)
    n, length = core.num_vertices, 300
    src, dst = core.edges()
    path = np.arange(n, n + length)
    graph = CSRGraph.from_edges(np.r_[src, path[:-1], path[1:]],
                                np.r_[dst, path[1:], path[:-1]], n + length,
                                name="kronecker-and-path")
    end = n + length - 1
    with AdaptiveBFS(device, graph, **SWITCHING, grid_alone=grid_alone) as step:
        singles = []
        launch_single = step._launch_single
        step._launch_single = lambda single: (singles.append(1), launch_single(single))
        seen = []
        for source in (28, 28, end, 28, 28):
            singles.clear()
            result = step.run(source)
            check_run(step, source, result)
            seen.append((len(singles), step.last_host_waits, "single" in step.last_choices))
    if grid_alone:
        assert seen == [(1, 1, False), (0, 1, False), (1, 2, True), (1, 1, False),
                        (0, 1, False)]
    else:
        assert seen == [(1, 1, False), (1, 1, False), (1, 1, True), (1, 1, False),
                        (1, 1, False)]


def test_kronecker_pulls_in_the_middle(device):
    """A small Kronecker graph: the grid starts top-down, pulls the wide middle levels
    (Beamer's rule), and forcing push keeps the levels and drops every pull."""
    graph = kronecker(10, seed=1)
    with AdaptiveBFS(device, graph, **SWITCHING) as step:
        result = step.run(0)
        check_run(step, 0, result)
        assert step.last_choices[0] == "push" and "pull" in step.last_choices
    with AdaptiveBFS(device, graph, **SWITCHING, direction="push") as step:
        pushed = step.run(0)
        check_run(step, 0, pushed)
        assert "pull" not in step.last_choices and "push" in step.last_choices
    np.testing.assert_array_equal(result.levels, pushed.levels)


def kronecker_at_the_end_of_a_path(at_hub: bool = False, length: int = 3_000) -> CSRGraph:
    """A Kronecker graph of scale 9 with a path of `length` vertices hanging from its
    vertex 81 (of degree 2 to 4), both ways: from the path's far end the single block
    runs thousands of levels and visits a third of the edges before the Kronecker graph's
    frontier outgrows it, and the grid's first level pulls only if it counts m_u without
    them. ``at_hub``: the path hangs from the largest hub instead, and the grid's first
    level (the hub alone, after a level of one vertex) pulls only if the grid forgets
    that the frontier did not grow."""
    core = kronecker(9, seed=3)
    n = core.num_vertices
    start = int(np.argmax(core.degrees())) if at_hub else 81
    chain = np.r_[start, np.arange(n, n + length)]
    src, dst = core.edges()
    src = np.r_[src, chain[:-1], chain[1:]]
    dst = np.r_[dst, chain[1:], chain[:-1]]
    return CSRGraph.from_edges(src, dst, n + length, name="kronecker-path").as_undirected()


@pytest.mark.parametrize("make, source", [(lambda: kronecker(11, seed=3), 0),
                                          (lambda: kronecker(11, seed=3), 77),
                                          (kronecker_at_the_end_of_a_path, -1),
                                          (lambda: kronecker_at_the_end_of_a_path(True), -1)],
                         ids=["kronecker-0", "kronecker-77", "kronecker-path", "hub-path"])
def test_grid_levels_follow_beamers_rule(device, make, source):
    """The grid's first level after a hand-over takes m_u from the Control record (the
    edges of the levels the single block ran), not from a pass over every vertex: each
    level the grid runs takes the direction Beamer's rule gives from the exact counts
    (push_pull.rule_table). The grid also starts from the single block's n_f of the level
    before, which the rule compares with. A wrong m_u or n_f moves the switch to another
    level (on the paths, where the levels before the hand-over hold a third of the
    edges, and the level before the hub has one vertex)."""
    graph = make()
    source = source % graph.num_vertices
    with AdaptiveBFS(device, graph, **SWITCHING) as step:
        result = step.run(source)
        check_run(step, source, result)
        choices = step.last_choices
    rows = rule_table(graph, source, result.levels, growth=PULL_GROWTH, wide=step.pull_edges)
    grid_levels = [i for i, c in enumerate(choices) if c != "single"]
    assert choices[0] == "push" and "pull" in choices
    if graph.name == "kronecker-path":  # the single block ran the path, then handed over
        assert runs(choices)[:3] == ["grid", "single", "grid"]
    assert [choices[i] for i in grid_levels] == [rows[i]["direction"] for i in grid_levels]


@pytest.mark.parametrize("growth", [0, PULL_GROWTH])
def test_a_frontier_pulled_only_when_it_grows_by_the_margin(device, growth):
    """The grid pulls a frontier only when it grows by more than PULL_GROWTH eighths
    (the default one): on a small Delaunay mesh, whose tail wavers by a few vertices where
    few edges are left, Beamer's rule alone (0) pulls levels that the default keeps
    top-down. The grid's levels follow the host's rule with the same margin; exact."""
    graph = delaunay(12)
    source = 64
    with AdaptiveBFS(device, graph, pull_growth=growth, wide_pulls=False, **SWITCHING) as step:
        result = step.run(source)
        check_run(step, source, result)
        choices = step.last_choices
    rows = rule_table(graph, source, result.levels, growth=growth)
    grid_levels = [i for i, c in enumerate(choices) if c != "single"]
    assert [choices[i] for i in grid_levels] == [rows[i]["direction"] for i in grid_levels]
    assert ("pull" in choices) == (growth == 0)


def test_claims_by_bit_across_the_hand_overs(device):
    """Claims by bit (CLAIM_BITS): the grid rebuilds the visited bitmap from the levels
    when it takes a frontier over and hands it back as it kept it, so the single block
    and the grid see the same visited set through every hand-over: a mesh that goes to
    the grid and back twice, a Kronecker graph behind a path (grid, single, grid, with
    pulled levels), and several starts; exact. (By atomicCAS, the default on the graphs
    of these tests, the grid rebuilds the bitmap when it hands back instead: the tests
    above.)"""
    options = dict(SWITCHING, claim_bits=True)
    with AdaptiveBFS(device, grid2d(40, 40), **options) as step:
        result = step.run(0)
        check_run(step, 0, result)
        assert runs(step.last_choices) == ["grid", "single", "grid", "single"]
        for depth in (None, 3):
            check_search(step, [5, 820, 1599], depth)
    graph = kronecker_at_the_end_of_a_path()
    far_end = graph.num_vertices - 1
    with AdaptiveBFS(device, graph, **options) as step:
        result = step.run(far_end)
        check_run(step, far_end, result)
        assert runs(step.last_choices)[:3] == ["grid", "single", "grid"]
        assert "pull" in step.last_choices


@pytest.mark.parametrize("claim_bits", [True, False])
def test_a_batch_of_edges_across_the_hand_overs(device, claim_bits):
    """Step 6's batch (two edges a thread, their claims sent together) in step 7's grid,
    by bit and by atomicCAS, through the hand-overs of a mesh; exact."""
    with AdaptiveBFS(device, grid2d(40, 40), **SWITCHING, visit_batch=2,
                     claim_bits=claim_bits) as step:
        assert step._push_pull["VISIT_BATCH"] == 2
        check_run(step, 0, step.run(0))
        assert runs(step.last_choices) == ["grid", "single", "grid", "single"]
        check_search(step, [5, 1599], None)


def test_visit_batch_is_checked(device):
    with pytest.raises(Exception, match="visit_batch >= 1"):
        AdaptiveBFS(device, grid2d(4, 4), visit_batch=0)


def _claims_by_bit(warp_size):
    """Step 7 compiled claiming by bit: the grid's rebuild of the bitmap where it takes a
    frontier over, which step 6 does not have, and no rebuild where it hands one back."""
    return [tunables(warp_size, claim_bits=True)]


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    AdaptiveBFS, _claims_by_bit, ["claims-by-bit"], [("gfx90a", 64)]))
def test_hiprtc_compiles_claims_by_bit(arch, warp_size, which):
    code = hiprtc_or_skip().compile_for_arch(kernel_source("adaptive.hip"), arch, "adaptive.hip",
                                             _claims_by_bit(warp_size)[which],
                                             headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    AdaptiveBFS, _claims_by_bit, ["claims-by-bit"], [("sm_90", 32)]))
def test_nvrtc_compiles_claims_by_bit(arch, warp_size, which):
    code = nvrtc_or_skip().compile_for_arch(kernel_source("adaptive.hip"), arch, "adaptive.hip",
                                            _claims_by_bit(warp_size)[which],
                                            headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


def test_path_of_thousands_of_levels(device):
    """5,000 levels: the grid starts, hands the path back after HAND_BACK_AFTER small
    levels, and the single block runs the rest, with one wait of the host."""
    graph = path_graph(5_000)
    with AdaptiveBFS(device, graph, **BY_CAPACITY) as step:
        result = step.run(0)
        check_run(step, 0, result)
        first = HAND_BACK_AFTER - 1
        assert step.last_choices[:first] == ["push"] * first
        assert set(step.last_choices[first:]) == {"single"} and step.last_host_waits == 1
    assert result.iterations == 5_000


def test_path_through_the_grid(device):
    """A path whose every level goes to the grid (an edge limit of 0: the single block
    hands the source's level over at once): the grid runs 301 levels, all top-down
    (a frontier of at most two vertices never meets Beamer's rule), and ends exact."""
    graph = path_graph(600)
    with AdaptiveBFS(device, graph, **BY_CAPACITY, sb_edge_limit=0) as step:
        result = step.run(300)
        check_run(step, 300, result)
        assert set(step.last_choices) == {"push"}
    assert result.iterations == 301


def test_reruns_start_clean(device):
    """A second search on the same set-up, after one that handed over and back."""
    graph = grid2d(30, 30)
    with AdaptiveBFS(device, graph, **SWITCHING) as step:
        for source in (0, 465, 0):
            check_run(step, source, step.run(source))


def test_profile_times_each_level(device):
    with AdaptiveBFS(device, grid2d(30, 30), **SWITCHING) as step:
        result = step.run(0, profile=True)
        check_run(step, 0, result)
    assert len(result.level_times_ms) == result.iterations
    assert all(t >= 0 for t in result.level_times_ms)


# -- several sources and a depth limit ----------------------------------------------------------

def choices_of(step, iterations: int) -> list[str]:
    """What ran each level of the last search (``run`` keeps it; ``search`` does not)."""
    stamps = step.device.from_device(step.stamps, iterations, LEVEL_STAMP)
    return [CHOICES.get(int(k), "?") for k in stamps["kernel"]]


def test_depth_limit_in_either_kernel_and_at_the_hand_overs(device):
    """The 40 x 40 mesh from a corner runs grid, single, grid, single. A depth limit at
    each level stops in the kernel that has that frontier: the grid (which writes its end
    stamp there) for the levels it runs and for one it would hand back, the single block
    for the levels it runs and for one it would hand over."""
    with AdaptiveBFS(device, grid2d(40, 40), **SWITCHING) as step:
        full, _ = check_search(step, [0])
        choices = choices_of(step, full.iterations)
        assert runs(choices) == ["grid", "single", "grid", "single"]
        kinds = ["single" if c == "single" else "grid" for c in choices]
        changes = [i for i in range(1, len(kinds)) if kinds[i] != kinds[i - 1]]
        for depth in sorted({0, 1, *(c + k for c in changes for k in (-1, 0, 1)), full.iterations}):
            result, _ = check_search(step, [0], depth)
            assert choices_of(step, result.iterations) == choices[:result.iterations]
            if depth < full.iterations:
                holder = "single" if depth > 0 and choices[depth - 1] == "single" else "done"
                assert stopped_in(step, depth) == holder, depth


@pytest.mark.parametrize("after", [1, HAND_BACK_AFTER])
def test_several_sources_start_in_the_grid(device, after):
    """The grid starts a search from several vertices as it starts one from a source
    (the host stages them in its queues by degree, and its resume counts n_f and m_f).
    With hand_back_after=1 a level 0 that fits the single block goes to it at once, from
    the queues (not as a source alone); more starts than it holds stay in the grid."""
    graph = grid2d(40, 40)
    few, many = [0, 820, 1599], list(range(5, 1600, 37))
    with AdaptiveBFS(device, graph, **SWITCHING, hand_back_after=after) as step:
        for starts in (few, many):
            for depth in (None, 0, 1, 3):
                result, _ = check_search(step, starts, depth)
                if result.iterations:
                    first = choices_of(step, 1)[0]
                    assert first == ("single" if after == 1 and starts is few else "push")
        check_run(step, 44, step.run(44))  # a plain search after them starts clean


def test_several_sources_pull_first(device):
    """Hubs of a Kronecker graph whose edges together outnumber m_u / ALPHA (none alone
    does): the grid's first level pulls, as Beamer's rule says from the starts' count
    and edges; exact at every depth."""
    graph = kronecker(10, seed=1)
    degrees = graph.degrees()
    by_degree = np.argsort(degrees, kind="stable")[::-1]
    edges = np.cumsum(degrees[by_degree[1:]])
    enough = 1 + int(np.searchsorted(edges * 16, graph.num_edges, side="right"))
    starts = sorted(by_degree[1:enough + 1].tolist())
    assert len(starts) > 1 and degrees[starts].max() * 16 <= graph.num_edges
    with AdaptiveBFS(device, graph, **SWITCHING) as step:
        full, levels = check_search(step, starts)
        choices = choices_of(step, full.iterations)
        assert choices[0] == "pull"
        rows = rule_table(graph, starts, levels, growth=PULL_GROWTH, wide=step.pull_edges)
        assert [c for c in choices if c != "single"] == [
            rows[i]["direction"] for i, c in enumerate(choices) if c != "single"]
        for depth in range(full.iterations + 1):
            check_search(step, starts, depth)


# Chapter 7's table (docs/tables/adaptive_levels.csv) is checked against what the
# example writes in tests/test_examples.py, which runs each example once.


def test_grid_kernel_takes_step_5s_queue_thresholds(device, monkeypatch):
    """The grid kernel is compiled with step 5's queue thresholds, which the host sized
    the large queues by, not step 6's own defaults (a mismatch overflows the queues)."""
    compiled = {}
    real = device.compile

    def spy(source, name="kernel.hip", defines=None, headers=None):
        compiled.update(defines or {})
        return real(source, name, defines=defines, headers=headers)

    monkeypatch.setattr(device, "compile", spy)
    with AdaptiveBFS(device, kronecker(10, seed=1)) as step:
        for macro in ("WARP_THRESHOLD", "BLOCK_THRESHOLD", "BLOCK_PIECE", "BLOCK_SIZE"):
            assert compiled[macro] == step.defines[macro], macro


@pytest.mark.parametrize("name", ["grid-37x29", "graphgen-3001", "awkward"])
def test_measured_hand_over(device, name):
    """The measured hand-over (the step's default) with small single-block queues, so
    that the frontier goes to the grid and back: every search ends exact whichever kernel
    the device clock gave each level to, and the grid leaves in the Control record the
    mean time of the levels it timed and what its run spent outside them (nanoseconds),
    which the single block weighs its own levels against."""
    from rodinia_bfs.variants.persistent import CONTROL

    graph = GRAPHS[name]()
    with AdaptiveBFS(device, graph, **SWITCHING | {"handover": "measured"}) as step:
        assert step.defines["MEASURED_HANDOVER"] == 0  # step 5's; the compiled module's:
        assert step._push_pull["MEASURED_HANDOVER"] == 1
        for source in sources_of(graph):
            result = step.run(source)
            check_run(step, source, result)
            control = device.from_device(step.control, 1, CONTROL)[0]
            grid_levels = sum(choice != "single" for choice in step.last_choices)
            if grid_levels >= 2:  # the grid timed at least one whole level of its own
                assert control["grid_ns"] > 0
                # Its start and hand-back took some time, less than the clock's range
                # (a start or end misplaced would wrap around).
                assert 0 < control["switch_ns"] < 2**32 - 1
            # The single block names a width only when it gives a level up for being
            # slow: narrower than the level it ran slower than the grid, which fitted
            # its queues.
            assert control["slow_vertices"] <= step.sb_capacity


@pytest.mark.parametrize("keep", [True, False])
def test_a_fresh_search_keeps_the_last_measures(device, keep):
    """With keep_measures (the default) the grid's measures in the Control record outlive
    a fresh search's first run: on a Kronecker graph that the grid runs whole, one run a
    search, the first search measures its run and the next two keep that; with
    keep_measures=False each search's run replaces them."""
    from rodinia_bfs.variants.persistent import CONTROL

    graph = kronecker(11, seed=3)
    with AdaptiveBFS(device, graph, keep_measures=keep) as step:
        seen = []
        for _ in range(3):
            result = step.run(28)
            check_run(step, 28, result)
            assert "single" not in step.last_choices  # one run of the grid, a fresh one
            control = device.from_device(step.control, 1, CONTROL)[0]
            seen.append((int(control["grid_ns"]), int(control["switch_ns"])))
    assert seen[0][0] > 0 and seen[0][1] > 0
    if keep:
        assert seen[1] == seen[0] and seen[2] == seen[0]
    else:  # clocks in nanoseconds: two runs do not take the same time to the nanosecond
        assert seen[1] != seen[0] and seen[2] != seen[1]


def test_handover_is_checked(device):
    with pytest.raises(Exception, match="handover must be one of capacity, measured"):
        AdaptiveBFS(device, grid2d(4, 4), handover="sometimes")


# -- the measured hand-over's rule ------------------------------------------------------------

WEIGH_KERNEL = """
#include "single_block_queues.h"
extern "C" __global__ void weigh(const bfs_u32* in, bfs_u32* out, bfs_u32 n)
{
    const bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const bfs_u32* c = in + 5 * i;  // lost, took, grid_ns, switch_ns, width
    bfs_u32 lost = c[0], fit = 0xffffffffu;
    const bool go = weigh_level(lost, c[1], c[2], c[3], c[4], fit);
    out[3 * i] = lost;
    out[3 * i + 1] = go;
    out[3 * i + 2] = fit;
}
"""


def weigh_by_hand(lost: int, took: int, grid_ns: int, switch_ns: int, width: int):
    """The rule as chapter 7 states it: the time lost grows by what a level took beyond a
    grid level, back to zero once the block keeps up; switch once it exceeds a switch's
    cost, naming the width that would take a grid level at the level's cost per vertex,
    at least 1 (a width of 0 would tell the grid that the block never gave a level up)."""
    lost = max(lost + took - grid_ns, 0)
    go = lost > switch_ns
    return lost, go, max(width * grid_ns / took if took > grid_ns else width, 1) if go else None


def test_weigh_level_is_rent_or_buy(device):
    """weigh_level (single_block_queues.h), the single block's measured hand-over, against
    the rule by hand: levels as fast as the grid's lose nothing, slow ones add up until
    they pass a switch's cost, a fast one forgives what was lost, and the width it names
    is narrower than the slow level's, and never 0."""
    cases = [(0, 900, 1000, 5000, 700),       # faster than the grid: nothing lost
             (4000, 1000, 1000, 5000, 700),   # as fast: the loss stays
             (4500, 1400, 1000, 5000, 700),   # 4,900: not yet a switch's cost
             (4800, 1400, 1000, 5000, 700),   # 5,200: switch
             (5000, 1000, 1000, 5000, 700),   # exactly the cost: no switch
             (5000, 3000, 1000, 5000, 2048),  # a level three times a grid level's
             (3000, 100, 1000, 5000, 700),    # a fast level forgives 900 ns
             (0, 20000, 1000, 0, 1000),       # a switch that costs nothing: the first slow level
             (0xfffffff0, 0x7fffffff, 1, 5, 9),  # the loss saturates at 2^32 - 1
             (0, 50000, 1000, 0, 20)]             # a width of 0.4 is named 1, never 0
    rng = np.random.default_rng(7)
    for _ in range(500):
        cases.append((int(rng.integers(0, 20000)), int(rng.integers(1, 30000)),
                      int(rng.integers(1, 10000)), int(rng.integers(0, 40000)),
                      int(rng.integers(1, 2049))))
    defines = AdaptiveBFS.default_defines(device.warp_size)
    module = device.compile(WEIGH_KERNEL, "weigh.hip", defines=defines, headers=kernel_headers())
    got = run_per_case(device, module, "weigh", np.array(cases).ravel(), len(cases), 3)
    switched = 0
    for case, (lost, go, fit) in zip(cases, got):
        want_lost, want_go, want_fit = weigh_by_hand(*case)
        assert int(lost) == min(want_lost, 2**32 - 1), case
        assert bool(go) == want_go, case
        if want_go:
            switched += 1
            assert abs(int(fit) - want_fit) <= 1 + want_fit * 1e-6, case
            assert 1 <= int(fit) <= case[4], case
            if case[1] > case[2] and case[4] > 1:  # the level took longer than a grid level
                assert int(fit) < case[4], case
    assert 0 < switched < len(cases)
    assert [bool(g) for g in got[:6, 1]] == [False, False, False, True, False, True]


# -- a single block slower than the grid ------------------------------------------------------

#: Where the slowed single block's thread 0 waits: just before the block expands a level
#: read as rows (single_block.h's level loop). The test fails, not skips, if it moves.
SLOW_ANCHOR = "    #if SB_ROW_WIDTH > 0\n        my_expanded +="


def _slowed_single_block(monkeypatch):
    """Step 7 compiled with its single block made slow on purpose, in the kernel's text
    that this test alone compiles: at every level thread 0 waits on the device clock for
    twice what a grid level and a switch cost, as the grid measured them (the Control
    record's grid_ns and switch_ns, which the block read when it started), and 1 ms
    more; the block's barrier at the end of the level waits for it."""
    import rodinia_bfs.variants.base as base

    slowed = edit_kernel("single_block.h", SLOW_ANCHOR, (
        "    if (threadIdx.x == 0) {\n"
        "            const bfs_u64 began = device_clock();\n"
        "            const bfs_u64 wait = 2ull * ((bfs_u64)grid_ns + switch_ns) + 1000000ull;\n"
        "            while (device_clock() - began < wait) {}\n"
        "        }\n") + SLOW_ANCHOR)

    def headers():
        return {**kernel_headers(), "single_block.h": slowed}

    monkeypatch.setattr(base, "kernel_headers", headers)


def _check_slow_single_block(device):
    """Every search exact, and each run of the single block gives its levels up after
    two: it does not weigh its first level, weighs the second (slower than a grid level
    by more than a switch costs) and flags the third, which goes to the grid."""
    graph = grid2d(24, 40)
    with AdaptiveBFS(device, graph) as step:  # the defaults: the measured hand-over
        for source in (0, 500, 959):
            result = step.run(source)
            check_run(step, source, result)
            kinds = ["single" if c == "single" else "grid" for c in step.last_choices]
            lengths = [len(list(group)) for kind, group in itertools.groupby(kinds)
                       if kind == "single"]
            assert lengths and max(lengths) <= 2, step.last_choices
            assert kinds[0] == "grid"  # the grid starts every search


def test_a_slow_single_block_gives_its_levels_to_the_grid(device, monkeypatch):
    """The measured hand-over's other half (test_measured_hand_over leaves it to the
    clock): a single block slower than the grid hands its levels over, the grid hands
    narrow ones back, and the levels stay exact through every hand-over."""
    _slowed_single_block(monkeypatch)
    _check_slow_single_block(device)


@pytest.mark.gpu
def test_gpu_a_slow_single_block_gives_its_levels_to_the_grid(gpu, monkeypatch):
    _slowed_single_block(monkeypatch)
    _check_slow_single_block(gpu)


@pytest.mark.parametrize("device", [32, 64], indirect=True)
def test_hand_overs_with_the_counting_crossing_before_the_arrival(device):
    """The grid's top-down levels end in the counting crossing (step 6) with the small
    entries copied before the block's arrival (the default writes them after it, which
    every other test here runs): the grid takes the single block's queues over and hands
    them back, level after level, exact through every hand-over."""
    graph = grid2d(40, 40)
    with AdaptiveBFS(device, graph, write_after_arrival=False, **SWITCHING) as step:
        for source in (0, 0, 1599):  # from corners: the grid, the single block, the grid...
            result = step.run(source)
            check_run(step, source, result)
            assert runs(step.last_choices) == ["grid", "single", "grid", "single"]


@pytest.mark.gpu
@pytest.mark.parametrize("after", [False, True])
def test_gpu_hand_overs_with_the_counting_crossing(gpu, after):
    for graph in (delaunay(14), kronecker(12, seed=1)):
        with AdaptiveBFS(gpu, graph, write_after_arrival=after, **SWITCHING) as step:
            for source in (0, graph.num_vertices // 2, graph.num_vertices - 1):
                check_run(step, source, step.run(source))
