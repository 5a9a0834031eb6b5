"""Step 5 (one launch, many levels) on the cpu emulator at warp size 32 and 64.

What is special to this step: a search of thousands of levels in one kernel, the
hand-over from the single block to the cooperative grid and back, tunables small
enough to send every graph down every path (overflow, hand-over, hand-back, step 4's
three gathers), the runaway guard, and a grid barrier that a block skips.
"""

import re

import numpy as np
import pytest

from rodinia_bfs.errors import CompileError, DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.persistent import (PersistentBFS, build_edge_records, build_rows,
                                             row_width, rows_by_halves, tunables)

import helpers
from helpers import GRAPHS as CONTRACT_GRAPHS
from helpers import (awkward_graph, check_run, edit_kernel, hiprtc_or_skip, nvrtc_or_skip,
                     pairwise_params, scipy_levels, sources_of, with_kernel)


def path_graph(n: int) -> CSRGraph:
    """0 - 1 - ... - (n - 1), both ways: n levels from an end."""
    p = np.arange(n - 1)
    return CSRGraph.from_edges(np.r_[p, p + 1], np.r_[p + 1, p], n, name=f"path-{n}")


def one_way(n: int = 500) -> CSRGraph:
    """A directed graph: a one-way path 0 -> 1 -> ... with arcs from every tenth vertex
    to a vertex 50 further on; nothing leads back, and the last vertex has no edge."""
    src = list(range(n - 1)) + list(range(0, n - 50, 10))
    dst = list(range(1, n)) + list(range(50, n, 10))
    return CSRGraph.from_edges(src, dst, n, name=f"one-way-{n}")


def spider(legs: int = 12, length: int = 10) -> CSRGraph:
    """Vertex 0 with `legs` paths of `length` vertices, both ways: from the centre, level
    1 has `legs` vertices found through `legs` edges."""
    n = 1 + legs * length
    src, dst = [], []
    for leg in range(legs):
        chain = [0] + [1 + leg * length + i for i in range(length)]
        src += chain[:-1] + chain[1:]
        dst += chain[1:] + chain[:-1]
    return CSRGraph.from_edges(src, dst, n, name=f"spider-{legs}x{length}")


#: The contract's graphs, a spider (a level that overflows a small queue) and a
#: directed graph.
GRAPHS = {**CONTRACT_GRAPHS, "spider": spider, "one-way": one_way}


#: Blocks of 64 threads for the single block and 128 for the grid, where the default
#: 1024 is not what a test is about: the emulator gives every thread of a block a stack
#: of its own, so small blocks keep the tests light.
SMALL_BLOCKS = dict(sb_block_size=64, block_size=128)


def configs(warp_size: int) -> dict:
    """Tunables that send each graph down different paths, by name.

    Four ways through the kernels (``LISTS``):
    ``single``: a small block, queues large enough that no graph here leaves it.
    ``grid``: an edge limit of 0, so the grid runs every level with an edge.
    ``switching``: queues of 8 entries and levels of at most 24 edges in the single block,
    step 4's thresholds at 2 and 5 edges with pieces of 3 and local queues of one entry,
    two grid blocks: the single block overflows and hands over, the grid hands back,
    and all three of step 4's gathers and its overflow run.
    ``plain``: no edge records, the bitmap in global memory, one edge per batch, no
    hand-back, and always a thread per edge.
    The ``single`` and ``grid`` configurations gather levels by warps in the single block
    where the frontier's degrees allow (the default); ``switching`` only while they are at
    most 2, so its searches change between warps and a thread per edge.
    Each reads the graph as lists (``rows=False``, the plain name) or as rows (``rows=True``,
    ``rows-`` before the name; a graph with a vertex of more than 16 edges refuses them).
    Rows log what the single block finds by default (persistent_flush writes it out),
    lists write it themselves; ``-logged`` after a lists name and ``-unlogged`` after a
    rows name swap that.
    """
    tiny_grid = dict(block_size=warp_size, warp_threshold=2, block_threshold=5, block_piece=3,
                     local_small=1, local_medium=1, max_grid_blocks=2)
    lists = {
        "single": dict(SMALL_BLOCKS),
        "grid": dict(SMALL_BLOCKS, sb_edge_limit=0, max_grid_blocks=3),
        "switching": dict(sb_block_size=warp_size, sb_capacity=8, sb_edge_limit=24, edge_batch=3,
                          vp_max_degree=2, **tiny_grid),
        "plain": dict(sb_block_size=2 * warp_size, block_size=2 * warp_size,
                      edge_records=False, shared_bitmap=False, vp_max_degree=0,
                      edge_batch=1, hand_back=False, sb_capacity=16, max_grid_blocks=2),
    }
    return {config_name(name, rows, swapped): dict(options, rows=rows, log=rows != swapped)
            for name, options in lists.items() for rows in (False, True)
            for swapped in (False, True)}


def config_name(lists: str, rows: bool, log_swapped: bool) -> str:
    """``switching``, ``rows-switching``, ``switching-logged``, ``rows-switching-unlogged``."""
    swap = ("-unlogged" if rows else "-logged") if log_swapped else ""
    return ("rows-" if rows else "") + lists + swap


#: The ways through the kernels of configs().
LISTS = ["single", "grid", "switching", "plain"]

#: Every way through the kernels with lists and with rows, each logged as it is by
#: default; and the switching one with the log swapped both ways.
CONFIGS = [config_name(lists, rows, False) for rows in (False, True) for lists in LISTS] + [
    "switching-logged", "rows-switching-unlogged"]


