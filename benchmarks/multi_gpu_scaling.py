"""Step 8 on 1, 2, ... GPUs: time per search, speed-up over one GPU, and each level's
compute and exchange, for each exchange (bitmap, queue), partition policy and direction
(push: top-down levels; auto: direction-optimizing, Beamer's rule; pull: bottom-up).

The baseline is the same step with ``gpus=1`` and direction push: the same top-down
kernel on one GPU, with no exchange. A direction other than push runs with the bitmap
exchange only (a bottom-up level reads the whole frontier). Every timed search is
validated (levels against the CPU reference, parents by Graph500's rules) outside the
timed region.

    python benchmarks/multi_gpu_scaling.py --backend cuda --scale 25 --gpus 1,2 \\
        --directions push,auto --out benchmarks/results/h200x2-multi-gpu-DATE

writes ``command.txt``, ``results.json`` and ``table.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rodinia_bfs.graphs.formats import load_graph  # noqa: E402
from rodinia_bfs.graphs.generators import kronecker  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.runtime import get_device  # noqa: E402
from rodinia_bfs.validate import check_levels, check_parents  # noqa: E402
from rodinia_bfs.variants.multi_gpu import MultiGpuBFS  # noqa: E402


def configurations(args):
    """(direction, GPUs, exchange, policy) of each measured row. One GPU has no exchange
    and no policy to vary; a direction other than push needs the bitmap exchange."""
    for direction in args.directions.split(","):
        for gpus in (int(g) for g in args.gpus.split(",")):
            exchanges = args.exchanges.split(",") if gpus > 1 else ["bitmap"]
            for exchange in exchanges if direction == "push" else ["bitmap"]:
                for policy in args.policies.split(",") if gpus > 1 else ["oec"]:
                    yield direction, gpus, exchange, policy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("graph", nargs="?", help="a graph file (default: a Kronecker graph)")
    parser.add_argument("--scale", type=int, default=25, help="Kronecker scale (default 25)")
    parser.add_argument("--backend", default="cuda", choices=["hip", "cuda", "cpu"])
    parser.add_argument("--gpus", default="1,2", help="GPU counts (default 1,2)")
    parser.add_argument("--exchanges", default="bitmap,queue")
    parser.add_argument("--policies", default="oec", help="e.g. oec,hvc")
    parser.add_argument("--directions", default="push",
                        help="e.g. push,auto (default push); pull: every level bottom-up")
    parser.add_argument("--sources", type=int, default=4, help="sources, degree >= 1 (default 4)")
    parser.add_argument("--repeats", type=int, default=3, help="timed searches per source")
    parser.add_argument("--out", required=True, help="results folder")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text(shlex.join(["python", *sys.argv]) + "\n")

    t0 = time.perf_counter()
    graph = load_graph(args.graph) if args.graph else kronecker(args.scale, seed=0, progress=False)
    load_s = time.perf_counter() - t0
    print(f"{graph!r} ({load_s:.1f} s to make)", flush=True)
    rng = np.random.default_rng(0)
    sources = [int(s) for s in rng.choice(np.flatnonzero(graph.degrees() > 0), args.sources,
                                          replace=False)]
    references = {s: bfs_reference(graph, s) for s in sources}
    device = get_device(args.backend)

    rows = []
    for direction, gpus, exchange, policy in configurations(args):
        with MultiGpuBFS(device, graph, gpus=gpus, policy=policy,
                         exchange=exchange, direction=direction) as step:
            times, edges = [], []
            for s in sources:
                step.search(s)  # warm-up
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    step.search(s)
                    times.append((time.perf_counter() - t) * 1e3)
                levels, parents = step.results()
                check_levels(levels, references[s].levels)
                check_parents(graph, s, levels, parents)
                edges.append(int(graph.degrees()[levels >= 0].sum()))
            profile = step.run(sources[0], profile=True)
        row = {"direction": direction, "gpus": gpus, "exchange": exchange,
               "policy": policy, "directions": step.last_directions,
               "median_ms": statistics.median(times), "min_ms": min(times),
               "max_ms": max(times), "times_ms": times,
               "gteps": statistics.median(edges) / statistics.median(times) / 1e6,
               "level_ms": profile.level_times_ms,
               "compute_ms": profile.compute_times_ms,
               "exchange_ms": profile.exchange_times_ms,
               "reduce_ms": getattr(profile, "reduce_ms", None)}
        rows.append(row)
        print(f"  {direction:4} {gpus} GPU(s) {exchange:6} {policy}: median "
              f"{row['median_ms']:.3f} ms ({row['gteps']:.2f} GTEPS)", flush=True)
    # The baseline: the top-down kernel on one GPU, where it was measured.
    base = next((r["median_ms"] for r in rows if r["gpus"] == 1 and r["direction"] == "push"),
                None)
    meta = {"graph": graph.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "device": device.describe(), "sources": sources, "make_s": load_s,
            "date": time.strftime("%Y-%m-%d")}
    (out / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    lines = [f"{graph.name} on {device.describe()}, {len(sources)} sources x {args.repeats}",
             "", "| direction | GPUs | exchange | policy | median ms | min-max ms | GTEPS | "
             "speed-up |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        speedup = f"{base / r['median_ms']:.2f}" if base else "-"
        lines.append(f"| {r['direction']} | {r['gpus']} | {r['exchange']} | {r['policy']} | "
                     f"{r['median_ms']:.3f} | {r['min_ms']:.3f}-{r['max_ms']:.3f} | "
                     f"{r['gteps']:.2f} | {speedup} |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
