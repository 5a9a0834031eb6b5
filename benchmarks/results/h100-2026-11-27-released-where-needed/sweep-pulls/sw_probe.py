"""benchmarks/ladder.py with steps 6 and 7 also built with wide pulls whose measure is the
vertices a sweep visits, not the grid's threads: Beamer's rule pulls only a frontier with
more edges than active_count / K (pp_sweepK, ad_sweepK: an edit of push_pull_grid.h's
rule, with wide_pulls on)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

ORIGINAL = "st.frontier_edges > (bfs_u64)threads"

def sweep(cls, name, k):
    replacement = f"st.frontier_edges > (bfs_u64)(a.active_count / {k}u)"
    class Step(cls):
        def __init__(self, *args, **kw):
            kw["wide_pulls"] = True
            super().__init__(*args, **kw)
        def _compile(self, d):
            saved = base.kernel_headers
            def headers():
                h = saved()
                assert h["push_pull_grid.h"].count(ORIGINAL) == 1
                h["push_pull_grid.h"] = h["push_pull_grid.h"].replace(ORIGINAL, replacement)
                return h
            base.kernel_headers = headers
            try:
                return super()._compile(d)
            finally:
                base.kernel_headers = saved
    Step.name = name
    STEPS[name] = Step
for k in (4, 16, 64):
    sweep(PushPullBFS, f"pp_sweep{k}", k)
    sweep(AdaptiveBFS, f"ad_sweep{k}", k)
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
