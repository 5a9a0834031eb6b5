"""Per-level device times of step 6 and step 7 on small worlds, same sources, in turns (profile=True), medians over repeats."""
import sys, json, collections
import numpy as np
from pathlib import Path
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS
dev = get_device("cuda")
specs = {s.name: s for suite in ("quick", "standard", "large") for s in suite_graphs(suite)}
out = []
for name in sys.argv[1].split(","):
    g = specs[name].build(Path(".devdata"))
    steps = {"push_pull": STEPS["push_pull"](dev, g), "adaptive": STEPS["adaptive"](dev, g)}
    for s in select_sources(g, 4, seed=0):
        ref = np.asarray(bfs_reference(g, s).levels)
        times = collections.defaultdict(list)
        for rep in range(7):
            for k, st in steps.items():
                r = st.run(s, profile=True)
                assert np.array_equal(np.asarray(r.levels), ref)
                times[k].append(r.level_times_ms)
        for k in steps:
            L = min(len(t) for t in times[k])
            med = np.median(np.array([t[:L] for t in times[k]]), axis=0) * 1000
            out.append(dict(graph=name, source=int(s), step=k, level_us=[round(x, 2) for x in med], total_us=round(float(med.sum()), 1)))
            print(name, s, k, round(float(med.sum()), 1), [round(x, 1) for x in med], flush=True)
    for st in steps.values(): st.close()
json.dump(out, open(sys.argv[2], "w"), indent=1)
