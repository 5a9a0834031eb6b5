"""Step 1 (the Rodinia two-kernel BFS) on the cpu emulator at warp size 32 and 64."""

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen
from rodinia_bfs.kernels import kernel_source
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants.rodinia import RodiniaBFS

from helpers import DATA, awkward_graph, scipy_levels


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    return get_device("cpu", warp_size=request.param)


GRAPHS = {
    "awkward": awkward_graph,
    "graphgen-3001": lambda: rodinia_graphgen(3001, seed=3),
    "grid-37x29": lambda: grid2d(37, 29),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("block_size", [64, 512])
def test_matches_independent_bfs(device, name, block_size):
    graph = GRAPHS[name]()
    with RodiniaBFS(device, graph, block_size=block_size) as step:
        for source in (0, graph.num_vertices // 2 + 1, graph.num_vertices - 1):
            result = step.run(source)
            np.testing.assert_array_equal(result.levels, scipy_levels(graph, source))
            assert result.iterations == result.levels.max() + 1


def test_reruns_start_clean(device):
    """A second BFS on the same step must not see the first one's masks or costs."""
    graph = awkward_graph()
    with RodiniaBFS(device, graph, block_size=128) as step:
        first = step.run(650).levels
        step.run(0)
        np.testing.assert_array_equal(step.run(650).levels, first)


def test_isolated_source_reaches_only_itself(device):
    graph = awkward_graph()
    with RodiniaBFS(device, graph) as step:
        levels = step.run(1236).levels
    assert levels[1236] == 0 and np.count_nonzero(levels >= 0) == 1


def test_source_outside_graph(device):
    graph = grid2d(4, 4)
    with RodiniaBFS(device, graph) as step:
        with pytest.raises(RodiniaBFSError, match="source 16 is outside"):
            step.run(16)


def test_never_ending_loop_is_an_error(device):
    """Kernel2 that always raises g_over would loop forever: the guard stops it."""
    broken = kernel_source("rodinia.hip").replace(
        "if (tid < (bfs_u32)no_of_nodes && updating_graph_mask[tid]) {",
        "if (tid == 0) *g_over = true;\n    if (tid < (bfs_u32)no_of_nodes && updating_graph_mask[tid]) {",
    )
    assert broken != kernel_source("rodinia.hip")

    class Broken(RodiniaBFS):
        def _compile(self, defines):
            from rodinia_bfs.kernels import kernel_headers

            return self.device.compile(broken, "broken.hip", defines=defines,
                                       headers=kernel_headers())

    with Broken(device, grid2d(5, 5)) as step:
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
    with RodiniaBFS(device, graph) as step:
        levels = step.run(source).levels
    np.testing.assert_array_equal(levels, scipy_levels(graph, source))


def test_real_road_graph():
    """NY: 264k vertices, hundreds of levels; warp size does not matter to step 1."""
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / "road" / "NY.gr.xz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    with RodiniaBFS(get_device("cpu"), graph) as step:
        result = step.run(12345)
    np.testing.assert_array_equal(result.levels, scipy_levels(graph, 12345))


@pytest.fixture(scope="module")
def gpu():
    from helpers import gpu_device_or_skip

    return gpu_device_or_skip()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_matches_independent_bfs(gpu, name):
    graph = GRAPHS[name]()
    with RodiniaBFS(gpu, graph, block_size=256) as step:
        for source in (0, graph.num_vertices // 3, graph.num_vertices - 1):
            np.testing.assert_array_equal(step.run(source).levels, scipy_levels(graph, source))


@pytest.mark.gpu
@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "road/NY.gr.xz"])
def test_gpu_real_graphs(gpu, filename):
    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / filename
    if not path.exists():
        pytest.skip(f"{path} not present")
    graph = load_graph(path)
    with RodiniaBFS(gpu, graph) as step:
        result = step.run(1)
    np.testing.assert_array_equal(result.levels, scipy_levels(graph, 1))