def frontier_sizes(run) -> list[int]:
    """The vertices of each level of a run."""
    return np.bincount(run.levels[run.levels >= 0]).tolist()


def fits_single_block(graph, run, step) -> bool:
    """Does every level of the search fit the single block's queues and edge limit? (With
    rows, a level counts as its vertices times the row width.)"""
    reached = run.levels >= 0
    edges = np.bincount(run.levels[reached], weights=graph.degrees()[reached])
    if step.row_width:
        edges = np.array(frontier_sizes(run)) * step.row_width
    return (max(frontier_sizes(run)) <= step.sb_capacity
            and edges.max() <= step.defines["SB_EDGE_LIMIT"])


def kernels_run(step) -> list[str]:
    """Which kernel ran each level of the last profile run."""
    return step.last_profile["kernel"]


def single_block(name: str, header: str) -> dict:
    """with_kernel's arguments for persistent.hip built with ``header`` as its header
    ``name`` (single_block.h or one of the headers it includes)."""
    return {"source": kernel_source("persistent.hip"), "headers": {name: header}}


def goes_wrong(device, graph, options: dict, header: str, old: str, new: str,
               source: int = 0) -> bool:
    """Does the step, built with ``old`` replaced by ``new`` in its header ``header``,
    give wrong levels from ``source``?"""
    edited = single_block(header, edit_kernel(header, old, new))
    with with_kernel(PersistentBFS, **edited)(device, graph, **options) as step:
        wrong = step.run(source)
    return not np.array_equal(wrong.levels, scipy_levels(graph, source))


def test_registered_after_step_4():
    assert STEPS["persistent"] is PersistentBFS
    assert list(STEPS).index("persistent") == list(STEPS).index("persistent_basic") + 1


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=sorted(GRAPHS), lists=LISTS, rows=[False, True],
    log_swapped=[False, True],
    # Each of CONFIGS whole, on some graph; then every pair of any two of the above.
    together=[dict(lists=lists, rows=rows, log_swapped=False)
              for lists in LISTS for rows in (False, True)]
    + [dict(lists="switching", rows=rows, log_swapped=True) for rows in (False, True)]),
    indirect=["device"])
def test_every_configuration_matches_independent_bfs(device, name, lists, rows, log_swapped):
    """Pairwise, not the full product: every graph meets every way through the kernels,
    lists and rows, the log as by default and swapped, and warps of 32 and 64; every
    configuration of CONFIGS runs whole."""
    graph = GRAPHS[name]()
    options = configs(device.warp_size)[config_name(lists, rows, log_swapped)]
    if rows and graph.degrees().max() > 32:
        with pytest.raises(RodiniaBFSError, match="rows need every degree to be at most 32"):
            PersistentBFS(device, graph, **options)
        return
    with PersistentBFS(device, graph, **options) as step:
        assert (step.row_width > 0) == rows
        assert step.log == (rows != log_swapped)
        for source in sources_of(graph):
            result = step.run(source, profile=True)
            check_run(step, source, result)
            ran = set(kernels_run(step))
            if lists == "single" and fits_single_block(graph, result, step):
                assert ran == {"single"}
            elif lists == "grid" and not rows:
                # Only a level without edges is left to the single block.
                assert ran == {"grid"} or graph.degrees()[source] == 0
            elif lists == "grid":
                assert ran == {"grid"}  # with rows, the bound is the row width: never 0
            if rows:
                single = [e for k, e in zip(kernels_run(step), step.last_profile["expansion"])
                          if k == "single"]
                assert set(single) <= {"row"}


@pytest.mark.parametrize("config", ["switching", "rows-switching"])
def test_the_switching_configuration_goes_to_the_grid_and_back(device, config):
    """On a grid, from a corner: the frontier grows past the single block's 8 entries and
    24 edges, and shrinks again towards the far corner; the search starts in the single
    block, goes to the grid and comes back to the single block."""
    graph = GRAPHS["grid-37x29"]()
    with PersistentBFS(device, graph, **configs(device.warp_size)[config]) as step:
        result = step.run(0, profile=True)
        check_run(step, 0, result)
        kernels = kernels_run(step)
    runs = [k for i, k in enumerate(kernels) if i == 0 or k != kernels[i - 1]]
    assert runs == ["single", "grid", "single"], kernels


