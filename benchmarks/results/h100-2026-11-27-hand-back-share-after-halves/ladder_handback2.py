"""benchmarks/ladder.py with step 7 variants for a probe: the grid hands a frontier back to
the single block once it fits HAND_BACK_EIGHTHS eighths of the block's queue and edge
limit (the code: 4, half), and the 2000 x 2000 and 1500 x 1500 grids in the large suite."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import rodinia_bfs.variants.base as base
import rodinia_bfs.bench.suites as suites
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

OLD = ("small + medium > SB_CAPACITY / 2) return false;", "return edges_at_most <= SB_EDGE_LIMIT / 2;")
NEW = ("small + medium > SB_CAPACITY / 8 * HAND_BACK_EIGHTHS) return false;",
       "return edges_at_most <= (bfs_u64)SB_EDGE_LIMIT / 8 * HAND_BACK_EIGHTHS;")
def headers():
    h = kernel_headers()
    s = h["single_block.h"]
    for o, n in zip(OLD, NEW):
        assert o in s, o
        s = s.replace(o, n, 1)
    h["single_block.h"] = "#ifndef HAND_BACK_EIGHTHS\n#define HAND_BACK_EIGHTHS 4\n#endif\n" + s
    return h
base.kernel_headers = headers

def variant(eighths, name):
    class Step(AdaptiveBFS):
        def _compile(self, defines):
            return super()._compile({**defines, "HAND_BACK_EIGHTHS": eighths})
    Step.name = name
    STEPS[name] = Step
variant(4, "adaptive_hb4")
variant(6, "adaptive_hb6")
variant(8, "adaptive_hb8")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_step5_persistent import road_like
def _road_like(side):
    return suites.GraphSpec(name=f"road-like-{side}", description="grid with shortcuts",
                            generator=lambda side: road_like(side), params={"side": side},
                            est_vertices=side * side, est_edges=4 * side * side)
_large = suites._large
suites._large = lambda: [*_large(), suites._grid(1500, 1500), suites._grid(2000, 2000), _road_like(1500)]
suites.SUITES["large"] = (suites._large, 16)
import ladder
sys.exit(ladder.main())
