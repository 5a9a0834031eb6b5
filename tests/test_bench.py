"""``rodinia-bfs bench``: the quick suite on the cpu backend, its JSON, table and plots;
a wrong variant makes it fail; GTEPS and the source choice on their own.

No timing is asserted here beyond "positive, median between min and max".
"""

import contextlib
import fcntl
import json
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from rodinia_bfs.bench import report
from rodinia_bfs.bench.runner import frontier_sizes, gteps, select_sources, traversed_edges
from rodinia_bfs.bench.suites import SUITES, default_sources, suite_graphs
from rodinia_bfs.cli import main
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.variants import STEPS

from helpers import DATA, awkward_graph, load_benchmark

QUICK_SPECS = {spec.name: spec for spec in suite_graphs("quick")}
QUICK_GRAPHS = list(QUICK_SPECS)
SOURCES = default_sources("quick")
#: Sources per graph of the quick-suite runs the tests share (every variant runs), and
#: the seed that draws them: seed 1 takes the grid's source 140 levels from its farthest
#: vertex, where seed 0 (the default) takes one 221 levels away.
RUN_SOURCES = 1
RUN_SEED = 1

META_FIELDS = {"date", "host", "cpu", "cpu_count", "suite", "sources_per_graph", "seed",
               "variants", "backend", "device", "arch", "warp_size", "total_memory",
               "device_description", "versions", "command", "argv"}
GRAPH_FIELDS = {"name", "description", "vertices", "edges", "directed", "max_degree",
                "mean_degree", "sources", "traversed_edges", "levels", "frontier_sizes",
                "upload_ms", "reference", "variants"}
SPREAD_FIELDS = {"median_ms", "min_ms", "max_ms", "times_ms", "gteps_median"}
VARIANT_FIELDS = SPREAD_FIELDS | {"setup_ms", "levels", "iterations", "valid",
                                  "speedup_vs_reference", "profile", "setup_cold_ms", "wall_ms",
                                  "wall_times_ms", "oneshot_ms", "oneshot_times_ms"}
ONESHOTS = min(3, RUN_SOURCES)

#: Steps whose searches of the quick suite's grid (over 200 levels) take a second each on
#: the emulator: on that graph each runs on its own.
SLOW_ON_THE_GRID = ["push_pull", "multi_gpu"]


def _quick_runs() -> dict:
    """The quick suite as the tests run it: run id -> (graph, the variants named with
    --variants, None for the default of every step). A run per graph, every step in it;
    the grid's steps in three runs: each slow one alone, then the others."""
    runs = {}
    for name in QUICK_GRAPHS:
        if name != "grid-128x128":
            runs[name] = (name, None)
            continue
        for slow in SLOW_ON_THE_GRID:
            runs[f"{name}-{slow}"] = (name, [slow])
        runs[f"{name}-others"] = (name, [s for s in STEPS if s not in SLOW_ON_THE_GRID])
    return runs


QUICK_RUNS = _quick_runs()


#: What each run writes besides its JSON (drawing the plots takes longer than the searches
#: of a run): the first graph's run its plots (--plot), each other graph's a results
#: folder (--out, with the same plots in its plots/); the grid's runs of a slow step
#: alone write their JSON only.
PLOT_RUN = next(iter(QUICK_RUNS))
OUT_RUNS = [run for run, (_, variants) in QUICK_RUNS.items()
            if run != PLOT_RUN and (variants is None or len(variants) > 1)]


class QuickRun(NamedTuple):
    code: int
    results: dict
    #: The folder the run drew its plots in: --plot's, or --out's plots/ (None: none).
    plot_dir: Path | None
    #: The results folder of --out (None where the run wrote none).
    folder: Path | None
    graph: str
    #: The steps the run measured: every step, or those --variants named.
    steps: list


