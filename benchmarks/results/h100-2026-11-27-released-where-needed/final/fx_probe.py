"""benchmarks/ladder.py with step 6 and 7 also built with every arrival of the counting
crossing a release (pp_fenced, ad_fenced: the crossing before its arrivals were released
only where needed; an edit of push_pull_parts.h's `release`)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

ORIGINAL = "const bool release = !WRITE_AFTER_ARRIVAL || flagged || (blockIdx.x == 0 && c.cleared);"
FENCED = "const bool release = true;"

def fenced(cls, name):
    class Step(cls):
        def _compile(self, d):
            saved = base.kernel_headers
            def headers():
                h = saved()
                src = h["push_pull_parts.h"]
                assert src.count(ORIGINAL) == 1
                h["push_pull_parts.h"] = src.replace(ORIGINAL, FENCED)
                return h
            base.kernel_headers = headers
            try:
                return super()._compile(d)
            finally:
                base.kernel_headers = saved
    Step.name = name
    STEPS[name] = Step
fenced(PushPullBFS, "pp_fenced")
fenced(AdaptiveBFS, "ad_fenced")
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
