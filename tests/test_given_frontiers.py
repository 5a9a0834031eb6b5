"""benchmarks/given_frontiers.py and given_frontiers.hip (the floor of a top-down level,
issue 26) on the emulator at warp 32 and 64: exact levels and valid parents from the
reference's frontiers, with one thread or several a list, and from frontiers built as a
queue (its blocks' queues overflowing too); a kernel whose claim goes wrong is caught;
the barriers alone leave no BFS; the script writes its tables. The GPU test runs where a
GPU is visible."""

import json
from pathlib import Path

import numpy as np
import pytest

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import cuda_backend, hip_backend

from helpers import (GRAPHS, ROOT, broken_probe_levels, load_benchmark, probe_runs, scipy_levels,
                     sources_of)
from test_cuda_nvrtc import nvrtc  # noqa: F401  (fixtures: skip or fail as those files say)
from test_hiprtc import hiprtc  # noqa: F401


def load():
    return load_benchmark("given_frontiers")


def make(given, device, graph, sources, **options):
    expected = [scipy_levels(graph, s) for s in sources]
    return given.GivenFrontiers(device, graph, sources, expected, block_size=64, **options)


def check(device, graph, log_lanes):
    sources = sources_of(graph)
    for _ in probe_runs(make(load(), device, graph, sources, log_lanes=log_lanes), graph, sources):
        pass


def check_built(device, graph, local_entries, blocks=None):
    probe = load().BuiltFrontiers(device, graph, block_size=64, local_entries=local_entries,
                                  blocks=blocks)
    for _, expected in probe_runs(probe, graph):
        assert probe.last_levels == expected.max() + 1


@pytest.mark.parametrize("name, local_entries, blocks", [
    ("grid-37x29", 64, None), ("awkward", 4, None), ("graphgen-3001", 2, 2),
    ("kronecker-10", 16, 3), ("hubs-40x40", 64, 1)])
def test_built_frontiers(device, name, local_entries, blocks):
    """The queue built level by level: blocks' queues of 64 entries, or so few (2 to 16)
    that what a block claims overflows into the global queue, on grids of 1 to 3 blocks
    too (a block's threads then take several vertices each)."""
    check_built(device, GRAPHS[name](), local_entries, blocks)


def test_a_lost_entry_is_caught(device, monkeypatch):
    """A level that reads one entry fewer of the next frontier than were appended loses
    a vertex (the next level's entries then take its place)."""
    graph = GRAPHS["grid-37x29"]()
    levels = broken_probe_levels(
        monkeypatch, load(), "end += load_fresh(added);",
        "end += load_fresh(added) > 1 ? load_fresh(added) - 1 : load_fresh(added);",
        lambda given, g: given.BuiltFrontiers(device, g, block_size=64), graph)
    assert not np.array_equal(levels, scipy_levels(graph, 0))


def check_kept(device, graph, local_entries, blocks=None, keep=None):
    given = load()
    sources = sources_of(graph)
    depths = [int(scipy_levels(graph, s).max()) + 1 for s in sources]
    probe = given.KeptFrontiers(device, graph, sources, depths, block_size=64,
                                local_entries=local_entries, blocks=blocks, keep=keep)
    kept = local_entries if keep is None else keep
    spilled = 0
    for _, expected in probe_runs(probe, graph, sources):
        depth = int(expected.max()) + 1
        assert (probe.kept_most >= 1) == (depth > 1)  # found nothing from a lone source
        spilled += probe.spilled
        assert (probe.spilled > 0) == (probe.kept_most > kept)
    return spilled


@pytest.mark.parametrize("name, local_entries, blocks, keep", [
    ("grid-37x29", 64, None, None), ("awkward", 4, None, None), ("graphgen-3001", 2, 2, None),
    ("kronecker-10", 16, 3, None), ("hubs-40x40", 64, 1, None), ("grid-37x29", 64, None, 3),
    ("kronecker-10", 64, 2, 1)])
