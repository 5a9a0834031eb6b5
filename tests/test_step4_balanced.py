"""Step 4 (load-balanced expansion) on the cpu emulator at warp size 32 and 64.

The graphs have hubs far above a block's width (stars, chained hubs, grids with hubs,
Kronecker graphs), so the block path runs with lists cut into several pieces. Each run
is checked as the step contract checks every step (tests/test_step_contract.py, which
also has what is not special to this step), and with ``count_paths`` the kernel counts
what each path (thread, warp, block) expanded, which must match what the degrees and
the reference levels say, entry for entry.
"""

import re

import numpy as np
import pytest

from rodinia_bfs.errors import CompileError, DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker, rodinia_graphgen
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.balanced import (BLOCK_SIZE, LOCAL_MEDIUM_PER_THREAD, QUEUES,
                                          BalancedBFS, tunables)

import helpers
from helpers import (awkward_graph, edit_kernel, hiprtc_or_skip, nvrtc_or_skip,
                     pairwise_params, real_graph, scipy_levels, sources_of, with_kernel)


def star(leaves: int = 5000) -> CSRGraph:
    """Vertex 0 joined both ways to 1..leaves, then two isolated vertices: one hub of
    degree far above any block, every other vertex of degree 1."""
    n = leaves + 3
    centre, rim = np.zeros(leaves, np.int64), np.arange(1, leaves + 1)
    return CSRGraph.from_edges(np.r_[centre, rim], np.r_[rim, centre], n, name=f"star-{leaves}")


def hub_chain(hubs: int = 4, leaves: int = 3000) -> CSRGraph:
    """Hubs 0..hubs-1 in a path, each joined to `leaves` leaves; neighbouring hubs share
    a third of their leaves, so pieces of two hubs race to claim the same vertices."""
    rng = np.random.default_rng(11)
    n = hubs + hubs * leaves + 5  # the last five vertices are isolated
    src, dst = [], []
    for h in range(hubs):
        own = hubs + h * leaves + np.arange(leaves)
        shared = own[: leaves // 3] + leaves if h + 1 < hubs else own[:0]
        for leaf in np.r_[own, shared]:
            src += [h, int(leaf)]
            dst += [int(leaf), h]
        if h + 1 < hubs:
            src += [h, h + 1]
            dst += [h + 1, h]
    order = rng.permutation(len(src))  # hub lists are not sorted
    return CSRGraph.from_edges(np.array(src)[order], np.array(dst)[order], n, name="hub-chain")


GRAPHS = {
    "awkward": awkward_graph,
    "star-5000": star,
    "hub-chain": hub_chain,
    "kronecker-12": lambda: kronecker(12, seed=1, progress=False),
    "hubs-60x60": lambda: grid_with_hubs(60, 60, seed=2),
    "big-hubs-60x60": lambda: grid_with_hubs(60, 60, seed=4, hub_fraction=0.0006,
                                             hub_degree_factor=500),
    "graphgen-3001": lambda: rodinia_graphgen(3001, seed=3),
    "grid-37x29": lambda: grid2d(37, 29),
}

#: The defaults, and tiny thresholds that send lists of 2 edges to a warp and of 5 to a
#: block, in pieces of 3, with local queues that overflow and capped grids: every path
#: runs on every graph.
CONFIGS = {
    "default": {},
    "tiny": dict(block_size=64, warp_threshold=2, block_threshold=5, block_piece=3,
                 local_small=3, local_medium=2, max_blocks=2),
}


def expected_paths(step, graph, levels) -> dict:
    """What each path must expand in a BFS that reached `levels`: every reached vertex
    once, in the queue its degree says, a large one as all its pieces."""
    degrees = graph.degrees().astype(np.int64)
    reached = levels >= 0
    queue = np.array([step.queue_of(int(d)) for d in degrees]) if degrees.size else np.array([])
    out = {}
    for name in QUEUES:
        mine = reached & (queue == name)
        entries = int(step.pieces(degrees[mine]).sum()) if name == "large" else int(mine.sum())
        out[name] = {"entries": entries, "edges": int(degrees[mine].sum())}
    return out


def check_run(step, source, result):
    """What the contract checks, and (with count_paths) exactly the expected work on
    each path."""
    helpers.check_run(step, source, result)
    if step.count_paths:
        assert step.last_path_counts == expected_paths(step, step.graph, result.levels)


def check_sources(step, sources):
    for source in sources:
        check_run(step, source, step.run(source))


def test_registered():
    assert STEPS["balanced"] is BalancedBFS
    assert BalancedBFS.returns_parents
    # Tutorial order: steps 1 to 4 first, in order; later chapters' steps come after.
    order = list(STEPS)
    assert order[: order.index("balanced") + 1] == ["rodinia", "queue", "privatized", "balanced"]


def run_config(device, name, config):
    """Every source of graph ``name`` with the tunables ``config``, path by path."""
    graph = GRAPHS[name]()
    with BalancedBFS(device, graph, count_paths=True, **CONFIGS[config]) as step:
        check_sources(step, sources_of(graph))


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=sorted(GRAPHS),
                                          config=sorted(CONFIGS)), indirect=["device"])
