"""Step 8 on several GPUs on every graph of the standard suite: levels and parents
checked against the CPU reference (Graph500's rules) from 4 of the bench's sources, for
the top-down search with either exchange and the direction-optimizing one.

    python benchmarks/multi_gpu_suite.py DATA_DIR GPUS [BACKEND [GRAPHS]]

e.g. ``python benchmarks/multi_gpu_suite.py ../shared/data 2`` (cuda, every graph);
prints a Markdown table, one row per graph and configuration.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rodinia_bfs.api import open_device
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import validate_result
from rodinia_bfs.variants.multi_gpu import MultiGpuBFS
dev, _ = open_device(sys.argv[3] if len(sys.argv) > 3 else "cuda")
data, gpus = sys.argv[1], int(sys.argv[2])
print(f"device: {dev.describe()}; {gpus} GPUs; 4 sources per graph (the bench's, seed 0)")
print("| graph | direction | exchange | sources | levels match | parents valid (Graph500) |")
print("|---|---|---|---:|---|---|")
for spec in suite_graphs("standard", sys.argv[4].split(",") if len(sys.argv) > 4 else None):
    g = spec.build(data)
    sources = select_sources(g, 4)
    refs = [bfs_reference(g, s) for s in sources]
    for direction, exchange in (("push", "bitmap"), ("push", "queue"), ("auto", "bitmap")):
        try:
            with MultiGpuBFS(dev, g, gpus=gpus, direction=direction, exchange=exchange) as step:
                for s, ref in zip(sources, refs):
                    r = step.run(s)
                    validate_result(g, s, r.levels, r.parents, ref)
            print(f"| {spec.name} | {direction} | {exchange} | {len(sources)} | yes | yes |", flush=True)
        except Exception as exc:  # noqa: BLE001 - report and go on: the table says which
            print(f"| {spec.name} | {direction} | {exchange} | {len(sources)} | FAILED: {exc} | |", flush=True)
