"""Step 8 (BFS over several GPUs) on several emulated devices at warp size 32 and 64.

The step contract (tests/test_step_contract.py) runs it with its default of two
emulated partitions; here it runs with 1, 2 and 3 partitions under every partition
policy, on graphs with isolated vertices, several components and one-way arcs, and on a
real graph. Levels must match scipy's exactly and parents pass Graph500's rules. Also
here: the partition plans and their costs, the collective stand-in, the memory limit,
a broken exchange caught, and the one-line errors (too many GPUs, no NCCL or RCCL).
"""

from types import SimpleNamespace

import numpy as np
import pytest

from rodinia_bfs.collective import (INSTALL_HINT, InProcessCollective, NcclCollective,
                                    RcclCollective, open_collective)
from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker
from rodinia_bfs.partition import POLICIES, grid_shape, master_blocks, partition
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import multi_gpu
from rodinia_bfs.variants.multi_gpu import MultiGpuBFS

from helpers import (SMALL_AWKWARD_SOURCES, check_run, check_sources, edit_kernel, load_benchmark,
                     pairwise_params, real_graph, scipy_levels, small_awkward_graph,
                     sources_of)


def directed_graph() -> CSRGraph:
    """One-way arcs only: a random digraph on 200 vertices plus a chain 200..211 that
    only vertex 0 leads into, and 13 vertices with no edges at all."""
    rng = np.random.default_rng(3)
    src, dst = list(rng.integers(0, 200, 600)), list(rng.integers(0, 200, 600))
    src += [0] + list(range(200, 211))
    dst += [200] + list(range(201, 212))
    return CSRGraph.from_edges(src, dst, 225, directed=True, name="directed-225")


#: Small graphs: the multi-GPU search does the same work at every level, so a few dozen
#: levels per search show what hundreds would (helpers.small_awkward_graph).
GRAPHS = {
    "awkward-237": small_awkward_graph,
    "directed-225": directed_graph,
    "hubs-30x30": lambda: grid_with_hubs(30, 30, seed=4),
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
}


def _sources(name, graph):
    # The awkward graph's own sources reach each of its components; with its hub they
    # cover what the generic choice would.
    if name == "awkward-237":
        return sorted(set(SMALL_AWKWARD_SOURCES) | {int(np.argmax(graph.degrees()))})
    return sources_of(graph)


def test_registered():
    from rodinia_bfs.variants import STEPS

    assert STEPS["multi_gpu"] is MultiGpuBFS and MultiGpuBFS.returns_parents
    assert list(STEPS).index("multi_gpu") > list(STEPS).index("balanced")


# -- partition plans --------------------------------------------------------------------

@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_plan_keeps_every_edge_once(policy, parts):
    """Every edge is owned by exactly one partition, and masters tile the vertices."""
    graph = grid_with_hubs(20, 20, seed=1)
    plan = partition(graph, parts, policy)
    assert plan.num_parts == parts
    assert [p.first_master for p in plan.parts[1:]] == [p.end_master for p in plan.parts[:-1]]
    assert plan.parts[0].first_master == 0 and plan.parts[-1].end_master == graph.num_vertices
    edges = np.concatenate([np.stack(p.graph.edges()) for p in plan.parts], axis=1)
    ours = sorted(zip(*edges.tolist()))
    assert ours == sorted(zip(*(a.tolist() for a in graph.edges())))
    assert sum(plan.summary()["edges_per_part"]) == graph.num_edges


def test_master_blocks_balance_edges():
    graph = kronecker(11, seed=2, progress=False)
    bounds = master_blocks(graph, 4)
    per_block = np.diff(graph.offsets[bounds] + bounds)
    total = graph.num_edges + graph.num_vertices
    assert per_block.max() - per_block.min() <= 2 * graph.degrees().max() + 2
    assert abs(per_block.sum() - total) == 0


