"""One search of one step on a graph file (for ncu), checked against the CPU reference.
    python ncu_file.py STEP PATH"""
import sys
import numpy as np
from rodinia_bfs.graphs.formats import load_graph
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants import STEPS
step, path = sys.argv[1], sys.argv[2]
import os
dev = get_device(os.environ.get("BACKEND", "cuda"))
g = load_graph(path)
with STEPS[step](dev, g) as st:
    s = select_sources(g, 1, seed=0)[0]
    r = st.run(s)
    ref = bfs_reference(g, s).levels
    ok = np.array_equal(np.asarray(r.levels), np.asarray(ref))
    print(step, path, "source", s, "levels", int(np.max(ref)), "ok" if ok else "WRONG", flush=True)
    sys.exit(0 if ok else 1)
