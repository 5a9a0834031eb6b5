"""Run steps under compute-sanitizer: several graphs, sources, several starts, depth
limits; every result checked against the CPU reference. Args: step names."""
import sys
import numpy as np
from rodinia_bfs.api import open_device
from rodinia_bfs.variants import STEPS
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_reference

import os
device, _ = open_device(os.environ.get("BACKEND", "cuda"))
from rodinia_bfs.graphs.generators import delaunay
graphs = {"kron12": kronecker(12, 16, seed=3), "grid60": grid2d(60, 60), "del10": delaunay(10)}
for name in sys.argv[1:]:
    cls = STEPS[name]
    for gname, g in graphs.items():
        extra = {"handover": "measured", "sb_capacity": 64} if name == "adaptive" and gname == "grid60" else {}
        extra = {**extra, **__import__("json").loads(os.environ.get("EXTRA", "{}"))}
        if gname == "del10" and name in ("persistent", "adaptive"):
            extra = {**extra, "rows": True}  # rows of 16: the row level with 16 entries a lane
        with cls(device, g, **extra) as step:
            for src in (0, 7, g.num_vertices - 1):
                r = step.search(src)
                levels, _ = step.results()
                ref = bfs_reference(g, src)
                assert np.array_equal(levels, ref.levels), (name, gname, src)
            if cls.takes_search_options():
                for depth in (1, 3, None):
                    r = step.search(None, sources=[0, 5, 9], depth_limit=depth)
                    levels, _ = step.results()
                    ref = bfs_reference(g, sources=[0, 5, 9], depth_limit=depth)
                    assert np.array_equal(levels, ref.levels), (name, gname, depth)
    print(name, "ok")
