"""Which kernel ran each level of step 7's searches, and a search's time beside step 6's (events), on small worlds."""
import sys, collections, time
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
    st = STEPS["adaptive"](dev, g)
    for s in select_sources(g, 4, seed=0):
        st.run(s)
        print(name, s, st.last_choices, "entries", st.last_frontiers, "hand_backs", st._last_control[12] if getattr(st, "_last_control", None) else None, flush=True)
    st.close()