@pytest.mark.parametrize("edge_records", [True, False])
def test_gathered_by_warps_or_a_thread_per_edge_by_the_frontier_degrees(device, edge_records):
    """A spider with a long leg from a hub: the levels whose vertices have at most
    vp_max_degree edges are gathered by warps, a level holding the hub a thread per
    edge; levels and parents stay exact either way. With the warps' gather broken (each
    warp skips its first edge) the search goes wrong."""
    graph = spider(legs=9, length=40)  # the centre has 9 edges, every other vertex 1 or 2
    options = dict(SMALL_BLOCKS, edge_records=edge_records, vp_max_degree=4, edge_batch=2,
                   rows=False, vp_min_vertices=0)  # by warps at any width
    with PersistentBFS(device, graph, **options) as step:
        result = step.run(0, profile=True)
        check_run(step, 0, result)
        assert step.last_profile["expansion"][0] == "edge"  # the centre: 9 edges
        assert set(step.last_profile["expansion"][1:]) == {"warp"}
        result = step.run(5, profile=True)  # along a leg: the centre comes later
        check_run(step, 5, result)
        assert step.last_profile["expansion"][:5] == ["warp"] * 5
        assert step.last_profile["expansion"][5] == "edge"
    # A frontier of fewer than vp_min_vertices vertices goes a thread per edge: with 10,
    # every level (the centre, then the 9 legs), with 9 all but the centre's by warps.
    for least, want in ((10, "edge"), (9, "warp")):
        with PersistentBFS(device, graph, **{**options, "vp_min_vertices": least}) as step:
            result = step.run(0, profile=True)
            check_run(step, 0, result)
            sizes, expansion = frontier_sizes(result), step.last_profile["expansion"]
            assert sizes[1:] == [9] * (len(sizes) - 1)
            assert [e for e, k in zip(expansion, sizes) if k == 9] == [want] * (len(sizes) - 1)
    assert goes_wrong(device, graph, options, "single_block_expand.h",
                      "k[r] = done + r * WARP_SIZE + lane_id();",
                      "k[r] = done + r * WARP_SIZE + lane_id() + 1;")


@pytest.mark.parametrize("config", ["switching", "rows-switching"])
def test_overflow_of_the_single_block_is_used(device, config):
    """From the spider's centre, level 1 has 12 vertices, found through 12 edges: the
    single block expands level 0 and its queue of 8 overflows. When the overflow holds
    the wrong vertices (the next vertex along each leg), the search goes wrong; so the
    switching configuration's queue really overflowed, and the hand-over took the
    overflow to the grid."""
    if config.startswith("rows"):  # a level read as rows appends by append_rows
        old, new = ("S.overflow[slot - SB_CAPACITY] = found[i];  // the grid takes this level",
                    "S.overflow[slot - SB_CAPACITY] = found[i] + 1;")
    else:
        old, new = ("S.overflow[s - SB_CAPACITY] = found[i].vertex;",
                    "S.overflow[s - SB_CAPACITY] = found[i].vertex + 1;")
    graph = spider()
    options = configs(device.warp_size)[config]
    with PersistentBFS(device, graph, **options) as step:
        result = step.run(0, profile=True)
        check_run(step, 0, result)
        assert kernels_run(step)[:2] == ["single", "grid"] and frontier_sizes(result)[1] == 12
    assert goes_wrong(device, graph, options, "single_block_queues.h", old, new)


@pytest.mark.gpu
def test_gpu_large_queues_with_the_bitmap_in_global_memory(gpu):
    """Queues of 4,096 entries with the visited bitmap in global memory: 32 KB of dynamic
    shared memory, under the 48 KB a block gets by default, but the single block's static
    shared memory (step 4's local queues, for a hand-over) takes it past: the launch must
    opt in to more, and the searches end exact."""
    graph = grid2d(64, 64)
    with PersistentBFS(gpu, graph, sb_capacity=4096, sb_edge_limit=32768,
                       shared_bitmap=False) as step:
        assert step.dynamic_shared == 8 * 4096 and not step.shared_bitmap
        for source in (0, 64 * 32 + 32):
            check_run(step, source, step.run(source))


def test_path_of_twenty_thousand_levels(device):
    """20,000 levels in one search, from an end, with the default tunables: the single
    block runs every level, and the host waits once."""
    graph = path_graph(20_000)
    with PersistentBFS(device, graph) as step:
        result = step.run(0, profile=True)
        check_run(step, 0, result)
        assert set(kernels_run(step)) == {"single"}
        assert step.last_host_waits == 1
    assert result.iterations == 20_000


@pytest.mark.parametrize("rounds", [1, 2])
def test_hand_over_to_the_grid_and_back(device, rounds):
    """A 64 x 64 grid with single-block queues of 64 entries: the frontier outgrows the
    block and comes back to it. With two pairs of kernels per batch the host waits once;
    with one pair, the batch ends when the grid hands back, and a second batch finishes."""
    graph = grid2d(64, 64)
    with PersistentBFS(device, graph, **SMALL_BLOCKS, sb_capacity=64, rounds=rounds) as step:
        result = step.run(70, profile=True)
        check_run(step, 70, result)
        kernels = kernels_run(step)
        waits = step.last_host_waits
    first_grid, last_grid = kernels.index("grid"), len(kernels) - 1 - kernels[::-1].index("grid")
    assert set(kernels[:first_grid]) == {"single"} and set(kernels[last_grid + 1:]) == {"single"}
    assert set(kernels[first_grid:last_grid + 1]) == {"grid"}
    sizes = frontier_sizes(result)
    assert max(sizes[:first_grid]) <= 64 < sizes[first_grid]
    assert sizes[last_grid + 1] <= 32  # handed back at half the capacity
    assert waits == (1 if rounds == 2 else 2)


def test_sink_of_a_directed_graph(device):
    """A source with no edge out: one level, and only the source reached."""
    with PersistentBFS(device, one_way(), **SMALL_BLOCKS) as step:
        result = step.run(499)
        check_run(step, 499, result)
    assert result.iterations == 1 and np.count_nonzero(result.levels >= 0) == 1


def test_reruns_start_clean(device):
    """A second BFS on the same step sees nothing of the first one's levels, parents,
    bitmap, queues or counters, whichever kernels the first one ended in."""
    graph = GRAPHS["hubs-40x40"]()
    with PersistentBFS(device, graph, **configs(device.warp_size)["switching"]) as step:
        first = step.run(5)
        step.run(int(np.argmax(graph.degrees())))
        step.run(1599)
        again = step.run(5)
    np.testing.assert_array_equal(again.levels, first.levels)
    check_run(step, 5, again)


