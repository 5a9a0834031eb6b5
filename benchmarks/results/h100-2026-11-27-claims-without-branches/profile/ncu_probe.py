"""Run a few searches of one step on one graph (for ncu): validated against the reference."""
import sys, json
import numpy as np
from pathlib import Path
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS
backend, step, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
opts = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
dev = get_device(backend)
specs = {s.name: s for suite in ("quick", "standard", "large") for s in suite_graphs(suite)}
g = specs[name].build(Path(".devdata"))
st = STEPS[step](dev, g, **opts)
bad = 0
try:
    for s in select_sources(g, n, seed=0):
        r = st.run(s)
        got, ref = np.asarray(r.levels), np.asarray(bfs_reference(g, s).levels)
        wrong = np.flatnonzero(got != ref)
        ch = getattr(st, "last_choices", None)
        tiers = None
        if ch:
            import collections
            tiers = dict(collections.Counter(ch))
        print(name, step, s, "ok" if wrong.size == 0 else f"WRONG {wrong.size} first {wrong[:5].tolist()} got {got[wrong[:5]].tolist()} ref {ref[wrong[:5]].tolist()}",
              "levels", int(ref.max()), "tiers", tiers, flush=True)
        bad += wrong.size > 0
        if wrong.size:
            d = got[wrong] - ref[wrong]
            import collections as C
            print("  diffs", dict(C.Counter(d.tolist()).most_common(6)), "by ref level first wrong", int(ref[wrong].min()), "max", int(ref[wrong].max()))
            print("  choices", st.last_choices[:14], "frontiers", st.last_frontiers[:14], "n stamps", len(st.last_choices))
            ctl = getattr(st, "_last_control", None); print("  control", ctl)
finally:
    st.close()
sys.exit(1 if bad else 0)
