"""Several sources and depth limits on a GPU: every step (or those named), each search
validated against the CPU reference (``prepare(..., validate=True)``); step 9 in each of
its three host-edge modes. Small graphs, so that it also runs under compute-sanitizer:

    python benchmarks/search_options_check.py                      # every step
    compute-sanitizer --tool memcheck python benchmarks/search_options_check.py push_pull
"""
import sys
import rodinia_bfs
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.variants import STEPS

names = sys.argv[1].split(",") if len(sys.argv) > 1 else list(STEPS)
graphs = {"kronecker-12": kronecker(12, seed=3), "grid-60x60": grid2d(60, 60)}
for gname, g in graphs.items():
    for name in names:
        options = [{}]
        if name == "out_of_memory":
            options = [{"host_edges": m} for m in ("subgraph", "zero_copy", "managed")]
        for opt in options:
            with rodinia_bfs.prepare(g, name, "auto", validate=True, **opt) as p:
                for kw in ({"sources": [0, 5, 17, 400]}, {"source": 3, "depth_limit": 2},
                           {"sources": list(range(0, 3000, 97)), "depth_limit": 4},
                           {"source": 1}, {"sources": [7], "depth_limit": 0}):
                    p.bfs(**kw)
            print(gname, name, opt, "ok", flush=True)