def test_policy_rules():
    """Each policy's rule on a graph small enough to work out by hand."""
    # Vertices 0..3 (a cycle both ways, vertex 0 a hub of the star 0 -> 1, 2, 3).
    src = [0, 0, 0, 1, 2, 3, 1, 2, 3]
    dst = [1, 2, 3, 0, 0, 0, 2, 3, 1]
    graph = CSRGraph.from_edges(src, dst, 4)
    masters = np.repeat(np.arange(2), np.diff(master_blocks(graph, 2)))
    plan = partition(graph, 2, "oec")
    for p in plan.parts:
        sources, _ = p.graph.edges()
        assert set(masters[sources]) <= {p.index}  # an edge lives with its source's master
    hybrid = partition(graph, 2, "hvc", hub_degree=3)  # only vertex 0 is a hub
    for p in hybrid.parts:
        sources, targets = p.graph.edges()
        owner = np.where(sources == 0, masters[targets], masters[sources])
        assert set(owner) <= {p.index}
    assert grid_shape(4) == (2, 2) and grid_shape(8) == (4, 2) and grid_shape(3) == (3, 1)
    two_d = partition(kronecker(9, seed=1, progress=False), 4, "cvc")
    bounds = master_blocks(kronecker(9, seed=1, progress=False), 4)
    block = np.repeat(np.arange(4), np.diff(bounds))
    for p in two_d.parts:
        sources, targets = p.graph.edges()
        assert set(block[sources] // 2) <= {p.index // 2}  # the row of its sources
        assert set(block[targets] % 2) <= {p.index % 2}  # the column of its targets


def test_plan_costs():
    """Mirrors counted against a direct count; the exchange bytes follow from them."""
    graph = grid_with_hubs(16, 16, seed=3)
    for policy in POLICIES:
        plan = partition(graph, 3, policy)
        for p in plan.parts:
            sources, targets = p.graph.edges()
            present = set(sources.tolist()) | set(targets.tolist())
            assert p.mirrors == len(present - set(range(p.first_master, p.end_master)))
        words = -(-graph.num_vertices // 32)
        assert plan.bitmap_bytes_per_level() == 3 * 2 * 4 * words
        assert plan.queue_bytes_per_search() == 4 * plan.mirrors
        assert plan.replication_factor == pytest.approx(1 + plan.mirrors / graph.num_vertices)
    one = partition(graph, 1)
    assert one.mirrors == 0 and one.bitmap_bytes_per_level() == 0


def test_unknown_policy_and_count():
    with pytest.raises(RodiniaBFSError, match="unknown partition policy 'zz'"):
        partition(grid2d(3, 3), 2, "zz")
    with pytest.raises(RodiniaBFSError, match="at least 1"):
        partition(grid2d(3, 3), 0)


# -- the collective stand-in --------------------------------------------------------------

def test_stand_in_all_gather_and_reduce():
    devices = [get_device("cpu") for _ in range(3)]
    collective = open_collective(devices)
    assert isinstance(collective, InProcessCollective)
    words = 5
    buffers = []
    for k, d in enumerate(devices):
        block = np.zeros(3 * words, np.uint32)
        block[k * words: (k + 1) * words] = 100 * (k + 1) + np.arange(words)
        buffers.append(d.to_device(block))
    collective.all_gather_u32(buffers, words, [None] * 3)
    expected = np.concatenate([100 * (k + 1) + np.arange(words) for k in range(3)])
    for d, b in zip(devices, buffers):
        np.testing.assert_array_equal(d.from_device(b, 3 * words, np.uint32), expected)
    values = [np.array([-1, 4, -1, 2]), np.array([3, -1, -1, 2]), np.array([-1, -1, -1, 7])]
    ints = [d.to_device(v.astype(np.int32)) for d, v in zip(devices, values)]
    collective.reduce_max_i32(ints, 4, 0, [None] * 3)
    np.testing.assert_array_equal(devices[0].from_device(ints[0], 4, np.int32), [3, 4, -1, 7])


def test_stand_in_send_recv():
    devices = [get_device("cpu") for _ in range(3)]
    collective = open_collective(devices)
    capacity = 4
    sends = []
    for p, d in enumerate(devices):  # rank p sends p*10+q+[0..] to q
        lists = np.array([[10 * p + q + 100 * i for i in range(capacity)] for q in range(3)])
        sends.append(d.to_device(lists.astype(np.int32).ravel()))
    counts = np.array([[0, 2, 1], [3, 0, 0], [1, 1, 0]])
    recvs = [d.malloc(4 * 2 * capacity) for d in devices]
    collective.send_recv_i32(sends, counts, capacity, recvs, [None] * 3)
    got = [d.from_device(b, int(counts[:, q].sum()), np.int32).tolist()
           for q, (d, b) in enumerate(zip(devices, recvs))]
    assert got == [[10, 110, 210, 20], [1, 101, 21], [2]]


def test_stand_in_refuses_gpu_devices():
    fake = SimpleNamespace(backend="cuda")
    with pytest.raises(DeviceError, match="only for the cpu backend"):
        InProcessCollective([fake, fake])


# -- correct results at 1, 2 and 3 partitions --------------------------------------------

#: Partitions: how many, the policy, the exchange.
SPLITS = [(1, "oec", "bitmap"), (2, "oec", "bitmap"), (2, "hvc", "queue"), (3, "oec", "queue"),
          (3, "hvc", "bitmap"), (4, "cvc", "bitmap"), (4, "cvc", "queue")]


#: The grid of every launch: two blocks, whose grid-stride loops go round on the larger
#: graphs, or as many blocks as the GPU runs at once (the default; on the emulator a
#: launch takes time in proportion to its threads).
GRIDS = {"2-blocks": 2, "full-grid": None}


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=sorted(GRAPHS), split=["-".join(map(str, s)) for s in SPLITS],
    grid=list(GRIDS)), indirect=["device"])