@contextlib.contextmanager
def _locked(path: Path):
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="module", params=list(QUICK_RUNS))
def quick_run(request, tmp_path_factory) -> QuickRun:
    """The quick suite on the cpu backend through the command line, a graph per run
    (--graphs) and every variant of it (QUICK_RUNS), with its JSON, and its plots or its
    results folder (PLOT_RUN, OUT_RUNS): each run is shared by the tests below. Under
    pytest-xdist the workers share the runs: a run that another worker made (or is
    making) is read, not made again. A real graph whose file is absent is skipped."""
    run = request.param
    graph, variants = QUICK_RUNS[run]
    spec = QUICK_SPECS[graph]
    if not spec.available(DATA):
        pytest.skip(f"{spec.path(DATA)} not present")
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the folder of this session's workers
    out = root / f"bench-{run}"
    json_path, status = out / "results.json", out / "exit-status"
    folder = out / "folder" if run in OUT_RUNS else None
    plot_dir = out / "plots" if run == PLOT_RUN else folder and folder / "plots"
    with _locked(root / f"bench-{run}.lock"):
        if not status.is_file():
            out.mkdir(exist_ok=True)
            argv = ["bench", "--suite", "quick", "--backend", "cpu", "--sources", str(RUN_SOURCES),
                    "--seed", str(RUN_SEED), "--graphs", graph, "--data", str(DATA),
                    "--json", str(json_path)]
            if variants:
                argv += ["--variants", ",".join(variants)]
            if folder:
                argv += ["--out", str(folder)]
            if run == PLOT_RUN:
                argv += ["--plot", str(plot_dir)]
            status.write_text(str(main(argv)))
    return QuickRun(int(status.read_text()), json.loads(json_path.read_text()), plot_dir, folder,
                    graph, variants or list(STEPS))


def test_quick_suite_passes(quick_run):
    assert quick_run.code == 0


def test_json_meta(quick_run):
    results = quick_run.results
    meta = results["meta"]
    assert META_FIELDS <= set(meta)
    assert meta["backend"] == "cpu" and meta["device"]
    assert meta["warp_size"] in (32, 64)
    assert meta["suite"] == "quick" and meta["sources_per_graph"] == RUN_SOURCES
    assert meta["seed"] == RUN_SEED
    assert meta["variants"] == ["reference", *quick_run.steps]  # by default every step
    for library in ("rodinia_bfs", "python", "numpy", "scipy"):
        assert meta["versions"][library]
    assert meta["command"].startswith("rodinia-bfs bench --suite quick --backend cpu")


def test_json_graphs(quick_run):
    results = quick_run.results
    assert [g["name"] for g in results["graphs"]] == [quick_run.graph]
    assert results["skipped"] == []
    for graph in results["graphs"]:
        assert GRAPH_FIELDS <= set(graph), graph["name"]
        assert graph["vertices"] > 0 and graph["edges"] > 0
        assert graph["max_degree"] >= graph["mean_degree"] > 0
        assert len(graph["sources"]) == len(graph["traversed_edges"]) == len(graph["levels"]) == RUN_SOURCES
        assert sum(graph["frontier_sizes"]) <= graph["vertices"]
        assert len(graph["frontier_sizes"]) == graph["levels"][0]
        assert graph["upload_ms"] > 0
        _check_spread(graph["reference"])
        assert set(graph["variants"]) == set(quick_run.steps)
        for name, measured in graph["variants"].items():
            where = f"{name} on {graph['name']}"
            assert VARIANT_FIELDS <= set(measured), where
            assert measured["valid"] is True, where
            _check_spread(measured)
            assert measured["setup_ms"] > 0 and measured["setup_cold_ms"] > 0, where
            assert len(measured["wall_times_ms"]) == RUN_SOURCES, where
            assert all(t > 0 for t in measured["wall_times_ms"]), where
            assert measured["wall_ms"] == pytest.approx(np.median(measured["wall_times_ms"]))
            assert len(measured["oneshot_times_ms"]) == ONESHOTS, where
            assert all(t > 0 for t in measured["oneshot_times_ms"]), where
            assert measured["oneshot_ms"] == pytest.approx(np.median(measured["oneshot_times_ms"]))
            assert measured["levels"] == graph["levels"], where
            assert len(measured["iterations"]) == RUN_SOURCES
            assert measured["speedup_vs_reference"] == pytest.approx(
                graph["reference"]["median_ms"] / measured["median_ms"])
            profile = measured["profile"]
            assert profile["source"] == graph["sources"][0]
            assert profile["frontier_sizes"] == graph["frontier_sizes"]
            assert len(profile["level_times_ms"]) == measured["iterations"][0]
            assert all(t >= 0 for t in profile["level_times_ms"])


