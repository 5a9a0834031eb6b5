"""benchmarks/ladder.py with steps 6 and 7 built with the claimed vertex's degree read
after its claim (DEGREE_AFTER_CLAIM, a probe's edit of top_down.h), as push_pull_dac and
adaptive_dac."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.push_pull import PushPullBFS

OLD = """    const edge_t degree = L.offsets[u + 1] - L.offsets[u];
    if (claim(L, u)) add_to_next(L, v, u, degree, found);"""
NEW = """#if DEGREE_AFTER_CLAIM
    if (claim(L, u)) add_to_next(L, v, u, L.offsets[u + 1] - L.offsets[u], found);
#else
    const edge_t degree = L.offsets[u + 1] - L.offsets[u];
    if (claim(L, u)) add_to_next(L, v, u, degree, found);
#endif"""
def headers():
    h = kernel_headers()
    assert OLD in h["top_down.h"]
    h["top_down.h"] = "#ifndef DEGREE_AFTER_CLAIM\n#define DEGREE_AFTER_CLAIM 0\n#endif\n" + h["top_down.h"].replace(OLD, NEW, 1)
    return h
base.kernel_headers = headers

def variant(cls, name):
    class Step(cls):
        def _compile(self, defines):
            return super()._compile({**defines, "DEGREE_AFTER_CLAIM": 1})
    Step.name = name
    STEPS[name] = Step
variant(PushPullBFS, "push_pull_dac")
variant(AdaptiveBFS, "adaptive_dac")
import ladder
sys.exit(ladder.main())
