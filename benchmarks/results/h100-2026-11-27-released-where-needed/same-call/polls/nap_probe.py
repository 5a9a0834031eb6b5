"""benchmarks/ladder.py with step 6 also built with thread 0's poll of the crossing's
queue word paused between loads (__nanosleep: pp_napN, N ns), to ask whether the polls of
every block slow the arrivals on the same line (an edit of push_pull_parts.h)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS

ORIGINAL = "            queues = crossing_acquire(queue_word);"

def nap(ns):
    replacement = f"            {{ __nanosleep({ns}); queues = crossing_acquire(queue_word); }}"
    class Step(PushPullBFS):
        def _compile(self, d):
            saved = base.kernel_headers
            def headers():
                h = saved()
                assert h["push_pull_parts.h"].count(ORIGINAL) == 1
                h["push_pull_parts.h"] = h["push_pull_parts.h"].replace(ORIGINAL, replacement)
                return h
            base.kernel_headers = headers
            try:
                return super()._compile(d)
            finally:
                base.kernel_headers = saved
    Step.name = f"pp_nap{ns}"
    STEPS[Step.name] = Step
for ns in (32, 128, 512):
    nap(ns)
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