def test_matches_independent_bfs(device, name, split, grid):
    """Pairwise: every graph with every split, each at warp 32 and at 64, and each with
    a grid of two blocks and with the full grid."""
    gpus, policy, exchange = int(split[0]), *split.split("-")[1:]
    graph = GRAPHS[name]()
    with MultiGpuBFS(device, graph, gpus=gpus, policy=policy, exchange=exchange,
                     max_blocks=GRIDS[grid]) as step:
        assert step.num_gpus == gpus and len(step.plan.parts) == gpus
        check_sources(step, _sources(name, graph))


@pytest.mark.parametrize("gpus", [2, 3])
@pytest.mark.parametrize("exchange", ["bitmap", "queue"])
def test_grid_stride_with_one_block(device, gpus, exchange):
    """One block per launch: every kernel's grid-stride loops do all the work."""
    graph = grid_with_hubs(30, 30, seed=4)
    with MultiGpuBFS(device, graph, gpus=gpus, policy="hvc", exchange=exchange,
                     max_blocks=1) as step:
        check_sources(step, sources_of(graph))


@pytest.mark.parametrize("gpus", [2, 3])
@pytest.mark.parametrize("exchange", ["bitmap", "queue"])
def test_real_graph(device, gpus, exchange):
    graph = real_graph("social/email-Enron.mtx")
    with MultiGpuBFS(device, graph, gpus=gpus, exchange=exchange) as step:
        check_sources(step, [int(np.argmax(graph.degrees())), 1])


def test_queue_exchange_sends_to_holders_only(device):
    """The queue exchange sends a vertex only to the GPUs holding a copy of it: on a
    graph of two components each on its own GPU, nothing crosses."""
    left = grid2d(8, 8)
    both = CSRGraph.from_edges(np.r_[left.edges()[0], left.edges()[0] + 64],
                               np.r_[left.edges()[1], left.edges()[1] + 64], 128)
    with MultiGpuBFS(device, both, gpus=2, exchange="queue") as step:
        assert [p.mirrors for p in step.plan.parts] == [0, 0]
        check_run(step, 3, step.run(3))
        assert all(g.received == 0 for g in step.gpus)
        check_run(step, 70, step.run(70))


