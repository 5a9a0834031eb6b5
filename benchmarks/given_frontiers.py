"""A floor for a level of steps 6 and 7: a top-down BFS that is given every level's
frontier (from the CPU reference) instead of building it, timed against the steps.

    python benchmarks/given_frontiers.py --suite large --graphs delaunay-20 \\
        --files delaunay-24.npz --sources 8 --repeats 3 --backend cuda --out DIR

The kernel is ``benchmarks/given_frontiers.hip``: a level reads its frontier vertices,
their lists and edges, claims each target by its bit and stores the winner's level and
parent, then crosses one grid barrier; it appends nothing to a queue and counts nothing.
Whatever a step does beyond that is what its level costs over this one. The rung is
set up with the steps named by ``--steps`` and timed from every source in turns, as
``benchmarks/ladder.py`` times its rungs; its levels are checked against the reference
and its parents by Graph500's rules (a claim that went wrong leaves a vertex a wrong
level). The same kernel with the visits left out, its grid barriers alone (one a level),
is timed from the same sources after the rungs, and reported beside them.
``--out DIR`` receives ``results.json``, ``table.md`` and ``command.txt``.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
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

from ladder import (Probe, add_probe_arguments, check_probe, markdown, probe_setup,  # noqa: E402
                    reference_runs, rung_rows, time_rungs, timed_search, write_run)

SOURCE = (ROOT / "benchmarks" / "given_frontiers.hip").read_text()

#: Threads of a block (step 6's), and log2 of the most threads that share a list.
BLOCK_SIZE = 512
LOG_LANES = 3


class GivenArgs(ctypes.Structure):
    """``struct GivenArgs`` of given_frontiers.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("order", ctypes.c_uint64), ("starts", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("visited", ctypes.c_uint64), ("barrier", ctypes.c_uint64),
                ("depth", ctypes.c_uint32), ("visit", ctypes.c_uint32)]