def test_profile_comes_from_the_device(device):
    """With profile=True the device records each level: a clock stamp (the times), the
    kernel that ran it and its queue entries (for the single block, its vertices)."""
    graph = grid2d(37, 29)
    with PersistentBFS(device, graph, **SMALL_BLOCKS) as step:
        result = step.run(100, profile=True)
        check_run(step, 100, result)
        profile = step.last_profile
    assert len(result.level_times_ms) == result.iterations and sum(result.level_times_ms) > 0
    assert profile["kernel"] == ["single"] * result.iterations
    assert profile["entries"] == frontier_sizes(result)


# -- several sources and a depth limit ----------------------------------------------------------

def nearest_start_levels(graph: CSRGraph, starts, depth_limit=None) -> np.ndarray:
    """Each vertex's distance to the nearest of ``starts`` by scipy (-1 where none reaches
    it or it lies past ``depth_limit``): an implementation we did not write."""
    import scipy.sparse.csgraph

    distances = scipy.sparse.csgraph.shortest_path(
        graph.to_scipy(), unweighted=True, directed=True, indices=list(starts)).min(axis=0)
    if depth_limit is not None:
        distances[distances > depth_limit] = np.inf
    return np.where(np.isinf(distances), -1, distances).astype(np.int32)


def check_search(step, starts, depth_limit=None, profile=False):
    """A search from ``starts`` (one of them: as a source) stopped at ``depth_limit``:
    levels as scipy's distances to the nearest start, parents by Graph500's rules (each
    start its own parent), and as many iterations as steps 1 to 4 report (every level
    reached and one more that finds nothing, at most ``depth_limit``). Returns the result
    and the levels."""
    from rodinia_bfs.validate import check_parents

    source, sources = (int(starts[0]), None) if len(starts) == 1 else (None, list(starts))
    result = step.search(source, profile=profile, sources=sources, depth_limit=depth_limit)
    levels, parents = step.results()
    np.testing.assert_array_equal(levels, nearest_start_levels(step.graph, starts, depth_limit))
    check_parents(step.graph, source, levels, parents, sources=sources, depth_limit=depth_limit)
    unlimited = int(nearest_start_levels(step.graph, starts).max()) + 1
    assert result.iterations == (unlimited if depth_limit is None else min(depth_limit, unlimited))
    return result, levels


def stopped_in(step, level: int) -> str:
    """Which kernel had the frontier of ``level`` when the search ended there: each writes
    its stamp for a level before it looks at the depth limit (step 7's grid writes an
    end stamp instead, MODE_DONE: ``"done"``)."""
    from rodinia_bfs.variants.persistent import LEVEL_STAMP

    kind = int(step.device.from_device(step.stamps, level + 1, LEVEL_STAMP)["kernel"][level])
    return {1: "single", 7: "single", 8: "single", 2: "grid", 6: "grid", 3: "done"}[kind]


@pytest.mark.parametrize("config", ["switching", "rows-switching", "plain"])
def test_depth_limit_in_either_kernel_and_at_the_hand_overs(device, config):
    """On a grid from a corner the switching configurations run single, grid, single (the
    plain one, which never hands back: single, grid). A depth limit in each run of levels,
    and at and next to each hand-over, stops in the kernel that has that frontier, with
    the frontier found (and, rows-switching, the log written out) but not expanded."""
    graph = GRAPHS["grid-37x29"]()
    with PersistentBFS(device, graph, **configs(device.warp_size)[config]) as step:
        full, _ = check_search(step, [0], profile=True)
        kernels = kernels_run(step)
        over = kernels.index("grid")
        back = len(kernels) - kernels[::-1].index("grid")  # the first level handed back
        assert 2 < over < back - 2 and (back < full.iterations) == (config != "plain")
        for depth in (0, 1, over - 1, over, over + 1, back - 1, back, back + 1,
                      full.iterations - 1, full.iterations, full.iterations + 3):
            result, _ = check_search(step, [0], depth, profile=True)
            assert kernels_run(step) == kernels[:result.iterations]
            if depth < full.iterations:
                # A kernel looks at the limit before it hands its frontier over.
                holder = "grid" if over < depth <= back else "single"
                assert stopped_in(step, depth) == holder, depth


@pytest.mark.parametrize("config", ["switching", "rows-switching"])
def test_several_sources_start_in_the_single_block_or_the_grid(device, config):
    """Start vertices that fit the single block's queue of 8 and its 24 edges start there
    (the host writes the Control record as a hand-back at level 0 would); more of them
    start in the grid, each in the queue its degree says. Either way, with and without a
    depth limit, the levels are the distances to the nearest start."""
    graph = GRAPHS["grid-37x29"]()
    few = [0, 500, 1072]  # corners and the middle: 2 to 4 edges each
    many = list(range(3, 1073, 89))  # 13 vertices
    with PersistentBFS(device, graph, **configs(device.warp_size)[config]) as step:
        for starts, first in ((few, "single"), (many, "grid")):
            for depth in (None, 0, 1, 4):
                check_search(step, starts, depth, profile=True)
                if depth != 0:
                    assert kernels_run(step)[0] == first
        # A plain search after them starts clean.
        check_run(step, 7, step.run(7))