def _check_spread(measured):
    assert SPREAD_FIELDS <= set(measured)
    assert len(measured["times_ms"]) == RUN_SOURCES
    assert all(t > 0 for t in measured["times_ms"])
    assert measured["min_ms"] <= measured["median_ms"] <= measured["max_ms"]
    assert measured["min_ms"] == min(measured["times_ms"])
    assert measured["max_ms"] == max(measured["times_ms"])
    assert measured["gteps_median"] > 0


@pytest.mark.parametrize("quick_run", [PLOT_RUN, *OUT_RUNS], indirect=True)
def test_plots_are_pngs(quick_run):
    """--plot (and --out, in its plots/) draw the GTEPS, the frontiers and each graph's
    level times."""
    results, plot_dir = quick_run.results, quick_run.plot_dir
    names = {"gteps.png", "frontier.png"}
    names |= {f"level_time_{g['name']}.png" for g in results["graphs"]}
    assert {p.name for p in plot_dir.iterdir()} == names
    for name in names:
        assert (plot_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


@pytest.mark.parametrize("quick_run", OUT_RUNS, indirect=True)
def test_results_folder_and_docs_include(quick_run, tmp_path):
    results, folder = quick_run.results, quick_run.folder
    for name in ("results.json", "table.md", "table.csv", "command.txt", "plots/gteps.png"):
        assert (folder / name).is_file(), name
    assert (folder / "command.txt").read_text().strip() == results["meta"]["command"]
    table = (folder / "table.md").read_text()
    assert table == report.markdown_table(json.loads((folder / "results.json").read_text()))
    docs = tmp_path / "docs"
    text = report.docs_include(folder, docs, docs / "_generated")
    assert "CPU-emulator figures, not GPU figures" in text
    # Every file the include names exists: Sphinx's directives take "/..." from the
    # docs root, csv-table takes its path from the folder of the included file.
    named = 0
    for line in text.splitlines():
        for directive, base in ((".. literalinclude:: /", docs), (".. figure:: /", docs),
                                ("   :file: ", docs / "_generated")):
            if line.startswith(directive):
                assert (base / line[len(directive):]).resolve().is_file(), line
                named += 1
    assert named == 4 + len(results["graphs"])


def test_markdown_table(quick_run, capsys):
    """table.md (and table.csv) keep every figure: one row per graph, each variant's
    search time, GTEPS and speed-up, and what a user waits for."""
    results = quick_run.results
    lines = report.markdown_table(results).splitlines()
    header = lines[2]
    for name in quick_run.steps:
        assert f"| {name} ms | {name} GTEPS | {name} speed-up |" in header
        assert (f"| {name} set-up ms | {name} cold set-up ms | {name} wall ms "
                f"| {name} one-call ms |") in header
    rows = [line for line in lines if line.startswith("| ") and line != header]
    assert [row.split(" | ")[0][2:] for row in rows] == [g["name"] for g in results["graphs"]]
    csv_header = report.csv_table(results).splitlines()[0].split(",")
    assert csv_header == [cell.strip() for cell in header.strip("|").split("|")]


def test_results_without_waits_keep_their_table():
    """Results measured before set-up and wall times were have no such columns."""
    root = Path(__file__).resolve().parents[1]
    old = json.loads((root / "benchmarks/results/cpu-emulator-quick/results.json").read_text())
    header = report.table_rows(old)[0]
    assert not any("wall" in column or "set-up" in column for column in header)


def _terminal_table(out: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in out.splitlines() if line.startswith("| ")]


def test_the_printed_table_is_short(quick_run):
    """Ten columns, a row per graph and variant (the reference first); the figures are
    the JSON's."""
    results = quick_run.results
    rows = _terminal_table(report.terminal_table(results))
    assert rows[0] == ["graph", "vertices", "arcs", "variant", "median ms", "wall ms", "GTEPS",
                       "µs per level", "set-up ms", "valid"]
    assert len(rows) == 1 + len(results["graphs"]) * (1 + len(quick_run.steps))
    assert all(len(row) == 10 for row in rows)
    graph = results["graphs"][0]
    reference, step = rows[1], rows[2]
    assert reference[:2] == [graph["name"], f"{graph['vertices']:,}"]
    assert reference[3] == "reference" and reference[4] == report.format_ms(
        graph["reference"]["median_ms"])
    name = next(iter(graph["variants"]))
    measured = graph["variants"][name]
    assert step[:4] == ["", "", "", name]
    assert step[4:7] == [report.format_ms(measured["median_ms"]),
                         report.format_ms(measured["wall_ms"]),
                         report.format_gteps(measured["gteps_median"])]
    per_level = np.median([1000 * t / n for t, n in zip(measured["times_ms"], measured["levels"])])
    assert step[7:] == [report.format_ms(per_level), report.format_ms(measured["setup_ms"]), "yes"]


def test_out_without_matplotlib_skips_the_plots(tmp_path, capsys, monkeypatch):
    """--out writes the tables and says in one line how to get the plots; only an
    explicit --plot needs matplotlib (test_plot_needs_matplotlib)."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    folder = tmp_path / "run"
    code = main(["bench", "--variants", "reference", "--graphs", "kronecker-12",
                 "--sources", "1", "--out", str(folder)])
    assert code == 0
    for name in ("results.json", "table.md", "table.csv", "command.txt"):
        assert (folder / name).is_file(), name
    assert not (folder / "plots").exists()
    err = capsys.readouterr().err.splitlines()
    skipped = [line for line in err if "plots" in line]
    assert skipped == ["rodinia-bfs: plots skipped: matplotlib is not installed "
                       "(pip install 'rodinia-bfs[plot]' to get them)"]


def test_progress_on_stderr(tmp_path, capsys):
    code = main(["bench", "--backend", "cpu", "--graphs", "kronecker-12", "--sources", "1",
                 "--variants", "reference"])
    assert code == 0
    out, err = capsys.readouterr()
    assert "[graph 1/1] kronecker-12" in err
    rows = _terminal_table(out)
    assert [(row[0], row[3]) for row in rows[1:]] == [("kronecker-12", "reference")]
    assert "[graph" not in out


def test_wrong_result_fails_the_bench(tmp_path, capsys, monkeypatch):
    """A variant that gets one level wrong is marked invalid, has no times, and the
    bench exits with status 3 after writing its report."""
    name, step = next(iter(STEPS.items()))
    correct_run = step.run

    def wrong_run(self, source, profile=False):
        result = correct_run(self, source, profile=profile)
        levels = result.levels.copy()
        far = int(np.argmax(levels))
        levels[far] += 1
        return BFSResult(levels, result.parents, result.iterations, result.level_times_ms)

    monkeypatch.setattr(step, "run", wrong_run)
    json_path = tmp_path / "r.json"
    code = main(["bench", "--backend", "cpu", "--graphs", "grid-128x128", "--sources", "2",
                 "--variants", f"reference,{name}", "--json", str(json_path)])
    assert code == 3
    out, err = capsys.readouterr()
    assert "INVALID" in out
    assert f"{name} on grid-128x128: validation failed" in err
    measured = json.loads(json_path.read_text())["graphs"][0]["variants"][name]
    assert measured["valid"] is False and measured["error"]
    assert "median_ms" not in measured and "times_ms" not in measured


def _one_level_wrong(levels, parents):
    levels = np.array(levels)
    levels[int(np.argmax(levels))] += 1
    return levels, parents


@pytest.mark.parametrize("where", ["wall time", "one call"])
def test_wrong_wall_or_oneshot_result_fails_the_bench(tmp_path, capsys, monkeypatch, where):
    """The searches timed on the host clock and the one-shot calls are validated too."""
    import rodinia_bfs
    from rodinia_bfs.bench import runner

    if where == "wall time":
        correct = runner.search_and_download
        monkeypatch.setattr(runner, "search_and_download",
                            lambda step, source: _one_level_wrong(*correct(step, source)))
    else:
        correct = rodinia_bfs.bfs
        monkeypatch.setattr(rodinia_bfs, "bfs",
                            lambda *args, **kwargs: _one_level_wrong(*correct(*args, **kwargs)))
    json_path = tmp_path / "r.json"
    code = main(["bench", "--backend", "cpu", "--graphs", "grid-128x128", "--sources", "2",
                 "--variants", "reference,queue", "--json", str(json_path)])
    assert code == 3
    measured = json.loads(json_path.read_text())["graphs"][0]["variants"]["queue"]
    assert measured["valid"] is False and f"({where})" in measured["error"]
    assert not {"median_ms", "times_ms", "wall_ms", "oneshot_ms"} & set(measured)
    assert "INVALID" in capsys.readouterr().out


def test_wall_time_is_the_search_and_the_download(monkeypatch):
    """wall_ms holds the download of the result, which the search time leaves out. (On a
    busy machine the emulator's times vary more than a small download takes, so the
    download is made slow here: 100 ms.)"""
    import time

    from rodinia_bfs.bench.runner import time_step
    from rodinia_bfs.graphs.generators import grid2d
    from rodinia_bfs.progress import Progress
    from rodinia_bfs.runtime import get_device

    step_class = STEPS["queue"]
    download = step_class.results

    def slow_download(self, *args, **kwargs):
        time.sleep(0.1)
        return download(self, *args, **kwargs)

    monkeypatch.setattr(step_class, "results", slow_download)
    graph = grid2d(12, 10)
    sources = [0, 5, 7]
    expected = [bfs_reference(graph, s) for s in sources]
    result = time_step(get_device("cpu"), step_class, graph, sources, expected,
                       Progress("test", total=1), "test")
    assert result["valid"], result.get("error")
    assert result["wall_ms"] >= result["median_ms"]
    assert min(result["wall_times_ms"]) >= 100
    assert min(result["oneshot_times_ms"]) >= 100  # bfs() downloads its result too


def test_cold_setup_starts_from_an_empty_kernel_cache(tmp_path, monkeypatch):
    """The first set-up sees an empty kernel cache of its own; the warm set-up and the
    one-shot calls see the same one, with what the first put in it; the user's cache is
    not touched."""
    from rodinia_bfs.bench.runner import time_step
    from rodinia_bfs.graphs.generators import grid2d
    from rodinia_bfs.progress import Progress
    from rodinia_bfs.runtime import get_device, kernel_cache

    step_class = STEPS["queue"]
    seen = []
    original = step_class.__init__

    def recording_init(self, *args, **kwargs):
        folder = kernel_cache.cache_dir()
        seen.append((folder, sorted(p.name for p in folder.glob("*")) if folder.is_dir() else []))
        if not seen[1:]:  # as a GPU compile would, the first set-up fills the cache
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "entry.bin").write_bytes(b"code")
        original(self, *args, **kwargs)

    monkeypatch.setattr(step_class, "__init__", recording_init)
    graph = grid2d(12, 10)
    sources = [0, 5, 7, 100]
    expected = [bfs_reference(graph, s) for s in sources]
    with kernel_cache.using(tmp_path / "user"):  # the user's kernel cache
        result = time_step(get_device("cpu"), step_class, graph, sources, expected,
                           Progress("test", total=1), "test")
    assert result["valid"], result.get("error")
    assert len(seen) == 2 + 3  # cold, warm, and three one-shot calls
    folder = seen[0][0]
    assert seen[0] == (folder, [])
    assert seen[1:] == [(folder, ["entry.bin"])] * 4
    assert folder != tmp_path / "user" and not folder.exists()  # removed afterwards
    assert not (tmp_path / "user").exists()


def test_plot_needs_matplotlib(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    code = main(["bench", "--variants", "reference", "--graphs", "kronecker-12",
                 "--plot", str(tmp_path / "plots")])
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "matplotlib" in err
    assert not (tmp_path / "plots").exists()


def test_missing_real_graph_is_skipped(tmp_path, capsys):
    """A missing file is skipped with a note and the report is written; having measured
    nothing at all, the bench fails (status 1) and says why."""
    json_path = tmp_path / "r.json"
    code = main(["bench", "--variants", "reference", "--graphs", "as-22july06",
                 "--data", str(tmp_path), "--json", str(json_path)])
    assert code == 1
    err = capsys.readouterr().err
    assert "skipping as-22july06" in err
    assert "nothing was measured" in err.splitlines()[-1]
    results = json.loads(json_path.read_text())
    assert results["graphs"] == [] and results["skipped"][0]["name"] == "as-22july06"


@pytest.mark.parametrize("argv, message", [
    (["--graphs", "no-such-graph"], "has no graph 'no-such-graph'"),
    (["--variants", "reference,warp-drive"], "unknown variant 'warp-drive'"),
    (["--sources", "0"], "--sources must be at least 1"),
])
def test_bad_options(capsys, argv, message):
    assert main(["bench", "--backend", "cpu", *argv]) == 1
    assert message in capsys.readouterr().err


def test_suites_name_their_graphs():
    assert set(SUITES) == {"quick", "standard", "large"}
    standard = [spec.name for spec in suite_graphs("standard")]
    assert standard[:4] == ["rodinia-1M", "kronecker-20", "grid-1000x1000", "hubs-1000x1000"]
    assert {"road-NY", "road-BAY", "email-Enron", "as-22july06"} <= set(standard)
    large = [spec.name for spec in suite_graphs("large")]
    assert large == [*standard, "kronecker-22", "kronecker-23", "kronecker-24", "kronecker-25",
                     "road-FLA", "delaunay-20", "delaunay-22", "delaunay-24"]


# -- the measures on their own -----------------------------------------------------------


def test_sources_have_out_edges_and_are_reproducible():
    graph = awkward_graph()  # has isolated vertices and vertices without out-edges
    degrees = graph.degrees()
    sources = select_sources(graph, 16, seed=3)
    assert len(sources) == len(set(sources)) == 16
    assert all(degrees[s] >= 1 for s in sources)
    assert select_sources(graph, 16, seed=3) == sources
    assert select_sources(graph, 16, seed=4) != sources
    # asking for more sources than there are candidates gives every candidate once
    star = CSRGraph.from_edges([0, 0, 1], [1, 2, 0], 5)
    assert sorted(select_sources(star, 10)) == [0, 1]


def test_no_source_is_an_error():
    from rodinia_bfs.errors import RodiniaBFSError

    with pytest.raises(RodiniaBFSError, match="no vertex with an out-edge"):
        select_sources(CSRGraph.from_edges([], [], 4), 2)


def test_traversed_edges_and_gteps():
    # 0 -> 1 -> 2, 2 -> 0 and 2 -> 2 (a self loop); 3 -> 4 is out of reach from 0
    graph = CSRGraph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 2, 4], 5)
    levels = bfs_reference(graph, 0).levels
    assert list(levels) == [0, 1, 2, -1, -1]
    assert traversed_edges(graph, levels) == 4  # every out-edge of 0, 1 and 2
    assert frontier_sizes(levels) == [1, 1, 1]
    assert gteps(2_000_000_000, 1000.0) == pytest.approx(2.0)
    assert gteps(1_000_000, 0.5) == pytest.approx(2.0)


def test_undirected_edges_count_twice():
    path = CSRGraph.from_edges([0, 1], [1, 2], 3).symmetrize()  # 2 undirected edges
    assert traversed_edges(path, bfs_reference(path, 0).levels) == 4


# -- your own graph files, both GTEPS, the large suite ----------------------------------------


def test_bench_graph_files(tmp_path, capsys):
    """`bench FILE...` alone: the same measures, on the user's graphs, named after them."""
    from rodinia_bfs.graphs.formats import save_graph
    from rodinia_bfs.graphs.generators import grid2d

    first, second = tmp_path / "mine.mtx", tmp_path / "other.el.gz"
    save_graph(grid2d(20, 30), first)
    save_graph(awkward_graph(), second)
    json_path = tmp_path / "r.json"
    code = main(["bench", str(first), str(second), "--backend", "cpu", "--sources", "2",
                 "--variants", "rodinia", "--json", str(json_path)])
    assert code == 0
    results = json.loads(json_path.read_text())
    assert [g["name"] for g in results["graphs"]] == ["mine", "other"]
    assert results["meta"]["suite"] is None
    assert results["meta"]["files"] == [str(first), str(second)]
    assert results["meta"]["command"].startswith(f"rodinia-bfs bench {first} {second} --backend cpu")
    grid, other = results["graphs"]
    assert (grid["arcs"], grid["undirected_edges"], grid["directed"]) == (2 * 1150, 1150, False)
    assert other["directed"] and other["undirected_edges"] is None
    for graph in results["graphs"]:
        measured = graph["variants"]["rodinia"]
        assert measured["valid"] and len(measured["times_ms"]) == 2
    rows = _terminal_table(capsys.readouterr().out)
    assert [(row[0], row[3]) for row in rows[1:]] == [
        ("mine", "reference"), ("", "rodinia"), ("other", "reference"), ("", "rodinia")]


def test_bench_files_beside_a_suite(tmp_path):
    from rodinia_bfs.graphs.formats import save_graph
    from rodinia_bfs.graphs.generators import grid2d

    path = tmp_path / "mine.gr"
    save_graph(grid2d(10, 10), path)
    json_path = tmp_path / "r.json"
    assert main(["bench", str(path), "--suite", "quick", "--graphs", "kronecker-12",
                 "--variants", "reference", "--json", str(json_path)]) == 0
    results = json.loads(json_path.read_text())
    assert [g["name"] for g in results["graphs"]] == ["kronecker-12", "mine"]
    assert results["meta"]["sources_per_graph"] == SOURCES


def test_two_gteps_labelled(quick_run):
    """GTEPS as the arcs out of reached vertices, and Graph500's: the input edges of the
    traversed component, each undirected edge once."""
    results = quick_run.results
    for graph in results["graphs"]:
        assert len(graph["input_edges"]) == RUN_SOURCES
        for arcs, inputs in zip(graph["traversed_edges"], graph["input_edges"]):
            assert inputs <= arcs if not graph["directed"] else inputs == arcs
            if not graph["directed"]:
                assert 2 * inputs >= arcs
        for measured in [graph["reference"], *graph["variants"].values()]:
            ratio = measured["gteps_graph500_median"] / measured["gteps_median"]
            assert 0.45 < ratio <= 0.55 if not graph["directed"] else ratio == 1
    header = report.markdown_table(results).splitlines()[2]
    for name in quick_run.steps:
        assert f"| {name} speed-up | {name} Graph500 GTEPS |" in header
    assert "| arcs | undirected edges |" in header
    assert "Graph500 GTEPS: input edges of the traversed component" in report.caption(results)


def test_input_edges():
    from rodinia_bfs.bench.runner import input_edges

    # 0 - 1 - 2 and a self loop at 1, undirected; 3 - 4 apart
    graph = CSRGraph.from_edges([0, 1, 1, 2, 1, 3, 4], [1, 0, 2, 1, 1, 4, 3], 5).as_undirected()
    levels = bfs_reference(graph, 0).levels
    assert traversed_edges(graph, levels) == 5 and input_edges(graph, levels) == 3
    directed = CSRGraph.from_edges([0, 1, 1], [1, 2, 1], 3)
    levels = bfs_reference(directed, 0).levels
    assert input_edges(directed, levels) == traversed_edges(directed, levels) == 3


def test_large_suite_skips_what_cannot_fit_before_generating(monkeypatch, capsys):
    from rodinia_bfs.bench import runner
    from rodinia_bfs.graphs import generators

    def refuse(*args, **kwargs):
        raise AssertionError("generated a graph that was to be skipped")

    monkeypatch.setattr(generators, "kronecker", refuse)
    monkeypatch.setattr(runner, "available_host_memory", lambda: 1 << 30)
    code = main(["bench", "--suite", "large", "--graphs", "kronecker-22,kronecker-25",
                 "--variants", "reference"])
    assert code == 1  # nothing measured
    err = capsys.readouterr().err
    assert "skipping kronecker-22: needs about 2.2 GiB of free host memory, there are 1.0 GiB" in err
    assert "skipping kronecker-25: needs about" in err


def test_skips_what_the_device_cannot_hold():
    from rodinia_bfs.bench.runner import _too_big

    assert _too_big(3 << 30, 2 << 30, "device") == \
        "needs about 3.0 GiB of device memory, there are 2.0 GiB"
    assert _too_big(1 << 30, 2 << 30, "device") is None
    assert _too_big(1 << 30, None, "free host") is None


def test_runner_docstring_says_the_download_is_not_timed():
    from rodinia_bfs.bench import runner

    doc = " ".join(runner.__doc__.split())
    assert "events around ``step.search``" in doc
    assert "``step.results()``) comes after the second event and is not timed" in doc


def test_bench_progress_in_a_log_is_a_few_lines(capsys):
    """Not a terminal: notes, a first and a last line, no line per source."""
    assert main(["bench", "--backend", "cpu", "--graphs", "grid-128x128,kronecker-12",
                 "--sources", "3", "--variants", "reference"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "bench ..." and lines[-1].startswith("bench: 2/2 graphs, done in ")
    assert not any("source 1/3" in line for line in lines)
    assert len(lines) <= 8


def _measured(**medians) -> dict:
    return {name: {"valid": ms is not None, "median_ms": ms} for name, ms in medians.items()}


def test_fastest_lines():
    """A line per graph: the fastest variant and how far adaptive is from it; adaptive
    itself when it is fastest; an invalid variant never counts; no line without adaptive."""
    results = {"graphs": [
        {"name": "road", "variants": _measured(persistent=2.0, push_pull=4.0, adaptive=2.2)},
        {"name": "kron", "variants": _measured(push_pull=0.5, adaptive=0.4, balanced=None)},
        {"name": "bad", "variants": _measured(balanced=0.1, adaptive=0.3, queue=None)},
        {"name": "old", "variants": _measured(balanced=0.1, queue=0.2)},
    ]}
    assert report.fastest_lines(results) == [
        "road: fastest persistent (2.00 ms); adaptive 2.20 ms, 10.0 % behind",
        "kron: fastest adaptive (0.400 ms), 25.0 % ahead of push_pull (0.500 ms)",
        "bad: fastest balanced (0.100 ms); adaptive 0.300 ms, 200.0 % behind",
    ]


def test_markdown_table_says_the_fastest(quick_run):
    """A line per graph, where adaptive ran beside other steps; none in a run of one step."""
    results = quick_run.results
    text = report.markdown_table(results)
    for graph in results["graphs"]:
        line = re.search(rf"^- {re.escape(graph['name'])}: fastest \w+ ", text, re.M)
        assert bool(line) == ("adaptive" in quick_run.steps), graph["name"]


def test_multi_gpu_plot_draws_the_committed_split(tmp_path):
    """benchmarks/plot_multi_gpu.py draws compute and exchange per level from a results.json
    of benchmarks/multi_gpu_scaling.py (here the committed two-GPU run)."""
    import shutil

    root = Path(__file__).resolve().parents[1]
    shutil.copy(root / "benchmarks/results/h200x2-2026-11-22-multi-gpu/results.json", tmp_path)
    out = load_benchmark("plot_multi_gpu").plot(tmp_path)
    assert out == tmp_path / "levels.png"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
