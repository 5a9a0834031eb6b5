"""benchmarks/relaxed.py and relaxed_bfs.hip (the relaxed BFS tried for issue 26) on the
emulator at warp 32 and 64: exact levels and valid parents with 0 to 8 local levels a
round, on the contract graphs; a kernel that offers the wrong level goes wrong; the
script writes its tables. The GPU test runs where a GPU is visible."""

import json
from pathlib import Path

import numpy as np
import pytest

from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import cuda_backend, hip_backend
from rodinia_bfs.validate import check_parents

from helpers import GRAPHS, ROOT, broken_probe_levels, load_benchmark, scipy_levels, sources_of
from test_cuda_nvrtc import nvrtc  # noqa: F401  (fixtures: skip or fail as those files say)
from test_hiprtc import hiprtc  # noqa: F401



def load():
    return load_benchmark("relaxed")


def check(device, graph, local_levels, relaxed):
    probe = relaxed.RelaxedProbe(device, graph, local_levels, block_size=64, local_capacity=16)
    try:
        for source in sources_of(graph):
            levels, parents = probe.run(source)
            np.testing.assert_array_equal(levels, scipy_levels(graph, source))
            check_parents(graph, source, levels, parents)
            assert 1 <= probe.last_rounds <= graph.num_vertices
    finally:
        probe.close()


@pytest.mark.parametrize("name, local_levels", [
    ("grid-37x29", 0), ("grid-37x29", 8), ("awkward", 2), ("graphgen-3001", 8),
    ("kronecker-10", 2), ("hubs-40x40", 0)])
def test_levels_and_parents(device, name, local_levels):
    """Each contract graph once, with no local level, two, or eight (more than its local
    queue of 16 holds on the wider graphs: the rest goes to the global queue)."""
    check(device, GRAPHS[name](), local_levels, load())


def test_a_wrong_offer_is_caught(device, monkeypatch):
    graph = GRAPHS["grid-37x29"]()
    levels = broken_probe_levels(
        monkeypatch, load(), "label_of((bfs_u32)(mine >> 32) + 1, v)",
        "label_of((bfs_u32)(mine >> 32) + 2, v)",
        lambda relaxed, g: relaxed.RelaxedProbe(device, g, 2, block_size=64, local_capacity=16),
        graph)
    assert not np.array_equal(levels, scipy_levels(graph, 0))


def test_the_script(tmp_path, capsys):
    graph = Path(__file__).resolve().parent / "data" / "example.gr"
    code = load().main(["--backend", "cpu", "--files", str(graph), "--sources", "2",
                        "--repeats", "1", "--local-levels", "0,3", "--steps", "push_pull",
                        "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    results = json.loads((tmp_path / "results.json").read_text())
    (entry,) = results["graphs"]
    assert [r["label"] for r in entry["rungs"]] == ["relaxed, 0 local levels",
                                                    "relaxed, 3 local levels", "push_pull"]
    assert "| relaxed, 3 local levels |" in (tmp_path / "table.md").read_text()
    assert load().main(["--backend", "cpu", "--files", str(graph), "--local-levels", "x",
                        "--out", str(tmp_path)]) == 1
    assert "--local-levels takes numbers" in capsys.readouterr().err


@pytest.mark.gpu
def test_gpu_levels_and_parents(gpu):
    for local_levels in (0, 4):
        check(gpu, GRAPHS["grid-37x29"](), local_levels, load())


SOURCE = (ROOT / "benchmarks" / "relaxed_bfs.hip").read_text()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_compiles_with_nvrtc(arch, nvrtc):
    assert cuda_backend.compile_for_arch(SOURCE, arch, "relaxed_bfs.hip", headers=kernel_headers(),
                                         defines={"LOCAL_CAPACITY": 2048})


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_compiles_with_hiprtc(arch, hiprtc):
    assert hip_backend.compile_for_arch(SOURCE, arch, "relaxed_bfs.hip", headers=kernel_headers(),
                                        defines={"LOCAL_CAPACITY": 2048})
