"""benchmarks/ladder.py with steps 5 and 7 built with SB_ROW_SCAN 1 (a level read as rows
claims without a branch per entry and appends by one warp scan) for a probe, and the
1500 x 1500 and 2000 x 2000 grids in the large suite."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import rodinia_bfs.bench.suites as suites
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.persistent import PersistentBFS

def variant(cls, name, value):
    class Step(cls):
        def _compile(self, defines):
            return super()._compile({**defines, "SB_ROW_SCAN": value})
    Step.name = name
    STEPS[name] = Step
variant(PersistentBFS, "persistent_scan", 1)
variant(AdaptiveBFS, "adaptive_scan", 1)
variant(PersistentBFS, "persistent_bits", 2)
variant(AdaptiveBFS, "adaptive_bits", 2)
_large = suites._large
suites._large = lambda: [*_large(), suites._grid(1500, 1500), suites._grid(2000, 2000)]
suites.SUITES["large"] = (suites._large, 16)
import ladder
sys.exit(ladder.main())
