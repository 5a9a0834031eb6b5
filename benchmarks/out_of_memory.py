"""Step 9 measured: each way of reaching edges in host memory, against the graph in memory.

For every graph (a name of the ``large`` suite, e.g. ``kronecker-20``, ``road-NY``,
``kronecker-24``, or a graph file), from ``--sources`` sources:

* the in-memory step (``--in-memory``, default the default GPU step), median ms;
* each mode of ``out_of_memory`` (subgraph, zero_copy, managed): median ms over
  ``--repeats`` searches per source after one untimed one, µs per level, and from one
  profiled search per source the bytes moved host -> device and the milliseconds of
  each level, their totals and the bytes' share of the edge array (4 bytes per arc).
  Managed memory is timed cold, its pages sent back to the host before each search
  (untimed), as a graph larger than the device keeps them; warm (pages left where the
  last search put them) beside it;
* with ``--ladder``, the step's rungs on zero_copy, from the basic kernels (every rung
  off) adding one at a time: edge_push, aggregate, aligned, single_block; and the
  subgraph mode with NumPy's gather beside the compiled one;
* every result validated against the CPU reference (levels and parents);
* and once per run, the host -> device bandwidth of a pinned ``hipMemcpyAsync`` of
  ``--copy-mib`` MiB: the floor of every mode, which must at least move its bytes.

    python benchmarks/out_of_memory.py kronecker-20 road-NY [FILE ...]
        [--backend auto|hip|cuda|cpu] [--sources 4] [--repeats 5]
        [--modes subgraph,zero_copy,managed] [--in-memory adaptive] [--copy-mib 256]
        [--chunk-edges N] [--gather-threads N] [--single-block N] [--ladder]
        [-o benchmarks/results/out-of-memory]

writes ``command.txt``, ``out_of_memory.json`` (``.json.gz`` past 1 MiB) and ``table.md``
(markdown) to the folder; ``--table-from FOLDER`` writes a folder's ``table.md`` again from
its JSON.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shlex
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402

from rodinia_bfs.api import DEFAULT_VARIANT  # noqa: E402
from rodinia_bfs.bench.runner import select_sources  # noqa: E402
from rodinia_bfs.bench.suites import DEFAULT_DATA_DIR, file_specs, suite_graphs  # noqa: E402
from rodinia_bfs.errors import RodiniaBFSError  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.runtime import get_device  # noqa: E402
from rodinia_bfs.validate import validate_result  # noqa: E402
from rodinia_bfs.variants import STEPS  # noqa: E402
from rodinia_bfs.variants.out_of_memory import MODES, RUNGS, OutOfMemoryBFS  # noqa: E402

#: The ladder of --ladder: each rung adds one option to those before it.
LADDER = [("basic", {**{k: False for k in RUNGS}, "single_block": 0}),
          ("+ edge_push", {"edge_push": True}), ("+ aggregate", {"aggregate": True}),
          ("+ aligned", {"aligned": True}), ("+ single_block", {"single_block": None})]


def graph_specs(names: list[str]):
    """Names of the ``large`` or ``quick`` suite and files, in the order given."""
    known = {spec.name: spec for suite in ("quick", "large") for spec in suite_graphs(suite)}
    specs = []
    for name in names:
        if Path(name).exists():
            specs += file_specs([name])
        elif name in known:
            specs.append(known[name])
        else:
            raise RodiniaBFSError(f"{name!r} is neither a graph file nor a graph of the "
                                  f"suites; they have: {', '.join(known)}")
    return specs


def remember_in_lists(graph) -> None:
    """Every set-up of the mapped modes builds the in-lists hubs first on the host; a
    run that sets up many times on one graph builds them once."""
    build, built = graph.hubs_first, []

    def hubs_first(*args, **kwargs):
        if not built:
            built.append(build(*args, **kwargs))
        return built[0]

    object.__setattr__(graph, "hubs_first", hubs_first)  # the graph is a frozen dataclass


def copy_bandwidth(device, mib: int, repeats: int) -> dict:
    """GB/s of a pinned host -> device copy of ``mib`` MiB, timed with events."""
    nbytes = mib << 20
    host = device.host_malloc(nbytes, np.uint8)
    buf = device.malloc(nbytes)
    stream = device.stream()
    try:
        device.memcpy_htod_async(buf, host, stream)  # once untimed
        stream.synchronize()
        rates = []
        for _ in range(repeats):
            start, end = device.event(), device.event()
            start.record(stream)
            device.memcpy_htod_async(buf, host, stream)
            end.record(stream)
            end.synchronize()
            rates.append(nbytes / (start.elapsed_ms(end) * 1e-3) / 1e9)
    finally:
        device.free(buf)
    return {"bytes": nbytes, "gb_per_s_median": statistics.median(rates),
            "gb_per_s_min": min(rates), "gb_per_s_max": max(rates)}


def time_searches(step, sources: list[int], repeats: int, before=None) -> list[float]:
    """Milliseconds of each timed search (host clock; the search ends with a sync);
    ``before()``, if given, runs before each one, untimed."""
    times = []
    for source in sources:
        step.search(source)  # untimed: loads the code, warms the caches
        for _ in range(repeats):
            if before is not None:
                before()
            start = time.perf_counter()
            step.search(source)
            times.append((time.perf_counter() - start) * 1e3)
    return times


def summary(times: list[float]) -> dict:
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times)}


def measure_mode(device, graph, mode: str, sources, references, args,
                 rungs: dict | None = None) -> dict:
    options = {"host_edges": mode, **(rungs or {})}
    if args.chunk_edges:
        options["chunk_edges"] = args.chunk_edges
    if args.gather_threads and mode == "subgraph":
        options["gather_threads"] = args.gather_threads
    if args.single_block is not None and options.get("single_block", -1) is not None:
        options.setdefault("single_block", args.single_block)
    options = {k: v for k, v in options.items() if v is not None}
    with OutOfMemoryBFS(device, graph, **options) as step:
        per_source = []
        for source in sources:
            run = step.run(source, profile=True)
            validate_result(graph, source, run.levels, run.parents, references[source])
            records = step.last_records
            per_source.append({
                "source": source, "levels": run.iterations,
                "direction": [r.direction for r in records],
                "frontier": [r.frontier for r in records],
                "edges": [r.edges for r in records],
                "bytes_htod": [r.bytes_htod for r in records],
                "bytes_dtoh": [r.bytes_dtoh for r in records],
                "gather_ms": [round(r.gather_ms, 4) for r in records],
                "level_ms": [round(t, 4) for t in run.level_times_ms],
            })
        evict = step.evict_edges if mode == "managed" else None
        times = time_searches(step, sources, args.repeats, before=evict)
        warm = time_searches(step, sources, args.repeats) if mode == "managed" else None
    levels = statistics.median(p["levels"] for p in per_source)
    moved = statistics.median(sum(p["bytes_htod"]) for p in per_source)
    entry = summary(times)
    if warm is not None:
        entry["warm"] = summary(warm)
    entry.update({"options": {k: v for k, v in options.items() if k != "host_edges"},
                  "single_block": step.single_block,
                  "gather_threads": step.gather_threads if mode == "subgraph" else 0,
                  "us_per_level": 1e3 * entry["median_ms"] / max(levels, 1),
                  "bytes_htod_median": moved,
                  "share_of_edge_array": moved / max(4 * graph.num_edges, 1),
                  "validated": True, "per_source": per_source})
    return entry


def measure_in_memory(device, graph, name: str, sources, references, repeats) -> dict:
    try:
        step = STEPS[name](device, graph)
    except RodiniaBFSError as exc:  # the graph does not fit: say so in the table
        return {"error": str(exc)}
    with step:
        for source in sources:
            run = step.run(source)
            validate_result(graph, source, run.levels, run.parents, references[source])
        entry = summary(time_searches(step, sources, repeats))
    entry["validated"] = True
    return entry


def busiest(mode: dict) -> tuple[str, str, str]:
    """The level of the first source's profiled search that moved the most bytes: its MB,
    its milliseconds and their rate in GB/s, what the bus gave that mode at its busiest."""
    first = mode["per_source"][0]
    moved, ms = max(zip(first["bytes_htod"], first["level_ms"]))
    return f"{moved / 1e6:.2f}", f"{ms:.3f}", f"{moved / 1e6 / max(ms, 1e-9):.1f}"


def table(results: dict) -> str:
    lines = [f"Device: {results['device']}; pinned host -> device copy: "
             f"{results['copy']['gb_per_s_median']:.2f} GB/s (median of "
             f"{results['copy']['bytes'] >> 20} MiB copies). out_of_memory's default mode: "
             f"{results.get('default_mode', 'subgraph')}.", "",
             "| graph | way | median ms | min ms | max ms | µs / level | MB moved (median) "
             "| % of edge array | busiest level MB | its ms | its GB/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for g in results["graphs"]:
        mem = g["in_memory"]
        if "error" in mem:
            lines.append(f"| {g['graph']} | {g['in_memory_step']} (in memory) | does not fit "
                         "| | | | | | | | |")
        else:
            lines.append(f"| {g['graph']} | {g['in_memory_step']} (in memory) | "
                         f"{mem['median_ms']:.3f} | {mem['min_ms']:.3f} | {mem['max_ms']:.3f} "
                         "| | | | | | |")
        for mode, m in g["modes"].items():
            lines.append(f"| {g['graph']} | out_of_memory {mode} | {m['median_ms']:.3f} | "
                         f"{m['min_ms']:.3f} | {m['max_ms']:.3f} | "
                         f"{m['us_per_level']:.1f} | {m['bytes_htod_median'] / 1e6:.2f} | "
                         f"{100 * m['share_of_edge_array']:.1f} | {' | '.join(busiest(m))} |")
    if any(g.get("ladder") for g in results["graphs"]):
        lines += ["", "The rungs on zero_copy, each adding one option to the row above (then "
                  "the subgraph mode's two gathers):", "",
                  "| graph | rung | median ms | min ms | max ms | µs / level | MB moved |",
                  "|---|---|---|---|---|---|---|"]
        for g in results["graphs"]:
            for rung, m in (g.get("ladder") or {}).items():
                lines.append(f"| {g['graph']} | {rung} | {m['median_ms']:.3f} | "
                             f"{m['min_ms']:.3f} | {m['max_ms']:.3f} | {m['us_per_level']:.1f} | "
                             f"{m['bytes_htod_median'] / 1e6:.2f} |")
    warm = [(g["graph"], m["warm"]) for g in results["graphs"]
            for mode, m in g["modes"].items() if "warm" in m]
    if warm:
        lines += ["", "managed, warm (its pages left on the device by the search before; "
                  "the table above is cold, each search after the pages went back to the host):",
                  "", "| graph | managed warm, median ms | min ms | max ms |", "|---|---|---|---|"]
        lines += [f"| {name} | {w['median_ms']:.3f} | {w['min_ms']:.3f} | {w['max_ms']:.3f} |"
                  for name, w in warm]
    for g in results["graphs"]:  # each level of a graph of few levels, first source
        firsts = {mode: m["per_source"][0] for mode, m in g["modes"].items()}
        if max(len(f["bytes_htod"]) for f in firsts.values()) > 12:
            continue
        lines += ["", f"{g['graph']}, source {next(iter(firsts.values()))['source']}, level by "
                  "level (one profiled search each mode): MB moved host -> device, ms", "",
                  "| mode | level | direction | frontier | MB | ms |", "|---|---|---|---|---|---|"]
        for mode, f in firsts.items():
            lines += [f"| {mode} | {k} | {d} | {n:,} | {b / 1e6:.3f} | {t:.3f} |"
                      for k, (d, n, b, t) in enumerate(zip(f["direction"], f["frontier"],
                                                           f["bytes_htod"], f["level_ms"]))]
    lines += ["", "Every level, first source: MB moved and ms of a profiled search, in all:", ""]
    for g in results["graphs"]:
        for mode, m in g["modes"].items():
            first = m["per_source"][0]
            lines.append(f"- {g['graph']}, {mode}, source {first['source']}: {first['levels']} "
                         f"levels, {sum(first['bytes_htod']) / 1e6:.3f} MB, "
                         f"{sum(first['level_ms']):.3f} ms")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="*", help="names of the large suite, or graph files")
    parser.add_argument("--table-from", metavar="FOLDER",
                        help="write FOLDER's table.md again from its JSON, and stop")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--warp-size", type=int, choices=[32, 64])
    parser.add_argument("--sources", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--in-memory", default=DEFAULT_VARIANT, choices=sorted(STEPS))
    parser.add_argument("--chunk-edges", type=int)
    parser.add_argument("--gather-threads", type=int, help="subgraph: host threads that gather")
    parser.add_argument("--single-block", type=int,
                        help="the single block's limit in vertices (0: off)")
    parser.add_argument("--ladder", action="store_true",
                        help="also the rungs on zero_copy, one at a time")
    parser.add_argument("--copy-mib", type=int, default=256)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("-o", "--output", default=str(HERE / "results" / "out-of-memory"))
    args = parser.parse_args()
    if args.table_from:
        folder = Path(args.table_from)
        packed = folder / "out_of_memory.json.gz"
        text = (gzip.open(packed, "rt").read() if packed.is_file()
                else (folder / "out_of_memory.json").read_text())
        (folder / "table.md").write_text(table(json.loads(text)))
        return 0
    if not args.graphs:
        parser.error("name at least one graph")
    modes = args.modes.split(",")
    if not modes or any(m not in MODES for m in modes):
        parser.error(f"--modes: a comma-separated list of {', '.join(MODES)}")
    options = {"warp_size": args.warp_size} if args.warp_size else {}
    try:
        specs = graph_specs(args.graphs)
        device = get_device(args.backend, **options)
    except RodiniaBFSError as exc:
        print(f"out_of_memory.py: {exc}", file=sys.stderr)
        return 1
    results = {"device": device.describe(), "date": datetime.now(timezone.utc).isoformat(),
               "copy": copy_bandwidth(device, args.copy_mib, 5), "default_mode": MODES[0],
               "graphs": []}
    for spec in specs:
        graph = spec.build(Path(args.data_dir))
        sources = select_sources(graph, args.sources)
        references = {s: bfs_reference(graph, s) for s in sources}
        print(f"{spec.name}: {graph.describe()}", flush=True)
        entry = {"graph": spec.name, "vertices": graph.num_vertices, "arcs": graph.num_edges,
                 "edge_array_bytes": 4 * graph.num_edges, "sources": sources,
                 "in_memory_step": args.in_memory,
                 "in_memory": measure_in_memory(device, graph, args.in_memory, sources,
                                                references, args.repeats),
                 "modes": {}}
        remember_in_lists(graph)
        for mode in modes:
            entry["modes"][mode] = measure_mode(device, graph, mode, sources, references, args)
            print(f"  {mode}: {entry['modes'][mode]['median_ms']:.3f} ms", flush=True)
        if args.ladder:
            entry["ladder"], rungs = {}, {}
            for rung, adds in LADDER:
                rungs.update(adds)
                entry["ladder"][rung] = measure_mode(device, graph, "zero_copy", sources,
                                                     references, args, dict(rungs))
                print(f"  zero_copy {rung}: {entry['ladder'][rung]['median_ms']:.3f} ms",
                      flush=True)
            if "subgraph" in modes:  # and the subgraph mode's gather, in NumPy
                entry["ladder"]["subgraph, NumPy gather"] = measure_mode(
                    device, graph, "subgraph", sources, references, args, {"gather": "numpy"})
                entry["ladder"]["subgraph, compiled gather"] = entry["modes"]["subgraph"]
        results["graphs"].append(entry)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text(shlex.join([sys.executable, *sys.argv]) + "\n")
    # A run of many levels (a road graph's hundreds, for every rung) is kept compressed.
    text = json.dumps(results, indent=1) + "\n"
    if len(text) > 1 << 20:
        with gzip.open(out / "out_of_memory.json.gz", "wt") as f:
            f.write(text)
    else:
        (out / "out_of_memory.json").write_text(text)
    (out / "table.md").write_text(table(results))  # the name the docs quote figures from
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
