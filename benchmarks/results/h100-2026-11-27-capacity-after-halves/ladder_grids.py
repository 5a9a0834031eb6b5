"""benchmarks/ladder.py with the 1500 x 1500 and 2000 x 2000 grids and a grid with
shortcuts (road_like of the tests, rows of 8 read by halves) of 1500 x 1500 in the large suite."""
import sys
from pathlib import Path
here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent / "benchmarks"))
sys.path.insert(0, str(here.parent / "tests"))
import rodinia_bfs.bench.suites as suites
from test_step5_persistent import road_like

_large = suites._large
def _road_like(side):
    return suites.GraphSpec(name=f"road-like-{side}", description="grid with shortcuts",
                            generator=lambda side: road_like(side), params={"side": side},
                            est_vertices=side * side, est_edges=4 * side * side)
suites._large = lambda: [*_large(), suites._grid(1500, 1500), suites._grid(2000, 2000), _road_like(1500)]
suites.SUITES["large"] = (suites._large, 16)
import ladder
sys.exit(ladder.main())