def test_several_sources_by_degree_in_the_grids_queues(device):
    """A Kronecker graph's hubs and leaves as start vertices, with step 4's thresholds
    small enough that they go to all three of the grid's queues (the hubs as their
    pieces): exact at every depth."""
    graph = kronecker(9, seed=4)
    degrees = graph.degrees()
    starts = sorted({*np.argsort(degrees)[-3:].tolist(), *np.flatnonzero(degrees == 2)[:4].tolist(),
                     *np.flatnonzero(degrees == 6)[:3].tolist()})
    options = dict(sb_block_size=device.warp_size, block_size=device.warp_size, sb_capacity=8,
                   sb_edge_limit=24, warp_threshold=4, block_threshold=16, block_piece=8,
                   max_grid_blocks=2)
    with PersistentBFS(device, graph, **options) as step:
        queues = [step.defines[k] for k in ("WARP_THRESHOLD", "BLOCK_THRESHOLD")]
        assert queues == [4, 16] and min(degrees[starts]) < 4 and max(degrees[starts]) >= 16
        for depth in (None, 0, 1, 2):
            check_search(step, starts, depth, profile=True)
            if depth != 0:
                assert kernels_run(step)[0] == "grid"


# -- never a hang ---------------------------------------------------------------------------

@pytest.mark.parametrize("rows", [False, True])
def test_runaway_single_block_is_an_error(device, rows):
    """A single block that claims every target again, visited or not, never empties its
    queues: the kernel's guard (no more levels or queued vertices than the graph has)
    ends the search with an error instead of a loop, whether it reads lists or rows."""
    if rows:
        header = "single_block_expand.h"
        broken = edit_kernel(header, "if (real) before[e] = got;",
                             "if (real) before[e] = 0 * got;")
    else:
        header = "single_block_queues.h"
        broken = edit_kernel(header, "before[i] = atomicOr(", "before[i] = 0 * atomicOr(")
    edited = single_block(header, broken)
    with with_kernel(PersistentBFS, **edited)(device, path_graph(50),
                                              **SMALL_BLOCKS, rows=rows) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_runaway_grid_is_an_error(device):
    """A grid that queues vertex 0 again at every level never empties its queues: the
    same guard ends the search."""
    clear = "Q.counters(level + 2)[threadIdx.x * COUNTER_STRIDE] = 0;"
    again = (" if (blockIdx.x == 0 && threadIdx.x == 0) Q.small(level + 1)"
             "[atomicAdd(&Q.counters(level + 1)[SMALL * COUNTER_STRIDE], 1u)] = 0;")
    broken = edit_kernel("persistent.hip", clear, clear + again)
    with with_kernel(PersistentBFS, broken)(device, path_graph(50), **SMALL_BLOCKS,
                                            sb_edge_limit=0, max_grid_blocks=2) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_block_that_skips_the_grid_barrier_is_an_error(device):
    """A grid whose last block leaves instead of waiting at the grid barrier: the other
    blocks would wait for ever. The run ends with a clear error (the emulator reports
    the deadlock; on a GPU the barrier's bounded wait gives up) instead of a hang."""
    barrier = "if (!grid_sync(barrier, [&] { read_counts(level + 1); })) {"
    broken = edit_kernel("persistent.hip", barrier,
                         "if (blockIdx.x == gridDim.x - 1) return;\n" + barrier)
    with with_kernel(PersistentBFS, broken)(device, grid2d(20, 20), **SMALL_BLOCKS,
                                            sb_edge_limit=0, max_grid_blocks=2) as step:
        with pytest.raises(DeviceError, match="deadlock"):
            step.run(0)


def test_failed_grid_barrier_stops_the_batch(device):
    """A grid barrier that gives up (here: made to report failure at level 3) ends the
    grid kernel, marks the search failed so that the next kernels of the batch do not
    carry on from a half-finished level, and the host raises."""
    barrier = "if (!grid_sync(barrier, [&] { read_counts(level + 1); })) {"
    broken = edit_kernel("persistent.hip", barrier,
                         "if (!grid_sync(barrier, [&] { read_counts(level + 1); }) || level == 3) {")
    with with_kernel(PersistentBFS, broken)(device, path_graph(50), **SMALL_BLOCKS,
                                            sb_edge_limit=0, max_grid_blocks=2) as step:
        with pytest.raises(DeviceError, match="no progress past level 0"):
            step.run(0)


# -- tunables and shared memory ----------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    (dict(sb_block_size=48), "sb_block_size must be a multiple"),
    (dict(sb_block_size=2048), "sb_block_size must be a multiple"),
    (dict(sb_edge_limit=2**20), "sb_edge_limit must be"),
    (dict(edge_batch=0), "edge_batch must be"),
    (dict(edge_batch=33), "edge_batch must be"),
    (dict(rounds=0), "rounds must be"),
    (dict(max_grid_blocks=0), "max_grid_blocks must be"),
    (dict(sb_capacity=10**7), "sb_capacity .* needs"),
    (dict(block_size=48), "block_size must be a multiple"),
])
def test_bad_tunables_are_refused(device, options, message):
    with pytest.raises(RodiniaBFSError, match=message):
        PersistentBFS(device, grid2d(3, 3), **options)


