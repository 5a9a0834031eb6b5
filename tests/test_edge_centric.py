"""Step 4's sidebar, the edge-centric BFS: what is special to it.

What every step must do (graphs, sources, reruns, bad sources, real graphs, profiles,
compile checks) is in tests/test_step_contract.py; ``-k edge_centric`` runs its part.
"""

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime.base import ceil_div
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.edge_centric import EdgeCentricBFS, arc_sources
from rodinia_bfs.variants.queue import QueueBFS

from helpers import (AWKWARD_SOURCES, GRAPHS, check_run, check_sources, edit_kernel,
                     hiprtc_or_skip, nvrtc_or_skip, scipy_levels, sources_of, with_kernel)


@pytest.fixture
def launches(device, monkeypatch):
    """``(grid, args)`` of every launch on ``device``, in order."""
    seen = []
    launch = device.launch

    def spy(kernel, grid, block, args, **kwargs):
        seen.append((grid, args))
        return launch(kernel, grid, block, args, **kwargs)

    monkeypatch.setattr(device, "launch", spy)
    return seen


def test_registered_right_after_step_4():
    assert STEPS["edge_centric"] is EdgeCentricBFS and EdgeCentricBFS.returns_parents
    assert list(STEPS).index("edge_centric") == list(STEPS).index("balanced") + 1


def test_arc_sources_are_the_csr_in_coordinate_form():
    graph = CSRGraph.from_edges([2, 0, 2, 2, 4], [1, 3, 0, 2, 4], 6)
    sources = arc_sources(graph)
    assert sources.dtype == np.int32
    for e, (u, v) in enumerate(zip(sources, graph.targets)):
        assert v in graph.neighbors(u) and graph.offsets[u] <= e < graph.offsets[u + 1]
    assert sources.tolist() == [0, 2, 2, 2, 4]


def awkward_small() -> CSRGraph:
    """Isolated vertices (7, 12), self loops (1, 9), duplicate and one-way arcs, three
    components; 13 vertices."""
    src = [0, 1, 1, 1, 2, 3, 3, 4, 2, 5, 6, 8, 9, 9, 10, 11, 10, 0, 0]
    dst = [1, 0, 1, 2, 1, 4, 2, 3, 5, 6, 5, 9, 9, 10, 9, 10, 11, 1, 1]
    return CSRGraph.from_edges(src, dst, 13, name="awkward-13")


@pytest.mark.parametrize("source", [0, 2, 4, 6, 7, 8, 9, 12])
def test_small_awkward_graph(device, source):
    with EdgeCentricBFS(device, awkward_small(), block_size=32) as step:
        check_run(step, source, step.run(source))


@pytest.mark.parametrize("name", ["awkward", "kronecker-10", "hubs-40x40"])
def test_blocks_of_64(device, name):
    graph = GRAPHS[name]()
    extra = AWKWARD_SOURCES if name == "awkward" else ()
    with EdgeCentricBFS(device, graph, block_size=64) as step:
        check_sources(step, sorted(set(sources_of(graph)) | set(extra)))


@pytest.mark.parametrize("max_blocks", [1, 3])
def test_more_arcs_than_threads(device, max_blocks, launches):
    """With the grid capped, each thread takes many arcs: the grid-stride loop must cover
    them all, and every level launches the same grid over all of them."""
    graph = rodinia_graphgen(1001, seed=4)
    with EdgeCentricBFS(device, graph, block_size=64, max_blocks=max_blocks) as step:
        run = step.run(500)
        check_run(step, 500, run)
    assert graph.num_edges > 10 * max_blocks * 64
    assert [grid for grid, _ in launches] == [max_blocks] * run.iterations
    # every level reads every arc: the count it is handed is all of them
    assert all(int(args[2]) == graph.num_edges for _, args in launches)
    assert [int(args[5]) for _, args in launches] == list(range(run.iterations))


def test_one_thread_per_arc_by_default(device, launches):
    graph = grid2d(9, 7)
    with EdgeCentricBFS(device, graph, block_size=32) as step:
        check_run(step, 10, step.run(10))
    assert {grid for grid, _ in launches} == {ceil_div(graph.num_edges, 32)}


