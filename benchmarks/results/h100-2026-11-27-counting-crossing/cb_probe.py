"""benchmarks/ladder.py with step 6 built with the probe's push_pull_grid.h
(.devrun/cb/push_pull_grid.h): push_pull_cb (COUNTING_BARRIER: the next small queue's
length comes with the barrier's poll) and push_pull_cbw (and WRITE_AFTER_ARRIVAL: no
reservation, entries written after the arrival). Top-down only (direction "push"), graphs
whose every vertex is small."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS

PROBE = (HERE / "cb" / "push_pull_grid.h").read_text()
def headers():
    h = kernel_headers()
    assert "push_pull_grid.h" in h
    h["push_pull_grid.h"] = PROBE
    return h
base.kernel_headers = headers

def variant(cls, name, defines):
    class Step(cls):
        def _compile(self, d):
            return super()._compile({**d, **defines})
    Step.name = name
    STEPS[name] = Step
variant(PushPullBFS, "push_pull_cb", {"COUNTING_BARRIER": 1, "GRID_BARRIER_MAX_SPINS": 1 << 22})
variant(PushPullBFS, "push_pull_cbw", {"COUNTING_BARRIER": 1, "WRITE_AFTER_ARRIVAL": 1, "GRID_BARRIER_MAX_SPINS": 1 << 22})
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
