"""A relaxed (label-correcting) BFS, several levels per grid barrier, timed against steps 6
and 7: an attempt for issue 26's wide road-like graphs, kept out of the steps.

    python benchmarks/relaxed.py --suite large --graphs road-NY,delaunay-20 \\
        --local-levels 0,2,4,8 --sources 8 --repeats 3 --backend cuda --out DIR

The kernel is ``benchmarks/relaxed_bfs.hip``: every vertex's label, (level << 32) |
parent, only goes down (64-bit atomicMin); a round takes the global queue, a block its
share of it and then ``local_levels`` more levels of its own finds from shared memory, and
one grid barrier ends the round. Each rung (``relaxed`` with one ``--local-levels``, and
the steps named by ``--steps``) is set up on the graph and timed from every source in
turns, as ``benchmarks/ladder.py`` times its rungs, every result's levels checked against
the CPU reference; the relaxed rungs' parents are checked by Graph500's rules too.
``--out DIR`` receives ``results.json``, ``table.md`` and ``command.txt``.
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
from rodinia_bfs.kernels import kernel_headers  # noqa: E402
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES  # noqa: E402
from rodinia_bfs.variants import get_step  # noqa: E402

from ladder import (Probe, add_probe_arguments, check_probe, markdown, parse_numbers,  # noqa: E402
                    probe_setup, reference_runs, rung_rows, time_rungs, write_run)

SOURCE = (ROOT / "benchmarks" / "relaxed_bfs.hip").read_text()

#: Threads of a block, and entries of each of its two local queues.
BLOCK_SIZE = 512
LOCAL_CAPACITY = 2048


class RelaxedArgs(ctypes.Structure):
    """``struct RelaxedArgs`` of relaxed_bfs.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("labels", ctypes.c_uint64), ("queue", ctypes.c_uint64),
                ("counts", ctypes.c_uint64), ("status", ctypes.c_uint64),
                ("barrier", ctypes.c_uint64), ("capacity", ctypes.c_uint32),
                ("local_levels", ctypes.c_uint32), ("n", ctypes.c_int32)]