def test_unknown_exchange(device):
    with pytest.raises(RodiniaBFSError, match="unknown exchange 'mail'"):
        MultiGpuBFS(device, grid2d(3, 3), exchange="mail")


def test_profile_splits_compute_and_exchange(device):
    graph = grid2d(20, 15)
    with MultiGpuBFS(device, graph, gpus=2) as step:
        run = step.run(7, profile=True)
        check_run(step, 7, run)
        plain = step.run(7)
    assert len(run.compute_times_ms) == len(run.exchange_times_ms) == run.iterations
    assert all(t >= 0 for t in run.compute_times_ms + run.exchange_times_ms)
    assert run.reduce_ms is not None and run.reduce_ms >= 0
    assert plain.compute_times_ms == [] and plain.exchange_times_ms == []


# -- the exchange matters -------------------------------------------------------------

class Unmarked(MultiGpuBFS):
    """A GPU that never tells the others what it found in its small queue."""

    def kernel_text(self):
        line = ("        publish(next_small[i], lists, bits, holds, words, parts, rank, send, "
                "send_counts,\n                capacity);\n")
        return edit_kernel("multi_gpu.hip", line, "")


def test_missing_exchange_is_caught(device):
    graph = grid2d(12, 12)
    with Unmarked(device, graph, gpus=1) as step:  # alone, nothing needs exchanging
        check_run(step, 0, step.run(0))
    for exchange in ("bitmap", "queue"):
        with Unmarked(device, graph, gpus=2, exchange=exchange) as step:
            run = step.run(0)
        with pytest.raises(AssertionError):
            check_run(step, 0, run)


# -- the memory limit -------------------------------------------------------------------

def test_memory_limit_needs_two_gpus(device):
    """A graph whose edges do not fit one GPU's budget runs on two."""
    graph = kronecker(10, seed=3, progress=False)
    [one] = MultiGpuBFS.memory_per_gpu(graph, 1, warp_size=device.warp_size)
    two = max(MultiGpuBFS.memory_per_gpu(graph, 2, warp_size=device.warp_size))
    assert two < one
    limit = (one + two) // 2
    with pytest.raises(RodiniaBFSError, match=r"partition 0 of 1 needs .* memory limit"):
        MultiGpuBFS(device, graph, gpus=1, memory_limit=limit)
    with MultiGpuBFS(device, graph, gpus=2, memory_limit=limit) as step:
        check_sources(step, [int(np.argmax(graph.degrees()))])


# -- one-line errors ----------------------------------------------------------------------

class FakeGpu(SimpleNamespace):
    backend = "cuda"

    def activate(self):
        pass


def test_more_gpus_than_visible(monkeypatch):
    """The count is checked by opening the devices; the error says how many there are."""
    def fake_get_device(backend, device_id=0):
        if device_id >= 2:
            raise DeviceError(f"no NVIDIA GPU {device_id}: cuDeviceGetCount found 2")
        return FakeGpu(device_id=device_id)

    monkeypatch.setattr(multi_gpu, "get_device", fake_get_device)
    first = FakeGpu(device_id=0)
    with pytest.raises(DeviceError, match=r"--gpus 3: only 2 cuda GPU\(s\) are visible"):
        multi_gpu.open_devices(first, 3)
    assert [d.device_id for d in multi_gpu.open_devices(first, 2)] == [0, 1]
    assert [d.device_id for d in multi_gpu.open_devices(first, None)] == [0, 1]
    with pytest.raises(RodiniaBFSError, match="at least 1"):
        multi_gpu.open_devices(first, 0)


