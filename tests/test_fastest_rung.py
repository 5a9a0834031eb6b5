"""benchmarks/fastest_rung.py: how far the default step is behind the fastest rung."""

import json
from pathlib import Path

import pytest

from helpers import load_benchmark


def load():
    return load_benchmark("fastest_rung")


def rung(label, median, low, high):
    return {"label": label, "median_ms": median, "spread_ms": [low, high]}


def write_run(folder: Path, graphs) -> Path:
    folder.mkdir()
    path = folder / "results.json"
    path.write_text(json.dumps({"meta": {}, "graphs": [
        {"name": name, "rungs": rungs} for name, rungs in graphs]}))
    return path


def test_behind_and_apart(tmp_path):
    run = write_run(tmp_path / "standard", [
        ("roads", [rung("persistent", 1.0, 0.99, 1.01), rung("adaptive", 1.1, 1.08, 1.12)]),
        ("small", [rung("push_pull", 0.20, 0.19, 0.22), rung("adaptive", 0.21, 0.20, 0.23)]),
        ("mesh", [rung("push_pull", 3.3, 3.2, 3.4), rung("adaptive", 3.0, 2.9, 3.1)])])
    tool = load()
    rows = tool.rows("adaptive", [run])
    assert [r["fastest"]["label"] for r in rows] == ["persistent", "push_pull", "adaptive"]
    assert rows[0]["behind"] == pytest.approx(0.1) and rows[0]["apart"]
    assert rows[1]["behind"] == pytest.approx(0.05) and not rows[1]["apart"]  # spreads overlap
    assert rows[2]["behind"] == 0.0 and not rows[2]["apart"]
    text = tool.markdown("adaptive", rows)
    assert ("| roads | persistent | 1.0000 | 0.9900-1.0100 | 1.1000 | 1.0800-1.1200 | 10.0 % | yes "
            "| standard |") in text
    assert text.rstrip().endswith("Furthest behind, by run: standard: roads, 10.0 %.")


def test_a_run_without_the_rung_is_refused(tmp_path, capsys):
    run = write_run(tmp_path / "other", [("g", [rung("push_pull", 1.0, 1.0, 1.0)])])
    with pytest.raises(SystemExit, match="has no rung 'adaptive'"):
        load().main(["adaptive", str(run)])


def test_writes_the_summary(tmp_path):
    run = write_run(tmp_path / "large", [("g", [rung("adaptive", 1.0, 0.9, 1.1)])])
    out = tmp_path / "summary.md"
    assert load().main(["adaptive", str(run), "-o", str(out)]) == 0
    assert "| g | adaptive |" in out.read_text()


def test_among_leaves_other_rungs_out(tmp_path):
    """A run that timed a probe beside the steps: --among names the rungs that count."""
    run = write_run(tmp_path / "probe", [
        ("g", [rung("push_pull", 1.0, 0.99, 1.01), rung("adaptive", 1.05, 1.04, 1.06),
               rung("push_pull, 132 blocks", 0.8, 0.79, 0.81)])])
    tool = load()
    assert tool.rows("adaptive", [run])[0]["fastest"]["label"] == "push_pull, 132 blocks"
    row = tool.rows("adaptive", [run], ["push_pull"])[0]
    assert row["fastest"]["label"] == "push_pull"
    assert row["behind"] == pytest.approx(0.05)
    out = tmp_path / "t.md"
    assert tool.main(["adaptive", str(run), "--among", "push_pull,adaptive", "-o", str(out)]) == 0
    assert "| g | push_pull |" in out.read_text()
    with pytest.raises(SystemExit, match="has no rung 'persistent'"):
        tool.main(["adaptive", str(run), "--among", "persistent,push_pull"])
