"""Where a search's time goes, level by level: the frontier's width and edges, which tier ran
the level, and what it cost on the device clock.

    python benchmarks/level_profile.py persistent adaptive --suite large \\
        --graphs road-NY,road-BAY,grid-1000x1000,delaunay-20,road-FLA --sources 4 \\
        --backend cuda --out benchmarks/results/<device>-<date>-level-profile

The rungs are named as ``benchmarks/ladder.py`` names them (a step, or a JSON object of a
step's options with its ``variant`` and a ``label``); each must be step 5 or step 7, whose
kernels stamp every level (LevelStamp: the device clock when the level starts, the kernel
that runs it, its queue entries). Each rung is set up on each graph, warmed up, and runs a
profiled search from every source; each search's levels are checked against the CPU
reference before its stamps are read. A level's width and edges come from the reference
(the vertices of that level and the sum of their degrees), its tier from the stamp:
``single`` (step 5's single block), ``grid`` (step 5's grid), ``push`` or ``pull`` (step
7's grid, top-down or bottom-up). Its time is the next level's stamp less its own, so a
hand-over between kernels is counted in the level at which it happens.

``--out DIR`` receives ``levels.csv`` (every level of every search), ``table.md`` (per
graph and rung: the search's median, and the mean cost of a level by tier and frontier
width), ``results.json`` (the same, with the command), ``command.txt`` and
``plots/level_cost_<graph>.png`` (µs per level against frontier width, a colour per tier).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.runner import select_sources  # noqa: E402
from rodinia_bfs.errors import RodiniaBFSError, ValidationError  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402
from rodinia_bfs.variants.persistent import LEVEL_STAMP, PersistentBFS  # noqa: E402

from ladder import add_graph_arguments, graph_specs, parse_rung, write_run  # noqa: E402

#: A LevelStamp's kernel field -> the tier that ran the level (persistent_records.h,
#: push_pull_grid.h): the single block by edges, by warps or by rows; step 5's grid or
#: step 7's top-down grid; step 7's bottom-up grid.
TIERS = {1: "single", 7: "single", 8: "single", 2: "grid", 6: "pull"}

#: Frontier widths (vertices) of the table's columns: [0, 64), [64, 256), ...
WIDTHS = (0, 64, 256, 512, 1024, 2048, 4096, 8192, 16384)


def tier_names(step, codes) -> list[str]:
    """Tier of each level; step 7's grid top-down is ``push``."""
    names = [TIERS.get(int(code), "?") for code in codes]
    if step.name == "adaptive":
        names = ["push" if name == "grid" else name for name in names]
    return names


def profile_search(device, step, graph, source: int, expected: np.ndarray) -> dict:
    """One profiled search, checked, and its levels: width, edges, tier, µs."""
    device.synchronize()
    begin, end = device.event(), device.event()
    begin.record(step.stream)
    outcome = step.search(source, profile=True)
    end.record(step.stream)
    end.synchronize()
    total_ms = begin.elapsed_ms(end)
    levels, _ = step.results()
    if not np.array_equal(levels, expected):
        wrong = int(np.count_nonzero(levels != expected))
        raise ValidationError(f"{step.name}: {wrong} wrong levels from source {source}")
    depth = outcome.iterations
    stamps = device.from_device(step.stamps, depth + 1, LEVEL_STAMP)
    micro = np.diff(stamps["clock"].astype(np.int64)) * (1e6 / device.clock_rate_hz)
    reached = expected >= 0
    width = np.bincount(expected[reached], minlength=depth)[:depth]
    edges = np.bincount(expected[reached], weights=graph.degrees()[reached],
                        minlength=depth)[:depth].astype(np.int64)
    return {"source": int(source), "ms": total_ms, "levels": depth,
            "width": width.tolist(), "edges": edges.tolist(),
            "tier": tier_names(step, stamps["kernel"][:depth]), "us": micro.tolist()}


def by_width(searches: list[dict]) -> list[dict]:
    """Mean µs of a level and the levels counted, by tier and frontier width."""
    rows = []
    for lo, hi in zip(WIDTHS, WIDTHS[1:] + (None,)):
        row = {"widths": f"{lo:,}+" if hi is None else f"{lo:,}-{hi - 1:,}", "tiers": {}}
        for s in searches:
            for w, tier, us in zip(s["width"], s["tier"], s["us"]):
                if w >= lo and (hi is None or w < hi):
                    row["tiers"].setdefault(tier, []).append(us)
        row["tiers"] = {t: {"levels": len(v), "mean_us": statistics.fmean(v),
                            "total_ms": sum(v) / 1000.0} for t, v in row["tiers"].items()}
        if row["tiers"]:
            rows.append(row)
    return rows


def summarise(rung: dict, searches: list[dict]) -> dict:
    depths = [s["levels"] for s in searches]
    times = [s["ms"] for s in searches]
    per_level = [1000.0 * t / d for t, d in zip(times, depths)]
    tiers = {}
    for s in searches:
        for tier, us in zip(s["tier"], s["us"]):
            tiers.setdefault(tier, [0, 0.0])
            tiers[tier][0] += 1
            tiers[tier][1] += us
    spent = sum(v[1] for v in tiers.values()) or 1.0
    return {**rung, "median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "median_levels": statistics.median(depths),
            "us_per_level": statistics.median(per_level),
            "share": {t: {"levels": v[0], "time_share": v[1] / spent} for t, v in tiers.items()},
            "by_width": by_width(searches), "searches": searches}