def test_shared_memory_plan(device):
    """The queues shrink to fit the device's shared memory, the bitmap goes to shared
    memory where it fits after them and to global memory where it does not, and asking
    for a shared bitmap that cannot fit is a clear error."""
    budget = device.max_shared_memory_per_block
    small = grid2d(10, 10)
    defaults = tunables(device.warp_size)
    static = 4 * (defaults["LOCAL_SMALL"] + defaults["LOCAL_MEDIUM"])  # step 4's local queues
    with PersistentBFS(device, small) as step:
        assert step.shared_bitmap
        queues = 32 * step.sb_capacity  # two queues of 16-byte slots
        assert static + queues + 4 * 4 <= budget
        # The default capacity, or the largest power of two below it that fits.
        assert step.sb_capacity == defaults["SB_CAPACITY"] or static + 2 * queues > budget
        assert step.sb_capacity & (step.sb_capacity - 1) == 0
    # One bit per vertex: a graph with more vertices than the block has bits.
    big = CSRGraph.from_edges([0], [1], 8 * budget + 1, name="wide")
    with PersistentBFS(device, big, **SMALL_BLOCKS) as step:
        assert not step.shared_bitmap
        check_run(step, 0, step.run(0))
    with pytest.raises(RodiniaBFSError, match="do not fit"):
        PersistentBFS(device, big, shared_bitmap=True)


def test_edge_records():
    """Each edge carries its target, the start of the target's list and its degree."""
    graph = awkward_graph()
    records = build_edge_records(graph)
    assert records.itemsize == 16
    np.testing.assert_array_equal(records["vertex"], graph.targets)
    degrees = graph.degrees()
    np.testing.assert_array_equal(records["degree"], degrees[graph.targets])
    np.testing.assert_array_equal(records["begin"], graph.offsets[graph.targets])


def test_rows():
    """Row v holds v's neighbours in list order, padded with -1 to the row width: the
    smallest power of two that holds the largest degree."""
    for graph in (spider(legs=9), one_way(200)):  # degrees 1 to 9; 0 to 2
        width = row_width(graph, True)
        most = int(graph.degrees().max())
        assert width >= most and width // 2 < most
        rows = build_rows(graph, width)
        assert rows.shape == (graph.num_vertices, width) and rows.dtype == np.int32
        for v in range(graph.num_vertices):
            lo, hi = graph.offsets[v], graph.offsets[v + 1]
            np.testing.assert_array_equal(rows[v, :hi - lo], graph.targets[lo:hi])
            assert (rows[v, hi - lo:] == -1).all()


def test_rows_marked_for_halves():
    """With halves, entry width // 2 - 1 of a row whose upper half has entries carries
    the top bit, and no other entry does."""
    graph = road_like()
    plain, marked = build_rows(graph, 8), build_rows(graph, 8, halves=True)
    more = graph.degrees() > 4
    assert more.sum() == 16
    np.testing.assert_array_equal(marked[more, 3], plain[more, 3] | np.int32(-2**31))
    np.testing.assert_array_equal(np.delete(marked, 3, axis=1), np.delete(plain, 3, axis=1))
    np.testing.assert_array_equal(marked[~more], plain[~more])
    assert (marked[more, 3] < -1).all()


def test_row_width_by_the_degrees():
    """Rows by default where the largest degree is at most ROW_WIDTH_MAX (8), on request
    up to ROW_WIDTH_LIMIT (32), never with rows=False; more than 32 edges is a clear
    error."""
    assert row_width(grid2d(5, 5), None) == 4
    assert row_width(path_graph(10), None) == 2
    assert row_width(spider(legs=9), None) == 0 and row_width(spider(legs=9), True) == 16
    assert row_width(grid2d(5, 5), False) == 0
    assert row_width(CSRGraph.from_edges([0], [0], 1), None) == 1
    assert row_width(spider(legs=17), True) == 32
    with pytest.raises(RodiniaBFSError, match="a vertex of 33 edges"):
        row_width(spider(legs=33), True)


def test_rows_expand_every_entry(device):
    """With rows, every entry of a row that is not padding is claimed; a kernel that
    passes over entry 0 of each row goes wrong. A padding entry's atomic ORs nothing into
    a spare word of the bitmap: one that ORs a bit there marks vertices found that are not
    (those of bit 0 of the first words), and goes wrong too."""
    graph = grid2d(37, 29)
    with PersistentBFS(device, graph, **SMALL_BLOCKS) as step:
        assert step.row_width == 4 and step.shared_bitmap
        check_run(step, 0, step.run(0))
    assert goes_wrong(device, graph, SMALL_BLOCKS, "single_block_expand.h",
                      "if (real) before[e] = got;",
                      "if (real && e % SB_ROW_WIDTH != 0) before[e] = got;")
    assert goes_wrong(device, graph, SMALL_BLOCKS, "single_block_expand.h",
                      "real ? bitmap_bit(u) : 0u);", "real ? bitmap_bit(u) : 1u);")