def test_matches_independent_bfs(device, name, config):
    """Pairwise: every graph with both sets of tunables, and each at warp 32 and 64."""
    run_config(device, name, config)


@pytest.mark.parametrize("name, options", [
    ("kronecker-12", CONFIGS["default"]),
    ("kronecker-12", CONFIGS["tiny"]),
    # The grid's degrees are 2 to 4, the hubs' thousands: degree 4 goes to a warp here.
    ("big-hubs-60x60", dict(block_size=64, warp_threshold=4, block_threshold=5, block_piece=100)),
], ids=["kronecker-default", "kronecker-tiny", "big-hubs"])
def test_every_path_runs(device, name, options):
    """The thread, warp and block paths all expand something, and a hub is expanded
    as several pieces, each by a block of its own."""
    graph = GRAPHS[name]()
    source = int(np.argmax(graph.degrees()))
    with BalancedBFS(device, graph, count_paths=True, **options) as step:
        check_run(step, source, step.run(source))
        counted = step.last_path_counts
        assert graph.degrees().max() > 4 * step.block_size  # far above a block
        largest = int(step.pieces([graph.degrees().max()])[0])
    assert all(counted[name]["entries"] > 0 for name in QUEUES), counted
    assert counted["large"]["entries"] >= largest > 1


def test_thresholds_follow_the_warp(device):
    """Lists of a warp's width go to a warp: 32 edges on NVIDIA and RDNA, 64 on AMD
    Instinct. A vertex of degree 40 is small at warp size 64 and medium at 32."""
    defaults = BalancedBFS.default_defines(device.warp_size)
    assert defaults["WARP_THRESHOLD"] == device.warp_size
    assert defaults["BLOCK_SIZE"] % device.warp_size == 0
    assert defaults["BLOCK_THRESHOLD"] == defaults["BLOCK_SIZE"]
    with BalancedBFS(device, star(40)) as step:
        assert step.queue_of(40) == ("medium" if device.warp_size == 32 else "small")
        assert step.queue_of(device.warp_size - 1) == "small"
        assert step.queue_of(device.warp_size) == "medium"
        assert step.queue_of(step.block_size) == "large"


def test_kernel_has_no_hard_coded_warp_width():
    """The warp width comes from WARP_SIZE (bfs_common.h), never from a literal."""
    for text in (kernel_source("balanced.hip"), kernel_headers()["frontier.h"]):
        code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
        assert not re.search(r"\b(32|64)\b", code)


