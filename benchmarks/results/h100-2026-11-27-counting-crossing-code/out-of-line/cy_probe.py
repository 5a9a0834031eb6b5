"""benchmarks/ladder.py with steps 6 and 7 built with the bottom-up sweep and the two
conversions out of line (__noinline__: .devrun/cy/): push_pull_ool, adaptive_ool."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

OOL = {name: (HERE / "cy" / name).read_text() for name in ("bottom_up.h", "push_pull_parts.h")}
def variant(cls, name):
    class Step(cls):
        def _compile(self, d):
            saved = base.kernel_headers
            base.kernel_headers = lambda: {**saved(), **OOL}
            try:
                return super()._compile(d)
            finally:
                base.kernel_headers = saved
    Step.name = name
    STEPS[name] = Step
variant(PushPullBFS, "push_pull_ool")
variant(AdaptiveBFS, "adaptive_ool")
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
