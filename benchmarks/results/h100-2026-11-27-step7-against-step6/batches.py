"""How many host waits (batches) and hand-overs a step 7 search takes, per graph and rounds."""
import os, time
from pathlib import Path
import numpy as np
from rodinia_bfs.api import open_device
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.variants import get_step
data = Path(os.environ["RODINIA_BFS_DATA"])
dev, _ = open_device("cuda")
specs = {s.name: s for s in suite_graphs("standard") + suite_graphs("large")}
for name in ("delaunay-20", "road-NY", "grid-1000x1000", "kronecker-20"):
    g = specs[name].build(data)
    srcs = [int(s) for s in np.random.default_rng(0).integers(g.num_vertices, size=4)]
    for rounds in (1, 2):
        with get_step("adaptive")(dev, g, rounds=rounds) as step:
            for src in srcs:
                step.run(src)
                r = step.run(src)
                ch = step.last_choices
                sw = [(i, ch[i]) for i in range(1, len(ch)) if ch[i] != ch[i - 1]]
                print(name, "rounds", rounds, "src", src, "levels", r.iterations,
                      "waits", step.last_host_waits, "switches", sw[:6], flush=True)
