"""benchmarks/ladder.py with two more variants for a probe: steps 6 and 7 compiled with
NVRTC's --maxrregcount=128 (the launch bounds' own limit, given explicitly), marked by a
define that the kernels do not read."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # benchmarks/, for ladder
import rodinia_bfs.runtime.cuda_backend as cb
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.push_pull import PushPullBFS

_options = cb.compile_options
def compile_options(arch, defines=None):
    extra = ["--maxrregcount=128"] if defines and defines.get("PROBE_MAXRREGCOUNT") else []
    return _options(arch, defines) + extra
cb.compile_options = compile_options

def with_maxreg(cls, name):
    class Step(cls):
        def _compile(self, defines):
            return super()._compile({**defines, "PROBE_MAXRREGCOUNT": 128})
    Step.name = name
    STEPS[name] = Step

with_maxreg(AdaptiveBFS, "adaptive_maxreg")
with_maxreg(PushPullBFS, "push_pull_maxreg")
import ladder
sys.exit(ladder.main())
