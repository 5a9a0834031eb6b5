"""Probe: the grid barrier with its arrivals counted in groups (GRID_BARRIER_GROUPS)."""
import sys, json
from pathlib import Path
import numpy as np
sys.path.insert(0, "benchmarks")
from barrier_cost import per_crossing, time_launch
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import get_device
dev = get_device(sys.argv[1] if len(sys.argv) > 1 else "cuda")
src = Path("benchmarks/grid_barrier.hip").read_text()
sms = dev.multiprocessor_count
rounds, repeats = (20000, 7) if dev.backend != "cpu" else (50, 2)
rows = []
for groups in (0, 4, 8, 16, 32):
    mod = dev.compile(src, "grid_barrier.hip", defines={"GRID_BARRIER_GROUPS": groups}, headers=kernel_headers())
    cost, stores, check = (mod.get_function(n) for n in ("barrier_cost", "barrier_stores", "barrier_check"))
    shapes = [(sms, 256), (2 * sms, 512), (dev.cooperative_grid(cost, 1024), 1024), (dev.cooperative_grid(cost, 256), 256), (3, 64), (1, 64)]
    for blocks, threads in shapes:
        barrier, errors, counter = dev.malloc(8192), dev.malloc(4), dev.malloc(4)
        words = dev.malloc(4 * 2 * blocks * threads)
        dev.memset(barrier, 0); dev.memset(errors, 0); dev.memset(counter, 0)
        # visibility checks first
        dev.launch_cooperative(check, blocks, threads, (barrier, counter, errors, np.uint32(200), np.uint32(1 << 30)))
        dev.synchronize()
        e1 = int(dev.from_device(errors, 1, np.uint32)[0])
        dev.memset(errors, 0)
        c = per_crossing(dev, cost, barrier, blocks, threads, (), rounds, repeats)
        s = per_crossing(dev, stores, barrier, blocks, threads, (words, errors), rounds, repeats)
        e2 = int(dev.from_device(errors, 1, np.uint32)[0])
        row = dict(groups=groups, blocks=blocks, threads=threads, crossing_us=c, after_stores_us=s, check_errors=e1, store_errors=e2)
        print(json.dumps(row), flush=True)
        rows.append(row)
        for b in (barrier, errors, counter, words): dev.free(b)
Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/bgroups.json").write_text(json.dumps(rows, indent=1))
