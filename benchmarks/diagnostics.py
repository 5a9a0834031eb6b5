"""Two measurements behind choices of the runtime and the steps (NVIDIA GPUs: the cuda
backend), written to a folder as text:

* ``resources``: the registers, local (spilled) memory and static shared memory of every
  kernel a step compiles for a graph, and the grid its cooperative launch gets. A kernel
  of 1024 threads that needs more than 32 registers each fits once per multiprocessor,
  not twice: the grid of steps 5 to 7 halves.
* ``upload``: one large host-to-device copy from pageable memory, made directly and
  made from the source pinned in place (what ``Device.memcpy_htod`` does from
  ``PIN_IN_PLACE_BYTES`` on), each checked byte for byte.

    python benchmarks/diagnostics.py resources --variants persistent,push_pull,adaptive \\
        --scale 20 -o benchmarks/results/h100-DATE-diagnostics
    python benchmarks/diagnostics.py upload --mib 128 -o benchmarks/results/h100-DATE-diagnostics
    python benchmarks/diagnostics.py table -o benchmarks/results/h100-DATE-diagnostics
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


def resources(device, variants: list[str], scale: int) -> list[str]:
    from cuda.bindings import driver

    from rodinia_bfs.graphs.generators import kronecker
    from rodinia_bfs.runtime.base import Kernel
    from rodinia_bfs.variants import STEPS

    graph = kronecker(scale=scale, edge_factor=16, seed=0, progress=False)
    attribute = driver.CUfunction_attribute
    lines = [f"{device.name}; Kronecker scale {scale}, edge factor 16, seed 0"]
    for name in variants:
        step = STEPS[name](device, graph)
        for field, kernel in vars(step).items():
            if not isinstance(kernel, Kernel):
                continue
            regs, local, shared = (
                driver.cuFuncGetAttribute(which, kernel.handle)[1]
                for which in (attribute.CU_FUNC_ATTRIBUTE_NUM_REGS,
                              attribute.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                              attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES))
            lines.append(f"{name:12s} {kernel.name:24s} registers {regs:4d}  local bytes "
                         f"{local:5d}  static shared bytes {shared:6d}")
        grids = {k: v for k, v in vars(step).items()
                 if k in ("grid", "grid_blocks") and isinstance(v, int)}
        lines.append(f"{name:12s} cooperative grid: {grids} blocks")
        step.close()
    return lines


def upload(device, mib: int, repeats: int) -> list[str]:
    data = np.random.default_rng(0).integers(0, 2**31, size=(mib << 20) // 4, dtype=np.int32)
    buf = device.malloc(data.nbytes)
    lines = [f"{device.name}; {data.nbytes} bytes from pageable memory, ms per copy"]
    for _ in range(repeats):
        device.synchronize()
        start = time.perf_counter()
        device._copy_htod(buf.ptr, data, data.nbytes)  # the driver's own staging
        device.synchronize()
        pageable = (time.perf_counter() - start) * 1e3
        assert np.array_equal(device.from_device(buf, data.size, data.dtype), data)
        device.memset(buf, 0)
        device.synchronize()
        start = time.perf_counter()
        device.memcpy_htod(buf, data)  # pinned in place, copied, let go
        device.synchronize()
        pinned = (time.perf_counter() - start) * 1e3
        assert np.array_equal(device.from_device(buf, data.size, data.dtype), data)
        lines.append(f"pageable {pageable:7.2f}   pinned in place (pinning included) {pinned:7.2f}")
    device.free(buf)
    return lines


def table(folder: Path) -> str:
    """``table.md`` from the text files of ``folder`` (as this script and its earlier form
    wrote them): the resources of each state, the uploads, the set-up's phases."""
    import ast
    import re

    out = [f"Kernel resources, uploads and set-up phases ({folder.name}), from the text files "
           "beside this table.", ""]
    states = [("resources-positional-arguments.txt", "positional (bf0972f)"),
              ("resources-record-by-pointer.txt", "record by pointer"),
              ("resources.txt", "record by value")]
    out += ["| arguments | step | kernel | registers | local bytes |", "|---|---|---|---:|---:|"]
    grids = []
    for name, state in states:
        path = folder / name
        if not path.is_file():
            continue
        for line in path.read_text().splitlines():
            kernel = re.match(r"(\w+)\s+(?:\w+\s+)?(\w+)\s+reg\w*\s+(\d+)\s+local\D*(\d+)", line)
            grid = re.match(r"(\w+)\s+(?:cooperative grid|grid blocks).*?(\d+)\}", line)
            if kernel:
                out.append(f"| {state} | {kernel[1]} | {kernel[2]} | {kernel[3]} | {kernel[4]} |")
            elif grid:
                grids.append(f"| {state} | {grid[1]} | {grid[2]} |")
    out += ["", "| arguments | step | cooperative grid, blocks |", "|---|---|---:|", *grids]
    upload_file = folder / "upload.txt"
    if upload_file.is_file():
        out += ["", "| repeat | pageable ms | pinned in place ms |", "|---:|---:|---:|"]
        rows = re.findall(r"pageable\s+([\d.]+)\s+pinned in place \(pinning included\)\s+([\d.]+)",
                          upload_file.read_text())
        out += [f"| {i} | {a} | {b} |" for i, (a, b) in enumerate(rows, 1)]
    phases_file = folder / "set-up-phases.txt"
    if phases_file.is_file():
        runs = re.findall(r"adaptive setup ([\d.]+) ms (\{.*\})", phases_file.read_text())
        names = list(ast.literal_eval(runs[0][1])) if runs else []
        out += ["", "| set-up | ms | " + " | ".join(f"{n} ms" for n in names) + " |",
                "|---:|---:|" + "---:|" * len(names)]
        for i, (total, phases) in enumerate(runs, 1):
            phases = ast.literal_eval(phases)
            out.append(f"| {i} | {total} | " + " | ".join(str(phases[n][1]) for n in names) + " |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["resources", "upload", "table"],
                        help="table: write table.md from the text files of --out")
    parser.add_argument("--variants", default="persistent,push_pull,adaptive")
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--mib", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.what == "table":
        (args.out / "table.md").write_text(table(args.out))
        print(table(args.out), end="")
        return 0
    from rodinia_bfs.runtime import get_device

    device = get_device("cuda")
    lines = (resources(device, args.variants.split(","), args.scale) if args.what == "resources"
             else upload(device, args.mib, args.repeats))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.what}.txt").write_text("\n".join(lines) + "\n")
    (args.out / f"{args.what}-command.txt").write_text(
        "python benchmarks/diagnostics.py " + " ".join(argv or sys.argv[1:]) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
