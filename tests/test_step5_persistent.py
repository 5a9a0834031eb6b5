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
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime import get_device
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.persistent import PersistentBFS, build_edge_records, tunables

from helpers import awkward_graph, scipy_levels


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    return get_device("cpu", warp_size=request.param)


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


GRAPHS = {
    "spider": spider,
    "awkward": awkward_graph,
    "one-way": one_way,
    "grid-37x29": lambda: grid2d(37, 29),
    "hubs-40x40": lambda: grid_with_hubs(40, 40, seed=2),
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
    "graphgen-3001": lambda: rodinia_graphgen(3001, seed=3),
}


def configs(warp_size: int) -> dict:
    """Tunables that send each graph down different paths.

    ``single``: a small block, queues large enough that no graph here leaves it.
    ``grid``: an edge limit of 0, so the grid runs every level with an edge.
    ``switching``: queues of 8 entries and levels of at most 24 edges in the single block,
    step 4's thresholds at 2 and 5 edges with pieces of 3 and local queues of one entry,
    two grid blocks: the single block overflows and hands over, the grid hands back,
    and all three of step 4's gathers and its overflow run.
    ``plain``: no edge records, the bitmap in global memory, one edge per batch, no
    hand-back.
    """
    tiny_grid = dict(block_size=warp_size, warp_threshold=2, block_threshold=5, block_piece=3,
                     local_small=1, local_medium=1, max_grid_blocks=2)
    return {
        "single": dict(sb_block_size=64),
        "grid": dict(sb_block_size=64, sb_edge_limit=0, max_grid_blocks=3),
        "switching": dict(sb_block_size=warp_size, sb_capacity=8, sb_edge_limit=24, edge_batch=3,
                          **tiny_grid),
        "plain": dict(sb_block_size=2 * warp_size, edge_records=False, shared_bitmap=False,
                      edge_batch=1, hand_back=False, sb_capacity=16, max_grid_blocks=2),
    }