@pytest.mark.parametrize("sources, depth_limit", [([0, 62], 3), ([10], 2), ([0, 62], None)])
def test_a_depth_limit_stops_the_launches(device, launches, sources, depth_limit):
    """One launch a level expanded, as step 2 counts them: the depth limit, or (without
    one) every level the search has."""
    graph = grid2d(9, 7)
    expected = bfs_reference(graph, sources=sources, depth_limit=depth_limit)
    with EdgeCentricBFS(device, graph, block_size=32) as step:
        run = step.search(None, sources=sources, depth_limit=depth_limit)
        levels, parents = step.results()
    np.testing.assert_array_equal(levels, expected.levels)
    check_parents(graph, None, levels, parents, sources=sources, depth_limit=depth_limit)
    assert len(launches) == run.iterations
    with QueueBFS(device, graph) as queue:
        assert run.iterations == queue.search(None, sources=sources,
                                              depth_limit=depth_limit).iterations
    assert run.iterations == (expected.levels.max() + 1 if depth_limit is None else depth_limit)


def test_parents_are_claimed_by_an_arc_into_the_vertex(device):
    graph = rodinia_graphgen(2000, seed=8)
    with EdgeCentricBFS(device, graph, block_size=64) as step:
        run = step.run(3)
    levels = scipy_levels(graph, 3)
    for v in np.flatnonzero(levels > 0)[:200]:
        u = run.parents[v]
        assert levels[u] == levels[v] - 1 and v in graph.neighbors(u)


def test_bad_launch_configuration(device):
    with pytest.raises(RodiniaBFSError, match="at least 1"):
        EdgeCentricBFS(device, grid2d(4, 4), max_blocks=0)
    with pytest.raises(RodiniaBFSError, match="block_size"):
        EdgeCentricBFS(device, grid2d(4, 4), block_size=0)


def test_never_ending_loop_is_an_error(device):
    """A kernel that raises the flag every level, whether or not it reached anything,
    would go round for ever: the guard stops it."""
    anchor = "    const edge_t stride = (edge_t)gridDim.x * BLOCK_SIZE;\n"
    broken = edit_kernel("edge_centric.hip", anchor,
                         "    if (blockIdx.x == 0 && threadIdx.x == 0) *changed = 1;\n" + anchor)
    with with_kernel(EdgeCentricBFS, broken)(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_a_level_that_expands_twice_is_caught(device):
    """Without the level check an arc out of any reached vertex expands: levels come out
    wrong, and the comparison with scipy must see it."""
    broken = edit_kernel("edge_centric.hip", "if (levels[u] != level) continue;",
                         "if (levels[u] == -1) continue;")
    with with_kernel(EdgeCentricBFS, broken)(device, grid2d(6, 6)) as step:
        with pytest.raises(AssertionError):
            check_run(step, 0, step.run(0))


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
@pytest.mark.parametrize("block_size", [64, 1024])
def test_hiprtc_compiles(arch, block_size):
    hiprtc = hiprtc_or_skip()
    code = hiprtc.compile_for_arch(kernel_source("edge_centric.hip"), arch, "edge_centric.hip",
                                   {"BLOCK_SIZE": block_size}, headers=kernel_headers())
    assert code[:4] == b"\x7fELF" and b"edge_centric_expand" in code


@pytest.mark.parametrize("block_size", [64, 1024])
def test_nvrtc_compiles(block_size):
    nvrtc = nvrtc_or_skip()
    cubin = nvrtc.compile_for_arch(kernel_source("edge_centric.hip"), "sm_90", "edge_centric.hip",
                                   {"BLOCK_SIZE": block_size}, headers=kernel_headers())
    assert cubin[:4] == b"\x7fELF" and b"edge_centric_expand" in cubin


@pytest.mark.gpu
def test_gpu_more_arcs_than_threads(gpu):
    graph = rodinia_graphgen(100_003, seed=1)
    with EdgeCentricBFS(gpu, graph, block_size=64, max_blocks=2) as step:
        check_run(step, 99_999, step.run(99_999))
