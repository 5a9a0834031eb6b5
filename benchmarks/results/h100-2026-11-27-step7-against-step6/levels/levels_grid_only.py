"""Per-level times of step 6 and of step 7 with its grid never handing back (profile=True), binned by frontier width."""
import sys, json, collections
import numpy as np
from pathlib import Path
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS
backend, names, out = sys.argv[1], sys.argv[2].split(","), Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
dev = get_device(backend)
specs = {s.name: s for suite in ("quick", "large") for s in suite_graphs(suite)}
rows = []
for name in names:
    g = specs[name].build(Path(sys.argv[4]) if len(sys.argv) > 4 else Path("."))
    sources = select_sources(g, 2, seed=0)
    steps = {"push_pull": STEPS["push_pull"](dev, g), "adaptive-grid-only": STEPS["adaptive"](dev, g, hand_back_after=10**6)}
    try:
        for s in sources:
            ref = np.asarray(bfs_reference(g, s).levels)
            widths = np.bincount(ref[ref >= 0]).tolist()
            for k, st in steps.items():
                st.run(s)  # warm
                r = st.run(s, profile=True)
                assert np.array_equal(np.asarray(r.levels), ref), (name, k, s)
                choices = getattr(st, "last_choices", None) or getattr(st, "last_directions", None)
                for lvl, t in enumerate(r.level_times_ms):
                    rows.append(dict(graph=name, step=k, source=int(s), level=lvl, width=widths[lvl] if lvl < len(widths) else 0,
                                     tier=choices[lvl] if choices and lvl < len(choices) else "", us=round(1000 * t, 3)))
    finally:
        for st in steps.values(): st.close()
import csv
with open(out / "levels.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
lines = ["| graph | step | width | levels | mean µs | total ms |", "|---|---|---|---:|---:|---:|"]
agg = collections.defaultdict(list)
for r in rows:
    b = 0 if r["width"] < 64 else int(np.log2(r["width"]))
    lo = 0 if b == 0 else 2 ** b
    agg[(r["graph"], r["step"], lo)].append(r["us"])
for (gname, step, lo), v in sorted(agg.items()):
    hi = 63 if lo == 0 else 2 * lo - 1
    lines.append(f"| {gname} | {step} | {lo:,}-{hi:,} | {len(v)} | {np.mean(v):.2f} | {sum(v)/1000:.3f} |")
(out / "table.md").write_text("Per-level times (profile=True), two sources, levels binned by frontier width\n\n" + "\n".join(lines) + "\n")
print("\n".join(lines))
