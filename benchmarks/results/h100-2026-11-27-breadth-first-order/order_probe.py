"""Probe: how much of a mesh level's cost is locality? Each graph as read and renumbered in
the order a breadth-first search from vertex 0 visits it (scipy's breadth_first_order:
a level's vertices get consecutive ids, neighbours nearby ids), steps 6 and 7 on both,
timed in turns, every result checked against the CPU reference mapped through the order.
The mapping of results back is not timed: an upper bound of what such an order gives.

    python benchmarks/results/h100-2026-11-27-breadth-first-order/order_probe.py \
        (SUITE GRAPHS | file PATH) STEPS SOURCES REPEATS OUT.json   (from the repository root)
"""
import json, os, statistics, sys, time
from pathlib import Path
import numpy as np
from scipy.sparse.csgraph import breadth_first_order
sys.path.insert(0, "benchmarks")
from ladder import reference_runs  # noqa: E402
from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.suites import file_specs, suite_graphs  # noqa: E402
from rodinia_bfs.graphs.csr import CSRGraph  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402

suite, names, steps, count, repeats, out = sys.argv[1:7]
data = Path(os.environ.get("RODINIA_BFS_DATA", "../shared/data"))
device, _ = open_device(os.environ.get("BACKEND", "cuda"))
specs = file_specs([names]) if suite == "file" else suite_graphs(suite, names.split(","))


def renumbered(graph):
    t0 = time.perf_counter()
    n = graph.num_vertices
    order = breadth_first_order(graph.to_scipy(np.int8), 0, directed=False,
                                return_predecessors=False)
    seen = np.zeros(n, bool)
    seen[order] = True
    perm = np.concatenate([order, np.flatnonzero(~seen)]).astype(np.int64)  # new -> old
    inv = np.empty(n, np.int64)
    inv[perm] = np.arange(n)
    deg = np.diff(graph.offsets)[perm]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=offsets[1:])
    idx = np.repeat(graph.offsets[perm] - offsets[:-1], deg) + np.arange(offsets[-1])
    targets = inv[graph.targets[idx]].astype(np.int32)
    return CSRGraph(offsets, targets, directed=graph.directed), perm, inv, time.perf_counter() - t0


rows = []
for spec in specs:
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, int(count))
    permuted, perm, inv, order_s = renumbered(graph)
    print(spec.name, "order", round(order_s, 2), "s", flush=True)
    runs = []
    for variant in steps.split(","):
        for label, g, srcs, exps in (
                ("ids", graph, sources, expected),
                ("bfs", permuted, [int(inv[s]) for s in sources], [e[perm] for e in expected])):
            step = get_step(variant)(device, g)
            step.run(srcs[0])
            runs.append({"label": f"{variant} {label}", "step": step, "sources": srcs,
                         "expected": exps, "times": [[] for _ in range(int(repeats))]})
    begin, end = device.event(), device.event()
    turn = 0
    for r in range(int(repeats)):
        for i in range(len(sources)):
            for k in ((j + turn) % len(runs) for j in range(len(runs))):
                run = runs[k]
                device.synchronize()
                begin.record(run["step"].stream)
                run["step"].search(run["sources"][i])
                end.record(run["step"].stream)
                end.synchronize()
                run["times"][r].append(begin.elapsed_ms(end))
                got, _ = run["step"].results()
                assert np.array_equal(got, run["expected"][i]), (spec.name, run["label"], i)
            turn += 1
    for run in runs:
        run["step"].close()
        every = [t for rep in run["times"] for t in rep]
        meds = [statistics.median(rep) for rep in run["times"]]
        per_level = [1000 * t / d for rep in run["times"] for t, d in zip(rep, depths)]
        row = {"graph": spec.name, "rung": run["label"], "median_ms": statistics.median(every),
               "spread": [min(meds), max(meds)], "us_per_level": statistics.median(per_level),
               "order_s": order_s}
        rows.append(row)
        print(f"| {spec.name} | {run['label']} | {row['median_ms']:.4f} | "
              f"{row['spread'][0]:.4f}-{row['spread'][1]:.4f} | {row['us_per_level']:.2f} |",
              flush=True)
    Path(out).write_text(json.dumps(rows, indent=1))
