"""Probe: does a locality order of the vertex ids (reverse Cuthill-McKee) make steps 5-7
faster?  Each graph as read and renumbered by RCM, every step on both, timed in turns,
every result checked against the CPU reference (mapped through the order).

    python benchmarks/results/h100-2026-11-27-locality-order/reorder_probe.py SUITE GRAPHS STEPS SOURCES REPEATS OUT.json
"""
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

sys.path.insert(0, "benchmarks")
from ladder import reference_runs  # noqa: E402
from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.suites import suite_graphs  # noqa: E402
from rodinia_bfs.graphs.csr import CSRGraph  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402
import os  # noqa: E402

suite, names, steps, count, repeats, out = sys.argv[1:7]
data = Path(os.environ.get("RODINIA_BFS_DATA", "../shared/data"))
device, _ = open_device(os.environ.get("BACKEND", "cuda"))
rows = []
for spec in suite_graphs(suite, names.split(",")):
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, int(count))
    t0 = time.perf_counter()
    matrix = graph.to_scipy(np.int8)
    perm = reverse_cuthill_mckee(matrix, symmetric_mode=True)  # new position -> old id
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size, dtype=perm.dtype)
    permuted = CSRGraph.from_scipy(matrix[perm][:, perm], directed=False)
    order_s = time.perf_counter() - t0
    print(spec.name, "rcm", round(order_s, 2), "s", flush=True)
    runs = []
    for variant in steps.split(","):
        for label, g, srcs, exps in (
                ("ids", graph, sources, expected),
                ("rcm", permuted, [int(inv[s]) for s in sources], [e[perm] for e in expected])):
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
