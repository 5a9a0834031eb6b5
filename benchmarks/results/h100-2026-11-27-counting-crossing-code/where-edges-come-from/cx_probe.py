"""benchmarks/ladder.py with step 6 built with .devrun/cx/push_pull_parts.h: where the
crossing's edges come from (EDGE_PROBE 1: the tally, read after the poll; 2: a second
poller in another warp; 3: none, m_f 0: only for direction push, an upper bound)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS

PROBE = (HERE / "cx" / "push_pull_parts.h").read_text()
def headers():
    h = kernel_headers()
    assert "push_pull_parts.h" in h
    h["push_pull_parts.h"] = PROBE
    return h
base.kernel_headers = headers

def variant(cls, name, defines):
    class Step(cls):
        def _compile(self, d):
            return super()._compile({**d, **defines})
    Step.name = name
    STEPS[name] = Step
for k in (0, 1, 2, 3):
    variant(PushPullBFS, f"pp_e{k}", {"EDGE_PROBE": k})
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
