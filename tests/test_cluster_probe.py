"""benchmarks/cluster.py and cluster_bfs.hip (the cluster of blocks tried for issue 26) on
the emulator at warp 32 and 64, where the blocks' slices are in global memory and a grid
barrier ends each level: exact levels and valid parents with one to four blocks, on the
contract graphs, with queues small enough that a level spreads over several blocks; a
queue too small is an error, not a wrong answer; a kernel that claims for the wrong level
goes wrong; the script writes its tables. NVRTC compiles the cluster form (sm_90) and the
grid-barrier form (sm_80); hiprtc the second. The GPU test runs where a GPU is visible."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import cuda_backend, hip_backend
from rodinia_bfs.validate import check_parents

from helpers import (GRAPHS, ROOT, broken_probe_levels, load_benchmark, probe_runs, scipy_levels,
                     sources_of)
from test_cuda_nvrtc import nvrtc  # noqa: F401  (fixtures: skip or fail as those files say)
from test_hiprtc import hiprtc  # noqa: F401

sys.path.insert(0, str(ROOT / "benchmarks"))

DEFINES = {"CLUSTER_BLOCKS": 8, "BLOCK_SIZE": 1024, "QUEUE_CAPACITY": 4096}
TUNED = {**DEFINES, "WARP_APPEND": 1, "SPREAD_BY_WARPS": 1, "ROW_WIDTH": 8, "CHECK_FIRST": 1,
         "SOLO_LIMIT": 1024}
OWN = {**DEFINES, "LOCAL_QUEUES": 1}


def load():
    return load_benchmark("cluster")


def check(device, graph, blocks, cluster, **options):
    # Queues that hold any level: a full one is tested on its own below.
    probe = cluster.ClusterProbe(device, graph, blocks, block_size=64,
                                 queue_capacity=graph.num_vertices, **options)
    for _, expected in probe_runs(probe, graph):
        assert probe.last_levels == int(expected.max()) + 1


@pytest.mark.parametrize("name, blocks, rung, solo", [
    ("grid-37x29", 1, 0, 0), ("grid-37x29", 4, 0, 0), ("awkward", 3, 0, 0),
    ("graphgen-3001", 4, 0, 0), ("kronecker-10", 2, 0, 0), ("hubs-40x40", 4, 0, 0),
    ("grid-37x29", 4, 1, 0), ("awkward", 3, 2, 0), ("graphgen-3001", 4, 3, 0),
    ("kronecker-10", 2, 4, 0), ("hubs-40x40", 4, 4, 0), ("grid-37x29", 4, 5, 8),
    ("kronecker-10", 3, 5, 16), ("awkward", 2, 5, 4), ("graphgen-3001", 4, 5, 1024),
    ("hubs-40x40", 1, 5, 64), ("awkward", 3, 6, 0), ("graphgen-3001", 2, 6, 0)])
def test_levels_and_parents(device, name, blocks, rung, solo):
    """Each contract graph on one block or several, with the basic cluster (a block of
    64 threads takes entries of every block's queue, and claims in every block's slice of
    the bitmap) and with the rungs of the ladder (warp appends, warps spread over the
    blocks, rows, a read first, block 0's solo levels with a limit small enough that
    the search goes from solo levels to the whole cluster and back; each block its own
    queue)."""
    cluster = load()
    options = dict(cluster.LADDER[rung][1])
    if solo:
        options["solo_limit"] = solo
    check(device, GRAPHS[name](), blocks, cluster, **options)


def test_a_full_queue_is_an_error(device):
    graph = GRAPHS["kronecker-10"]()
    probe = load().ClusterProbe(device, graph, 2, block_size=64, queue_capacity=8)
    try:
        with pytest.raises(DeviceError, match="queue filled up"):
            probe.run(int(np.argmax(graph.degrees())))
    finally:
        probe.close()


def test_a_wrong_level_is_caught(device, monkeypatch):
    graph = GRAPHS["grid-37x29"]()
    levels = broken_probe_levels(
        monkeypatch, load(), "a.levels[u[k]] = level + 1;", "a.levels[u[k]] = level + 2;",
        lambda cluster, g: cluster.ClusterProbe(device, g, 2, block_size=64, queue_capacity=256),
        graph)
    assert not np.array_equal(levels, scipy_levels(graph, 0))


def test_the_script(tmp_path, capsys):
    graph = Path(__file__).resolve().parent / "data" / "example.gr"
    code = load().main(["--backend", "cpu", "--files", str(graph), "--sources", "2",
                        "--repeats", "1", "--blocks", "1,2", "--block-size", "64", "--basic-only",
                        "--barrier-cost",
                        "--steps", "persistent", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    results = json.loads((tmp_path / "results.json").read_text())
    (entry,) = results["graphs"]
    assert [r["label"] for r in entry["rungs"]] == [
        "cluster of 1 (a grid barrier), basic", "cluster of 2 (a grid barrier), basic", "persistent"]
    table = (tmp_path / "table.md").read_text()
    assert "| cluster of 2 (a grid barrier), basic |" in table
    # An empty level for 1, 2 and 4 blocks, each a positive time.
    assert [(r["blocks"], r["barrier_us"] > 0, r["with_counts_us"] > 0)
            for r in results["meta"]["barrier_cost"]] == [(1, True, True), (2, True, True),
                                                          (4, True, True)]
    assert "| 4 | 64 | a grid barrier |" in table
    assert load().main(["--backend", "cpu", "--files", str(graph), "--blocks", "x",
                        "--out", str(tmp_path)]) == 1
    assert "--blocks takes numbers" in capsys.readouterr().err


@pytest.mark.gpu
def test_gpu_levels_and_parents(gpu):
    cluster = load()
    for name in ("grid-37x29", "hubs-40x40"):
        graph = GRAPHS[name]()
        for blocks, (_, options) in zip((1, 2, 8, 8, 8, 8, 4), cluster.LADDER):
            probe = cluster.ClusterProbe(gpu, graph, blocks, **options)
            try:
                for source in sources_of(graph):
                    levels, parents = probe.run(source)
                    np.testing.assert_array_equal(levels, scipy_levels(graph, source))
                    check_parents(graph, source, levels, parents)
            finally:
                probe.close()


SOURCE = (ROOT / "benchmarks" / "cluster_bfs.hip").read_text()


@pytest.mark.parametrize("arch, defines", [("sm_80", DEFINES), ("sm_90", DEFINES),
                                           ("sm_90", TUNED), ("sm_90", OWN)])
def test_compiles_with_nvrtc(arch, defines, nvrtc):
    code = cuda_backend.compile_for_arch(SOURCE, arch, "cluster_bfs.hip", headers=kernel_headers(),
                                         defines=defines)
    assert code


@pytest.mark.parametrize("arch, defines", [("gfx90a", DEFINES), ("gfx1030", TUNED),
                                           ("gfx90a", OWN)])
def test_compiles_with_hiprtc(arch, defines, hiprtc):
    assert hip_backend.compile_for_arch(SOURCE, arch, "cluster_bfs.hip", headers=kernel_headers(),
                                        defines=defines)
