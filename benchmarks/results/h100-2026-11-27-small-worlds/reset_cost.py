"""Steps 6 and 7 on kronecker-20: a search's time (events, as the ladder takes it) with no depth limit and with depth_limit=0 (the start alone), in turns."""
import sys
import numpy as np
from pathlib import Path
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS
dev = get_device("cuda")
specs = {s.name: s for suite in ("quick", "standard", "large") for s in suite_graphs(suite)}
for name in sys.argv[1].split(","):
    g = specs[name].build(Path(".devdata"))
    steps = {k: STEPS[k](dev, g) for k in ("push_pull", "adaptive")}
    srcs = select_sources(g, 8, seed=0)
    begin, end = dev.event(), dev.event()
    res = {}
    for depth in (None, 0, 1, 2):
        for k, st in steps.items():
            st.search(int(srcs[0]), depth_limit=depth)
        times = {k: [] for k in steps}
        for rep in range(5):
            for s in srcs:
                for k, st in steps.items():
                    dev.synchronize(); begin.record(st.stream)
                    st.search(int(s), depth_limit=depth)
                    end.record(st.stream); end.synchronize()
                    times[k].append(1000 * begin.elapsed_ms(end))
        print(name, "depth", depth, {k: round(float(np.median(v)), 1) for k, v in times.items()}, flush=True)
    for st in steps.values(): st.close()
