"""Step 3 (the privatized frontier queue): what is special to it.

What every step must do (graphs, sources, reruns, bad sources, real graphs, profiles,
frontier sizes, compile checks at the default tunables) is in
tests/test_step_contract.py.
"""

import numpy as np
import pytest

from rodinia_bfs.errors import CompileError, DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.privatized import PrivatizedBFS
from rodinia_bfs.variants.queue import QueueBFS

from helpers import (GRAPHS, check_run, check_sources, edit_kernel, hiprtc_or_skip,
                     nvrtc_or_skip, pairwise_params, scipy_levels, sources_of, with_kernel)


def test_registered():
    assert STEPS["privatized"] is PrivatizedBFS
    assert PrivatizedBFS.returns_parents and PrivatizedBFS.reports_frontier_sizes
    assert list(STEPS).index("privatized") > list(STEPS).index("rodinia")
    assert issubclass(PrivatizedBFS, QueueBFS)  # chapter 2's host code, another kernel


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=sorted(GRAPHS),
                                          block_size=[64, 100]), indirect=["device"])
def test_other_block_sizes(device, name, block_size):
    """100 is a block that is not a multiple of either warp width (pairwise: every graph
    with both block sizes, each at warp 32 and 64)."""
    graph = GRAPHS[name]()
    with PrivatizedBFS(device, graph, block_size=block_size) as step:
        check_sources(step, sources_of(graph))


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=sorted(GRAPHS), capacity=[1, 2]),
                         indirect=["device"])
def test_tiny_local_queue_overflows_every_level(device, name, capacity):
    """A local queue of one or two entries: almost every discovery takes the overflow path
    (pairwise: every graph with both capacities, each at warp 32 and 64)."""
    graph = GRAPHS[name]()
    with PrivatizedBFS(device, graph, block_size=64, local_capacity=capacity) as step:
        check_sources(step, sources_of(graph))


def test_overflow_path_really_runs(device):
    """Without its overflow write the kernel still works while no block overflows (a
    capacity larger than any level), and goes wrong with a capacity of 1: so the tiny
    capacities above really sent vertices down the overflow path, and it is right."""
    broken = edit_kernel("privatized.hip", "next_frontier[atomicAdd(next_size, 1u)] = u;", ";")
    no_overflow = with_kernel(PrivatizedBFS, broken, "no_overflow.hip")
    graph = rodinia_graphgen(3001, seed=3)
    levels = scipy_levels(graph, 7)
    with no_overflow(device, graph, block_size=64, local_capacity=graph.num_vertices) as step:
        np.testing.assert_array_equal(step.run(7).levels, levels)
    with no_overflow(device, graph, block_size=64, local_capacity=1) as step:
        lost = step.run(7)
    assert not np.array_equal(lost.levels, levels)
    assert sum(lost.frontier_sizes) < np.count_nonzero(levels >= 0)


@pytest.mark.parametrize("max_blocks", [1, 2])
@pytest.mark.parametrize("capacity", [3, 1024])
def test_frontier_larger_than_the_grid(device, max_blocks, capacity):
    """One or two blocks of 32 threads: the grid-stride loop covers the rest, and each
    block's local queue collects the discoveries of many trips (overflowing at 3)."""
    graph = rodinia_graphgen(3001, seed=3)
    with PrivatizedBFS(device, graph, block_size=32, local_capacity=capacity,
                       max_blocks=max_blocks) as step:
        for source in (0, 1500, 3000):
            result = step.run(source)
            check_run(step, source, result)
            assert max(result.frontier_sizes) > 32 * max_blocks


def test_reruns_with_a_small_local_queue(device):
    """A second BFS on the same set-up must not see the first one's queues, even where
    the local queue overflowed."""
    with PrivatizedBFS(device, GRAPHS["awkward"](), block_size=64, local_capacity=4) as step:
        first = step.run(650)
        step.run(0)
        again = step.run(650)
        check_run(step, 650, again)
    np.testing.assert_array_equal(again.levels, first.levels)


