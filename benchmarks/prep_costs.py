"""What preparing a graph for steps 5, 6 and 7 costs: on the host (before) and on the device (now).

For every graph and step, timed with the host clock around the work and a device
synchronisation at its end, ``--repeats`` times after one untimed run (which compiles
the kernels), median and spread (min, max):

* ``upload_ms``: the two CSR arrays to the device (``hipMalloc`` + ``hipMemcpy``), which
  both ways below include;
* ``host_ms``: the upload, then what the step reads beyond the CSR arrays built on the
  host by the NumPy functions the steps used before (``persistent.build_edge_records``
  or ``build_rows``, ``push_pull.bottom_up_inputs``) and uploaded;
* ``device_ms``: the upload, then the same arrays built on the device
  (``rodinia_bfs/graph_prep.py``);
* ``setup_ms``: the step's whole constructor (``STEPS[name](device, graph)``: compile,
  upload, preparation, allocations) as the bench's ``setup_ms`` measures it.

    python benchmarks/prep_costs.py [GRAPH_FILE ...] [--generate kronecker:20 ...]
        [--backend auto|hip|cuda|cpu] [--repeats 10] [--steps persistent,push_pull,adaptive]
        [-o benchmarks/results/prep-costs]

writes ``command.txt``, ``prep_costs.json`` and ``table.md`` to the output folder.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rodinia_bfs import graph_prep  # noqa: E402
from rodinia_bfs.graph_prep import Buffers, DeviceGraph  # noqa: E402
from rodinia_bfs.graphs.formats import graph_name, load_graph  # noqa: E402
from rodinia_bfs.graphs.generators import grid2d, kronecker  # noqa: E402
from rodinia_bfs.runtime import get_device  # noqa: E402
from rodinia_bfs.variants import STEPS  # noqa: E402
from rodinia_bfs.variants.persistent import build_edge_records, build_rows, row_width  # noqa: E402
from rodinia_bfs.variants.push_pull import bottom_up_inputs  # noqa: E402

#: The steps whose set-up builds more than the CSR arrays, and what each builds: step
#: 5's records or rows, step 6's bottom-up inputs, step 7 both.
BUILDS = {"persistent": {"records"}, "push_pull": {"bottom_up"},
          "adaptive": {"records", "bottom_up"}}


def generated(spec: str):
    """``kronecker:20`` (scale) or ``grid:1000`` (side): a name and the graph."""
    kind, _, arg = spec.partition(":")
    if kind == "kronecker" and arg.isdigit():
        return f"kronecker-{arg}", kronecker(int(arg), seed=0, progress=False)
    if kind == "grid" and arg.isdigit():
        return f"grid-{arg}x{arg}", grid2d(int(arg), int(arg))
    raise SystemExit(f"--generate {spec!r}: expected kronecker:SCALE or grid:SIDE")


def host_way(device, graph, step: str, memory: Buffers) -> None:
    """What the step uploaded before: the CSR arrays and its extra arrays, built on the
    host. (Step 6 uploaded a symmetric graph's lists once, hubs first, for both ways.)"""
    memory.upload(graph.offsets)
    symmetric = False
    if "bottom_up" in BUILDS[step]:
        reverse, symmetric, active = bottom_up_inputs(graph)
        if not symmetric:
            memory.upload(reverse.offsets)
        memory.upload(reverse.targets)
        memory.upload(active)
    if not (symmetric and step == "push_pull"):
        memory.upload(graph.targets)
    if "records" in BUILDS[step]:
        width = row_width(graph, None)
        memory.upload(build_rows(graph, width) if width else build_edge_records(graph))
    device.synchronize()


def device_way(device, graph, step: str, memory: Buffers) -> None:
    """The upload, and the step's extra arrays built on the device."""
    on_device = DeviceGraph.upload(graph, memory)
    if "records" in BUILDS[step]:
        width = row_width(graph, None)
        if width:
            graph_prep.device_rows(device, on_device, width, memory)
        else:
            graph_prep.device_edge_records(device, on_device, memory)
    if "bottom_up" in BUILDS[step]:
        graph_prep.device_bottom_up_inputs(device, on_device, memory)
    device.synchronize()


def upload_only(device, graph, step: str, memory: Buffers) -> None:
    DeviceGraph.upload(graph, memory)
    device.synchronize()


def whole_setup(device, graph, step: str, memory: Buffers) -> None:
    STEPS[step](device, graph).close()


def timed(way, device, graph, step: str, repeats: int) -> dict:
    """Milliseconds of ``repeats`` runs of ``way`` after an untimed one: median, min, max."""
    times = []
    for attempt in range(repeats + 1):
        with Buffers(device) as memory:
            start = time.perf_counter()
            way(device, graph, step, memory)
            elapsed = (time.perf_counter() - start) * 1e3
        if attempt:
            times.append(elapsed)
    return {"median": statistics.median(times), "min": min(times), "max": max(times),
            "runs": times}


def table(rows: list[dict], device_name: str) -> str:
    """One row per step and graph: each figure's median, then its range over the repeats."""
    names = ("upload_ms", "host_ms", "device_ms", "setup_ms")
    heads = ("upload", "host build (before)", "device build (now)", "set-up")
    lines = [f"Set-up costs on {device_name}, milliseconds: median, then min-max of the repeats.",
             "", "| step | graph | " + " | ".join(f"{h} | range" for h in heads) + " |",
             "|---|---|" + "---:|---|" * len(heads)]
    for row in rows:
        cells = [f"{row[name]['median']:.2f} | {row[name]['min']:.2f}-{row[name]['max']:.2f}"
                 for name in names]
        lines.append(f"| {row['step']} | {row['graph']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("graphs", nargs="*", help="graph files (any format the package reads)")
    parser.add_argument("--generate", action="append", default=[],
                        help="a generated graph: kronecker:SCALE or grid:SIDE (repeatable)")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--steps", default=",".join(BUILDS))
    parser.add_argument("-o", "--out", default=str(HERE / "results" / "prep-costs"))
    args = parser.parse_args()
    steps = args.steps.split(",")
    if not set(steps) <= set(BUILDS) or args.repeats < 1:
        raise SystemExit(f"--steps takes {', '.join(BUILDS)}; --repeats at least 1")
    if not args.graphs and not args.generate:
        raise SystemExit("name a graph file or --generate one")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/prep_costs.py " + shlex.join(sys.argv[1:])
    (out / "command.txt").write_text(command + "\n")

    device = get_device(args.backend)
    print(device.describe(), flush=True)
    graphs = [generated(spec) for spec in args.generate]
    graphs += [(graph_name(Path(path)), load_graph(path)) for path in args.graphs]
    rows = []
    for label, graph in graphs:
        print(f"{label}: {graph.num_vertices:,} vertices, {graph.num_edges:,} edges", flush=True)
        for step in steps:
            row = {"graph": label, "step": step, "vertices": graph.num_vertices,
                   "edges": graph.num_edges}
            for key, way in (("upload_ms", upload_only), ("host_ms", host_way),
                             ("device_ms", device_way), ("setup_ms", whole_setup)):
                row[key] = timed(way, device, graph, step, args.repeats)
            print(f"  {step}: host {row['host_ms']['median']:.2f} ms, device "
                  f"{row['device_ms']['median']:.2f} ms, set-up {row['setup_ms']['median']:.2f} ms",
                  flush=True)
            rows.append(row)
    results = {"command": command, "date": datetime.now(timezone.utc).isoformat(),
               "backend": device.backend, "device": device.name, "arch": device.arch,
               "repeats": args.repeats, "rows": rows}
    (out / "prep_costs.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "table.md").write_text(table(rows, device.name))
    print(f"wrote {out}/prep_costs.json and table.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
