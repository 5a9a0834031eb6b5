"""The bench pairs each wall time with the search inside the same call: what getting the
result out costs is the wall time minus that call's own search, not the difference of
two medians from different runs."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from rodinia_bfs.bench import report, runner
from rodinia_bfs.cli import main
from rodinia_bfs.graphs.generators import grid2d
from rodinia_bfs.progress import Progress
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS

from helpers import load_benchmark

#: Made slow on purpose, so that the emulator's own variation (a few ms on a busy
#: machine) cannot hide it.
DELAY_S = 0.1


def _timed(monkeypatch, slow: str | None) -> dict:
    """``time_step`` of the queue step on a small grid, with its search or its download
    made :data:`DELAY_S` slower (or neither: ``None``)."""
    step_class = STEPS["queue"]
    original = getattr(step_class, slow or "search")

    def slowed(self, *args, **kwargs):
        if slow == "search":  # the delay is part of the search: before its end is marked
            outcome = original(self, *args, **kwargs)
            time.sleep(DELAY_S)
            return outcome
        time.sleep(DELAY_S)
        return original(self, *args, **kwargs)

    if slow is not None:
        monkeypatch.setattr(step_class, slow, slowed)
    graph = grid2d(12, 10)
    sources = [0, 5, 7]
    expected = [bfs_reference(graph, s) for s in sources]
    result = runner.time_step(get_device("cpu"), step_class, graph, sources, expected,
                              Progress("test", total=1), "test")
    assert result["valid"], result.get("error")
    assert len(result["wall_search_times_ms"]) == len(result["wall_times_ms"]) == len(sources)
    differences = np.subtract(result["wall_times_ms"], result["wall_search_times_ms"])
    assert result["wall_overhead_ms"] == pytest.approx(float(np.median(differences)))
    assert all(t > 0 for t in result["wall_search_times_ms"])
    return result


def test_a_slow_download_is_overhead(monkeypatch):
    result = _timed(monkeypatch, "results")
    assert result["wall_overhead_ms"] >= 1e3 * DELAY_S
    assert max(result["wall_search_times_ms"]) < 1e3 * DELAY_S


def test_a_slow_copy_is_the_copy_not_beyond_it(monkeypatch):
    """The copy timed again after each call, alone (from the step's arrays into the same
    pinned buffers), takes out of the overhead what the copy itself costs: made slow
    here, it is in the overhead and in the copy, and not beyond it."""
    device_class = type(get_device("cpu"))
    copy = device_class.memcpy_dtoh_async
    vertices = 12 * 10

    def slow_copy(self, dst, *args, **kwargs):
        if dst.nbytes == 4 * vertices:  # a levels or parents array, not a level's counts
            time.sleep(DELAY_S / 4)
        return copy(self, dst, *args, **kwargs)

    monkeypatch.setattr(device_class, "memcpy_dtoh_async", slow_copy)
    result = _timed(monkeypatch, None)
    copies = result["wall_copy_times_ms"]
    assert len(copies) == len(result["wall_times_ms"])
    assert min(copies) >= 1e3 * DELAY_S / 2  # levels and parents: two slow copies
    assert result["wall_overhead_ms"] >= 1e3 * DELAY_S / 2
    assert result["wall_beyond_copy_ms"] == pytest.approx(float(np.median(
        np.subtract(result["wall_times_ms"], result["wall_search_times_ms"]) - copies)))
    assert result["wall_beyond_copy_ms"] < 1e3 * DELAY_S / 5


def test_a_slow_search_is_not_overhead(monkeypatch):
    result = _timed(monkeypatch, "search")
    assert min(result["wall_search_times_ms"]) >= 1e3 * DELAY_S
    assert min(result["wall_times_ms"]) >= 1e3 * DELAY_S
    assert result["wall_overhead_ms"] < 1e3 * DELAY_S / 2


def test_the_step_keeps_its_own_search(monkeypatch):
    """The marking wrapper is the wall loop's alone: afterwards the step searches as before."""
    step_class = STEPS["queue"]
    graph = grid2d(6, 5)
    seen = []
    original = runner.search_and_download

    def spy(prepared, source):
        seen.append(prepared.step)
        return original(prepared, source)

    monkeypatch.setattr(runner, "search_and_download", spy)
    expected = [bfs_reference(graph, 0)]
    result = runner.time_step(get_device("cpu"), step_class, graph, [0], expected,
                              Progress("test", total=1), "test")
    assert result["valid"], result.get("error")
    step = seen[0]
    assert len(seen) == 2 and seen[1] is step  # the untimed first call, then the source
    assert "search" not in vars(step)


def test_result_copy_floor():
    """The floor is measured with real copies into pinned memory: a larger graph's takes
    longer than nothing, and the copy reads what the device holds."""
    device = get_device("cpu")
    assert runner.time_result_copy(device, grid2d(300, 300), repeats=3) > 0


def test_the_bench_records_pairs_and_floor(tmp_path):
    json_path = tmp_path / "r.json"
    code = main(["bench", "--backend", "cpu", "--graphs", "grid-128x128", "--sources", "2",
                 "--variants", "reference,queue", "--json", str(json_path)])
    assert code == 0
    results = json.loads(json_path.read_text())
    (graph,) = results["graphs"]
    assert graph["result_copy_ms"] > 0
    measured = graph["variants"]["queue"]
    assert len(measured["wall_search_times_ms"]) == len(measured["wall_copy_times_ms"]) == 2
    assert measured["wall_beyond_copy_ms"] < measured["wall_overhead_ms"]
    assert measured["wall_overhead_ms"] == pytest.approx(float(np.median(
        np.subtract(measured["wall_times_ms"], measured["wall_search_times_ms"]))))
    header, rows = report.table_rows(results)
    assert "result copy ms" in header and "queue wall - search ms" in header
    assert rows[0][header.index("queue wall - search ms")] == report.format_ms(
        measured["wall_overhead_ms"])
    assert rows[0][header.index("result copy ms")] == report.format_ms(graph["result_copy_ms"])


def test_wall_overhead_table_holds_each_pair_to_its_graphs_bound(tmp_path):
    """benchmarks/wall_overhead.py: the bound is the graph's own result_copy_ms + 0.1 ms."""
    module = load_benchmark("wall_overhead")
    results = {"meta": {"device": "dev", "date": "today"}, "graphs": [
        {"name": "a", "result_copy_ms": 0.05,
         "variants": {"x": {"wall_overhead_ms": 0.149}, "y": {"wall_overhead_ms": 0.151},
                      "old": {"wall_ms": 1.0}}},
        {"name": "b", "variants": {"x": {"wall_overhead_ms": 9.0}}},  # measured before the floor
        {"name": "c", "result_copy_ms": 0.01, "variants": {  # each call's own copy timed
            "x": {"wall_overhead_ms": 0.3, "wall_copy_times_ms": [0.2, 0.3, 0.1],
                  "wall_beyond_copy_ms": 0.09},
            "y": {"wall_overhead_ms": 0.3, "wall_copy_times_ms": [0.2], "wall_beyond_copy_ms": 0.11}}}]}
    found = module.rows(results)
    assert [(g, v, ok) for g, v, _, _, ok in found] == [
        ("a", "x", True), ("a", "y", False), ("c", "x", True), ("c", "y", False)]
    assert found[2][3] == pytest.approx(0.3)  # the median own copy + 0.1
    (tmp_path / "results.json").write_text(json.dumps(results))
    out = tmp_path / "table.md"
    assert module.main([str(tmp_path), "-o", str(out)]) == 0
    assert "2 of 4 (variant, graph) within the bound" in out.read_text()