def test_largest_capacity_fits_the_device(device):
    """The largest capacity the constructor accepts is what shared memory holds."""
    shared = device.shared_memory_per_block
    graph = grid2d(9, 7)
    with PrivatizedBFS(device, graph, local_capacity=(shared - 8) // 4) as step:
        check_run(step, 5, step.run(5))
    with pytest.raises(RodiniaBFSError, match="local_capacity must be"):
        PrivatizedBFS(device, graph, local_capacity=(shared - 8) // 4 + 1)


@pytest.mark.parametrize("options, message", [
    ({"local_capacity": 0}, "local_capacity must be"),
    ({"local_capacity": 20000}, "local_capacity must be"),
    ({"block_size": 0}, "block_size must be"),
    ({"block_size": 2048}, "block_size must be"),
    ({"max_blocks": 0}, "max_blocks must be"),
])
def test_bad_tunables_are_refused(device, options, message):
    with pytest.raises(RodiniaBFSError, match=message):
        PrivatizedBFS(device, grid2d(4, 4), **options)


def test_never_ending_loop_is_an_error(device):
    """A kernel that enqueues vertex 0 again at every level never empties its queue:
    the host loop's guard stops it instead of looping for ever."""
    barrier = "__syncthreads();  // nobody enqueues before the counter is zero"
    broken = edit_kernel("privatized.hip", barrier, barrier + "\n    if (blockIdx.x == 0 && "
                         "threadIdx.x == 0) next_frontier[atomicAdd(next_size, 1u)] = 0;")
    with with_kernel(PrivatizedBFS, broken)(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_barrier_before_the_copy_out_is_needed(device):
    """Without the barrier after the loop, a block's first threads reserve and copy out
    before the others have enqueued. The emulator runs a block's threads one after
    another between barriers, so it shows the bug on every run, not once in a while."""
    broken = edit_kernel("privatized.hip", "__syncthreads();  // every thread has enqueued", "//")
    graph = rodinia_graphgen(3001, seed=3)
    with with_kernel(PrivatizedBFS, broken, "no_barrier.hip")(device, graph) as step:
        result = step.run(7)
    assert not np.array_equal(result.levels, scipy_levels(graph, 7))


#: The smallest local queue, and the largest that fits 48 KiB of static shared memory.
CAPACITIES = [1, (48 * 1024 - 8) // 4]


@pytest.mark.parametrize("capacity", CAPACITIES)
@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_hiprtc_compiles_any_capacity(arch, capacity):
    defines = {"BLOCK_SIZE": 256, "LOCAL_CAPACITY": capacity}
    code = hiprtc_or_skip().compile_for_arch(kernel_source("privatized.hip"), arch,
                                             "privatized.hip", defines, headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_nvrtc_compiles_any_capacity(capacity):
    defines = {"BLOCK_SIZE": 256, "LOCAL_CAPACITY": capacity}
    code = nvrtc_or_skip().compile_for_arch(kernel_source("privatized.hip"), "sm_90",
                                            "privatized.hip", defines, headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


def test_missing_capacity_is_a_compile_error(device):
    with pytest.raises(CompileError, match="LOCAL_CAPACITY"):
        device.compile(kernel_source("privatized.hip"), "privatized.hip",
                       defines={"BLOCK_SIZE": 64}, headers=kernel_headers())


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("capacity", [1, 1024])
def test_gpu_small_local_queues(gpu, name, capacity):
    graph = GRAPHS[name]()
    with PrivatizedBFS(gpu, graph, local_capacity=capacity) as step:
        check_sources(step, sources_of(graph))


@pytest.mark.gpu
def test_gpu_frontier_larger_than_the_grid(gpu):
    graph = rodinia_graphgen(3001, seed=3)
    with PrivatizedBFS(gpu, graph, block_size=64, local_capacity=8, max_blocks=2) as step:
        result = step.run(1500)
        check_run(step, 1500, result)
    assert max(result.frontier_sizes) > 64 * 2