def frontiers(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reached vertices sorted by level, and where each level's begin: ``(order,
    starts)``, level l being ``order[starts[l]:starts[l + 1]]``."""
    reached = np.flatnonzero(levels >= 0)
    order = reached[np.argsort(levels[reached], kind="stable")].astype(np.int32)
    counts = np.bincount(levels[reached], minlength=int(levels.max()) + 1)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.uint32)
    return order, starts


class GivenFrontiers(Probe):
    """The kernel on one graph, with the frontiers of ``sources`` (the CPU reference's)
    on the device: ``search(source)`` and ``results()`` as a step has them; ``visit=False``
    gives the grid barriers alone (its results are no BFS)."""

    name = "given frontiers"

    def __init__(self, device, graph, sources: list[int], expected: list[np.ndarray],
                 visit: bool = True, block_size: int = BLOCK_SIZE, log_lanes: int = LOG_LANES,
                 blocks: int | None = None):
        self.device, self.graph = device, graph
        self.stream = device.stream()
        module = device.compile(SOURCE, "given_frontiers.hip", headers=kernel_headers(),
                                defines={"LOG_LANES": log_lanes})
        self.kernel = module.get_function("given_frontiers")
        n = graph.num_vertices
        self._upload_graph()
        alloc = self._alloc
        self.levels, self.parents = alloc(4 * max(n, 1)), alloc(4 * max(n, 1))
        self.visited = alloc(4 * max(-(-n // 32), 1))
        self.barrier = alloc(GRID_BARRIER_BYTES)
        device.memset(self.barrier, 0)
        # As many blocks as can be resident, or ``blocks`` where fewer: a grid barrier's
        # crossing costs more the more blocks arrive at it.
        self.blocks = device.cooperative_grid(self.kernel, block_size)
        if blocks is not None:
            if blocks < 1:
                raise RodiniaBFSError(f"given frontiers: blocks must be at least 1, got {blocks}")
            self.blocks = min(self.blocks, blocks)
        self.launches = {}
        for source, levels in zip(sources, expected):
            order, starts = frontiers(levels)
            self.buffers += [device.to_device(order), device.to_device(starts)]
            args = GivenArgs(self.offsets.ptr, self.edges.ptr, self.buffers[-2].ptr,
                             self.buffers[-1].ptr, self.levels.ptr, self.parents.ptr,
                             self.visited.ptr, self.barrier.ptr, len(starts) - 1, int(visit))
            self.launches[int(source)] = device.prepare_launch(
                self.kernel, self.blocks, block_size, [args], cooperative=True)
        self.start = device.host_malloc(3, np.int32)  # the source's level, parent and word

    def search(self, source: int) -> None:
        dev, s = self.device, self.stream
        launch = self.launches.get(int(source))
        if launch is None:
            raise RodiniaBFSError(f"given frontiers: no frontiers from source {source}")
        dev.memset(self.levels, 0xFF, stream=s)
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.visited, 0, stream=s)
        self.start[:2] = (0, source)
        self.start.view(np.uint32)[2] = 1 << (source % 32)
        dev.memcpy_htod_async(self.levels.view(4 * source, 4), self.start[0:1], s)
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.start[1:2], s)
        dev.memcpy_htod_async(self.visited.view(4 * (source // 32), 4), self.start[2:3], s)
        launch(s)

    def results(self):
        self.stream.synchronize()
        self.device.check_grid_barrier(self.barrier, self.kernel.name)
        return self._levels_and_parents()


def time_barriers(device, probe, sources: list[int], repeats: int) -> list[list[float]]:
    """Milliseconds of the barriers alone from each source: ``times[repeat][source]``."""
    begin, end = device.event(), device.event()
    times = []
    for _ in range(repeats):
        times.append([timed_search(device, probe, source, begin, end) for source in sources])
        probe.results()  # the barrier's state: raises if it gave up
    return times


def probe_graph(device, spec, data, steps, count, repeats, blocks: int | None = None) -> dict:
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, count)
    runners, rungs, barriers = [], [], None
    try:
        for name in steps:
            runners.append(get_step(name)(device, graph))
            rungs.append({"label": name, "variant": name, "options": {}})
        # Unless given, the grid of the first step that has one (step 6's, of its
        # persistent kernel), so that both cross barriers of as many blocks.
        if blocks is None:
            blocks = next((r.grid for r in runners if isinstance(getattr(r, "grid", None), int)),
                          None)
        runners.insert(0, GivenFrontiers(device, graph, sources, expected, blocks=blocks))
        rungs.insert(0, {"label": "given frontiers", "variant": "given_frontiers",
                         "options": {"blocks": runners[0].blocks}})
        for runner in runners:
            runner.run(sources[0])  # warm-up
        check_probe(runners[0], "given frontiers", graph, sources, expected)
        times = time_rungs(device, runners, sources, expected, repeats)
        barriers = GivenFrontiers(device, graph, sources, expected, visit=False, blocks=blocks)
        barriers.run(sources[0])  # warm-up
        barrier_times = time_barriers(device, barriers, sources, repeats)
    finally:
        for runner in runners + ([barriers] if barriers else []):
            runner.close()
    rows = rung_rows(rungs, times, depths)
    per_level = [1000.0 * t / d for repeat in barrier_times for t, d in zip(repeat, depths)]
    return {"name": spec.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "sources": sources, "levels": depths, "median_levels": float(np.median(depths)),
            "rungs": rows, "blocks": runners[0].blocks if runners else None,
            "barriers_alone": {"median_ms": statistics.median(t for r in barrier_times for t in r),
                               "spread_ms": [min(map(statistics.median, barrier_times)),
                                             max(map(statistics.median, barrier_times))],
                               "us_per_level": statistics.median(per_level),
                               "times_ms": barrier_times}}


def table(graph: dict, repeats: int) -> str:
    """The rungs' table (ladder.markdown) with the barriers alone as a last row."""
    alone = graph["barriers_alone"]
    low, high = alone["spread_ms"]
    return (markdown(graph, repeats)
            + f"| the grid barriers alone (after the rungs, not in turns) | {alone['median_ms']:.4f} "
              f"| {low:.4f}-{high:.4f} | {alone['us_per_level']:.2f} | | | |\n"
            + f"\nGiven frontiers on a grid of {graph['blocks']} blocks of {BLOCK_SIZE} threads.\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int,
                        help="blocks of its grid (default: the grid of the first of --steps)")
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
            print(table(graphs[-1], args.repeats), flush=True)
    except (RodiniaBFSError, DeviceError) as exc:
        print(f"given_frontiers: {exc}", file=sys.stderr)
        return 1
    write_run(args, "given_frontiers.py", argv, device, graphs,
              "Given frontiers against steps 6 and 7",
              "\n".join(table(g, args.repeats) for g in graphs),
              sources_per_graph=args.sources, repeats=args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
