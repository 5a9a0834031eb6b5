"""What one crossing of the grid barrier (bfs_common.h's grid_sync) costs on a device.

A cooperative launch of ``barrier_cost`` (benchmarks/grid_barrier.hip) crosses the barrier
``rounds`` times and does nothing else. Timed with events around the launch, the time of
``rounds`` crossings less that of a launch with none, divided by ``rounds``, is one
crossing. Repeated, and the median kept, for several grid shapes: one block per
multiprocessor, two, and the whole cooperative grid. Each shape is timed with both
barriers: ``grid_sync`` (a release add, acquire polls) and the fenced barrier it improves
on (``grid_sync_fenced`` in grid_barrier.hip: fences on both sides), and with both again
after each thread stores a word (``barrier_stores``), as a BFS level does. Those stores
are read back across blocks after every crossing, and a barrier that lets a thread see
an old word fails the run before anything is reported.

    python benchmarks/barrier_cost.py --backend cuda --out benchmarks/results/DIR

writes ``barrier.json`` and ``barrier_table.rst`` (the table the runtime chapter includes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rodinia_bfs.errors import RodiniaBFSError  # noqa: E402
from rodinia_bfs.kernels import kernel_headers  # noqa: E402
from rodinia_bfs.runtime import choose_backend, get_device  # noqa: E402
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES  # noqa: E402

#: The two barriers: grid_sync, and the fenced one it improves on; each has a kernel of
#: crossings alone and one of crossings after stores.
BARRIERS = {"release/acquire": ("barrier_cost", "barrier_stores"),
            "fences": ("barrier_cost_fenced", "barrier_stores_fenced")}


def time_launch(device, kernel, barrier, blocks, threads, args, repeats):
    """Median milliseconds of a launch of ``kernel(barrier, *args)``, over ``repeats``
    launches."""
    stream = device.stream()
    start, stop = device.event(), device.event()
    times = []
    for _ in range(repeats + 1):  # the first is a warm-up
        device.memset(barrier, 0, stream=stream)
        start.record(stream)
        device.launch_cooperative(kernel, blocks, threads, (barrier, *args), stream=stream)
        stop.record(stream)
        stop.synchronize()
        times.append(start.elapsed_ms(stop))
    device.check_grid_barrier(barrier, kernel.name)
    return statistics.median(times[1:])


def per_crossing(device, kernel, barrier, blocks, threads, args, rounds, repeats) -> float:
    """Microseconds a crossing: ``rounds`` crossings less none, over ``rounds``."""
    empty = time_launch(device, kernel, barrier, blocks, threads, (*args, np.uint32(0)), repeats)
    full = time_launch(device, kernel, barrier, blocks, threads, (*args, np.uint32(rounds)),
                       repeats)
    return round(1000.0 * (full - empty) / rounds, 3)


def measure(device, rounds: int, repeats: int) -> list[dict]:
    source = (HERE / "grid_barrier.hip").read_text()
    module = device.compile(source, "grid_barrier.hip", headers=kernel_headers())
    kernels = {name: (module.get_function(cost), module.get_function(stores))
               for name, (cost, stores) in BARRIERS.items()}
    cost_kernel = kernels["release/acquire"][0]
    sms = device.multiprocessor_count
    shapes = [(sms, 256, "one block per multiprocessor"),
              (2 * sms, 256, "two blocks per multiprocessor"),
              (2 * sms, 512, "two blocks of 512 per multiprocessor"),
              (device.cooperative_grid(cost_kernel, 256), 256, "the whole cooperative grid"),
              (device.cooperative_grid(cost_kernel, 1024), 1024, "the whole cooperative grid")]
    barrier, errors = device.malloc(GRID_BARRIER_BYTES), device.malloc(4)
    words = device.malloc(4 * 2 * max(blocks * threads for blocks, threads, _ in shapes))
    rows = []
    try:
        for blocks, threads, what in shapes:
            row = {"blocks": blocks, "threads_per_block": threads, "shape": what, "rounds": rounds}
            for name, (cost, stores) in kernels.items():
                device.memset(errors, 0)
                row[f"{name} µs"] = per_crossing(device, cost, barrier, blocks, threads, (),
                                                 rounds, repeats)
                row[f"{name} after stores µs"] = per_crossing(
                    device, stores, barrier, blocks, threads, (words, errors), rounds, repeats)
                wrong = int(device.from_device(errors, 1, np.uint32)[0])
                if wrong:
                    raise RodiniaBFSError(f"the {name} barrier let threads read {wrong} old "
                                          f"words ({blocks} blocks of {threads})")
            rows.append(row)
    finally:
        for buf in (barrier, errors, words):
            device.free(buf)
    return rows


#: The table's columns: a heading and the row's field (None: the row's own text).
COLUMNS = [("blocks", "blocks"), ("threads", "threads_per_block"), ("grid", "shape"),
           ("fences, µs", "fences µs"), ("release/acquire, µs", "release/acquire µs"),
           ("fences, after stores", "fences after stores µs"),
           ("release/acquire, after stores", "release/acquire after stores µs")]


def table(rows: list[dict]) -> list[str]:
    """An reStructuredText table: a crossing with each barrier, alone and after stores."""
    cells = [[f"{r[key]:.2f}" if isinstance(r[key], float) else str(r[key])
              for _, key in COLUMNS] for r in rows]
    widths = [max(len(heading), *(len(row[i]) for row in cells))
              for i, (heading, _) in enumerate(COLUMNS)]
    rule = "  ".join("=" * w for w in widths)
    line = lambda values: "  ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()  # noqa: E731
    return [rule, line([heading for heading, _ in COLUMNS]), rule,
            *(line(row) for row in cells), rule]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", help="auto, hip, cuda or cpu (default: auto)")
    parser.add_argument("--rounds", type=int, default=20000, help="crossings per launch (default: 20000)")
    parser.add_argument("--repeats", type=int, default=7, help="launches per shape (default: 7)")
    parser.add_argument("--out", type=Path, help="folder for barrier.json and barrier_table.rst")
    args = parser.parse_args(argv)
    backend, why = choose_backend(args.backend)
    device = get_device(backend)
    try:
        rows = measure(device, args.rounds, args.repeats)
    except RodiniaBFSError as exc:
        print(f"barrier_cost: {exc}", file=sys.stderr)
        return 1
    header = f"{device.describe()} [{why}]"
    print(header)
    lines = table(rows)
    print("\n".join(lines))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        command = "python benchmarks/barrier_cost.py " + " ".join(argv if argv is not None else sys.argv[1:])
        (args.out / "barrier.json").write_text(json.dumps(
            {"device": device.name, "backend": device.backend, "arch": device.arch,
             "multiprocessors": device.multiprocessor_count, "command": command,
             "rows": rows}, indent=2) + "\n")
        (args.out / "barrier_table.rst").write_text(
            f"Measured on {device.name} ({device.backend} backend) with ``{command}``:\n\n"
            + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
