"""benchmarks/ladder.py with step 6 also built with parts of the crossing's layout undone
(edits of this commit's headers; bounds, not correct kernels):
  pp_noedgewait  the edge word read once after the poll, not waited for until whole;
  pp_twosets     the small queue in two sets by parity, each level's entries from the
                 start of one (as at commit ff34bd4), the read slots cleared with no
                 release ordering the clears before the writes two levels on;
  pp_both        both."""
import sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS
sys.path.insert(0, str(HERE))
import old_probe  # noqa: F401  (registers pp_old, pp_old_relaxed, pp_sweep64)

NOEDGEWAIT = [("push_pull_parts.h", "        while (waiting && crossing_arrivals(edges) != all &&",
               "        while (false && waiting && crossing_arrivals(edges) != all &&")]
TWOSETS = [("push_pull_grid.h", "small_queues(small_set) + st.small_first + st.small_count,",
            "small_queues(st.queue_set ^ 1),"),
           ("push_pull_grid.h", "queues_to_bitmap(small_queues(small_set) + st.small_first,",
            "queues_to_bitmap(small_queues(st.queue_set),"),
           ("push_pull_grid.h", "vertex_t* const small = small_queues(small_set) + st.small_first;",
            "vertex_t* const small = small_queues(st.queue_set);")]

def variant(name, edits):
    class Step(PushPullBFS):
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
variant("pp_noedgewait", NOEDGEWAIT)
variant("pp_twosets", TWOSETS)
variant("pp_both", NOEDGEWAIT + TWOSETS)
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
