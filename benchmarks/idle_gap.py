"""How long the GPU was idle before a search changes how long the search takes.

    python benchmarks/idle_gap.py push_pull --graphs kronecker-20 --backend cuda

Every source is searched back to back (nothing between two searches but the wait for
the last one), then with the host pausing between searches: the download of the levels
and parents that ``rodinia-bfs bench`` does after each timed search, or a sleep of 1, 5
or 20 ms. Events around ``search`` time each one, as the bench does. Prints the median
and the fastest search of each way, in microseconds; ``--json`` keeps them. Every search that is followed by the
download is checked against the CPU reference levels; otherwise the last search of each
round is (checking them all would put the download between them).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.runner import select_sources  # noqa: E402
from rodinia_bfs.bench.suites import DEFAULT_DATA_DIR, suite_graphs  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402

#: What the host does between two searches: nothing, the bench's download, or a sleep.
PAUSES = ("none", "download", "sleep 1 ms", "sleep 5 ms", "sleep 20 ms")


def pause(how: str) -> None:
    if how.startswith("sleep"):
        time.sleep(float(how.split()[1]) / 1e3)


def check(step, graph: str, variant: str, source: int, levels: np.ndarray) -> None:
    """Download the last search's levels (the bench's download) and compare."""
    got, _ = step.results()
    if not np.array_equal(got, levels):
        raise SystemExit(f"{graph}: {variant} from {source}: levels differ from the reference")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", help="the step to time, e.g. push_pull")
    parser.add_argument("--graphs", required=True, help="comma-separated suite graph names")
    parser.add_argument("--suite", default="standard", help="suite the graphs come from")
    parser.add_argument("--sources", type=int, default=16, help="sources per graph (default: 16)")
    parser.add_argument("--repeats", type=int, default=2, help="rounds over the sources")
    parser.add_argument("--backend", default="auto", help="auto, hip, cuda or cpu")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="real graphs' folder")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)

    device, why = open_device(args.backend)
    print(f"{device.describe()} [{why}]", flush=True)
    rows = []
    for spec in suite_graphs(args.suite, args.graphs.split(",")):
        graph = spec.build(args.data)
        sources = select_sources(graph, args.sources)
        expected = [bfs_reference(graph, s).levels for s in sources]
        with get_step(args.variant)(device, graph) as step:
            step.run(sources[0])  # warm-up
            begin, end = device.event(), device.event()
            for how in PAUSES:
                times = []
                for _ in range(args.repeats):
                    for source, levels in zip(sources, expected):
                        device.synchronize()
                        begin.record(step.stream)
                        step.search(source)
                        end.record(step.stream)
                        end.synchronize()
                        times.append(begin.elapsed_ms(end) * 1e3)
                        if how == "download":
                            check(step, spec.name, args.variant, source, levels)
                        else:
                            pause(how)
                    check(step, spec.name, args.variant, source, levels)  # the round's last
                rows.append({"graph": spec.name, "pause": how, "median_us": statistics.median(times),
                             "min_us": min(times)})
                print(f"{spec.name:>16} {args.variant} pause {how:<12} median "
                      f"{rows[-1]['median_us']:7.1f} us, fastest {rows[-1]['min_us']:7.1f} us",
                      flush=True)
    if args.json:
        args.json.write_text(json.dumps({"device": device.name, "variant": args.variant,
                                         "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
