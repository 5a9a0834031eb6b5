"""Step 2 (the frontier queue) on the cpu emulator at warp size 32 and 64, and on a GPU."""

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime import get_device
from rodinia_bfs.runtime.base import ceil_div
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.queue import QueueBFS

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
    """0, a vertex in the middle, the last one, and the vertex of largest degree."""
    n = graph.num_vertices
    return sorted({0, n // 2 + 1, n - 1, int(np.argmax(graph.degrees()))})


def check_run(graph, source, run):
    """Levels as scipy has them, parents by Graph500's rules, and each reached vertex
    enqueued exactly once: the queue of each level holds that level's vertices."""
    expected = scipy_levels(graph, source)
    np.testing.assert_array_equal(run.levels, expected)
    check_parents(graph, source, run.levels, run.parents)
    reached = expected[expected >= 0]
    assert run.frontier_sizes == np.bincount(reached).tolist()
    assert run.iterations == expected.max() + 1


def test_registered():
    assert STEPS["queue"] is QueueBFS and QueueBFS.returns_parents
    assert list(STEPS).index("queue") == list(STEPS).index("rodinia") + 1


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("block_size", [64, 256])
def test_matches_independent_bfs(device, name, block_size):
    graph = GRAPHS[name]()
    with QueueBFS(device, graph, block_size=block_size) as step:
        for source in sources_of(graph):
            check_run(graph, source, step.run(source))


@pytest.mark.parametrize("name", ["graphgen-3001", "kronecker-10", "hubs-40x40"])
def test_frontier_larger_than_the_grid(device, name, monkeypatch):
    """With the grid capped at one or two blocks of 64 threads, the middle levels have
    more frontier vertices than threads: the grid-stride loop must cover the rest."""
    graph = GRAPHS[name]()
    grids = []
    launch = device.launch

    def spy(kernel, grid, block, args, **kwargs):
        grids.append(grid)
        return launch(kernel, grid, block, args, **kwargs)

    monkeypatch.setattr(device, "launch", spy)
    for max_blocks in (1, 2):
        with QueueBFS(device, graph, block_size=64, max_blocks=max_blocks) as step:
            grids.clear()
            source = sources_of(graph)[1]
            run = step.run(source)
            check_run(graph, source, run)
            assert max(run.frontier_sizes) > max_blocks * 64  # the stride loop was needed
            assert grids == [min(ceil_div(s, 64), max_blocks) for s in run.frontier_sizes]


def test_launch_is_sized_by_the_counter(device, monkeypatch):
    """Each launch has just enough blocks for the frontier the previous one counted."""
    graph = GRAPHS["grid-37x29"]()
    grids = []
    launch = device.launch

    def spy(kernel, grid, block, args, **kwargs):
        grids.append(grid)
        return launch(kernel, grid, block, args, **kwargs)

    monkeypatch.setattr(device, "launch", spy)
    with QueueBFS(device, graph, block_size=64) as step:
        run = step.run(0)
    check_run(graph, 0, run)
    assert run.frontier_sizes[:3] == [1, 2, 3]  # a corner of the grid: a growing diagonal
    assert grids == [ceil_div(s, 64) for s in run.frontier_sizes]


def test_reruns_start_clean(device):
    """A second BFS on the same step must not see the first one's levels, parents or queue."""
    graph = awkward_graph()
    with QueueBFS(device, graph, block_size=128) as step:
        first = step.run(650)
        step.run(0)
        again = step.run(650)
    np.testing.assert_array_equal(again.levels, first.levels)
    check_parents(graph, 650, again.levels, again.parents)
    assert again.frontier_sizes == first.frontier_sizes


def test_isolated_source_reaches_only_itself(device):
    graph = awkward_graph()
    with QueueBFS(device, graph) as step:
        run = step.run(1236)
    assert run.levels[1236] == 0 and np.count_nonzero(run.levels >= 0) == 1
    assert run.parents[1236] == 1236 and np.count_nonzero(run.parents >= 0) == 1
    assert run.iterations == 1 and run.frontier_sizes == [1]


def test_one_way_arcs_and_self_loops(device):
    """From vertex 5 of the awkward graph the one-way arc 5 -> 750 leads into the path,
    whose vertices never lead back; the self loop on 3 must not enqueue 3 again."""
    graph = awkward_graph()
    with QueueBFS(device, graph, block_size=64) as step:
        for source in (3, 5, 640, 900):
            check_run(graph, source, step.run(source))


def test_profile_times_each_level(device):
    graph = GRAPHS["graphgen-3001"]()
    with QueueBFS(device, graph) as step:
        run = step.run(7, profile=True)
    check_run(graph, 7, run)
    assert len(run.level_times_ms) == run.iterations
    assert all(t >= 0 for t in run.level_times_ms)


def test_source_outside_graph(device):
    graph = grid2d(4, 4)
    with QueueBFS(device, graph) as step:
        with pytest.raises(RodiniaBFSError, match="source 16 is outside"):
            step.run(16)
        with pytest.raises(RodiniaBFSError, match="source -1 is outside"):
            step.run(-1)


def test_bad_launch_configuration(device):
    with pytest.raises(RodiniaBFSError, match="at least 1"):
        QueueBFS(device, grid2d(4, 4), max_blocks=0)


def _broken_step(source_text: str):
    class Broken(QueueBFS):
        def _compile(self, defines):
            return self.device.compile(source_text, "broken.hip", defines=defines,
                                       headers=kernel_headers())

    return Broken


def test_never_ending_loop_is_an_error(device):
    """A kernel that enqueues a vertex every level, whether or not it claimed it, would
    never see an empty queue: the guard stops it."""
    anchor = "    const bfs_u32 stride = gridDim.x * BLOCK_SIZE;\n"
    original = kernel_source("queue.hip")
    broken = original.replace(
        anchor,
        "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
        "        next_frontier[atomicAdd(next_size, 1u)] = frontier[0];\n" + anchor,
    )
    assert broken != original
    with _broken_step(broken)(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "social/as-22july06.mtx"])
def test_real_social_graphs(device, filename):
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / filename
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    source = int(np.argmax(graph.degrees()))
    with QueueBFS(device, graph) as step:
        check_run(graph, source, step.run(source))


def test_real_road_graph():
    """NY: 264k vertices, hundreds of levels of a few hundred vertices each."""
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / "road" / "NY.gr.xz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    with QueueBFS(get_device("cpu"), graph) as step:
        check_run(graph, 12345, step.run(12345))


@pytest.fixture(scope="module")
def gpu():
    from helpers import gpu_device_or_skip

    return gpu_device_or_skip()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_matches_independent_bfs(gpu, name):
    graph = GRAPHS[name]()
    with QueueBFS(gpu, graph) as step:
        for source in sources_of(graph):
            check_run(graph, source, step.run(source))


@pytest.mark.gpu
def test_gpu_frontier_larger_than_the_grid(gpu):
    graph = rodinia_graphgen(100_003, seed=1)
    with QueueBFS(gpu, graph, block_size=64, max_blocks=2) as step:
        run = step.run(99_999)
    check_run(graph, 99_999, run)
    assert max(run.frontier_sizes) > 2 * 64


@pytest.mark.gpu
@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "road/NY.gr.xz"])
def test_gpu_real_graphs(gpu, filename):
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / filename
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    with QueueBFS(gpu, graph) as step:
        for source in (1, int(np.argmax(graph.degrees()))):
            check_run(graph, source, step.run(source))


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
@pytest.mark.parametrize("block_size", [64, 1024])
def test_hiprtc_compiles(arch, block_size):
    """queue.hip compiles with hiprtc for CDNA and RDNA at the block sizes used here and
    on GPUs, and keeps its unmangled name (the host looks it up as ``queue_expand``)."""
    import os

    from rodinia_bfs.runtime import hip_backend

    reason = None
    if hip_backend.hip is None:
        reason = "hip-python not installed"
    elif not hip_backend.configure_libraries().get("hiprtc"):
        reason = "hiprtc library not found (run .ci/install-rocm-hiprtc.sh)"
    if reason:
        if os.environ.get("RODINIA_BFS_REQUIRE_HIPRTC") == "1":
            pytest.fail(f"RODINIA_BFS_REQUIRE_HIPRTC=1 but {reason}")
        pytest.skip(reason)
    code = hip_backend.compile_for_arch(kernel_source("queue.hip"), arch, "queue.hip",
                                        {"BLOCK_SIZE": block_size}, headers=kernel_headers())
    assert code[:4] == b"\x7fELF" and b"queue_expand" in code
