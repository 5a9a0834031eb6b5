"""benchmarks/ladder.py with step 6 also built with a counting_crossing.h whose arrival is
a relaxed atomicAdd (no release: a bound on what the release costs, not a correct
kernel in general: it registers rung pp_relaxed)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS

ORIGINAL = "    return grid_barrier_arrive(word, add);\n#endif\n}"
RELAXED = "    return atomicAdd(word, add);\n#endif\n}"

class Relaxed(PushPullBFS):
    def _compile(self, d):
        saved = base.kernel_headers
        def headers():
            h = saved()
            src = h["counting_crossing.h"]
            assert src.count(ORIGINAL) == 1
            h["counting_crossing.h"] = src.replace(ORIGINAL, RELAXED)
            return h
        base.kernel_headers = headers
        try:
            return super()._compile(d)
        finally:
            base.kernel_headers = saved
Relaxed.name = "pp_relaxed"
STEPS["pp_relaxed"] = Relaxed
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
