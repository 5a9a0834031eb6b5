"""Step 7 with its single block made slow on purpose (thread 0 waits DELAY ns at every level):
does the measured hand-over still give the reference's levels? (argv: backend graph delay_ns sources [options json])"""
import sys, json, collections
import numpy as np
from pathlib import Path
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.bench.suites import suite_graphs
from rodinia_bfs.bench.runner import select_sources
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.runtime import get_device
from rodinia_bfs.variants.adaptive import AdaptiveBFS
backend, name, delay, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
opts = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
ANCHOR = "    #if SB_ROW_WIDTH > 0\n        my_expanded +="
def headers():
    h = kernel_headers()
    s = h["single_block.h"]
    assert ANCHOR in s
    h["single_block.h"] = s.replace(ANCHOR, """    if (threadIdx.x == 0) {
            const bfs_u64 t0 = device_clock();
            while (device_clock() - t0 < DELAY_TEST) {}
        }
""" + ANCHOR, 1)
    return h
base.kernel_headers = headers
class Slow(AdaptiveBFS):
    def _compile(self, defines):
        return super()._compile({**defines, "DELAY_TEST": delay})
dev = get_device(backend)
specs = {s.name: s for suite in ("quick", "standard", "large") for s in suite_graphs(suite)}
g = specs[name].build(Path(".devdata"))
st = Slow(dev, g, **opts)
bad = 0
for s in select_sources(g, n, seed=0):
    r = st.run(s)
    got, ref = np.asarray(r.levels), np.asarray(bfs_reference(g, s).levels)
    wrong = np.flatnonzero(got != ref)
    bad += wrong.size > 0
    print(name, "delay", delay, s, "ok" if wrong.size == 0 else f"WRONG {wrong.size} diffs {dict(collections.Counter((got[wrong]-ref[wrong]).tolist()).most_common(4))}",
          dict(collections.Counter(st.last_choices)), "frontiers", st.last_frontiers[:10], "control", getattr(st, "_last_control", None), flush=True)
st.close()
sys.exit(1 if bad else 0)