def test_frontier_header_holds_this_step_only():
    """Chapter 4 reads frontier.h: what step 6 adds to its gathers (the count for
    Beamer's rule, batched visits, shared-out short queues) is in top_down.h and tally.h."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", kernel_headers()["frontier.h"], flags=re.S)
    for name in ("Tally", "found", "VISIT_BATCH", "visit_batch", "log_share"):
        assert not re.search(rf"\b{name}\b", code), name


@pytest.mark.parametrize("block_size", [64, 128, 512])
def test_block_sizes(device, block_size):
    graph = GRAPHS["kronecker-12"]()
    with BalancedBFS(device, graph, block_size=block_size, count_paths=True) as step:
        check_sources(step, (3, int(np.argmax(graph.degrees()))))


@pytest.mark.parametrize("max_blocks", [1, 3])
def test_grid_smaller_than_the_queues(device, max_blocks):
    """With a cap of one or three blocks per section, the kernel's grid-stride loops
    do the rest of every queue."""
    graph = GRAPHS["big-hubs-60x60"]()
    with BalancedBFS(device, graph, block_size=64, max_blocks=max_blocks,
                     count_paths=True) as step:
        result = step.run(17)
        check_run(step, 17, result)
        assert step.last_path_counts["small"]["entries"] > 64 * max_blocks


def test_local_queues_overflow_to_the_global_ones(device):
    """Block-local queues of one entry overflow at once; nothing may be lost."""
    graph = rodinia_graphgen(3001, seed=3)
    with BalancedBFS(device, graph, local_small=1, local_medium=1, warp_threshold=4,
                     count_paths=True) as step:
        check_sources(step, (0, 1500))


def test_hub_source_is_queued_in_pieces(device):
    """A large source goes down as all its pieces, each expanded by its own block."""
    graph = star(5000)
    with BalancedBFS(device, graph, count_paths=True) as step:
        result = step.run(0)
        check_run(step, 0, result)
        assert step.last_path_counts["large"] == {"entries": -(-5000 // step.block_piece),
                                                  "edges": 5000}
        assert step.last_path_counts["small"] == {"entries": 5000, "edges": 5000}
    assert result.iterations == 2


def test_reruns_start_clean(device):
    """A second BFS on the same step must not see the first one's levels, queues or counters."""
    graph = hub_chain()
    with BalancedBFS(device, graph, count_paths=True) as step:
        first = step.run(3)
        counted = step.last_path_counts
        step.run(0)
        again = step.run(3)
        np.testing.assert_array_equal(again.levels, first.levels)
        assert step.last_path_counts == counted


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(block_size=100), "multiple of the warp size"),
        (dict(block_size=2048), "multiple of the warp size"),
        (dict(warp_threshold=0), "warp_threshold"),
        (dict(warp_threshold=300, block_threshold=200), "warp_threshold"),
        (dict(block_piece=0), "block_piece"),
        (dict(local_medium=0), "local_small and local_medium"),
        (dict(max_blocks=0), "max_blocks"),
    ],
)
def test_bad_tunables_are_refused(device, options, message):
    with pytest.raises(RodiniaBFSError, match=message):
        BalancedBFS(device, grid2d(3, 3), **options)


