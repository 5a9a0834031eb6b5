"""Step 3 (the privatized frontier queue) on the cpu emulator at warp size 32 and 64."""

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime import get_device
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.privatized import PrivatizedBFS

from helpers import DATA, awkward_graph, scipy_levels


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    return get_device("cpu", warp_size=request.param)


GRAPHS = {
    "awkward": awkward_graph,
    "graphgen-3001": lambda: rodinia_graphgen(3001, seed=3),
    "grid-37x29": lambda: grid2d(37, 29),
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
    "hubs-40x40": lambda: grid_with_hubs(40, 40, seed=2),
}


def sources_of(graph):
    """0, two others, the last vertex, and the highest-degree vertex."""
    n = graph.num_vertices
    return sorted({0, n // 2 + 1, n // 3, n - 1, int(np.argmax(graph.degrees()))})


def check_run(graph, source, result):
    """Levels as scipy has them, a Graph500-valid parent tree, and frontier sizes that
    count every reached vertex exactly once: nothing lost, nothing enqueued twice."""
    levels = scipy_levels(graph, source)
    np.testing.assert_array_equal(result.levels, levels)
    check_parents(graph, source, result.levels, result.parents)
    per_level = np.bincount(levels[levels >= 0]).tolist()
    assert result.frontier_sizes == per_level
    assert result.iterations == len(per_level)


def test_registered():
    assert STEPS["privatized"] is PrivatizedBFS
    assert PrivatizedBFS.returns_parents
    assert list(STEPS).index("privatized") > list(STEPS).index("rodinia")


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("block_size", [64, 100, 256], ids=lambda b: f"block{b}")
def test_matches_independent_bfs(device, name, block_size):
    """100 is a block that is not a multiple of either warp width."""
    graph = GRAPHS[name]()
    with PrivatizedBFS(device, graph, block_size=block_size) as step:
        for source in sources_of(graph):
            check_run(graph, source, step.run(source))


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("capacity", [1, 2])
def test_tiny_local_queue_overflows_every_level(device, name, capacity):
    """A local queue of one or two entries: almost every discovery takes the overflow path."""
    graph = GRAPHS[name]()
    with PrivatizedBFS(device, graph, block_size=64, local_capacity=capacity) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(graph, source, result)


def _without_overflow_path(device, graph, **options):
    """The step with the overflow write removed: whatever overflows is lost."""
    source = kernel_source("privatized.hip")
    broken = source.replace("next_frontier[atomicAdd(next_size, 1u)] = u;", ";")
    assert broken != source

    class NoOverflow(PrivatizedBFS):
        def _compile(self, defines):
            return self.device.compile(broken, "no_overflow.hip", defines=defines,
                                       headers=kernel_headers())

    return NoOverflow(device, graph, **options)


def test_overflow_path_really_runs(device):
    """Without its overflow write the kernel still works while no block overflows (a
    capacity larger than any level), and goes wrong with a capacity of 1: so the tiny
    capacities above really sent vertices down the overflow path, and it is right."""
    graph = rodinia_graphgen(3001, seed=3)
    levels = scipy_levels(graph, 7)
    with _without_overflow_path(device, graph, block_size=64,
                                local_capacity=graph.num_vertices) as step:
        np.testing.assert_array_equal(step.run(7).levels, levels)
    with _without_overflow_path(device, graph, block_size=64, local_capacity=1) as step:
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
            check_run(graph, source, result)
            assert max(result.frontier_sizes) > 32 * max_blocks


def test_default_tunables(device):
    defines = PrivatizedBFS.default_defines(device.warp_size)
    graph = awkward_graph()
    with PrivatizedBFS(device, graph, block_size=defines["BLOCK_SIZE"],
                       local_capacity=defines["LOCAL_CAPACITY"]) as step:
        check_run(graph, 650, step.run(650))


def test_reruns_start_clean(device):
    """A second BFS on the same step must not see the first one's levels, parents or queues."""
    graph = awkward_graph()
    with PrivatizedBFS(device, graph, block_size=64, local_capacity=4) as step:
        first = step.run(650)
        step.run(0)
        again = step.run(650)
    np.testing.assert_array_equal(again.levels, first.levels)
    check_run(graph, 650, again)


def test_isolated_source_reaches_only_itself(device):
    graph = awkward_graph()
    with PrivatizedBFS(device, graph) as step:
        result = step.run(1236)
    assert result.levels[1236] == 0 and np.count_nonzero(result.levels >= 0) == 1
    assert result.parents[1236] == 1236 and np.count_nonzero(result.parents >= 0) == 1
    assert result.iterations == 1 and result.frontier_sizes == [1]


def test_profile_times_every_level(device):
    graph = grid2d(37, 29)
    with PrivatizedBFS(device, graph) as step:
        result = step.run(100, profile=True)
    check_run(graph, 100, result)
    assert len(result.level_times_ms) == result.iterations
    assert all(t >= 0 for t in result.level_times_ms)


def test_source_outside_graph(device):
    graph = grid2d(4, 4)
    with PrivatizedBFS(device, graph) as step:
        with pytest.raises(RodiniaBFSError, match="source 16 is outside"):
            step.run(16)
        with pytest.raises(RodiniaBFSError, match="source -1 is outside"):
            step.run(-1)


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
    source = kernel_source("privatized.hip")
    barrier = "__syncthreads();  // nobody enqueues before the counter is zero"
    broken = source.replace(barrier, barrier + "\n    if (blockIdx.x == 0 && threadIdx.x == 0)"
                            " next_frontier[atomicAdd(next_size, 1u)] = 0;")
    assert broken != source

    class Broken(PrivatizedBFS):
        def _compile(self, defines):
            return self.device.compile(broken, "broken.hip", defines=defines,
                                       headers=kernel_headers())

    with Broken(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_barrier_before_the_copy_out_is_needed(device):
    """Without the barrier after the loop, a block's first threads reserve and copy out
    before the others have enqueued. The emulator runs a block's threads one after
    another between barriers, so it shows the bug on every run, not once in a while."""
    source = kernel_source("privatized.hip")
    barrier = "__syncthreads();  // every thread has enqueued"
    broken = source.replace(barrier, "//")
    assert broken != source

    class NoBarrier(PrivatizedBFS):
        def _compile(self, defines):
            return self.device.compile(broken, "no_barrier.hip", defines=defines,
                                       headers=kernel_headers())

    graph = rodinia_graphgen(3001, seed=3)
    with NoBarrier(device, graph) as step:
        result = step.run(7)
    assert not np.array_equal(result.levels, scipy_levels(graph, 7))


@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "social/as-22july06.mtx"])
def test_real_social_graphs(device, filename):
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / filename
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    source = int(np.argmax(graph.degrees()))
    with PrivatizedBFS(device, graph) as step:
        check_run(graph, source, step.run(source))


def test_real_road_graph():
    """NY: 264k vertices, hundreds of levels of small frontiers; one warp size suffices."""
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / "road" / "NY.gr.xz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    with PrivatizedBFS(get_device("cpu"), graph) as step:
        check_run(graph, 12345, step.run(12345))


def _compiler_or_skip(backend, env, why_not):
    """``backend`` where its run-time compiler works, else skip (or fail where ``env`` says
    the compiler must be there, as CI does)."""
    import os

    if why_not:
        if os.environ.get(env) == "1":
            pytest.fail(f"{env}=1 but {why_not}")
        pytest.skip(why_not)
    return backend


def _hiprtc_problem():
    from rodinia_bfs.runtime import hip_backend

    if hip_backend.hip is None:
        return "hip-python not installed"
    if not hip_backend.configure_libraries().get("hiprtc"):
        return "hiprtc library not found (run .ci/install-rocm-hiprtc.sh)"
    return None


def _nvrtc_problem():
    from rodinia_bfs.runtime import cuda_backend

    if cuda_backend.nvrtc is None:
        return "cuda-python not installed"
    try:
        cuda_backend.nvrtc_version()
    except DeviceError as exc:
        return str(exc)
    return None


#: The smallest local queue, and the largest that fits 48 KiB of static shared memory.
CAPACITIES = [1, (48 * 1024 - 8) // 4]


@pytest.mark.parametrize("capacity", CAPACITIES)
@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_hiprtc_compiles_any_capacity(arch, capacity):
    from rodinia_bfs.runtime import hip_backend

    hiprtc = _compiler_or_skip(hip_backend, "RODINIA_BFS_REQUIRE_HIPRTC", _hiprtc_problem())
    defines = {"BLOCK_SIZE": 256, "LOCAL_CAPACITY": capacity}
    code = hiprtc.compile_for_arch(kernel_source("privatized.hip"), arch, "privatized.hip",
                                   defines, headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_nvrtc_compiles_any_capacity(capacity):
    from rodinia_bfs.runtime import cuda_backend

    nvrtc = _compiler_or_skip(cuda_backend, "RODINIA_BFS_REQUIRE_NVRTC", _nvrtc_problem())
    defines = {"BLOCK_SIZE": 256, "LOCAL_CAPACITY": capacity}
    code = nvrtc.compile_for_arch(kernel_source("privatized.hip"), "sm_90", "privatized.hip",
                                  defines, headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


def test_missing_capacity_is_a_compile_error(device):
    from rodinia_bfs.errors import CompileError

    with pytest.raises(CompileError, match="LOCAL_CAPACITY"):
        device.compile(kernel_source("privatized.hip"), "privatized.hip",
                       defines={"BLOCK_SIZE": 64}, headers=kernel_headers())


@pytest.fixture(scope="module")
def gpu():
    from helpers import gpu_device_or_skip

    return gpu_device_or_skip()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("capacity", [1, 1024])
def test_gpu_matches_independent_bfs(gpu, name, capacity):
    graph = GRAPHS[name]()
    with PrivatizedBFS(gpu, graph, local_capacity=capacity) as step:
        for source in sources_of(graph):
            check_run(graph, source, step.run(source))


@pytest.mark.gpu
def test_gpu_frontier_larger_than_the_grid(gpu):
    graph = rodinia_graphgen(3001, seed=3)
    with PrivatizedBFS(gpu, graph, block_size=64, local_capacity=8, max_blocks=2) as step:
        result = step.run(1500)
    check_run(graph, 1500, result)
    assert max(result.frontier_sizes) > 64 * 2


@pytest.mark.gpu
@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "road/NY.gr.xz"])
def test_gpu_real_graphs(gpu, filename):
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / filename
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    with PrivatizedBFS(gpu, graph) as step:
        check_run(graph, 1, step.run(1))
