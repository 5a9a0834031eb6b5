"""Probe: the single block's rows as the probes of issue 26 build them. A rung is
VARIANT:WIDTH[:HALVES[:DEFINE...]]: WIDTH the row width (0: the step's own choice),
HALVES the SB_ROW_HALVES it is built with (default 0), and each DEFINE a macro set to 1
(a probe's switch in a patched kernel). The steps take turns on each graph, every result
checked against the CPU reference.

    python benchmarks/results/h100-2026-11-27-row-halves/probe/width_probe.py \
        SUITE GRAPHS RUNGS SOURCES REPEATS OUT.json

(The runs of this folder's padding/ and probe/ used its first forms: VARIANT:WIDTH, then
VARIANT:WIDTH:HALVES, which this one reads alike; probe/lower-only spelled its switch
":lo", now ":SB_ROW_PROBE_LOWER", the rung's label with it.)
"""
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "benchmarks")
from ladder import reference_runs  # noqa: E402
from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.suites import suite_graphs  # noqa: E402
from rodinia_bfs.variants import get_step, persistent  # noqa: E402

suite, names, rungs, count, repeats, out = sys.argv[1:7]
data = Path(os.environ.get("RODINIA_BFS_DATA", "../shared/data"))
device, _ = open_device(os.environ.get("BACKEND", "cuda"))
own_width = persistent.row_width
own_tunables = persistent.tunables
rows = []
for spec in suite_graphs(suite, names.split(",")):
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, int(count))
    runs = []
    for rung in rungs.split(","):
        parts = rung.split(":")
        variant, width = parts[:2]
        halves, probe = (parts[2] if len(parts) > 2 else "0"), parts[3:]
        width = int(width)
        persistent.row_width = (lambda g, r, w=width: w) if width else own_width
        persistent.tunables = lambda *a, h=int(halves), **k: {**own_tunables(*a, **k), "SB_ROW_HALVES": h, **{name: 1 for name in probe}}
        try:
            step = get_step(variant)(device, graph)
        finally:
            persistent.row_width = own_width
            persistent.tunables = own_tunables
        print(rung, "row width", step.row_width, "halves", step.defines.get("SB_ROW_HALVES"), flush=True)
        step.run(sources[0])
        runs.append({"label": rung, "step": step, "times": [[] for _ in range(int(repeats))]})
    begin, end = device.event(), device.event()
    turn = 0
    for r in range(int(repeats)):
        for i, s in enumerate(sources):
            for k in ((j + turn) % len(runs) for j in range(len(runs))):
                run = runs[k]
                device.synchronize()
                begin.record(run["step"].stream)
                run["step"].search(s)
                end.record(run["step"].stream)
                end.synchronize()
                run["times"][r].append(begin.elapsed_ms(end))
                got, _ = run["step"].results()
                assert np.array_equal(got, expected[i]), (spec.name, run["label"], i)
            turn += 1
    for run in runs:
        run["step"].close()
        every = [t for rep in run["times"] for t in rep]
        meds = [statistics.median(rep) for rep in run["times"]]
        per_level = [1000 * t / d for rep in run["times"] for t, d in zip(rep, depths)]
        row = {"graph": spec.name, "rung": run["label"], "median_ms": statistics.median(every),
               "spread": [min(meds), max(meds)], "us_per_level": statistics.median(per_level)}
        rows.append(row)
        print(f"| {spec.name} | {run['label']} | {row['median_ms']:.4f} | "
              f"{row['spread'][0]:.4f}-{row['spread'][1]:.4f} | {row['us_per_level']:.2f} |",
              flush=True)
Path(out).write_text(json.dumps(rows, indent=1))
