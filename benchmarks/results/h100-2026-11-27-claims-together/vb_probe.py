"""benchmarks/ladder.py with three more rungs (this commit's headers, edited where named):
  pp_b2      step 6 with visit_batch 2: a thread's two edges' claims sent together;
  pp_b2seq   the same with the claims one after another (the batch before this commit);
  ad_b2      step 7 with visit_batch 2.
(Kept in benchmarks/results/h100-2026-11-27-claims-together; run from the repository root.)"""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "benchmarks"))  # the repository's benchmarks/
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

SEQ = [("top_down.h", """        before[k] = claim_request(L, u[k]);
        degree[k] = L.offsets[u[k] + 1] - L.offsets[u[k]];
    }
    for (int k = 0; k < VISIT_BATCH; k++)
        if (u[k] >= 0 && claim_won(L, u[k], before[k])) add_to_next(L, v, u[k], degree[k], found);""",
"""        degree[k] = L.offsets[u[k] + 1] - L.offsets[u[k]];
        before[k] = claim(L, u[k]);
    }
    for (int k = 0; k < VISIT_BATCH; k++)
        if (u[k] >= 0 && before[k]) add_to_next(L, v, u[k], degree[k], found);""")]

def variant(name, cls, edits, **fixed):
    class Step(cls):
        def __init__(self, *a, **kw):
            super().__init__(*a, **{**fixed, **kw})
        def _compile(self, d):
            saved = base.kernel_headers
            def headers():
                h = saved()
                for header, original, replacement in edits:
                    assert original in h[header], (header, original)
                    h[header] = h[header].replace(original, replacement)
                return h
            base.kernel_headers = headers
            try:
                return super()._compile(d)
            finally:
                base.kernel_headers = saved
    Step.name = name
    STEPS[name] = Step
variant("pp_b2", PushPullBFS, [], visit_batch=2)
variant("pp_b2seq", PushPullBFS, SEQ, visit_batch=2)
variant("ad_b2", AdaptiveBFS, [], visit_batch=2)
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
