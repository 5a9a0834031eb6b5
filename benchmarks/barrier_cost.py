"""What one crossing of the grid barrier (bfs_common.h's grid_sync) costs on a device.

A cooperative launch of ``barrier_cost`` (benchmarks/grid_barrier.hip) crosses the barrier
``rounds`` times and does nothing else. Timed with events around the launch, the time of
``rounds`` crossings less that of a launch with none, divided by ``rounds``, is one
crossing. Repeated, and the median kept, for several grid shapes: one block per
multiprocessor, two, and the whole cooperative grid of 256-thread blocks.

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

from rodinia_bfs.kernels import kernel_headers  # noqa: E402
from rodinia_bfs.runtime import choose_backend, get_device  # noqa: E402
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES  # noqa: E402


def time_launch(device, kernel, barrier, blocks, threads, rounds, repeats):
    """Median milliseconds of a launch of ``rounds`` crossings, over ``repeats`` launches."""
    stream = device.stream()
    start, stop = device.event(), device.event()
    times = []
    for _ in range(repeats + 1):  # the first is a warm-up
        device.memset(barrier, 0, stream=stream)
        start.record(stream)
        device.launch_cooperative(kernel, blocks, threads, (barrier, np.uint32(rounds)),
                                  stream=stream)
        stop.record(stream)
        stop.synchronize()
        times.append(start.elapsed_ms(stop))
    device.check_grid_barrier(barrier, kernel.name)
    return statistics.median(times[1:])


def measure(device, rounds: int, repeats: int) -> list[dict]:
    source = (HERE / "grid_barrier.hip").read_text()
    kernel = device.compile(source, "grid_barrier.hip", headers=kernel_headers()).get_function(
        "barrier_cost")
    barrier = device.malloc(GRID_BARRIER_BYTES)
    sms = device.multiprocessor_count
    shapes = [(sms, 256, "one block per multiprocessor"),
              (2 * sms, 256, "two blocks per multiprocessor"),
              (device.cooperative_grid(kernel, 256), 256, "the whole cooperative grid"),
              (device.cooperative_grid(kernel, 1024), 1024, "the whole cooperative grid")]
    rows = []
    for blocks, threads, what in shapes:
        empty = time_launch(device, kernel, barrier, blocks, threads, 0, repeats)
        full = time_launch(device, kernel, barrier, blocks, threads, rounds, repeats)
        rows.append({"blocks": blocks, "threads_per_block": threads, "shape": what,
                     "rounds": rounds, "launch_ms": round(empty, 4), "crossings_ms": round(full, 4),
                     "us_per_crossing": round(1000.0 * (full - empty) / rounds, 3)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", help="auto, hip, cuda or cpu (default: auto)")
    parser.add_argument("--rounds", type=int, default=20000, help="crossings per launch (default: 20000)")
    parser.add_argument("--repeats", type=int, default=7, help="launches per shape (default: 7)")
    parser.add_argument("--out", type=Path, help="folder for barrier.json and barrier_table.rst")
    args = parser.parse_args(argv)
    backend, why = choose_backend(args.backend)
    device = get_device(backend)
    rows = measure(device, args.rounds, args.repeats)
    header = f"{device.describe()} [{why}]"
    print(header)
    lines = ["=========  =======  ===============================  ============",
             "blocks     threads  grid                             per crossing",
             "=========  =======  ===============================  ============"]
    for r in rows:
        lines.append(f"{r['blocks']:<9}  {r['threads_per_block']:<7}  {r['shape']:<31}  "
                     f"{r['us_per_crossing']:.2f} µs")
    lines.append(lines[0])
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
