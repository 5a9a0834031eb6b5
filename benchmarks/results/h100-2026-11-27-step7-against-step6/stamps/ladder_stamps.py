"""benchmarks/ladder.py with one more variant for a probe: step 7 without its per-level
stamps in timed searches (the grid's stamp capacity 0, the single block given step 5's
empty stamps), as step 5 times its searches. last_choices is then stale: not used here."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # benchmarks/, for ladder
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.persistent import PersistentBFS


class NoStamps(AdaptiveBFS):
    name = "adaptive_nostamps"

    def _grid_records(self):
        super()._grid_records()
        self.grid_args["stamp_capacity"] = 0

    def _arguments(self, stamps, stamp_capacity):
        single, _ = PersistentBFS._arguments(self, self.no_stamps, 0)
        return single, [[self.grid_args[k:k + 1]] for k in range(self.rounds + 1)]


STEPS["adaptive_nostamps"] = NoStamps
import ladder
sys.exit(ladder.main())
