"""Time a ladder of rungs (a basic kernel, then each optimization) in one session.

    python benchmarks/ladder.py persistent_basic persistent --suite standard \\
        --graphs road-NY,road-BAY,grid-1000x1000 --sources 16 --repeats 5 \\
        --backend cuda --out benchmarks/results/<device>-<date>-ladder-step5

A rung is a step's name (``persistent_basic``) or a JSON object of a step's constructor
options with its ``variant`` and an optional ``label``
(``'{"variant": "persistent", "label": "no rows", "rows": false}'``); the default ladder
is step 5's, ``persistent_basic`` then ``persistent``. Graphs come from a suite
(``--graphs``) or from files (``--files``).

On each graph every rung is set up at once and warmed up. Then the rungs take turns: each
source is timed under every rung before the next source (events around ``search``, as
``rodinia-bfs bench`` does), with the rungs in a different order each time, and the whole
round over the sources is repeated ``--repeats`` times, so that a drift of the machine's
speed falls on every rung alike. Every timed result is checked against the CPU reference
levels (outside the timed region). For each rung: the median over all timed searches,
the median of each repeat (their range is the spread: how much the same rung moves from
one round to the next), the microseconds per level (a search's time over its levels,
median), and the speed-up over the rung before and over the first. A speed-up counts as
a win only where the two rungs' spreads do not overlap.

``--out DIR`` receives ``results.json`` (every time), ``table.md`` (the tables printed)
and ``command.txt``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shlex
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rodinia_bfs  # noqa: E402
from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.runner import select_sources  # noqa: E402
from rodinia_bfs.bench.suites import DEFAULT_DATA_DIR, file_specs, suite_graphs  # noqa: E402
from rodinia_bfs.errors import RodiniaBFSError, ValidationError  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402

#: Step 5's ladder: the basic kernel, then the tuned step.
DEFAULT_RUNGS = ["persistent_basic", "persistent"]


def parse_rung(text: str) -> dict:
    """``"persistent"`` or ``'{"variant": "persistent", "rows": false}'`` -> a rung."""
    if text.lstrip().startswith("{"):
        options = json.loads(text)
        if not isinstance(options, dict) or "variant" not in options:
            raise RodiniaBFSError(f"a rung given as JSON needs a \"variant\": {text}")
    else:
        options = {"variant": text}
    variant = options.pop("variant")
    get_step(variant)  # an unknown name fails now, before anything is measured
    label = options.pop("label", None) or (
        variant if not options else f"{variant} {json.dumps(options, sort_keys=True)}")
    return {"label": label, "variant": variant, "options": options}


def timed_search(device, step, source: int, begin, end) -> float:
    """Milliseconds of one ``step.search(source)`` on the step's stream, between the
    events ``begin`` and ``end``, with the device idle before it."""
    device.synchronize()
    begin.record(step.stream)
    step.search(source)
    end.record(step.stream)
    end.synchronize()
    return begin.elapsed_ms(end)


def time_rungs(device, steps: list, sources: list[int], expected: list[np.ndarray],
               repeats: int) -> list[list[list[float]]]:
    """Milliseconds of each search: ``times[rung][repeat][source]``."""
    begin, end = device.event(), device.event()
    times = [[[] for _ in range(repeats)] for _ in steps]
    turn = 0
    for repeat in range(repeats):
        for source, levels in zip(sources, expected):
            # The rungs in a different order each time: none always goes first.
            for k in ((i + turn) % len(steps) for i in range(len(steps))):
                step = steps[k]
                times[k][repeat].append(timed_search(device, step, source, begin, end))
                got, _ = step.results()  # not timed
                if not np.array_equal(got, levels):
                    wrong = int(np.count_nonzero(got != levels))
                    raise ValidationError(f"{step.name} (rung {k}): {wrong} wrong levels from "
                                          f"source {source}")
            turn += 1
    return times


def summarise(times: list[list[float]], depths: list[int]) -> dict:
    """One rung's figures from its ``times[repeat][source]``."""
    every = [t for repeat in times for t in repeat]
    per_level = [1000.0 * t / d for repeat in times for t, d in zip(repeat, depths)]
    repeat_medians = [statistics.median(repeat) for repeat in times]
    return {
        "median_ms": statistics.median(every),
        "min_ms": min(every),
        "max_ms": max(every),
        "repeat_medians_ms": repeat_medians,
        "spread_ms": [min(repeat_medians), max(repeat_medians)],
        "us_per_level": statistics.median(per_level),
        "times_ms": times,
    }