class RelaxedProbe(Probe):
    """The relaxed BFS on one graph: set up once, then ``search(source)`` and
    ``results()`` as a step has them (what ``ladder.time_rungs`` calls)."""

    name = "relaxed"

    def __init__(self, device, graph, local_levels: int, block_size: int = BLOCK_SIZE,
                 local_capacity: int = LOCAL_CAPACITY):
        if local_levels < 0:
            raise RodiniaBFSError(f"local_levels must be at least 0, got {local_levels}")
        self.device, self.graph, self.local_levels = device, graph, local_levels
        self.stream = device.stream()
        module = device.compile(SOURCE, "relaxed_bfs.hip", headers=kernel_headers(),
                                defines={"LOCAL_CAPACITY": local_capacity})
        self.kernel = module.get_function("relaxed_bfs")
        self.unpack = module.get_function("relaxed_unpack")
        n, m = graph.num_vertices, graph.num_edges
        # A vertex goes into the queue each time its label goes down: at most once per
        # edge into it in a round.
        self.capacity = max(n, m, 1)
        self._upload_graph()
        alloc = self._alloc
        self.labels, self.queue = alloc(8 * max(n, 1)), alloc(2 * 4 * self.capacity)
        self.counts, self.status = alloc(3 * 4), alloc(2 * 4)
        self.barrier = alloc(GRID_BARRIER_BYTES)
        self.levels, self.parents = alloc(4 * max(n, 1)), alloc(4 * max(n, 1))
        self.blocks = device.cooperative_grid(self.kernel, block_size)
        self.block_size = block_size
        args = RelaxedArgs(self.offsets.ptr, self.edges.ptr, self.labels.ptr, self.queue.ptr,
                           self.counts.ptr, self.status.ptr, self.barrier.ptr, self.capacity,
                           local_levels, n)
        self.launch = device.prepare_launch(self.kernel, self.blocks, block_size, [args],
                                            cooperative=True)
        self.start = device.host_malloc(4, np.uint64)  # the source's label, queue, count
        device.memset(self.barrier, 0)

    def search(self, source: int) -> None:
        dev, s, n = self.device, self.stream, self.graph.num_vertices
        dev.memset(self.labels, 0xFF, stream=s)  # not reached
        dev.memset(self.counts, 0, stream=s)
        dev.memset(self.status, 0, stream=s)
        self.start[0] = np.uint64(int(source))  # level 0, its own parent
        self.start.view(np.uint32)[2] = source  # the queue of round 0
        self.start.view(np.uint32)[4] = 1  # ... one entry
        dev.memcpy_htod_async(self.labels.view(8 * source, 8), self.start[:1], s)
        dev.memcpy_htod_async(self.queue.view(0, 4), self.start.view(np.uint32)[2:3], s)
        dev.memcpy_htod_async(self.counts.view(0, 4), self.start.view(np.uint32)[4:5], s)
        self.launch(s)
        blocks = min(-(-n // 256), 1 << 16) or 1
        dev.launch(self.unpack, blocks, 256, [self.labels, self.levels, self.parents,
                                              np.int32(n)], stream=s)

    def results(self):
        self.stream.synchronize()
        status = self.device.from_device(self.status, 2, np.uint32)
        if status[1]:
            self.device.check_grid_barrier(self.barrier, self.kernel.name)
            why = {1: "its queue filled up", 2: "it ran more rounds than the graph has vertices"}
            raise DeviceError(f"relaxed BFS failed: {why.get(int(status[1]), status[1])}")
        self.device.check_grid_barrier(self.barrier, self.kernel.name)
        self.last_rounds = int(status[0])
        return self._levels_and_parents()


def probe_graph(device, spec, data, levels_list, steps, count, repeats) -> dict:
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, count)
    rungs, runners = [], []
    try:
        for k in levels_list:
            runners.append(RelaxedProbe(device, graph, k))
            rungs.append({"label": f"relaxed, {k} local levels", "variant": "relaxed",
                          "options": {"local_levels": k}})
        for name in steps:
            runners.append(get_step(name)(device, graph))
            rungs.append({"label": name, "variant": name, "options": {}})
        for runner, rung in zip(runners, rungs):
            runner.run(sources[0])  # warm-up
            if rung["variant"] == "relaxed":  # the parents too, by Graph500's rules
                rounds = []
                for source, want in zip(sources, expected):
                    check_probe(runner, rung["label"], graph, [source], [want])
                    rounds.append(runner.last_rounds)
                rung["rounds"] = rounds
        times = time_rungs(device, runners, sources, expected, repeats)
    finally:
        for runner in runners:
            runner.close()
    rows = rung_rows(rungs, times, depths)
    return {"name": spec.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "sources": sources, "levels": depths, "median_levels": float(np.median(depths)),
            "rungs": rows}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local-levels", default="0,2,4,8",
                        help="the relaxed rungs: levels a block runs alone (default 0,2,4,8)")
    add_probe_arguments(parser, "push_pull,adaptive")
    args = parser.parse_args(argv)
    try:
        levels_list = parse_numbers(args.local_levels, "--local-levels", 0)
        steps, specs, device = probe_setup(args)
        graphs = []
        for spec in specs:
            graphs.append(probe_graph(device, spec, args.data, levels_list, steps,
                                      args.sources, args.repeats))
            print(markdown(graphs[-1], args.repeats), flush=True)
    except (RodiniaBFSError, DeviceError) as exc:
        print(f"relaxed: {exc}", file=sys.stderr)
        return 1
    write_run(args, "relaxed.py", argv, device, graphs, "Relaxed BFS against steps 6 and 7",
              "\n".join(markdown(g, args.repeats) for g in graphs),
              sources_per_graph=args.sources, repeats=args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
