"""Step 2 (the frontier queue): what is special to it.

What every step must do (graphs, sources, reruns, bad sources, real graphs, profiles,
frontier sizes, compile checks) is in tests/test_step_contract.py.
"""

import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime.base import ceil_div
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.queue import QueueBFS

from helpers import (AWKWARD_SOURCES, GRAPHS, check_run, check_sources, edit_kernel,
                     hiprtc_or_skip, sources_of, with_kernel)


@pytest.fixture
def launch_grids(device, monkeypatch):
    """The grid of every launch on ``device``, in order."""
    grids = []
    launch = device.launch

    def spy(kernel, grid, block, args, **kwargs):
        grids.append(grid)
        return launch(kernel, grid, block, args, **kwargs)

    monkeypatch.setattr(device, "launch", spy)
    return grids


def test_registered():
    assert STEPS["queue"] is QueueBFS and QueueBFS.returns_parents
    assert QueueBFS.reports_frontier_sizes
    assert list(STEPS).index("queue") == list(STEPS).index("rodinia") + 1


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_blocks_of_64(device, name):
    graph = GRAPHS[name]()
    with QueueBFS(device, graph, block_size=64) as step:
        check_sources(step, sources_of(graph))


def test_one_way_arcs_and_self_loops(device):
    """From vertex 5 of the awkward graph the one-way arc 5 -> 750 leads into the path,
    whose vertices never lead back; the self loop on 3 must not enqueue 3 again."""
    with QueueBFS(device, GRAPHS["awkward"](), block_size=64) as step:
        check_sources(step, AWKWARD_SOURCES)


@pytest.mark.parametrize("name", ["graphgen-3001", "kronecker-10", "hubs-40x40"])
def test_frontier_larger_than_the_grid(device, name, launch_grids):
    """With the grid capped at one or two blocks of 64 threads, the middle levels have
    more frontier vertices than threads: the grid-stride loop must cover the rest."""
    graph = GRAPHS[name]()
    for max_blocks in (1, 2):
        with QueueBFS(device, graph, block_size=64, max_blocks=max_blocks) as step:
            launch_grids.clear()
            source = sources_of(graph)[1]
            run = step.run(source)
            check_run(step, source, run)
            assert max(run.frontier_sizes) > max_blocks * 64  # the stride loop was needed
            assert launch_grids == [min(ceil_div(s, 64), max_blocks) for s in run.frontier_sizes]


def test_launch_is_sized_by_the_counter(device, launch_grids):
    """Each launch has just enough blocks for the frontier the previous one counted."""
    with QueueBFS(device, GRAPHS["grid-37x29"](), block_size=64) as step:
        run = step.run(0)
        check_run(step, 0, run)
    assert run.frontier_sizes[:3] == [1, 2, 3]  # a corner of the grid: a growing diagonal
    assert launch_grids == [ceil_div(s, 64) for s in run.frontier_sizes]


def test_bad_launch_configuration(device):
    with pytest.raises(RodiniaBFSError, match="at least 1"):
        QueueBFS(device, grid2d(4, 4), max_blocks=0)


def test_never_ending_loop_is_an_error(device):
    """A kernel that enqueues a vertex every level, whether or not it claimed it, would
    never see an empty queue: the guard stops it."""
    anchor = "    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;\n"
    broken = edit_kernel("queue.hip", anchor,
                         "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
                         "        next_frontier[atomicAdd(next_size, 1u)] = frontier[0];\n" + anchor)
    with with_kernel(QueueBFS, broken)(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


@pytest.mark.gpu
def test_gpu_frontier_larger_than_the_grid(gpu):
    graph = rodinia_graphgen(100_003, seed=1)
    with QueueBFS(gpu, graph, block_size=64, max_blocks=2) as step:
        run = step.run(99_999)
        check_run(step, 99_999, run)
    assert max(run.frontier_sizes) > 2 * 64


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
@pytest.mark.parametrize("block_size", [64, 1024])
def test_hiprtc_compiles(arch, block_size):
    """queue.hip compiles with hiprtc for CDNA and RDNA at the block sizes used here and
    on GPUs, and keeps its unmangled name (the host looks it up as ``queue_expand``)."""
    hiprtc = hiprtc_or_skip()
    code = hiprtc.compile_for_arch(kernel_source("queue.hip"), arch, "queue.hip",
                                   {"BLOCK_SIZE": block_size}, headers=kernel_headers())
    assert code[:4] == b"\x7fELF" and b"queue_expand" in code
