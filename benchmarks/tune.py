"""Time one step under several settings of its tunables, to choose its defaults.

    python benchmarks/tune.py persistent --graphs road-NY,grid-1000x1000 \\
        --configs '{}' '{"edge_batch": 8}' '{"sb_block_size": 512}' --backend cuda

Each config is a JSON object of the step's constructor options; ``"variant"`` in a config
times another step instead (``'{"variant": "push_pull"}'``). Every graph is built once,
and every config is set up on it at once and warmed up. Then the configs take turns:
each source is timed under every config before the next source (events around
``search``, as ``rodinia-bfs bench`` does), ``--repeats`` times over, so that a drift of
the machine's speed during the run falls on every config alike. Every timed result is
checked against the CPU reference levels. Prints one line per graph and config: the
median milliseconds of a BFS, the median number of levels, and the median microseconds
per level; ``--json`` keeps them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rodinia_bfs.api import open_device  # noqa: E402
from rodinia_bfs.bench.runner import select_sources  # noqa: E402
from rodinia_bfs.bench.suites import DEFAULT_DATA_DIR, suite_graphs  # noqa: E402
from rodinia_bfs.errors import ValidationError  # noqa: E402
from rodinia_bfs.reference import bfs_reference  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402


def time_configs(device, steps: list, sources, expected, repeats: int) -> list[dict]:
    """Time every step (set up and warmed up) from every source, in turns."""
    begin, end = device.event(), device.event()
    times = [[] for _ in steps]
    for repeat in range(repeats):
        for source, levels in zip(sources, expected):
            # The configs in a different order each round: none always goes first.
            for k in ((i + repeat) % len(steps) for i in range(len(steps))):
                step = steps[k]
                device.synchronize()
                begin.record(step.stream)
                step.search(source)
                end.record(step.stream)
                end.synchronize()
                times[k].append(begin.elapsed_ms(end))
                got, _ = step.results()
                if not np.array_equal(got, levels):
                    wrong = int(np.count_nonzero(got != levels))
                    raise ValidationError(f"{step.name} config {k}: {wrong} wrong levels "
                                          f"from source {source}")
    depth = statistics.median(int(levels.max()) + 1 for levels in expected)
    return [{"median_ms": statistics.median(t), "min_ms": min(t), "max_ms": max(t),
             "median_levels": depth, "us_per_level": 1000.0 * statistics.median(t) / depth}
            for t in times]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", help="the step to tune, e.g. persistent")
    parser.add_argument("--configs", nargs="+", default=["{}"],
                        help="JSON objects of constructor options (default: {})")
    parser.add_argument("--graphs", required=True, help="comma-separated suite graph names")
    parser.add_argument("--suite", default="large", help="suite the graphs come from (default: large)")
    parser.add_argument("--sources", type=int, default=8, help="sources per graph (default: 8)")
    parser.add_argument("--backend", default="auto", help="auto, hip, cuda or cpu (default: auto)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="real graphs' folder")
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds over the sources (default: 1)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)

    device, why = open_device(args.backend)
    print(f"{device.describe()} [{why}]", flush=True)
    configs = [json.loads(text) for text in args.configs]
    rows = []
    for spec in suite_graphs(args.suite, args.graphs.split(",")):
        graph = spec.build(args.data)
        sources = select_sources(graph, args.sources)
        expected = [bfs_reference(graph, s).levels for s in sources]
        steps = []
        try:
            for options in configs:
                options = dict(options)
                step = get_step(options.pop("variant", args.variant))(device, graph, **options)
                steps.append(step)
                step.run(sources[0])  # warm-up
            timed = time_configs(device, steps, sources, expected, args.repeats)
        finally:
            for step in steps:
                step.close()
        for options, row in zip(configs, timed):
            row = {"graph": spec.name, "options": options, **row}
            rows.append(row)
            print(f"{spec.name:>16} {json.dumps(options):<40} {row['median_ms']:9.4f} ms "
                  f"({row['min_ms']:.4f}-{row['max_ms']:.4f}), {row['median_levels']:6.0f} levels, "
                  f"{row['us_per_level']:7.2f} us/level", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"device": device.name, "variant": args.variant,
                                         "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