def test_missing_collective_library_says_what_to_install():
    fakes = [FakeGpu(device_id=0), FakeGpu(device_id=1)]
    try:  # where NCCL is installed, its absence cannot be shown
        from nccl.bindings import nccl
        nccl.get_version()
    except Exception:
        with pytest.raises(RodiniaBFSError) as caught:
            NcclCollective(fakes)
        assert INSTALL_HINT["cuda"] in str(caught.value) and "\n" not in str(caught.value)
    try:
        from hip import rccl  # noqa: F401
    except Exception:
        with pytest.raises(RodiniaBFSError) as caught:
            RcclCollective(fakes)
        assert INSTALL_HINT["hip"] in str(caught.value)


def test_cli_errors_are_one_line(tmp_path):
    from rodinia_bfs.cli import main

    graph = tmp_path / "g.mtx"
    graph.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n")
    import subprocess
    import sys

    for extra, message in [(["--gpus", "0"], "at least 1"),
                           (["--gpu-memory-limit", "100"], "memory limit is 100 bytes")]:
        proc = subprocess.run([sys.executable, "-m", "rodinia_bfs", "run", str(graph), "--variant",
                               "multi_gpu", "--backend", "cpu", *extra],
                              capture_output=True, text=True)
        assert proc.returncode != 0, proc.stdout
        assert message in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert main(["run", str(graph), "--variant", "multi_gpu", "--backend", "cpu", "--gpus", "3",
                 "--validate"]) == 0


# -- direction-optimizing levels (direction="pull" / "auto") ---------------------------------

def components_graph() -> CSRGraph:
    """Undirected: two grids, a star and 15 isolated vertices, labels shuffled so that
    every component has vertices in every GPU's block."""
    grid = grid2d(9, 7)
    src, dst = grid.edges()
    src, dst = list(src) + list(src + 63), list(dst) + list(dst + 63)
    src += [126] * 30 + list(range(127, 157))
    dst += list(range(127, 157)) + [126] * 30
    n = 172
    label = np.random.default_rng(11).permutation(n)
    return CSRGraph.from_edges(label[src], label[dst], n, name="components-172")


DIRECTION_GRAPHS = {
    "awkward-237": small_awkward_graph,  # one-way arcs: the in-edges come from the reverse graph
    "awkward-237-symmetric": lambda: small_awkward_graph().symmetrize(),
    "components-172": components_graph,
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
}


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=sorted(DIRECTION_GRAPHS), direction=["push", "pull", "auto"],
    split=["1-oec", "2-oec", "3-oec", "2-hvc", "3-hvc"], grid=list(GRIDS)), indirect=["device"])
def test_directions_match_independent_bfs(device, name, direction, split, grid):
    """Levels as scipy's and parents by Graph500's rules, whichever way the levels go
    (pairwise: every pair of graph, direction, split, grid and warp size meets in a test)."""
    gpus, policy = int(split[0]), split[2:]
    graph = DIRECTION_GRAPHS[name]()
    with MultiGpuBFS(device, graph, gpus=gpus, policy=policy, direction=direction,
                     max_blocks=GRIDS[grid]) as step:
        for source in _sources(name, graph):
            run = step.run(source)
            check_run(step, source, run)
            assert len(step.last_directions) == run.iterations
            if direction != "auto":
                assert set(step.last_directions) == {direction}


@pytest.mark.parametrize("gpus", [1, 2, 3])
def test_auto_follows_beamers_rule(device, gpus):
    """The directions auto takes are those step 6's rule gives from the finished search's
    levels (rule_table): the counts the GPUs add up are the global n_f, m_f and m_u. On a
    Kronecker graph the search goes bottom-up in the middle and top-down at the ends."""
    from rodinia_bfs.variants.push_pull import rule_table

    graph = kronecker(10, seed=5, progress=False)
    sources = sources_of(graph)
    with MultiGpuBFS(device, graph, gpus=gpus, direction="auto") as step:
        taken = []
        for source in sources:
            run = step.run(source)
            check_run(step, source, run)
            expected = [row["direction"] for row in rule_table(graph, source, run.levels)]
            assert step.last_directions == expected
            taken.append(step.last_directions)
    assert any("pull" in d for d in taken)
    assert any(d[0] == "push" and "pull" in d and d[-1] == "push" for d in taken)