def test_kept_frontiers(device, name, local_entries, blocks, keep):
    """Each block keeping what it claims: in shared memory of 64 entries, or of so few (2
    to 16) that what a block finds spills into the global queue, which every block then
    reads, on grids of 1 to 3 blocks too; or keeping at most 1 or 3 of the 64 it has room
    for."""
    spilled = check_kept(device, GRAPHS[name](), local_entries, blocks, keep)
    if min(local_entries, keep or local_entries) <= 16:
        assert spilled > 0  # the spilled path ran


def test_a_block_keeps_at_most_what_it_has_room_for(device):
    graph = GRAPHS["grid-37x29"]()
    for keep in (0, 65):
        with pytest.raises(RodiniaBFSError, match=f"keeps 1 to 64 vertices, not {keep}"):
            load().KeptFrontiers(device, graph, [0], [2], block_size=64, local_entries=64,
                                 keep=keep)


def test_a_kept_vertex_lost_is_caught(device, monkeypatch):
    """A block that keeps one vertex fewer than it found at every level loses vertices."""
    graph = GRAPHS["grid-37x29"]()
    depth = int(scipy_levels(graph, 0).max()) + 1
    levels = broken_probe_levels(
        monkeypatch, load(), "kept_count[now] < a.keep ? kept_count[now] : a.keep;",
        "kept_count[now] < a.keep ? kept_count[now] - (kept_count[now] > 1) : a.keep;",
        lambda given, g: given.KeptFrontiers(device, g, [0], [depth], block_size=64), graph)
    assert not np.array_equal(levels, scipy_levels(graph, 0))


@pytest.mark.parametrize("name, log_lanes", [
    ("grid-37x29", 0), ("grid-37x29", 3), ("awkward", 2), ("graphgen-3001", 3),
    ("kronecker-10", 1), ("hubs-40x40", 3)])
def test_levels_and_parents(device, name, log_lanes):
    """Each contract graph once: a thread a list, or up to 2, 4 or 8 threads sharing one
    (the grid of 64-thread blocks has threads to spare on the narrow levels)."""
    check(device, GRAPHS[name](), log_lanes)


def test_frontiers_are_the_levels_in_order():
    levels = np.array([2, 0, -1, 1, 2, 1], np.int32)
    order, starts = load().frontiers(levels)
    assert order.tolist() == [1, 3, 5, 0, 4] and starts.tolist() == [0, 1, 3, 5]


def test_a_claim_that_goes_wrong_is_caught(device, monkeypatch):
    """A winner that stores the level it was reached from (l, not l + 1) fails the check."""
    graph = GRAPHS["grid-37x29"]()
    levels = broken_probe_levels(
        monkeypatch, load(), "k, l + 1, [](vertex_t) {});", "k, l, [](vertex_t) {});",
        lambda given, g: make(given, device, g, [0]), graph)
    assert not np.array_equal(levels, scipy_levels(graph, 0))


def test_a_source_without_frontiers_is_refused(device):
    graph = GRAPHS["grid-37x29"]()
    probe = make(load(), device, graph, [0])
    try:
        with pytest.raises(RodiniaBFSError, match="no frontiers from source 5"):
            probe.search(5)
    finally:
        probe.close()


def test_the_barriers_alone_are_no_search(device):
    graph = GRAPHS["grid-37x29"]()
    probe = make(load(), device, graph, [0], visit=False)
    try:
        levels, _ = probe.run(0)
    finally:
        probe.close()
    assert np.count_nonzero(levels >= 0) == 1  # the source alone