def road_like(side: int = 61) -> CSRGraph:
    """A side x side grid with a few long shortcuts: every vertex has at most four edges
    but the shortcuts' ends, which have five (rows of 8, their upper halves empty but in
    16 rows); from a corner, the shortcuts make levels shorter than the grid's."""
    grid = grid2d(side, side)
    far = side - 2
    pairs = [((1, 1), (far, far)), ((1, far), (far, 1)), ((side // 2, 1), (1, side // 2)),
             ((far, side // 2), (side // 2, far)), ((2, 3), (far - 3, far - 1)),
             ((3, far - 2), (far - 1, 4)), ((side // 2, side // 2), (2, 2)),
             ((side // 3, side // 3), (far, 2 * side // 3))]
    src, dst = grid.edges()
    ends = np.array([[a[0] * side + a[1], b[0] * side + b[1]] for a, b in pairs])
    return CSRGraph.from_edges(np.r_[src, ends[:, 0], ends[:, 1]],
                               np.r_[dst, ends[:, 1], ends[:, 0]], side * side,
                               name=f"road-like-{side}")


def test_row_halves_by_the_degrees():
    """The upper halves of rows by warp where at least half of the warps would find them
    empty: a road network's share of vertices with more than half a row's edges is a few
    in a thousand; a grid's rows of 4 are full, a path's rows of 2 too. Asked for, any rows
    of 2 entries or more; never without rows."""
    road, grid = road_like(), grid2d(61, 61)
    assert row_width(road, None) == 8 and (road.degrees() > 4).sum() == 16
    for warp_size in (32, 64):
        assert rows_by_halves(road, 8, warp_size, None)
        assert not rows_by_halves(grid, 4, warp_size, None)
        assert not rows_by_halves(path_graph(100), 2, warp_size, None)
        assert rows_by_halves(grid, 4, warp_size, True)
        assert not rows_by_halves(road, 8, warp_size, False)
        assert not rows_by_halves(road, 0, warp_size, None)
    legs = spider(legs=8)  # the centre alone has more than 4 of 8: 1 vertex in 81
    assert rows_by_halves(legs, 8, 32, None) and not rows_by_halves(legs, 8, 64, None)
    with pytest.raises(RodiniaBFSError, match="row_halves needs rows of at least 2 entries"):
        rows_by_halves(road, 1, 32, True)


@pytest.mark.parametrize("row_batch", [1, 2])
def test_rows_claimed_by_halves(device, row_batch):
    """With row halves, a warp loads and claims the upper halves of its rows only where
    one of its rows has entries there (marked on the lower half's last entry): on a grid
    with shortcuts, whose ends alone have more than four edges, every search ends exact,
    in batches of one and two rows; a kernel that never reads an upper half misses the
    shortcuts and goes wrong, and so does one that leaves the mark on its entry."""
    graph = road_like()
    options = dict(sb_block_size=2 * device.warp_size, block_size=128, row_batch=row_batch)
    with PersistentBFS(device, graph, **options) as step:
        assert step.row_width == 8 and step.defines["SB_ROW_HALVES"] == 1
        for source in (0, 61 * 30 + 30, 61 * 61 - 1):
            run = step.run(source, profile=True)
            check_run(step, source, run)
            assert set(kernels_run(step)) == {"single"}
    assert goes_wrong(device, graph, options, "single_block_expand.h",
                      "upper = warp_any(any);", "upper = false;")
    assert goes_wrong(device, graph, options, "single_block_expand.h",
                      "if (marked[b]) lower.vertex[HALF - 1] &= (vertex_t)~ROW_MORE_BIT;", "")


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["persistent", "adaptive"])
def test_gpu_rows_claimed_by_halves(gpu, variant):
    """Steps 5 and 7 on the GPU with row halves, by default on the grid with shortcuts:
    exact from corners and the centre."""
    graph = road_like(201)
    with STEPS[variant](gpu, graph) as step:
        assert step.row_width == 8 and step.defines["SB_ROW_HALVES"] == 1
        for source in (0, 201 * 100 + 100, 201 * 201 - 1):
            check_run(step, source, step.run(source))


@pytest.mark.parametrize("row_batch", [2, 4])
def test_row_batches(device, row_batch):
    """A thread of the single block loads ``row_batch`` rows before it claims any: on a
    grid whose diagonal levels are up to 37 vertices wide, a block of one warp takes
    each level wider than the block (from the centre, up to 120 vertices) in slots of
    one, two or four rows a lane, and ends exact; a kernel that loads the second row of a
    batch and never claims it goes wrong. Rows of 4 entries allow a batch of up to 8 (32
    entries a lane); 9 is refused."""
    graph = grid2d(61, 61)
    options = dict(sb_block_size=device.warp_size, block_size=128, row_batch=row_batch)
    with PersistentBFS(device, graph, **options) as step:
        assert step.row_width == 4 and step.defines["SB_ROW_BATCH"] == row_batch
        widest = 0
        for source in (0, 61 * 30 + 30):
            run = step.run(source, profile=True)
            check_run(step, source, run)
            assert set(kernels_run(step)) == {"single"}
            widest = max(widest, *frontier_sizes(run))
        assert widest > 1.5 * device.warp_size
    if row_batch > 1:
        assert goes_wrong(device, graph, options, "single_block_expand.h",
                          "if (real) before[e] = got;",
                          "if (real && e / SB_ROW_WIDTH != 1) before[e] = got;",
                          source=61 * 30 + 30)
    with pytest.raises(RodiniaBFSError, match="row_batch must be at least 1"):
        PersistentBFS(device, graph, row_batch=9)


@pytest.mark.parametrize("row_batch", [1, 2])
def test_rows_append_by_the_bits_of_a_count(device, row_batch):
    """A level read as rows appends by a ballot per bit of each lane's count of claims
    (warp_exclusive_count): on a spider whose centre has 8 legs, the centre's lane claims
    8 vertices at level 0, a count of four bits, and every search ends exact, with batches
    of one and two rows; a kernel that takes one bit fewer (counts of up to 7) goes wrong."""
    graph = spider(legs=8)
    options = dict(sb_block_size=device.warp_size, block_size=128, row_batch=row_batch)
    with PersistentBFS(device, graph, **options) as step:
        assert step.row_width == 8
        for source in (0, 5):
            check_run(step, source, step.run(source))
    assert goes_wrong(device, graph, options, "single_block_queues.h",
                      "BITS = bit_width(MOST);", "BITS = bit_width(MOST) - 1;")


@pytest.mark.parametrize("config", ["rows-switching", "switching-logged"])
def test_the_log_is_written_out(device, config):
    """With the log, the levels and parents of what the single block finds reach the
    arrays through persistent_flush: a flush that writes each level one too deep, or
    that passes over the first entry, goes wrong; the runs hand over to the grid and
    back, so every run of the single block is flushed before the grid reads the levels."""
    graph = GRAPHS["grid-37x29"]()
    options = configs(device.warp_size)[config]
    with PersistentBFS(device, graph, **options) as step:
        assert step.log
        result = step.run(0, profile=True)
        check_run(step, 0, result)
        assert "grid" in kernels_run(step)
    for old, new in [("a.levels[entry.vertex] = lo;", "a.levels[entry.vertex] = lo + 1;"),
                     ("for (bfs_u32 i = blockIdx.x", "for (bfs_u32 i = 1 + blockIdx.x")]:
        assert goes_wrong(device, graph, options, "single_block.h", old, new), old


PERSISTENT_FILES = ("persistent.hip", "single_block.h", "single_block_expand.h",
                    "single_block_queues.h", "persistent_records.h")


def test_kernel_has_no_hard_coded_warp_width():
    """The warp width comes from WARP_SIZE (bfs_common.h), never from a literal."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "",
                  "".join(kernel_source(name) for name in PERSISTENT_FILES), flags=re.S)
    assert not re.search(r"\b(32|64)\b", code)


@pytest.mark.parametrize("missing", ["SB_CAPACITY", "EDGE_BATCH", "SHARED_BITMAP", "LOCAL_SMALL"])
def test_missing_tunable_is_a_compile_error(device, missing):
    helpers.compile_fails_without(device, "persistent.hip", tunables(device.warp_size), missing)


def test_edge_limit_past_the_counter_is_a_compile_error(device):
    defines = tunables(device.warp_size, sb_edge_limit=2**20)
    with pytest.raises(CompileError, match="SB_EDGE_LIMIT must be below"):
        device.compile(kernel_source("persistent.hip"), "persistent.hip", defines=defines,
                       headers=kernel_headers())


# -- run-time compilers: every target, the tunable sets above -----------------------------------

def _define_sets(warp_size):
    """The defaults; no records, a global bitmap and no hand-back; tiny everything; the
    largest batch."""
    return [
        tunables(warp_size),
        tunables(warp_size, edge_records=False, shared_bitmap=False, hand_back=False),
        tunables(warp_size, block_size=warp_size, sb_block_size=warp_size, sb_capacity=1,
                 sb_edge_limit=0, edge_batch=1, warp_threshold=1, block_threshold=1,
                 block_piece=1, local_small=1, local_medium=1),
        tunables(warp_size, edge_batch=32, vp_max_degree=0),
        tunables(warp_size, row_width=4, edge_records=False, log=True),
        tunables(warp_size, row_width=16, edge_records=False, shared_bitmap=False,
                 sb_capacity=1, sb_block_size=warp_size),
        tunables(warp_size, log=True),
        tunables(warp_size, row_width=8, edge_records=False, log=True, row_halves=True),
    ]


DEFINE_SETS = ["default", "plain", "tiny", "batch32", "rows4-log", "rows16", "log",
               "rows8-halves"]


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    PersistentBFS, _define_sets, DEFINE_SETS, [("gfx90a", 64), ("gfx1030", 32)]))
def test_hiprtc_compiles(arch, warp_size, which):
    """Each set the step contract does not compile (it compiles the defaults for any graph
    and for a mesh, rows4-log among them)."""
    hiprtc = hiprtc_or_skip()
    code = hiprtc.compile_for_arch(kernel_source("persistent.hip"), arch, "persistent.hip",
                                   _define_sets(warp_size)[which], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    PersistentBFS, _define_sets, DEFINE_SETS, [("sm_90", 32)]))
def test_nvrtc_compiles(arch, warp_size, which):
    """Each set the step contract does not compile."""
    nvrtc = nvrtc_or_skip()
    code = nvrtc.compile_for_arch(kernel_source("persistent.hip"), arch, "persistent.hip",
                                  _define_sets(warp_size)[which], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


# -- on a GPU -------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_every_configuration(gpu, name, config):
    graph = GRAPHS[name]()
    if config.startswith("rows-") and graph.degrees().max() > 32:
        with pytest.raises(RodiniaBFSError, match="rows need every degree to be at most 32"):
            PersistentBFS(gpu, graph, **configs(gpu.warp_size)[config])
        return
    with PersistentBFS(gpu, graph, **configs(gpu.warp_size)[config]) as step:
        for source in sources_of(graph):
            check_run(step, source, step.run(source, profile=True))


@pytest.mark.gpu
def test_gpu_path_and_defaults(gpu):
    graph = path_graph(20_000)
    with PersistentBFS(gpu, graph) as step:
        result = step.run(0, profile=True)
        check_run(step, 0, result)
        assert step.last_host_waits == 1
        assert len(result.level_times_ms) == 20_000
