"""benchmarks/bitmap_frontiers.py and bitmap_frontiers.hip (a BFS whose frontiers are
bitmaps, tried for issue 26) on the emulator at warp 32 and 64: exact levels and valid
parents, the search's depth; a warp that drops a vertex of a word is caught; the script
writes its tables. The GPU test runs where a GPU is visible."""

import json
from pathlib import Path

import numpy as np
import pytest

from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import cuda_backend, hip_backend

from helpers import GRAPHS, ROOT, broken_probe_levels, load_benchmark, probe_runs, scipy_levels
from test_cuda_nvrtc import nvrtc  # noqa: F401  (fixtures: skip or fail as those files say)
from test_hiprtc import hiprtc  # noqa: F401


def load():
    return load_benchmark("bitmap_frontiers")


def check(device, graph, blocks=None):
    probe = load().BitmapFrontiers(device, graph, block_size=64, blocks=blocks)
    for _, expected in probe_runs(probe, graph):
        assert probe.last_levels == expected.max() + 1


@pytest.mark.parametrize("name", ["grid-37x29", "awkward", "graphgen-3001", "kronecker-10",
                                  "hubs-40x40"])
def test_levels_and_parents(device, name):
    """Each contract graph on the whole grid (a word a lane, most lanes idle)."""
    check(device, GRAPHS[name]())


def test_few_blocks_read_many_words_each(device):
    """One block of 64 threads over the 94 words of 3,001 vertices: lanes read a word at
    each of two trips of the grid-strided loop, and warps gather many bits a round."""
    check(device, GRAPHS["graphgen-3001"](), blocks=1)


def test_a_dropped_vertex_is_caught(device, monkeypatch):
    """A lane that keeps only the lowest bit of its word loses the rest of the frontier."""
    graph = GRAPHS["grid-37x29"]()
    levels = broken_probe_levels(
        monkeypatch, load(), "bits &= bits - 1;", "bits = 0;",
        lambda bitmap, g: bitmap.BitmapFrontiers(device, g, block_size=64), graph)
    assert not np.array_equal(levels, scipy_levels(graph, 0))


def test_the_script(tmp_path, capsys):
    graph = Path(__file__).resolve().parent / "data" / "example.gr"
    code = load().main(["--backend", "cpu", "--files", str(graph), "--sources", "2",
                        "--repeats", "1", "--steps", "push_pull", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    (entry,) = json.loads((tmp_path / "results.json").read_text())["graphs"]
    assert [r["label"] for r in entry["rungs"]] == ["bitmap frontiers", "given frontiers",
                                                    "push_pull"]
    # Both probes on step 6's grid.
    assert entry["rungs"][0]["options"] == entry["rungs"][1]["options"] == {"blocks": entry["blocks"]}
    assert "| bitmap frontiers |" in (tmp_path / "table.md").read_text()
    assert load().main(["--backend", "cpu", "--files", str(graph), "--blocks", "0",
                        "--out", str(tmp_path)]) == 1
    assert "--blocks must be at least 1" in capsys.readouterr().err


@pytest.mark.gpu
def test_gpu_levels_and_parents(gpu):
    check(gpu, GRAPHS["grid-37x29"]())
    check(gpu, GRAPHS["graphgen-3001"](), blocks=1)


SOURCE = (ROOT / "benchmarks" / "bitmap_frontiers.hip").read_text()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_compiles_with_nvrtc(arch, nvrtc):
    assert cuda_backend.compile_for_arch(SOURCE, arch, "bitmap_frontiers.hip",
                                         headers=kernel_headers())


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_compiles_with_hiprtc(arch, hiprtc):
    assert hip_backend.compile_for_arch(SOURCE, arch, "bitmap_frontiers.hip",
                                        headers=kernel_headers())
