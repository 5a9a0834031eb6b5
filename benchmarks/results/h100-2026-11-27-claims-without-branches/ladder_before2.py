"""benchmarks/ladder.py with steps 5 and 7 built from the single block's headers before the
change (.devrun/old2/: claims of rows with a branch around each padding entry), to time
them against the working tree's; and the 1500 x 1500 and 2000 x 2000 grids in the large suite."""
import sys
from pathlib import Path
here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent / "benchmarks"))
import rodinia_bfs.bench.suites as suites
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.persistent import PersistentBFS

OLD = {p.name: p.read_text() for p in (here / "old2").glob("*.h")}

def before(cls, name):
    class Before(cls):
        def _compile(self, defines):
            device = self.device
            compile_ = device.compile
            def compile_before(source, name="kernel.hip", defines=None, headers=None):
                return compile_(source, name, defines=defines,
                                headers={**(headers or kernel_headers()), **OLD})
            device.compile = compile_before  # for this step's module only
            try:
                return super()._compile(defines)
            finally:
                del device.compile
    Before.name = name
    STEPS[name] = Before
before(PersistentBFS, "persistent_before")
before(AdaptiveBFS, "adaptive_before")
_large = suites._large
suites._large = lambda: [*_large(), suites._grid(1500, 1500), suites._grid(2000, 2000)]
suites.SUITES["large"] = (suites._large, 16)
import ladder
sys.exit(ladder.main())
