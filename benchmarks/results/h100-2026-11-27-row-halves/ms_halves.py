"""Steps 5 and 7 with row halves under compute-sanitizer: the grid with shortcuts (rows of
8, halves on by the rule), several sources, several starts, depth limits, small queues so
that step 7 hands over and back; every result checked against the CPU reference."""
import os
import sys

import numpy as np

sys.path.insert(0, "tests")
from test_step5_persistent import road_like  # noqa: E402
from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.variants import STEPS  # noqa: E402

device, _ = open_device("cuda")
g = road_like(61)
for name in sys.argv[1:]:
    for extra in ({}, {"sb_capacity": 64, "handover": "measured"} if name == "adaptive" else {"sb_capacity": 64}):
        with STEPS[name](device, g, **extra) as step:
            assert step.defines["SB_ROW_HALVES"] == 1 and step.row_width == 8
            for src in (0, 61 * 30 + 30, g.num_vertices - 1):
                step.search(src)
                levels, _ = step.results()
                assert np.array_equal(levels, bfs_reference(g, src).levels), (name, extra, src)
            for depth in (1, 3, None):
                step.search(None, sources=[0, 5, 900], depth_limit=depth)
                levels, _ = step.results()
                ref = bfs_reference(g, sources=[0, 5, 900], depth_limit=depth)
                assert np.array_equal(levels, ref.levels), (name, extra, depth)
        print(name, extra, "ok", flush=True)
