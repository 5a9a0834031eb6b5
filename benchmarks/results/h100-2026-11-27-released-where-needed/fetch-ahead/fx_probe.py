"""benchmarks/ladder.py with steps 6 and 7 also built with an edited header (each rung
below: a header, a line and its replacement):
  pp_fenced, ad_fenced    every arrival of the counting crossing a release
                          (push_pull_parts.h's `release`);
  pp_nofetch, ad_nofetch  no fetch ahead of the small queue's lines (push_pull_grid.h)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

FENCED = ("push_pull_parts.h",
          "const bool release = !WRITE_AFTER_ARRIVAL || flagged || (blockIdx.x == 0 && c.cleared);",
          "const bool release = true;")
NOFETCH = ("push_pull_grid.h", "if (COUNTING_CROSSING)  // the lines", "if (0)  // the lines")

def edited(cls, name, edit):
    header, original, replacement = edit
    class Step(cls):
        def _compile(self, d):
            saved = base.kernel_headers
            def headers():
                h = saved()
                assert h[header].count(original) == 1, (header, original)
                h[header] = h[header].replace(original, replacement)
                return h
            base.kernel_headers = headers
            try:
                return super()._compile(d)
            finally:
                base.kernel_headers = saved
    Step.name = name
    STEPS[name] = Step
for prefix, cls in (("pp", PushPullBFS), ("ad", AdaptiveBFS)):
    edited(cls, f"{prefix}_fenced", FENCED)
    edited(cls, f"{prefix}_nofetch", NOFETCH)
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
