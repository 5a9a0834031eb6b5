"""Search times of push_pull and adaptive on hubs-1000x1000 in one process: 16 sources
(seed 0, as the bench), each validated, then 8 repeats of the 16 timed back to back
(device events around step.search, as the bench). Prints one JSON line."""
import json, sys
import numpy as np
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.validate import validate_result
from rodinia_bfs.variants import STEPS

graph = suite_graphs("standard", ["hubs-1000x1000"])[0].build(".")
sources = select_sources(graph, 16, 0)
device = get_device("cuda")
out = {"label": sys.argv[1]}
for name in ("push_pull", "adaptive"):
    with STEPS[name](device, graph) as step:
        for s in sources:
            run = step.run(s)
            validate_result(graph, s, run.levels, run.parents, bfs_reference(graph, s))
        begin, end = device.event(), device.event()
        reps = []
        for r in range(8):
            times = []
            for s in sources:
                device.synchronize()
                begin.record(step.stream)
                step.search(s)
                end.record(step.stream)
                end.synchronize()
                times.append(begin.elapsed_ms(end))
            reps.append(round(float(np.median(times)), 4))
        out[name] = reps
print(json.dumps(out), flush=True)
