"""Host cost of a search: steps 6 and 7 on a tiny graph (device time negligible), wall time per search and a cProfile."""
import sys, time, cProfile, pstats, io
import numpy as np
from rodinia_bfs.graphs.generators import kronecker, grid2d
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS
dev = get_device("cuda")
g = kronecker(10, seed=1)
steps = {k: STEPS[k](dev, g) for k in ("push_pull", "adaptive")}
src = int(np.argmax(g.degrees()))
for st in steps.values():
    for _ in range(20): st.search(src)
ev = {}
for k, st in steps.items():
    b, e = dev.create_event() if hasattr(dev, "create_event") else (None, None), None
for rep in range(3):
    for k, st in steps.items():
        ts = []
        for _ in range(300):
            t = time.perf_counter(); st.search(src); ts.append(time.perf_counter() - t)
        print(rep, k, "median µs", round(1e6 * float(np.median(ts)), 1), "min", round(1e6 * min(ts), 1), flush=True)
for k, st in steps.items():
    pr = cProfile.Profile(); pr.enable()
    for _ in range(300): st.search(src)
    pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18); print(k, s.getvalue()[:4000])