def test_the_script(tmp_path, capsys):
    graph = Path(__file__).resolve().parent / "data" / "example.gr"
    code = load().main(["--backend", "cpu", "--files", str(graph), "--sources", "2",
                        "--repeats", "1", "--steps", "push_pull", "--kept", "2048,1", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    results = json.loads((tmp_path / "results.json").read_text())
    (entry,) = results["graphs"]
    assert [r["label"] for r in entry["rungs"]] == ["given frontiers", "built frontiers",
                                                    "kept frontiers",
                                                    "kept frontiers, at most 1 a block",
                                                    "push_pull"]
    shares = entry["kept_shares"]
    assert list(shares) == ["kept frontiers", "kept frontiers, at most 1 a block"]
    assert all(len(s) == 2 and min(x["most_a_block_found"] for x in s) >= 1
               for s in shares.values())
    table_md = (tmp_path / "table.md").read_text()
    assert "Kept frontiers, over the sources" in table_md
    assert "Kept frontiers, at most 1 a block, over the sources" in table_md
    assert entry["barriers_alone"]["us_per_level"] > 0
    # The grid is step 6's, unless --blocks says otherwise.
    assert entry["rungs"][0]["options"]["blocks"] == entry["blocks"] > 1
    assert entry["rungs"][1]["options"]["blocks"] == entry["blocks"]
    code = load().main(["--backend", "cpu", "--files", str(graph), "--sources", "1",
                        "--repeats", "1", "--steps", "", "--blocks", "1", "--block-size", "64",
                        "--out", str(tmp_path / "one")])
    assert code == 0, capsys.readouterr().err
    (entry,) = json.loads((tmp_path / "one" / "results.json").read_text())["graphs"]
    assert entry["blocks"] == 1 and entry["block_size"] == 64
    # Without --kept, no kept frontiers.
    assert [r["label"] for r in entry["rungs"]] == ["given frontiers", "built frontiers"]
    assert entry["kept_shares"] == {}
    assert "Kept frontiers" not in (tmp_path / "one" / "table.md").read_text()
    assert entry["rungs"][1]["options"] == {"blocks": 1, "block_size": 64}
    assert "a grid of 1 blocks of 64 threads" in (tmp_path / "one" / "table.md").read_text()
    assert load().main(["--backend", "cpu", "--files", str(graph), "--block-size", "100",
                        "--out", str(tmp_path)]) == 1
    assert "--block-size must be a multiple of 32" in capsys.readouterr().err
    assert load().main(["--backend", "cpu", "--files", str(graph), "--blocks", "0",
                        "--out", str(tmp_path)]) == 1
    assert "--blocks must be at least 1" in capsys.readouterr().err
    for bad, why in (("0", "--kept takes numbers of at least 1"),
                     ("4096", "--kept: a block keeps at most 2048 vertices, got 4096")):
        assert load().main(["--backend", "cpu", "--files", str(graph), "--kept", bad,
                            "--out", str(tmp_path)]) == 1
        assert why in capsys.readouterr().err
    assert "| the grid barriers alone (after the rungs, not in turns) |" in (
        tmp_path / "table.md").read_text()


@pytest.mark.gpu
def test_gpu_levels_and_parents(gpu):
    for log_lanes in (0, 3):
        check(gpu, GRAPHS["grid-37x29"](), log_lanes)
    check_built(gpu, GRAPHS["grid-37x29"](), 2048)
    check_built(gpu, GRAPHS["graphgen-3001"](), 4)
    check_kept(gpu, GRAPHS["grid-37x29"](), 2048)
    assert check_kept(gpu, GRAPHS["graphgen-3001"](), 4) > 0
    assert check_kept(gpu, GRAPHS["graphgen-3001"](), 2048, keep=4) > 0


SOURCE = (ROOT / "benchmarks" / "given_frontiers.hip").read_text()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_compiles_with_nvrtc(arch, nvrtc):
    assert cuda_backend.compile_for_arch(SOURCE, arch, "given_frontiers.hip",
                                         headers=kernel_headers(), defines={"LOG_LANES": 3, "LOCAL_ENTRIES": 2048})


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_compiles_with_hiprtc(arch, hiprtc):
    assert hip_backend.compile_for_arch(SOURCE, arch, "given_frontiers.hip",
                                        headers=kernel_headers(), defines={"LOG_LANES": 3, "LOCAL_ENTRIES": 2048})