def compare(rows: list[dict]) -> None:
    """Speed-ups over the rung before and over the first, and whether each step up is
    larger than the spread (the two rungs' ranges of repeat medians do not overlap)."""
    for k, row in enumerate(rows):
        before, first = rows[max(k - 1, 0)], rows[0]
        row["step_speedup"] = before["median_ms"] / row["median_ms"]
        row["total_speedup"] = first["median_ms"] / row["median_ms"]
        low, high = row["spread_ms"]
        row["beyond_spread"] = None if k == 0 else (
            high < before["spread_ms"][0] or low > before["spread_ms"][1])


def markdown(graph: dict, repeats: int) -> str:
    lines = [f"### {graph['name']}", "",
             f"{graph['vertices']:,} vertices, {graph['edges']:,} edges; {len(graph['sources'])} "
             f"sources, {graph['median_levels']} levels (median); {repeats} repeats.", "",
             "| rung | median ms | spread of repeats (ms) | µs a level | step speed-up "
             "| total speed-up | step beyond spread |",
             "|---|---:|---:|---:|---:|---:|:---:|"]
    for row in graph["rungs"]:
        low, high = row["spread_ms"]
        beyond = {None: "", True: "yes", False: "no"}[row["beyond_spread"]]
        lines.append(f"| {row['label']} | {row['median_ms']:.4f} | {low:.4f}-{high:.4f} "
                     f"| {row['us_per_level']:.2f} | {row['step_speedup']:.2f}x "
                     f"| {row['total_speedup']:.2f}x | {beyond} |")
    return "\n".join(lines) + "\n"


def reference_runs(graph, count: int) -> tuple[list[int], list[np.ndarray], list[int]]:
    """``count`` sources of ``graph``, the CPU reference's levels from each, and each
    search's depth (its levels)."""
    sources = select_sources(graph, count)
    expected = [bfs_reference(graph, s).levels for s in sources]
    return sources, expected, [int(levels.max()) + 1 for levels in expected]


def rung_rows(rungs: list[dict], times: list, depths: list[int]) -> list[dict]:
    """Each rung with its figures (summarise) and its speed-ups over the ones before."""
    rows = [{**rung, **summarise(t, depths)} for rung, t in zip(rungs, times)]
    compare(rows)
    return rows


def ladder_graph(device, spec, data: Path, rungs: list[dict], count: int, repeats: int) -> dict:
    """Set up every rung on one graph, warm each up, time them in turns."""
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, count)
    steps = []
    try:
        for rung in rungs:
            steps.append(get_step(rung["variant"])(device, graph, **rung["options"]))
            steps[-1].run(sources[0])  # warm-up: caches, first-launch costs
        times = time_rungs(device, steps, sources, expected, repeats)
    finally:
        for step in steps:
            step.close()
    return {"name": spec.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "sources": sources, "levels": depths, "median_levels": statistics.median(depths),
            "rungs": rung_rows(rungs, times, depths)}


# -- what the benchmark scripts beside this one share (level_profile.py, relaxed.py) -----

def add_graph_arguments(parser: argparse.ArgumentParser) -> None:
    """The graphs (a suite's, or files), the device and the output folder."""
    parser.add_argument("--graphs", help="comma-separated graph names of --suite")
    parser.add_argument("--files", nargs="+", default=[], help="graph files")
    parser.add_argument("--suite", default="standard", help="suite of --graphs (default: standard)")
    parser.add_argument("--backend", default="auto", help="auto, hip, cuda or cpu (default: auto)")
    parser.add_argument("--warp-size", type=int, choices=(32, 64),
                        help="the cpu emulator's warp size")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="real graphs' folder")
    parser.add_argument("--out", type=Path, required=True, help="folder for the results")


def graph_specs(args) -> list:
    """The graphs that ``--graphs`` and ``--files`` name, at least one."""
    specs = (suite_graphs(args.suite, args.graphs.split(",")) if args.graphs else [])
    specs += file_specs(args.files)
    if not specs:
        raise RodiniaBFSError("name graphs with --graphs or --files")
    return specs


def write_run(args, script: str, argv, device, graphs: list, title: str, tables: str,
              indent: int | None = 1, **meta) -> None:
    """``results.json`` (where, when, the command, ``meta`` and ``graphs``), ``table.md``
    (``title`` on the device and day, then ``tables``) and ``command.txt`` into ``--out``."""
    given = argv if argv is not None else sys.argv[1:]
    command = shlex.join(["python", f"benchmarks/{script}", *given])
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(), "device": device.name, "backend": device.backend,
            "device_description": device.describe(), "rodinia_bfs": rodinia_bfs.__version__,
            "command": command, **meta}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps({"meta": meta, "graphs": graphs},
                                                      indent=indent) + "\n")
    (args.out / "table.md").write_text(f"{title} on {device.describe()}, {meta['date'][:10]}.\n\n"
                                       + tables)
    (args.out / "command.txt").write_text(command + "\n")


