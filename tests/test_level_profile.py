"""benchmarks/level_profile.py on the emulator: every level of every search with its width,
edges, tier and time, the levels checked against the reference, and one clear line for a
step that does not stamp its levels or a search that goes wrong."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from rodinia_bfs.reference import bfs_reference

from helpers import load_benchmark

ROOT = Path(__file__).resolve().parents[1]
GRAPH = Path(__file__).resolve().parent / "data" / "example.gr"


def load(name: str):
    return load_benchmark(name)


def test_levels_widths_and_tiers(tmp_path, capsys):
    out = tmp_path / "profile"
    small = '{"variant": "adaptive", "label": "small queues", "sb_capacity": 64, ' \
            '"sb_edge_limit": 256, "handover": "capacity", "sb_block_size": 64, "block_size": 64}'
    code = load("level_profile").main(["persistent", small, "--backend", "cpu", "--suite",
                                       "quick", "--graphs", "grid-128x128", "--sources", "1",
                                       "--out", str(out), "--no-plots"])
    assert code == 0, capsys.readouterr().err
    results = json.loads((out / "results.json").read_text())
    (graph,) = results["graphs"]
    from rodinia_bfs.bench.suites import suite_graphs

    (spec,) = suite_graphs("quick", ["grid-128x128"])
    data = spec.build(None)
    for rung in graph["rungs"]:
        for search in rung["searches"]:
            levels = bfs_reference(data, search["source"]).levels
            depth = int(levels.max()) + 1
            assert search["levels"] == depth == len(search["tier"]) == len(search["us"])
            assert search["width"] == np.bincount(levels[levels >= 0]).tolist()
            assert sum(search["edges"]) == int(data.degrees()[levels >= 0].sum())
            assert all(us >= 0 for us in search["us"])
    persistent, adaptive = graph["rungs"]
    assert {t for s in persistent["searches"] for t in s["tier"]} <= {"single", "grid"}
    # Queues of 64 vertices: the search starts in the grid, the single block takes the
    # narrow levels and gives the wide ones (up to 128) back.
    assert {t for s in adaptive["searches"] for t in s["tier"]} >= {"single", "push"}
    with (out / "levels.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == sum(s["levels"] for r in graph["rungs"] for s in r["searches"])
    table = (out / "table.md").read_text()
    assert "| small queues |" in table and "| persistent | 0-63 | single |" in table


def test_only_steps_that_stamp(tmp_path, capsys):
    code = load("level_profile").main(["push_pull", "--backend", "cpu", "--files", str(GRAPH),
                                       "--sources", "1", "--out", str(tmp_path)])
    assert code == 1
    assert "only steps 5 and 7 stamp their levels" in capsys.readouterr().err


def test_a_wrong_search_stops_the_run(tmp_path, capsys, monkeypatch):
    from rodinia_bfs.variants.persistent import PersistentBFS

    correct = PersistentBFS.results

    def wrong(self):
        levels, parents = correct(self)
        levels[levels == 1] = 2
        return levels, parents

    monkeypatch.setattr(PersistentBFS, "results", wrong)
    code = load("level_profile").main(["persistent", "--backend", "cpu", "--files", str(GRAPH),
                                       "--sources", "1", "--out", str(tmp_path)])
    assert code == 1
    assert "wrong levels" in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()
