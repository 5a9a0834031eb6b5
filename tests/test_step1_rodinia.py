"""Step 1 (the Rodinia two-kernel BFS): what is special to it.

What every step must do (graphs, sources, reruns, bad sources, real graphs, profiles,
compile checks) is in tests/test_step_contract.py.
"""

import pytest

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.graphs.generators import grid2d
from rodinia_bfs.variants.rodinia import RodiniaBFS

from helpers import GRAPHS, check_sources, edit_kernel, pairwise_params, sources_of, with_kernel


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=["awkward", "graphgen-3001", "grid-37x29"], block_size=[64, 256]),
    indirect=["device"])
def test_other_block_sizes(device, name, block_size):
    """BLOCK_SIZE is compiled in: the grid and the kernels must agree at any size
    (pairwise: every graph with both sizes, each at warp 32 and 64)."""
    graph = GRAPHS[name]()
    with RodiniaBFS(device, graph, block_size=block_size) as step:
        check_sources(step, sources_of(graph))


def test_never_ending_loop_is_an_error(device):
    """Kernel2 that always raises g_over would loop forever: the guard stops it."""
    anchor = "if (tid < (bfs_u32)no_of_nodes && updating_graph_mask[tid]) {"
    broken = edit_kernel("rodinia.hip", anchor, "if (tid == 0) *g_over = true;\n    " + anchor)
    with with_kernel(RodiniaBFS, broken)(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_block_size_256(gpu, name):
    graph = GRAPHS[name]()
    with RodiniaBFS(gpu, graph, block_size=256) as step:
        check_sources(step, sources_of(graph))