def markdown(graph: dict) -> str:
    lines = [f"### {graph['name']}", "",
             f"{graph['vertices']:,} vertices, {graph['edges']:,} arcs; {len(graph['sources'])} "
             "sources, one profiled search each.", "",
             "| rung | median ms | min-max ms | levels (median) | µs a level | levels and "
             "time by tier |", "|---|---:|---:|---:|---:|---|"]
    for r in graph["rungs"]:
        share = ", ".join(f"{t}: {v['levels']} levels, {100 * v['time_share']:.0f} %"
                          for t, v in sorted(r["share"].items()))
        lines.append(f"| {r['label']} | {r['median_ms']:.3f} | {r['min_ms']:.3f}-"
                     f"{r['max_ms']:.3f} | {r['median_levels']:g} | {r['us_per_level']:.2f} "
                     f"| {share} |")
    lines += ["", "A level's cost by frontier width (vertices) and tier: levels, mean µs, and the "
              "time they took together:", "",
              "| rung | width | tier | levels | mean µs | total ms |",
              "|---|---|---|---:|---:|---:|"]
    for r in graph["rungs"]:
        for row in r["by_width"]:
            for tier, cell in sorted(row["tiers"].items()):
                lines.append(f"| {r['label']} | {row['widths']} | {tier} | {cell['levels']} "
                             f"| {cell['mean_us']:.2f} | {cell['total_ms']:.3f} |")
    return "\n".join(lines) + "\n"


def plot(graph: dict, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rungs = graph["rungs"]
    fig, axes = plt.subplots(1, len(rungs), figsize=(5.5 * len(rungs), 4), sharey=True,
                             squeeze=False)
    colours = {"single": "tab:blue", "grid": "tab:orange", "push": "tab:orange",
               "pull": "tab:green", "?": "tab:gray"}
    for ax, r in zip(axes[0], rungs):
        points = {}
        for s in r["searches"]:
            for w, tier, us in zip(s["width"], s["tier"], s["us"]):
                points.setdefault(tier, ([], []))
                points[tier][0].append(max(w, 1))
                points[tier][1].append(us)
        for tier, (xs, ys) in sorted(points.items()):
            ax.scatter(xs, ys, s=4, alpha=0.5, color=colours.get(tier, "black"), label=tier)
        ax.set_xscale("log")
        ax.set_title(f"{graph['name']}: {r['label']}", fontsize=9)
        ax.set_xlabel("frontier width (vertices)")
        ax.grid(alpha=0.3)
        ax.legend(markerscale=3, fontsize=8)
    axes[0][0].set_ylabel("µs a level (device clock)")
    top = max(np.percentile([u for r in rungs for s in r["searches"] for u in s["us"]], 99.5), 1)
    axes[0][0].set_ylim(0, 1.1 * top)
    fig.tight_layout()
    folder.mkdir(parents=True, exist_ok=True)
    fig.savefig(folder / f"level_cost_{graph['name']}.png", dpi=110)
    plt.close(fig)


def profile_graph(device, spec, data: Path, rungs: list[dict], count: int) -> dict:
    graph = spec.build(data)
    sources = select_sources(graph, count)
    expected = [bfs_reference(graph, s).levels for s in sources]
    rows = []
    for rung in rungs:
        with get_step(rung["variant"])(device, graph, **rung["options"]) as step:
            if not isinstance(step, PersistentBFS):
                raise RodiniaBFSError(f"{rung['variant']}: only steps 5 and 7 stamp their levels")
            step.run(sources[0])  # warm-up
            searches = [profile_search(device, step, graph, s, e)
                        for s, e in zip(sources, expected)]
        rows.append(summarise(rung, searches))
    return {"name": spec.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "sources": sources, "rungs": rows}


def write_csv(graphs: list[dict], path: Path) -> None:
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["graph", "rung", "source", "level", "width", "edges", "tier", "us"])
        for g in graphs:
            for r in g["rungs"]:
                for s in r["searches"]:
                    for level, row in enumerate(zip(s["width"], s["edges"], s["tier"], s["us"])):
                        w, e, tier, us = row
                        out.writerow([g["name"], r["label"], s["source"], level, w, e, tier,
                                      f"{us:.3f}"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rungs", nargs="*", default=["persistent", "adaptive"],
                        help="step names or JSON objects (default: persistent adaptive)")
    parser.add_argument("--sources", type=int, default=4, help="sources per graph (default: 4)")
    add_graph_arguments(parser)
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    args = parser.parse_args(argv)
    try:
        if args.sources < 1:
            raise RodiniaBFSError("--sources must be at least 1")
        rungs = [parse_rung(text) for text in args.rungs]
        specs = graph_specs(args)
        device, why = open_device(args.backend, warp_size=args.warp_size)
        print(f"{device.describe()} [{why}]", flush=True)
        graphs = []
        for spec in specs:
            graphs.append(profile_graph(device, spec, args.data, rungs, args.sources))
            print(markdown(graphs[-1]), flush=True)
    except (RodiniaBFSError, json.JSONDecodeError) as exc:
        print(f"level_profile: {exc}", file=sys.stderr)
        return 1
    # Every level of every search: results.json unindented.
    write_run(args, "level_profile.py", argv, device, graphs, "Level profiles",
              "\n".join(markdown(g) for g in graphs), indent=None,
              sources_per_graph=args.sources)
    write_csv(graphs, args.out / "levels.csv")
    if not args.no_plots:
        for g in graphs:
            plot(g, args.out / "plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
