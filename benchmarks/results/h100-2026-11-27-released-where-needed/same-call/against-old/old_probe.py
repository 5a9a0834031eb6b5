"""benchmarks/ladder.py with step 6 also built from the headers of commit ff34bd4 (the
counting crossing before its arrivals were released only where needed: .devrun/old/):
pp_old as it was, pp_old_relaxed with every arrival a relaxed atomic (a bound, not a
correct kernel); and pp_sweep64: this commit's step 6 with wide pulls measured by the
vertices a sweep visits (active_count / 64)."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS

OLD = {p.name: p.read_text() for p in (HERE / "old").glob("*.h")}
RELAX = ("counting_crossing.h", "    return grid_barrier_arrive(word, add);\n#endif\n}",
         "    return atomicAdd(word, add);\n#endif\n}")
SWEEP = ("push_pull_grid.h", "st.frontier_edges > (bfs_u64)threads",
         "st.frontier_edges > (bfs_u64)(a.active_count / 64u)")

def variant(name, old, edit=None, **options):
    class Step(PushPullBFS):
        def __init__(self, *args, **kw):
            super().__init__(*args, **{**kw, **options})
        def _compile(self, d):
            saved = base.kernel_headers
            def headers():
                h = saved()
                if old:
                    h.update(OLD)
                if edit:
                    header, original, replacement = edit
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
variant("pp_old", True)
variant("pp_old_relaxed", True, RELAX)
variant("pp_sweep64", False, SWEEP, wide_pulls=True)
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
