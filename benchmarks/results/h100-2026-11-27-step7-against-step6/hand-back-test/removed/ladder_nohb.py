"""benchmarks/ladder.py with one more variant for a probe: step 7 built without the grid's
hand-back test (PROBE_NO_HAND_BACK): its grid never hands a frontier back."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[4]))  # benchmarks/, for ladder
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.persistent import PersistentBFS


class NoHandBack(AdaptiveBFS):
    name = "adaptive_nohb"

    def _compile(self, defines):
        return super()._compile({**defines, "PROBE_NO_HAND_BACK": 1})


STEPS["adaptive_nohb"] = NoHandBack
import ladder
sys.exit(ladder.main())
