"""Probe: a grid crossing with split arrival words or with release flags, against grid_sync."""
import json, statistics, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path.cwd()))
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import get_device
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES

backend = sys.argv[1]; rounds = int(sys.argv[2]); repeats = int(sys.argv[3]); out = sys.argv[4] if len(sys.argv) > 4 else None
dev = get_device(backend)
src = (Path(__file__).parent / "split_barrier.hip").read_text()
mod = dev.compile(src, "split_barrier.hip", headers=kernel_headers())
K = {"flat": mod.get_function("cross_flat"), "split": mod.get_function("cross_split"), "flag": mod.get_function("cross_flag")}
try:
    K["cluster2"], K["cluster4"] = mod.get_function("cross_cluster2"), mod.get_function("cross_cluster4")
except Exception as exc:  # no clusters (the emulator, before sm_90)
    print("no cluster kernels:", exc)
sms = dev.multiprocessor_count
shapes = [(sms, 512), (2 * sms, 512), (4 * sms, 256), (8 * sms, 256)] if backend != "cpu" else [(3, 64), (4, 32)]
variants = [("flat", 1), ("split", 8)] + [(k, 1) for k in ("cluster2", "cluster4") if k in K]
barrier = dev.malloc(GRID_BARRIER_BYTES); words = dev.malloc(8 * 16 * 40); errors = dev.malloc(4)
store = dev.malloc(4 * 2 * max(b * t for b, t in shapes))
stream = dev.stream(); start, stop = dev.event(), dev.event()
def launch(kern, blocks, threads, k, r, st):
    dev.memset(barrier, 0, stream=stream); dev.memset(words, 0, stream=stream)
    start.record(stream)
    args = (barrier, words, np.uint32(k), np.uint32(r), store, errors, np.uint32(st))
    if kern.name.startswith("cross_cluster") and not COOP.get(kern.name, True):
        dev.launch(kern, blocks, threads, args, stream=stream)
    else:
        try:
            dev.launch_cooperative(kern, blocks, threads, args, stream=stream)
        except Exception as exc:
            if not kern.name.startswith("cross_cluster"): raise
            print(f"{kern.name}: cooperative launch refused ({exc}); a plain launch", flush=True)
            COOP[kern.name] = False
            dev.launch(kern, blocks, threads, args, stream=stream)
    stop.record(stream); stop.synchronize()
    dev.check_grid_barrier(barrier, kern.name)
    return start.elapsed_ms(stop)
rows = []
COOP = {}
print(dev.describe())
for blocks, threads in shapes:
    for st in (0, 1):
        # in turns: each repeat times every variant once
        times = {v: ([], []) for v in variants}
        dev.memset(errors, 0)
        for rep in range(repeats + 1):
            for v in variants:
                kern = K[v[0]]
                e = launch(kern, blocks, threads, v[1], 0, st); f = launch(kern, blocks, threads, v[1], rounds, st)
                if rep: times[v][0].append(e); times[v][1].append(f)
        wrong = int(dev.from_device(errors, 1, np.uint32)[0])
        for v in variants:
            per = [1000 * (f - e) / rounds for e, f in zip(*times[v])]
            row = {"blocks": blocks, "threads": threads, "stores": st, "barrier": v[0], "K": v[1],
                   "median_us": round(statistics.median(per), 3), "min_us": round(min(per), 3), "max_us": round(max(per), 3), "wrong": wrong}
            rows.append(row)
            print(f"{blocks:5d} x {threads:4d} stores={st} {v[0]:5s} K={v[1]:2d}  {row['median_us']:.3f} us  [{row['min_us']:.3f}, {row['max_us']:.3f}]  wrong={wrong}", flush=True)
        if wrong: print("WRONG WORDS READ", file=sys.stderr); sys.exit(1)
if out: Path(out).write_text(json.dumps({"device": dev.name, "rounds": rounds, "repeats": repeats, "rows": rows}, indent=1))