@pytest.mark.parametrize("gpus", [2, 3])
def test_real_graph_directions(device, gpus):
    graph = real_graph("social/email-Enron.mtx")
    with MultiGpuBFS(device, graph, gpus=gpus, direction="auto") as step:
        assert step.symmetric
        for source in (int(np.argmax(graph.degrees())), 1):
            check_run(step, source, step.run(source))
            assert "pull" in step.last_directions


def test_in_edges_where_they_come_from(device):
    """Symmetric graph under the edge cut: a GPU's own edges are its masters' in-edges,
    and only the frontier bitmap and the active list are added. A directed graph (or
    another policy): the in-edges of its masters, from the reverse graph."""
    sym = kronecker(9, seed=1, progress=False)
    with MultiGpuBFS(device, sym, gpus=2, direction="auto") as step:
        assert step.symmetric and all(p.in_graph is None for p in step.pulls)
        assert all(g.in_edges is g.edges for g in step.gpus)
        actives = np.concatenate([p.active for p in step.pulls])
        np.testing.assert_array_equal(actives, np.flatnonzero(sym.degrees() > 0))
    push = MultiGpuBFS.memory_per_gpu(sym, 2)
    auto = MultiGpuBFS.memory_per_gpu(sym, 2, direction="auto")
    words = -(-sym.num_vertices // 32)
    assert [a - p for a, p in zip(auto, push)] == [4 * words + 4 * p.active.size
                                                   for p in step.pulls]
    directed = directed_graph()
    with MultiGpuBFS(device, directed, gpus=3, direction="pull") as step:
        assert step.symmetric is False
        reverse = directed.reverse()
        for p, pull in zip(step.plan.parts, step.pulls):
            lists = pull.in_graph
            mastered = reverse.offsets[p.end_master] - reverse.offsets[p.first_master]
            assert lists.num_edges == mastered
            for v in (p.first_master, p.end_master - 1):
                np.testing.assert_array_equal(lists.neighbors(v), reverse.neighbors(v))
        check_sources(step, sources_of(directed))


class Alternating(MultiGpuBFS):
    """Top-down and bottom-up levels in turn, whatever the rule says: every switch, both
    ways, many times in one search."""

    def _choose(self, going, rule):
        return "pull" if len(self.last_directions) % 2 else "push"


@pytest.mark.parametrize(*pairwise_params(device=[32, 64], name=["awkward-237", "components-172"],
                                          split=["1-oec", "2-oec", "3-hvc"], grid=list(GRIDS)),
                         indirect=["device"])
def test_alternating_directions(device, name, split, grid):
    """Pairwise: every graph with every split, each at warp 32 and 64 and with each grid."""
    gpus, policy = int(split[0]), split[2:]
    graph = DIRECTION_GRAPHS[name]()
    with Alternating(device, graph, gpus=gpus, policy=policy, direction="auto",
                     max_blocks=GRIDS[grid]) as step:
        for source in _sources(name, graph):
            run = step.run(source)
            check_run(step, source, run)
            assert step.last_directions == ["push", "pull"] * (run.iterations // 2) + \
                ["push"] * (run.iterations % 2)


class NoJoinAfterPull(Alternating):
    """A merge that forgets to queue what its own GPU found bottom-up."""

    def kernel_text(self):
        line = "join(L, v);  // found here bottom-up: its level is set, its queue is not"
        return edit_kernel("multi_gpu.hip", line, ";")


@pytest.mark.parametrize("gpus", [1, 2])
def test_push_after_pull_needs_the_queues(device, gpus):
    """After a bottom-up level the next top-down one needs the frontier back in queues:
    without it the search goes wrong, on one GPU as on two."""
    graph = grid2d(12, 12)
    with NoJoinAfterPull(device, graph, gpus=gpus, direction="auto") as step:
        run = step.run(0)
    with pytest.raises(AssertionError):
        check_run(step, 0, run)


def test_direction_errors(device):
    with pytest.raises(RodiniaBFSError, match="unknown direction 'up'; choose push, pull, auto"):
        MultiGpuBFS(device, grid2d(3, 3), direction="up")
    with pytest.raises(RodiniaBFSError, match="direction 'auto' needs the bitmap exchange"):
        MultiGpuBFS(device, grid2d(3, 3), direction="auto", exchange="queue")


def test_cli_direction(tmp_path, capsys):
    from rodinia_bfs.cli import main

    graph = tmp_path / "g.mtx"
    graph.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 2\n")
    for direction in ("push", "pull", "auto"):
        assert main(["run", str(graph), "--variant", "multi_gpu", "--backend", "cpu",
                     "--gpus", "2", "--direction", direction, "--validate"]) == 0
        assert "validation passed" in capsys.readouterr().out


def test_scaling_bench_configurations():
    """benchmarks/multi_gpu_scaling.py --directions: push with every exchange, the other
    directions with the bitmap exchange only; one GPU has no exchange or policy to vary."""
    bench = load_benchmark("multi_gpu_scaling")
    args = SimpleNamespace(directions="push,auto", gpus="1,2", exchanges="bitmap,queue",
                           policies="oec")
    assert list(bench.configurations(args)) == [
        ("push", 1, "bitmap", "oec"), ("push", 2, "bitmap", "oec"), ("push", 2, "queue", "oec"),
        ("auto", 1, "bitmap", "oec"), ("auto", 2, "bitmap", "oec")]


# -- several sources and a depth limit --------------------------------------------------------

def nearest_start_levels(graph: CSRGraph, starts, depth=None) -> np.ndarray:
    """Distance to the nearest start by scipy (scipy_levels from each start), -1 where no
    start reaches or beyond ``depth``."""
    each = scipy_levels(graph, list(starts)).reshape(len(starts), -1).astype(np.int64)
    big = np.iinfo(np.int32).max
    nearest = np.where(each < 0, big, each).min(axis=0)
    limit = big - 1 if depth is None else depth
    return np.where(nearest <= limit, nearest, -1).astype(np.int32)


def spread_starts(step) -> list[int]:
    """A start in the middle of each GPU's block of masters, the vertex of largest degree
    (a large-queue vertex on one GPU, or its edges spread over all of them), one of its
    neighbours (a start next to a start), and the first vertex with no out-edges where
    the graph has one."""
    graph, degrees = step.graph, step.graph.degrees()
    hub = int(np.argmax(degrees))
    starts = {(p.first_master + p.end_master) // 2 for p in step.plan.parts} | {hub}
    starts |= {int(graph.neighbors(hub)[0]), *np.flatnonzero(degrees == 0)[:1].tolist()}
    masters = {p.index for p in step.plan.parts for s in starts
               if p.first_master <= s < p.end_master}
    assert len(masters) == step.num_gpus  # the starts are spread over every GPU
    return sorted(starts)


def check_many(step, starts, depth) -> None:
    """A search from ``starts`` up to ``depth`` levels: levels as scipy's, a forest by
    Graph500's rules with the starts as roots, and as many iterations as steps 1-4 take
    (the levels expanded: the depth limit, or every level and the empty one after)."""
    from rodinia_bfs.validate import check_parents

    run = step.search(None, sources=starts, depth_limit=depth)
    levels, parents = step.results()
    np.testing.assert_array_equal(levels, nearest_start_levels(step.graph, starts, depth))
    check_parents(step.graph, None, levels, parents, sources=starts, depth_limit=depth)
    unlimited = int(nearest_start_levels(step.graph, starts).max()) + 1
    assert run.iterations == (unlimited if depth is None else min(depth, unlimited))
    assert len(step.last_directions) == run.iterations


MANY_GRAPHS = {"awkward-237": small_awkward_graph, "components-172": components_graph,
               "hubs-30x30": lambda: grid_with_hubs(30, 30, seed=4),
               "kronecker-10": lambda: kronecker(10, seed=5, progress=False)}


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=sorted(MANY_GRAPHS),
    split=["2-oec", "3-oec", "2-hvc", "3-hvc", "2-cvc", "3-cvc"],
    exchange=["bitmap-push", "queue-push", "bitmap-pull", "bitmap-auto"],
    depth=["none", "0", "1", "3"]), indirect=["device"])
def test_several_sources_and_a_depth_limit(device, name, split, exchange, depth):
    """Pairwise: starts on every GPU, each split, exchange and direction, depth limits of
    0, 1 and 3 levels and none, at warp 32 and 64; then a plain search on the same
    set-up starts from a clean state."""
    gpus, policy = int(split[0]), split[2:]
    exchange, direction = exchange.split("-")
    graph = MANY_GRAPHS[name]()
    with MultiGpuBFS(device, graph, gpus=gpus, policy=policy, exchange=exchange,
                     direction=direction) as step:
        starts = spread_starts(step)
        check_many(step, starts, None if depth == "none" else int(depth))
        check_many(step, starts[1:3], 2)
        check_run(step, starts[0], step.run(starts[0]))


class MastersOnly(MultiGpuBFS):
    """A reset that queues each start only on the GPU that masters it."""

    def _stage_starts(self, g, starts):
        part = g.part
        return super()._stage_starts(g, starts[(starts >= part.first_master)
                                               & (starts < part.end_master)])


def test_a_start_goes_to_every_gpu_that_has_its_edges(device):
    """Under the hybrid cut a hub's out-edges are spread over every GPU: each of them
    expands it at level 0, or the hub's neighbours on the others are missed."""
    graph = grid_with_hubs(30, 30, seed=4)
    hub = int(np.argmax(graph.degrees()))
    with MastersOnly(device, graph, gpus=3, policy="hvc") as step:
        assert all(g.degrees[hub] > 0 for g in step.gpus)
        step.search(None, sources=[hub, 5], depth_limit=2)
        levels, _ = step.results()
    with pytest.raises(AssertionError):
        np.testing.assert_array_equal(levels, nearest_start_levels(graph, [hub, 5], 2))


def beamer_directions(graph: CSRGraph, levels: np.ndarray, count: int) -> list[str]:
    """The first ``count`` directions of Beamer's rule (step 6's ALPHA and BETA) on the
    counts of a finished search's levels: the first frontier is every start."""
    from rodinia_bfs.variants.multi_gpu import ALPHA, BETA

    degrees, reached = graph.degrees(), levels >= 0
    n_f = np.bincount(levels[reached], minlength=count + 1)
    m_f = np.bincount(levels[reached], weights=degrees[reached],
                      minlength=count + 1).astype(np.int64)
    going, previous, m_u, taken = "push", 0, graph.num_edges - int(m_f[0]), []
    for k in range(count):
        if going == "push" and m_f[k] * ALPHA > m_u and n_f[k] > previous:
            going = "pull"
        elif going == "pull" and n_f[k] * BETA < graph.num_vertices and n_f[k] < previous:
            going = "push"
        taken.append(going)
        m_u, previous = m_u - int(m_f[k + 1]), n_f[k]
    return taken


@pytest.mark.parametrize("gpus", [1, 2])
def test_auto_from_several_sources_follows_beamers_rule(device, gpus):
    """Beamer's rule starts from the counts of every start (n_f, their out-edges m_f);
    on a Kronecker graph the middle levels go bottom-up, and a depth limit cuts the
    directions where it cuts the levels."""
    graph = kronecker(10, seed=5, progress=False)
    starts = sorted(set(sources_of(graph)) | {17, 600})
    with MultiGpuBFS(device, graph, gpus=gpus, direction="auto") as step:
        for depth in (None, 2):
            check_many(step, starts, depth)
            levels, _ = step.results()
            directions = step.last_directions
            assert directions == beamer_directions(graph, levels, len(directions))
            assert "pull" in directions or depth == 2
