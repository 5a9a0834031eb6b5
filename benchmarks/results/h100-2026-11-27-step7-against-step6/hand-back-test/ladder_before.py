"""benchmarks/ladder.py with one more variant, adaptive_before: step 7 built with another
push_pull_grid.h (the file that $PUSH_PULL_GRID_BEFORE names: the header before a patch),
to time it against the working tree's. Run from the repository root with PYTHONPATH=.,
the ladder's arguments after the script."""
import sys
from pathlib import Path
here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2]))  # benchmarks/, for ladder
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS

import os
OLD = Path(os.environ["PUSH_PULL_GRID_BEFORE"]).read_text()


class Before(AdaptiveBFS):
    name = "adaptive_before"

    def _compile(self, defines):
        device = self.device
        compile_ = device.compile

        def compile_before(source, name="kernel.hip", defines=None, headers=None):
            return compile_(source, name, defines=defines,
                            headers={**(headers or kernel_headers()), "push_pull_grid.h": OLD})

        device.compile = compile_before  # for this step's module only
        try:
            return super()._compile(defines)
        finally:
            del device.compile


STEPS["adaptive_before"] = Before
import ladder
sys.exit(ladder.main())