# [probe-helpers-begin]
# What the probes beside the steps share (benchmarks/relaxed.py, benchmarks/cluster.py):
# a kernel tried as a rung of its own, set up and timed with the steps it is measured
# against, its results checked more strictly than a step's (the parents too).

def parse_numbers(text: str, option: str, least: int) -> list[int]:
    """``"0,2,4"`` -> ``[0, 2, 4]``: the comma-separated values of ``option``, each at least
    ``least``."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RodiniaBFSError(f"{option} takes numbers, got {text!r}") from None
    if not values or min(values) < least:
        raise RodiniaBFSError(f"{option} takes numbers of at least {least}, got {text!r}")
    return values


def add_probe_arguments(parser: argparse.ArgumentParser, steps: str) -> None:
    """A probe's --steps (timed beside it), --sources, --repeats and the graph arguments."""
    parser.add_argument("--steps", default=steps,
                        help=f"steps timed beside it (default {steps}; '' none)")
    parser.add_argument("--sources", type=int, default=8, help="sources per graph (default: 8)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="rounds over the sources (default: 3)")
    add_graph_arguments(parser)


def probe_setup(args) -> tuple[list[str], list, object]:
    """The steps, the graphs and the device a probe's arguments name, each checked."""
    if args.sources < 1 or args.repeats < 1:
        raise RodiniaBFSError("--sources and --repeats must be at least 1")
    steps = [s for s in args.steps.split(",") if s]
    for name in steps:
        get_step(name)
    specs = graph_specs(args)
    device, why = open_device(args.backend, warp_size=args.warp_size)
    print(f"{device.describe()} [{why}]", flush=True)
    return steps, specs, device


def check_probe(runner, label: str, graph, sources: list[int], expected: list) -> list:
    """Run a probe from every source: its levels must be the reference's and its parents
    pass Graph500's rules. Returns what ``runner.run`` returned for each."""
    from rodinia_bfs.validate import check_parents

    runs = []
    for source, want in zip(sources, expected):
        levels, parents = runner.run(source)
        if not np.array_equal(levels, want):
            wrong = int(np.count_nonzero(levels != want))
            raise RodiniaBFSError(f"{label}: {wrong} wrong levels from source {source}")
        check_parents(graph, source, levels, parents)
        runs.append((levels, parents))
    return runs


class Probe:
    """What a probe's kernel host shares with the other probe: the graph's two CSR arrays
    on the device, buffers freed together, a search's levels and parents downloaded, and
    ``run``/``close`` as a step has them. A probe sets ``device``, ``graph`` and
    ``stream``, calls ``_upload_graph`` once its checks have passed, and defines
    ``search(source)`` and ``results()`` (what ``time_rungs`` calls)."""

    def _upload_graph(self) -> None:
        """``offsets`` and ``edges`` on the device; every later ``_alloc`` joins them."""
        graph = self.graph
        self.buffers = [self.device.to_device(graph.offsets),
                        self.device.to_device(graph.targets if graph.num_edges
                                              else np.zeros(1, np.int32))]
        self.offsets, self.edges = self.buffers

    def _alloc(self, nbytes: int):
        buf = self.device.malloc(nbytes)
        self.buffers.append(buf)
        return buf

    def _levels_and_parents(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.graph.num_vertices
        return (self.device.from_device(self.levels, n, np.int32),
                self.device.from_device(self.parents, n, np.int32))

    def run(self, source: int):
        self.search(source)
        return self.results()

    def close(self) -> None:
        for buf in self.buffers:
            self.device.free(buf)
        self.buffers = []
# [probe-helpers-end]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rungs", nargs="*", default=DEFAULT_RUNGS,
                        help="step names or JSON objects (default: persistent_basic persistent)")
    parser.add_argument("--sources", type=int, default=16, help="sources per graph (default: 16)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="rounds over the sources (default: 5)")
    add_graph_arguments(parser)
    args = parser.parse_args(argv)
    try:
        if args.sources < 1 or args.repeats < 1:
            raise RodiniaBFSError("--sources and --repeats must be at least 1")
        rungs = [parse_rung(text) for text in args.rungs]
        specs = graph_specs(args)
        device, why = open_device(args.backend, warp_size=args.warp_size)
        print(f"{device.describe()} [{why}]", flush=True)
        graphs = []
        for spec in specs:
            graphs.append(ladder_graph(device, spec, args.data, rungs, args.sources, args.repeats))
            print(markdown(graphs[-1], args.repeats), flush=True)
    except (RodiniaBFSError, json.JSONDecodeError) as exc:
        print(f"ladder: {exc}", file=sys.stderr)
        return 1
    write_run(args, "ladder.py", argv, device, graphs, "Ladder",
              "\n".join(markdown(graph, args.repeats) for graph in graphs),
              sources_per_graph=args.sources, repeats=args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