def sources_of(graph):
    """0, two others, the last vertex, and the highest-degree vertex."""
    n = graph.num_vertices
    return sorted({0, n // 2 + 1, n // 3, n - 1, int(np.argmax(graph.degrees()))})


def check_run(graph, source, result):
    """Levels as scipy has them, a Graph500-valid parent tree, and the right level count;
    with a profile, one frontier size per level that counts every reached vertex."""
    levels = scipy_levels(graph, source)
    np.testing.assert_array_equal(result.levels, levels)
    check_parents(graph, source, result.levels, result.parents)
    per_level = np.bincount(levels[levels >= 0]).tolist()
    assert result.iterations == len(per_level)
    if result.frontier_sizes:
        assert result.frontier_sizes == per_level


def fits_single_block(graph, result, step) -> bool:
    """Does every level of the search fit the single block's queues and edge limit?"""
    levels = result.levels
    reached = levels >= 0
    edges = np.bincount(levels[reached], weights=graph.degrees()[reached])
    return max(result.frontier_sizes) <= step.sb_capacity and edges.max() <= step.defines["SB_EDGE_LIMIT"]


def kernels_run(step) -> list[str]:
    """Which kernel ran each level of the last profile run."""
    return step.last_profile["kernel"]


def test_registered():
    assert STEPS["persistent"] is PersistentBFS
    assert PersistentBFS.returns_parents
    assert list(STEPS).index("persistent") == list(STEPS).index("balanced") + 1


@pytest.mark.parametrize("config", ["single", "grid", "switching", "plain"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_every_configuration_matches_independent_bfs(device, name, config):
    graph = GRAPHS[name]()
    with PersistentBFS(device, graph, **configs(device.warp_size)[config]) as step:
        for source in sources_of(graph):
            result = step.run(source, profile=True)
            check_run(graph, source, result)
            ran = set(kernels_run(step))
            if config == "single" and fits_single_block(graph, result, step):
                assert ran == {"single"}
            elif config == "grid":
                # Only a level without edges is left to the single block.
                assert ran == {"grid"} or graph.degrees()[source] == 0


def test_the_switching_configuration_goes_to_the_grid_and_back(device):
    """On a grid, from a corner: the frontier grows past the single block's 8 entries and
    24 edges, and shrinks again towards the far corner; the search starts in the single
    block, goes to the grid and comes back to the single block."""
    graph = GRAPHS["grid-37x29"]()
    with PersistentBFS(device, graph, **configs(device.warp_size)["switching"]) as step:
        result = step.run(0, profile=True)
        check_run(graph, 0, result)
        kernels = kernels_run(step)
    runs = [k for i, k in enumerate(kernels) if i == 0 or k != kernels[i - 1]]
    assert runs == ["single", "grid", "single"], kernels


def _with_kernel(device, graph, source=None, headers=None, **options):
    """A PersistentBFS whose kernel source (and headers, by include name) are replaced."""
    text = source or kernel_source("persistent.hip")

    class Patched(PersistentBFS):
        def _compile(self, defines):
            return self.device.compile(text, "patched.hip", defines=defines,
                                       headers={**kernel_headers(), **(headers or {})})

    return Patched(device, graph, **options)


def test_overflow_of_the_single_block_is_used(device):
    """From the spider's centre, level 1 has 12 vertices, found through 12 edges: the
    single block expands level 0 and its queue of 8 overflows. When the overflow holds
    the wrong vertices (the next vertex along each leg), the search goes wrong; so the
    switching configuration's queue really overflowed, and the hand-over took the
    overflow to the grid."""
    original = kernel_source("persistent.hip")
    write = "S.overflow[slot - SB_CAPACITY] = found[i].vertex;"
    broken = original.replace(write, "S.overflow[slot - SB_CAPACITY] = found[i].vertex + 1;")
    assert broken != original
    graph = spider()
    options = configs(device.warp_size)["switching"]
    with PersistentBFS(device, graph, **options) as step:
        result = step.run(0, profile=True)
        check_run(graph, 0, result)
        assert kernels_run(step)[:2] == ["single", "grid"] and result.frontier_sizes[1] == 12
    with _with_kernel(device, graph, broken, **options) as step:
        lost = step.run(0)
    assert not np.array_equal(lost.levels, scipy_levels(graph, 0))


def test_path_of_twenty_thousand_levels(device):
    """20,000 levels in one search, from an end, with the default tunables: the single
    block runs every level, and the host waits once."""
    graph = path_graph(20_000)
    with PersistentBFS(device, graph) as step:
        result = step.run(0, profile=True)
        check_run(graph, 0, result)
        assert set(kernels_run(step)) == {"single"}
        assert step.last_host_waits == 1
    assert result.iterations == 20_000


@pytest.mark.parametrize("rounds", [1, 2])
def test_hand_over_to_the_grid_and_back(device, rounds):
    """A 64 x 64 grid with single-block queues of 64 entries: the frontier outgrows the
    block and comes back to it. With two pairs of kernels per batch the host waits once;
    with one pair, the batch ends when the grid hands back, and a second batch finishes."""
    graph = grid2d(64, 64)
    with PersistentBFS(device, graph, sb_block_size=64, sb_capacity=64, rounds=rounds) as step:
        result = step.run(70, profile=True)
        check_run(graph, 70, result)
        kernels = kernels_run(step)
        waits = step.last_host_waits
    first_grid, last_grid = kernels.index("grid"), len(kernels) - 1 - kernels[::-1].index("grid")
    assert set(kernels[:first_grid]) == {"single"} and set(kernels[last_grid + 1:]) == {"single"}
    assert set(kernels[first_grid:last_grid + 1]) == {"grid"}
    assert max(result.frontier_sizes[:first_grid]) <= 64 < result.frontier_sizes[first_grid]
    assert result.frontier_sizes[last_grid + 1] <= 32  # handed back at half the capacity
    assert waits == (1 if rounds == 2 else 2)


def test_sources_without_edges(device):
    """An isolated vertex, and the sink of a directed graph: one level, and only the
    source reached."""
    for graph, source in ((awkward_graph(), 1236), (one_way(), 499)):
        with PersistentBFS(device, graph, sb_block_size=64) as step:
            result = step.run(source)
        check_run(graph, source, result)
        assert result.iterations == 1 and np.count_nonzero(result.levels >= 0) == 1
        assert result.parents[source] == source


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
    check_run(graph, 5, again)


def test_profile_times_every_level(device):
    """With profile=True: a time per level from the device clock, adding up to no more
    than the whole search took; without it, none (and no clock is read)."""
    graph = grid2d(37, 29)
    with PersistentBFS(device, graph, sb_block_size=64) as step:
        plain = step.run(100)
        result = step.run(100, profile=True)
    check_run(graph, 100, result)
    assert plain.level_times_ms == [] and plain.frontier_sizes == []
    assert len(result.level_times_ms) == result.iterations
    assert all(t >= 0 for t in result.level_times_ms) and sum(result.level_times_ms) > 0


# -- never a hang ---------------------------------------------------------------------------

def test_runaway_single_block_is_an_error(device):
    """A single block that claims every target again, visited or not, never empties its
    queues: the kernel's guard (no more levels or queued vertices than the graph has)
    ends the search with an error instead of a loop."""
    original = kernel_source("persistent.hip")
    check = "if ((*word & bit) || (atomicOr(word, bit) & bit)) return false;"
    broken = original.replace(check, "atomicOr(word, bit);")
    assert broken != original
    with _with_kernel(device, path_graph(50), broken, sb_block_size=64) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_runaway_grid_is_an_error(device):
    """A grid that queues vertex 0 again at every level never empties its queues: the
    same guard ends the search."""
    original = kernel_source("persistent.hip")
    clear = "Q.counters(level + 2)[threadIdx.x * COUNTER_STRIDE] = 0;"
    again = (" if (blockIdx.x == 0 && threadIdx.x == 0) Q.small(level + 1)"
             "[atomicAdd(&Q.counters(level + 1)[SMALL * COUNTER_STRIDE], 1u)] = 0;")
    broken = original.replace(clear, clear + again)
    assert broken != original
    with _with_kernel(device, path_graph(50), broken, sb_block_size=64, sb_edge_limit=0,
                      max_grid_blocks=2) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_block_that_skips_the_grid_barrier_is_an_error(device):
    """A grid whose last block leaves instead of waiting at the grid barrier: the other
    blocks would wait for ever. The run ends with a clear error (the emulator reports
    the deadlock; on a GPU the barrier's bounded wait gives up) instead of a hang."""
    original = kernel_source("persistent.hip")
    barrier = "if (!grid_sync(barrier)) return;"
    broken = original.replace(barrier, "if (blockIdx.x == gridDim.x - 1) return;\n" + barrier)
    assert broken != original
    with _with_kernel(device, grid2d(20, 20), broken, sb_block_size=64, sb_edge_limit=0,
                      max_grid_blocks=2) as step:
        with pytest.raises(DeviceError, match="(?i)deadlock|barrier|progress"):
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
    with PersistentBFS(device, big, sb_block_size=64) as step:
        assert not step.shared_bitmap
        check_run(big, 0, step.run(0))
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


def test_kernel_has_no_hard_coded_warp_width():
    """The warp width comes from WARP_SIZE (bfs_common.h), never from a literal."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", kernel_source("persistent.hip"), flags=re.S)
    assert not re.search(r"\b(32|64)\b", code)


@pytest.mark.parametrize("missing", ["SB_CAPACITY", "EDGE_BATCH", "SHARED_BITMAP", "LOCAL_SMALL"])
def test_missing_tunable_is_a_compile_error(device, missing):
    defines = tunables(device.warp_size)
    del defines[missing]
    with pytest.raises(CompileError, match=missing):
        device.compile(kernel_source("persistent.hip"), "persistent.hip", defines=defines,
                       headers=kernel_headers())


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
        tunables(warp_size, edge_batch=32),
    ]


def _compiler_or_skip(backend_name):
    import os

    from rodinia_bfs.runtime import cuda_backend, hip_backend

    if backend_name == "hip":
        backend, env = hip_backend, "RODINIA_BFS_REQUIRE_HIPRTC"
        problem = ("hip-python not installed" if hip_backend.hip is None else
                   None if hip_backend.configure_libraries().get("hiprtc") else
                   "hiprtc library not found (run .ci/install-rocm-hiprtc.sh)")
    else:
        backend, env = cuda_backend, "RODINIA_BFS_REQUIRE_NVRTC"
        problem = "cuda-python not installed" if cuda_backend.nvrtc is None else None
        if problem is None:
            try:
                cuda_backend.nvrtc_version()
            except DeviceError as exc:
                problem = str(exc)
    if problem:
        if os.environ.get(env) == "1":
            pytest.fail(f"{env}=1 but {problem}")
        pytest.skip(problem)
    return backend


@pytest.mark.parametrize("which", [0, 1, 2, 3], ids=["default", "plain", "tiny", "batch32"])
@pytest.mark.parametrize("arch, warp_size", [("gfx90a", 64), ("gfx1030", 32)])
def test_hiprtc_compiles(arch, warp_size, which):
    hiprtc = _compiler_or_skip("hip")
    code = hiprtc.compile_for_arch(kernel_source("persistent.hip"), arch, "persistent.hip",
                                   _define_sets(warp_size)[which], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("which", [0, 1, 2, 3], ids=["default", "plain", "tiny", "batch32"])
def test_nvrtc_compiles(which):
    nvrtc = _compiler_or_skip("cuda")
    code = nvrtc.compile_for_arch(kernel_source("persistent.hip"), "sm_90", "persistent.hip",
                                  _define_sets(32)[which], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


# -- on a GPU -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gpu():
    from helpers import gpu_device_or_skip

    return gpu_device_or_skip()


@pytest.mark.gpu
@pytest.mark.parametrize("config", ["single", "grid", "switching", "plain"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_every_configuration(gpu, name, config):
    graph = GRAPHS[name]()
    with PersistentBFS(gpu, graph, **configs(gpu.warp_size)[config]) as step:
        for source in sources_of(graph):
            check_run(graph, source, step.run(source, profile=True))


@pytest.mark.gpu
def test_gpu_path_and_defaults(gpu):
    graph = path_graph(20_000)
    with PersistentBFS(gpu, graph) as step:
        result = step.run(0, profile=True)
        check_run(graph, 0, result)
        assert step.last_host_waits == 1
        assert len(result.level_times_ms) == 20_000