def test_local_queues_must_fit_shared_memory(device):
    """The local queues are static shared memory: at most what a block of this device
    gets, 16 bytes of counters included."""
    shared = device.shared_memory_per_block
    medium = LOCAL_MEDIUM_PER_THREAD * BLOCK_SIZE
    graph = grid2d(9, 7)
    with BalancedBFS(device, graph, local_small=(shared - 16) // 4 - medium) as step:
        check_run(step, 5, step.run(5))
    with pytest.raises(RodiniaBFSError, match="shared memory"):
        BalancedBFS(device, graph, local_small=(shared - 16) // 4 - medium + 1)
    with pytest.raises(RodiniaBFSError, match="shared memory"):
        BalancedBFS(device, graph, local_small=shared // 4)


def test_never_ending_loop_is_an_error(device):
    """A kernel that enqueues vertex 0 again at every level never empties its queues:
    the host loop's guard stops it instead of looping for ever."""
    barrier = "__syncthreads();  // nobody enqueues before the counters are zero"
    broken = edit_kernel("balanced.hip", barrier, barrier + "\n    if (blockIdx.x == 0 && "
                         "threadIdx.x == 0) next_small[atomicAdd(&counts[(next_level % 2) * "
                         "QUEUES * COUNTER_STRIDE], 1u)] = 0;")
    with with_kernel(BalancedBFS, broken)(device, grid2d(5, 5)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_barrier_before_the_copy_out_is_needed(device):
    """Without the barrier after the expansion, a block's first threads reserve room
    and copy out before the others have enqueued. The emulator runs a block's threads
    one after another between barriers, so the bug shows on every run."""
    broken = edit_kernel("frontier.h", "__syncthreads();  // every local enqueue is done", "//")
    graph = rodinia_graphgen(3001, seed=3)
    patched = with_kernel(BalancedBFS, kernel_source("balanced.hip"), "no_barrier.hip",
                          headers={"frontier.h": broken})  # copy_out is shared with step 5
    with patched(device, graph) as step:
        result = step.run(7)
    assert not np.array_equal(result.levels, scipy_levels(graph, 7))


@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "social/as-22july06.mtx"])
def test_real_social_graphs_path_by_path(device, filename):
    graph = real_graph(filename)
    with BalancedBFS(device, graph, count_paths=True) as step:
        check_sources(step, (int(np.argmax(graph.degrees())), 1))


# -- run-time compilers: every target, default and extreme tunables ---------------------

def _define_sets(warp_size):
    """Default tunables; tiny ones with the path counters; the largest local queues."""
    tiny = tunables(warp_size, block_size=warp_size, warp_threshold=1, block_threshold=1,
                    block_piece=1, local_small=1, local_medium=1)
    largest = tunables(warp_size, block_size=1024, local_small=10_000, local_medium=2_000)
    return [tunables(warp_size), {**tiny, "BFS_COUNT_PATHS": 1}, largest]


DEFINE_SETS = ["default", "tiny-counted", "largest"]


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    BalancedBFS, _define_sets, DEFINE_SETS, [("gfx90a", 64), ("gfx1030", 32)]))
def test_hiprtc_compiles(arch, warp_size, which):
    """Each set the step contract does not compile (it compiles the defaults)."""
    code = hiprtc_or_skip().compile_for_arch(kernel_source("balanced.hip"), arch, "balanced.hip",
                                   _define_sets(warp_size)[which], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch, warp_size, which", helpers.beyond_the_contract(
    BalancedBFS, _define_sets, DEFINE_SETS, [("sm_90", 32)]))
def test_nvrtc_compiles(arch, warp_size, which):
    """Each set the step contract does not compile (it compiles the defaults)."""
    code = nvrtc_or_skip().compile_for_arch(kernel_source("balanced.hip"), arch, "balanced.hip",
                                  _define_sets(warp_size)[which], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("missing", ["WARP_THRESHOLD", "BLOCK_PIECE", "LOCAL_SMALL"])
def test_missing_tunable_is_a_compile_error(device, missing):
    helpers.compile_fails_without(device, "balanced.hip", tunables(device.warp_size), missing)


def test_block_not_a_multiple_of_the_warp_is_a_compile_error(device):
    defines = tunables(device.warp_size, block_size=device.warp_size + device.warp_size // 2)
    with pytest.raises(CompileError, match="multiple of WARP_SIZE"):
        device.compile(kernel_source("balanced.hip"), "balanced.hip", defines=defines,
                       headers=kernel_headers())


# -- on a GPU -------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_matches_independent_bfs(gpu, name, config):
    run_config(gpu, name, config)


@pytest.mark.gpu
def test_gpu_every_path_runs(gpu):
    graph = GRAPHS["kronecker-12"]()
    source = int(np.argmax(graph.degrees()))
    with BalancedBFS(gpu, graph, count_paths=True) as step:
        check_run(step, source, step.run(source))
        assert all(step.last_path_counts[name]["entries"] > 0 for name in QUEUES)


@pytest.mark.gpu
@pytest.mark.parametrize("filename", ["social/email-Enron.mtx", "social/as-22july06.mtx",
                                      "road/NY.gr.xz"])
def test_gpu_real_graphs_path_by_path(gpu, filename):
    graph = real_graph(filename)
    with BalancedBFS(gpu, graph, count_paths=True) as step:
        check_sources(step, (1, int(np.argmax(graph.degrees()))))
