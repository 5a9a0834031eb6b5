"""benchmarks/ladder.py with step 6 built with one more trip to the L2 on a top-down
level's chain, to measure what a trip there costs (a probe's edit of the headers):
push_pull_trip_list (the list's offsets loaded after a first, dependent load of one of
them that bypasses the L1: a thread of the small queue waits two trips for its list where
it waited one) and push_pull_trip_reserve (thread 0 of each block waits for an atomic
that adds nothing before it reserves the block's room in the next queue)."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import rodinia_bfs.variants.base as base
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.push_pull import PushPullBFS

LIST_OLD = "        const vertex_t v = small[t >> log_share];\n"
LIST_NEW = """#if TRIP_LIST
        const vertex_t v0 = small[t >> log_share];
        const vertex_t v = v0 + (vertex_t)(__ldcg(&L.offsets[v0]) >> 62);  // + 0, a trip later
#else
        const vertex_t v = small[t >> log_share];
#endif
"""
RESERVE_OLD = "        if (local.counts[SMALL] > 0)\n            local.global_first[SMALL] = atomicAdd("
RESERVE_NEW = """#if TRIP_RESERVE
        local.counts[SMALL] += atomicAdd(&L.next_counts[MEDIUM * COUNTER_STRIDE + 1], 0u) >> 31;  // + 0
#endif
""" + RESERVE_OLD
GUARD = "#ifndef TRIP_LIST\n#define TRIP_LIST 0\n#endif\n#ifndef TRIP_RESERVE\n#define TRIP_RESERVE 0\n#endif\n"

def headers():
    h = kernel_headers()
    assert LIST_OLD in h["top_down.h"] and RESERVE_OLD in h["frontier.h"]
    h["top_down.h"] = GUARD + h["top_down.h"].replace(LIST_OLD, LIST_NEW, 1)
    h["frontier.h"] = h["frontier.h"].replace("#pragma once\n", "#pragma once\n" + GUARD, 1).replace(RESERVE_OLD, RESERVE_NEW, 1)
    return h
base.kernel_headers = headers

def variant(cls, name, define):
    class Step(cls):
        def _compile(self, defines):
            return super()._compile({**defines, define: 1})
    Step.name = name
    STEPS[name] = Step
variant(PushPullBFS, "push_pull_trip_list", "TRIP_LIST")
variant(PushPullBFS, "push_pull_trip_reserve", "TRIP_RESERVE")
if __name__ == "__main__":
    import ladder
    sys.exit(ladder.main())
