"""Peak host memory while a graph file is read, as a multiple of the CSR graph it becomes.

Each file is loaded in a fresh Python process, twice:

* ``rss``: the process's peak resident memory (``resource.getrusage(...).ru_maxrss``)
  after the load, less its peak after the imports alone: what loading added, everything
  included (the decompressor's window, numpy's arrays, the allocator's slack);
* ``traced``: the peak of ``tracemalloc`` during the load: the Python and numpy
  allocations alone, without the decompressor's own buffers.

The multiple is each peak over the bytes of the final graph's two arrays (``offsets``
int64, ``targets`` int32). Run from the project root::

    python benchmarks/load_memory.py                   # FLA and a Kronecker-20 file
    python benchmarks/load_memory.py FILE... --out benchmarks/results/load-memory-DATE

Without FILEs it loads ../shared/data/road/FLA.gr.xz and a Kronecker scale-20 graph it
first writes with ``rodinia-bfs generate kronecker --scale 20 -o /tmp/kronecker-20.gr``
(PACE text, each undirected edge once).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILES = [ROOT.parent / "shared" / "data" / "road" / "FLA.gr.xz",
                 Path("/tmp/kronecker-20.gr")]

# What runs in the child process: the load, then one line of JSON.
CHILD = r"""
import json, resource, sys, time, tracemalloc
import numpy as np
from rodinia_bfs.graphs.formats import load_graph
path, how = sys.argv[1], sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if how == "traced":
    tracemalloc.start()
began = time.perf_counter()
graph = load_graph(path, max_input_size=1 << 40)
seconds = time.perf_counter() - began
peak = (tracemalloc.get_traced_memory()[1] if how == "traced"
        else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)
print(json.dumps({"peak_bytes": peak, "seconds": seconds,
                  "csr_bytes": int(graph.offsets.nbytes + graph.targets.nbytes),
                  "vertices": graph.num_vertices, "arcs": graph.num_arcs}))
"""


def measure(path: Path, how: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                     os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), how], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def text_bytes(path: Path) -> int:
    """The bytes the reader parses: the file's size, decompressed."""
    import gzip
    import lzma

    opener = {".gz": gzip.open, ".xz": lzma.open}.get(path.suffix, open)
    total = 0
    with opener(path, "rb") as stream:
        while chunk := stream.read(1 << 24):
            total += len(chunk)
    return total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="graph files (default: see above)")
    parser.add_argument("--out", type=Path, help="folder for results.json and table.md")
    parser.add_argument("--machine", default="2-core CPU machine",
                        help="how results.json names the machine")
    args = parser.parse_args(argv)
    files = args.files or DEFAULT_FILES
    for path in files:
        if path.name == "kronecker-20.gr" and not path.exists():
            subprocess.run([sys.executable, "-m", "rodinia_bfs", "generate", "kronecker",
                            "--scale", "20", "-o", str(path)], check=True,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)))
    rows = []
    for path in files:
        rss, traced = measure(path, "rss"), measure(path, "traced")
        row = {"file": path.name, "file_bytes": path.stat().st_size,
               "text_bytes": text_bytes(path), "vertices": rss["vertices"], "arcs": rss["arcs"],
               "csr_bytes": rss["csr_bytes"], "rss_peak_bytes": rss["peak_bytes"],
               "traced_peak_bytes": traced["peak_bytes"], "load_seconds": rss["seconds"]}
        row["rss_multiple"] = round(row["rss_peak_bytes"] / row["csr_bytes"], 2)
        row["traced_multiple"] = round(row["traced_peak_bytes"] / row["csr_bytes"], 2)
        rows.append(row)
        print(f"{path.name}: CSR {row['csr_bytes'] / 2**20:.1f} MiB, text "
              f"{row['text_bytes'] / 2**20:.1f} MiB; peak added {row['rss_peak_bytes'] / 2**20:.1f} "
              f"MiB resident = {row['rss_multiple']}x, {row['traced_peak_bytes'] / 2**20:.1f} MiB "
              f"traced = {row['traced_multiple']}x; {row['load_seconds']:.2f} s", flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        meta = {"date": datetime.date.today().isoformat(), "machine": args.machine,
                "python": platform.python_version(),
                "command": "python benchmarks/load_memory.py " + " ".join(map(str, argv or sys.argv[1:]))}
        (args.out / "results.json").write_text(json.dumps({"meta": meta, "files": rows},
                                                          indent=1) + "\n")
        lines = ["| file | vertices | arcs | text MiB | CSR MiB | peak resident MiB (x CSR) "
                 "| peak traced MiB (x CSR) |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['file']} | {r['vertices']:,} | {r['arcs']:,} | "
                         f"{r['text_bytes'] / 2**20:.1f} | {r['csr_bytes'] / 2**20:.1f} | "
                         f"{r['rss_peak_bytes'] / 2**20:.1f} ({r['rss_multiple']}x) | "
                         f"{r['traced_peak_bytes'] / 2**20:.1f} ({r['traced_multiple']}x) |")
        (args.out / "table.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
