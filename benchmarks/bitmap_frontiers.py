"""A top-down BFS whose frontiers are bitmaps, timed against the floor of a grid level
(``benchmarks/given_frontiers.py``) and steps 6 and 7: an attempt for issue 26's meshes.

    python benchmarks/bitmap_frontiers.py --suite large --graphs delaunay-20 \\
        --files delaunay-24.npz --sources 8 --repeats 3 --backend cuda --out DIR

The kernel is ``benchmarks/bitmap_frontiers.hip``: the winner of a claim sets the
vertex's bit in the next frontier's bitmap, and the next level reads the whole bitmap, a
word a lane, where step 6 appends to a queue and the next level waits for its entries.
Both probes run on the grid of the first of ``--steps`` that has one (step 6's), or
``--blocks``. Every rung is set up on the graph and timed from every source in turns, as
``benchmarks/ladder.py`` times its rungs; the probes' levels are checked against the CPU
reference and their parents by Graph500's rules. ``--out DIR`` receives
``results.json``, ``table.md`` and ``command.txt``.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rodinia_bfs.errors import DeviceError, RodiniaBFSError  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402

from given_frontiers import BLOCK_SIZE, GivenFrontiers, SourceSearch  # noqa: E402
from ladder import (add_probe_arguments, check_probe, markdown, probe_setup,  # noqa: E402
                    reference_runs, rung_rows, time_rungs, write_run)

SOURCE = (ROOT / "benchmarks" / "bitmap_frontiers.hip").read_text()


class BitmapArgs(ctypes.Structure):
    """``struct BitmapArgs`` of bitmap_frontiers.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("visited", ctypes.c_uint64), ("frontiers", ctypes.c_uint64),
                ("found", ctypes.c_uint64), ("status", ctypes.c_uint64),
                ("barrier", ctypes.c_uint64), ("words", ctypes.c_uint32), ("n", ctypes.c_int32)]


class BitmapFrontiers(SourceSearch):
    """The kernel on one graph: ``search(source)`` and ``results()`` as a step has them."""

    name = "bitmap frontiers"

    def __init__(self, device, graph, block_size: int = BLOCK_SIZE, blocks: int | None = None):
        if not 1 <= block_size <= 1024:
            raise RodiniaBFSError(f"bitmap frontiers: blocks of 1 to 1024 threads, got {block_size}")
        self._set_up(device, graph, SOURCE, "bitmap_frontiers.hip", "bitmap_frontiers",
                     block_size, blocks)
        n = graph.num_vertices
        self.words = max(-(-n // 32), 1)
        alloc = self._alloc
        self.frontiers = alloc(2 * 4 * self.words)
        self.found, self.status = alloc(2 * 4 * self.blocks), alloc(2 * 4)
        args = BitmapArgs(self.offsets.ptr, self.edges.ptr, self.levels.ptr, self.parents.ptr,
                          self.visited.ptr, self.frontiers.ptr, self.found.ptr, self.status.ptr,
                          self.barrier.ptr, self.words, n)
        self.launch = device.prepare_launch(self.kernel, self.blocks, block_size, [args],
                                            cooperative=True)

    def search(self, source: int) -> None:
        dev, s = self.device, self.stream
        self._start(source)
        dev.memset(self.frontiers, 0, stream=s)
        dev.memset(self.status, 0, stream=s)
        # The first frontier is the source: its visited word (start[2]).
        dev.memcpy_htod_async(self.frontiers.view(4 * (source // 32), 4), self.start[2:3], s)
        self.launch(s)

    def results(self):
        self.stream.synchronize()
        self.device.check_grid_barrier(self.barrier, self.kernel.name)
        status = self.device.from_device(self.status, 2, np.uint32)
        if status[1]:
            raise DeviceError("bitmap frontiers: more levels than the graph has vertices")
        self.last_levels = int(status[0])
        return self._levels_and_parents()


def probe_graph(device, spec, data, steps, count, repeats, blocks: int | None = None) -> dict:
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, count)
    runners, rungs = [], []
    try:
        for name in steps:
            runners.append(get_step(name)(device, graph))
            rungs.append({"label": name, "variant": name, "options": {}})
        if blocks is None:  # step 6's grid, as given_frontiers.py takes it
            blocks = next((r.grid for r in runners if isinstance(getattr(r, "grid", None), int)),
                          None)
        probes = [BitmapFrontiers(device, graph, blocks=blocks)]
        probes.append(GivenFrontiers(device, graph, sources, expected, blocks=blocks))
        runners[:0] = probes
        rungs[:0] = [{"label": p.name, "variant": p.name.replace(" ", "_"),
                      "options": {"blocks": p.blocks}} for p in probes]
        for runner in runners:
            runner.run(sources[0])  # warm-up
        for probe in probes:
            check_probe(probe, probe.name, graph, sources, expected)
        times = time_rungs(device, runners, sources, expected, repeats)
    finally:
        for runner in runners:
            runner.close()
    return {"name": spec.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "sources": sources, "levels": depths, "median_levels": float(np.median(depths)),
            "blocks": runners[0].blocks, "rungs": rung_rows(rungs, times, depths)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int,
                        help="blocks of the probes' grid (default: the grid of the first of --steps)")
    add_probe_arguments(parser, "push_pull,adaptive")
    args = parser.parse_args(argv)
    try:
        if args.blocks is not None and args.blocks < 1:
            raise RodiniaBFSError(f"--blocks must be at least 1, got {args.blocks}")
        steps, specs, device = probe_setup(args)
        graphs = []
        for spec in specs:
            graphs.append(probe_graph(device, spec, args.data, steps, args.sources, args.repeats,
                                      args.blocks))
            print(markdown(graphs[-1], args.repeats), flush=True)
    except (RodiniaBFSError, DeviceError) as exc:
        print(f"bitmap_frontiers: {exc}", file=sys.stderr)
        return 1
    write_run(args, "bitmap_frontiers.py", argv, device, graphs,
              "Bitmap frontiers against the given frontiers and steps 6 and 7",
              "\n".join(markdown(g, args.repeats) for g in graphs),
              sources_per_graph=args.sources, repeats=args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
