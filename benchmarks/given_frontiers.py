"""A floor for a level of steps 6 and 7: a top-down BFS that is given every level's
frontier (from the CPU reference) instead of building it, and the same BFS building
each frontier as a textbook queue, or keeping it block by block, timed against the steps.

    python benchmarks/given_frontiers.py --suite large --graphs delaunay-20 \\
        --files delaunay-24.npz --sources 8 --repeats 3 --backend cuda --out DIR

The kernels are in ``benchmarks/given_frontiers.hip``. ``given_frontiers``: a level
reads its frontier vertices, their lists and edges, claims each target by its bit and
stores the winner's level and parent, then crosses one grid barrier; it appends nothing
to a queue and counts nothing. Whatever a step does beyond that is what its level costs
over this one. ``built_frontiers``: the same levels, each block appending what it claims
to a queue in shared memory and copying it into the global queue, at room taken with one
atomicAdd, before the barrier. ``kept_frontiers``: the same levels, each block keeping
what it claims in its shared memory and reading it there at the next level (what does not
fit goes to a global queue that every block reads); told each search's depth, as
``given_frontiers`` is; timed with ``--kept K,...`` only (tried and left out), once for
each K, the most a block keeps at a level, the table then saying how far the blocks'
shares drift apart. The rungs run on the grid of the first of ``--steps``
that has one (step 6's), or ``--blocks``, and are timed with the steps from every source
in turns, as ``benchmarks/ladder.py`` times its rungs; their levels are checked against
the reference and their parents by Graph500's rules (a claim that went wrong leaves a
vertex a wrong level). ``given_frontiers`` with the visits left out, its grid barriers
alone (one a level), is timed from the same sources after the rungs, and reported as the
table's last row. ``--out DIR`` receives ``results.json``, ``table.md`` and
``command.txt``.
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

from ladder import (Probe, add_probe_arguments, check_probe, markdown, parse_numbers,  # noqa: E402
                    probe_setup, reference_runs, rung_rows, time_rungs, timed_search, write_run)

SOURCE = (ROOT / "benchmarks" / "given_frontiers.hip").read_text()

#: Threads of a block (step 6's), log2 of the most threads that share a list, and the
#: entries of a block's queue in shared memory (built_frontiers).
BLOCK_SIZE = 512
LOG_LANES = 3
LOCAL_ENTRIES = 2048


class GivenArgs(ctypes.Structure):
    """``struct GivenArgs`` of given_frontiers.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("order", ctypes.c_uint64), ("starts", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("visited", ctypes.c_uint64), ("barrier", ctypes.c_uint64),
                ("depth", ctypes.c_uint32), ("visit", ctypes.c_uint32)]


def frontiers(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reached vertices sorted by level, and where each level begins: ``(order,
    starts)``, level l being ``order[starts[l]:starts[l + 1]]``."""
    reached = np.flatnonzero(levels >= 0)
    order = reached[np.argsort(levels[reached], kind="stable")].astype(np.int32)
    counts = np.bincount(levels[reached], minlength=int(levels.max()) + 1)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.uint32)
    return order, starts


def grid_blocks(device, kernel, block_size: int, blocks: int | None) -> int:
    """As many blocks as can be resident, or ``blocks`` where fewer: a grid barrier's
    crossing costs more the more blocks arrive at it."""
    most = device.cooperative_grid(kernel, block_size)
    if blocks is None:
        return most
    if blocks < 1:
        raise RodiniaBFSError(f"blocks must be at least 1, got {blocks}")
    return min(most, blocks)


class SourceSearch(Probe):
    """What the probes here and in bitmap_frontiers.py share: their set-up, a search's
    levels, parents, visited bitmap and grid barrier, and its start from one source."""

    def _set_up(self, device, graph, source: str, file_name: str, kernel: str,
                block_size: int, blocks: int | None, defines: dict | None = None) -> None:
        """The probe's stream, its kernel, compiled from ``source`` (``file_name``) with
        ``defines``, the graph on the device, the search's buffers, and its grid."""
        self.device, self.graph = device, graph
        self.stream = device.stream()
        module = device.compile(source, file_name, headers=kernel_headers(), defines=defines)
        self.kernel = module.get_function(kernel)
        self._upload_graph()
        self._search_buffers()
        self.blocks = grid_blocks(device, self.kernel, block_size, blocks)

    def _search_buffers(self) -> None:
        """Levels, parents, the visited bitmap and the grid barrier, after the graph's
        arrays; a pinned word each for the source's level, parent and visited word."""
        n = self.graph.num_vertices
        self.levels, self.parents = self._alloc(4 * max(n, 1)), self._alloc(4 * max(n, 1))
        self.visited = self._alloc(4 * max(-(-n // 32), 1))
        self.barrier = self._alloc(GRID_BARRIER_BYTES)
        self.device.memset(self.barrier, 0)
        self.start = self.device.host_malloc(3, np.int32)

    def _start(self, source: int) -> None:
        """On the probe's stream: every level and parent -1 and no vertex visited, then
        the source at level 0, its own parent, its bit set (``start[2]``, its word)."""
        dev, s, start = self.device, self.stream, self.start
        dev.memset(self.levels, 0xFF, stream=s)
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.visited, 0, stream=s)
        start[:2] = (0, source)
        start.view(np.uint32)[2] = 1 << (source % 32)
        dev.memcpy_htod_async(self.levels.view(4 * source, 4), start[0:1], s)
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), start[1:2], s)
        dev.memcpy_htod_async(self.visited.view(4 * (source // 32), 4), start[2:3], s)


class GivenFrontiers(SourceSearch):
    """The kernel on one graph, with the frontiers of ``sources`` (the CPU reference's)
    on the device: ``search(source)`` and ``results()`` as a step has them; ``visit=False``
    gives the grid barriers alone (its results are no BFS)."""

    name = "given frontiers"

    def __init__(self, device, graph, sources: list[int], expected: list[np.ndarray],
                 visit: bool = True, block_size: int = BLOCK_SIZE, log_lanes: int = LOG_LANES,
                 blocks: int | None = None):
        self._set_up(device, graph, SOURCE, "given_frontiers.hip", "given_frontiers", block_size,
                     blocks, {"LOG_LANES": log_lanes, "LOCAL_ENTRIES": LOCAL_ENTRIES})
        self.launches = {}
        for source, levels in zip(sources, expected):
            order, starts = frontiers(levels)
            self.buffers += [device.to_device(order), device.to_device(starts)]
            args = GivenArgs(self.offsets.ptr, self.edges.ptr, self.buffers[-2].ptr,
                             self.buffers[-1].ptr, self.levels.ptr, self.parents.ptr,
                             self.visited.ptr, self.barrier.ptr, len(starts) - 1, int(visit))
            self.launches[int(source)] = device.prepare_launch(
                self.kernel, self.blocks, block_size, [args], cooperative=True)

    def search(self, source: int) -> None:
        launch = self.launches.get(int(source))
        if launch is None:
            raise RodiniaBFSError(f"given frontiers: no frontiers from source {source}")
        self._start(source)
        launch(self.stream)

    def results(self):
        self.stream.synchronize()
        self.device.check_grid_barrier(self.barrier, self.kernel.name)
        return self._levels_and_parents()


class BuiltArgs(ctypes.Structure):
    """``struct BuiltArgs`` of given_frontiers.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("queue", ctypes.c_uint64), ("counts", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("visited", ctypes.c_uint64), ("barrier", ctypes.c_uint64), ("n", ctypes.c_int32)]


class BuiltFrontiers(SourceSearch):
    """``built_frontiers``: the same levels, each frontier built by the level before as a
    textbook queue (a block's entries in shared memory, room in the global queue from one
    atomicAdd, copied there before the barrier). A real BFS, checked as a step."""

    name = "built frontiers"

    def __init__(self, device, graph, block_size: int = BLOCK_SIZE, log_lanes: int = LOG_LANES,
                 local_entries: int = LOCAL_ENTRIES, blocks: int | None = None):
        self._set_up(device, graph, SOURCE, "given_frontiers.hip", "built_frontiers", block_size,
                     blocks, {"LOG_LANES": log_lanes, "LOCAL_ENTRIES": local_entries})
        n = graph.num_vertices
        self.queue, self.counts = self._alloc(4 * max(n, 1)), self._alloc(5 * 4)
        args = BuiltArgs(self.offsets.ptr, self.edges.ptr, self.queue.ptr, self.counts.ptr,
                         self.levels.ptr, self.parents.ptr, self.visited.ptr, self.barrier.ptr, n)
        self.launch = device.prepare_launch(self.kernel, self.blocks, block_size, [args],
                                            cooperative=True)

    def search(self, source: int) -> None:
        self._start(source)
        self.device.memset(self.counts, 0, stream=self.stream)
        # The queue's first entry is the source (start[1], its parent).
        self.device.memcpy_htod_async(self.queue.view(0, 4), self.start[1:2], self.stream)
        self.launch(self.stream)

    def results(self):
        self.stream.synchronize()
        self.device.check_grid_barrier(self.barrier, self.kernel.name)
        counts = self.device.from_device(self.counts, 5, np.uint32)
        if counts[4]:
            raise DeviceError("built frontiers: more levels than the graph has vertices")
        self.last_levels = int(counts[3])
        return self._levels_and_parents()


class KeptArgs(ctypes.Structure):
    """``struct KeptArgs`` of given_frontiers.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("queue", ctypes.c_uint64), ("counts", ctypes.c_uint64),
                ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("visited", ctypes.c_uint64), ("barrier", ctypes.c_uint64),
                ("depth", ctypes.c_uint32), ("source", ctypes.c_int32), ("keep", ctypes.c_uint32)]


class KeptFrontiers(SourceSearch):
    """``kept_frontiers``: the same levels, each block keeping what it claims in its
    shared memory for its own next level (what does not fit goes to a global queue that
    every block reads), at most ``keep`` a block (default: all it has room for). Told
    each search's depth, as given_frontiers is; a real BFS otherwise, checked as a step.
    ``kept_most``: the most a block found at one level, and ``spilled``: the entries it
    did not keep, of the last search."""

    def __init__(self, device, graph, sources: list[int], depths: list[int],
                 block_size: int = BLOCK_SIZE, log_lanes: int = LOG_LANES,
                 local_entries: int = LOCAL_ENTRIES, blocks: int | None = None,
                 keep: int | None = None):
        keep = local_entries if keep is None else keep
        if not 1 <= keep <= local_entries:
            raise RodiniaBFSError(f"a block keeps 1 to {local_entries} vertices, not {keep}")
        self.keep = keep
        self.name = ("kept frontiers" if keep == local_entries
                     else f"kept frontiers, at most {keep} a block")
        self._set_up(device, graph, SOURCE, "given_frontiers.hip", "kept_frontiers", block_size,
                     blocks, {"LOG_LANES": log_lanes, "LOCAL_ENTRIES": local_entries})
        n = graph.num_vertices
        self.queue, self.counts = self._alloc(4 * max(n, 1)), self._alloc(5 * 4)
        self.launches = {}
        for source, depth in zip(sources, depths):
            args = KeptArgs(self.offsets.ptr, self.edges.ptr, self.queue.ptr, self.counts.ptr,
                            self.levels.ptr, self.parents.ptr, self.visited.ptr,
                            self.barrier.ptr, int(depth), int(source), keep)
            self.launches[int(source)] = device.prepare_launch(
                self.kernel, self.blocks, block_size, [args], cooperative=True)

    def search(self, source: int) -> None:
        launch = self.launches.get(int(source))
        if launch is None:
            raise RodiniaBFSError(f"kept frontiers: no depth for source {source}")
        self._start(source)
        self.device.memset(self.counts, 0, stream=self.stream)
        launch(self.stream)

    def results(self):
        self.stream.synchronize()
        self.device.check_grid_barrier(self.barrier, self.kernel.name)
        counts = self.device.from_device(self.counts, 5, np.uint32)
        self.kept_most, self.spilled = int(counts[3]), int(counts[4])
        return self._levels_and_parents()


def time_barriers(device, probe, sources: list[int], repeats: int) -> list[list[float]]:
    """Milliseconds of the barriers alone from each source: ``times[repeat][source]``."""
    begin, end = device.event(), device.event()
    times = []
    for _ in range(repeats):
        times.append([timed_search(device, probe, source, begin, end) for source in sources])
        probe.results()  # the barrier's state: raises if it gave up
    return times


def probe_graph(device, spec, data, steps, count, repeats, blocks: int | None = None,
                block_size: int = BLOCK_SIZE, kept: list[int] | None = None) -> dict:
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
        probes = [GivenFrontiers(device, graph, sources, expected, blocks=blocks,
                                 block_size=block_size),
                  BuiltFrontiers(device, graph, blocks=blocks, block_size=block_size)]
        for keep in kept or []:
            probes.append(KeptFrontiers(device, graph, sources, depths, blocks=blocks,
                                        block_size=block_size, keep=keep))
        runners[:0] = probes
        rungs[:0] = [{"label": p.name, "variant": p.name.replace(" ", "_"),
                      "options": {"blocks": p.blocks, "block_size": block_size}}
                     for p in probes]
        for runner in runners:
            runner.run(sources[0])  # warm-up
        for probe in probes:
            check_probe(probe, probe.name, graph, sources, expected)
        times = time_rungs(device, runners, sources, expected, repeats)
        kept_shares = {}
        for probe in probes[2:]:  # how far the blocks' shares drift apart
            shares = kept_shares[probe.name] = []
            for source in sources:
                probe.run(source)
                shares.append({"most_a_block_found": probe.kept_most, "spilled": probe.spilled})
        barriers = GivenFrontiers(device, graph, sources, expected, visit=False, blocks=blocks,
                                  block_size=block_size)
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
            "block_size": block_size, "kept_shares": kept_shares,
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
            + f"\nGiven frontiers on a grid of {graph['blocks']} blocks of {graph['block_size']} "
              f"threads.\n"
            + kept_line(graph))


def kept_line(graph: dict) -> str:
    """What each kept rung's blocks found: the most one block found at one level, and the
    entries they did not keep, over the sources (least to most)."""
    lines = []
    for name, shares in (graph.get("kept_shares") or {}).items():
        most = [s["most_a_block_found"] for s in shares]
        spilled = [s["spilled"] for s in shares]
        lines.append(f"\n{name[0].upper()}{name[1:]}, over the sources: the most one block "
                     f"found at one level {min(most)}-{max(most)}; entries not kept "
                     f"{min(spilled)}-{max(spilled)} a search.\n")
    return "".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block-size", type=int, default=BLOCK_SIZE,
                        help=f"threads of a block of the probes (default {BLOCK_SIZE}, step 6's)")
    parser.add_argument("--blocks", type=int,
                        help="blocks of its grid (default: the grid of the first of --steps)")
    parser.add_argument("--kept", metavar="K,...",
                        help="time kept_frontiers too, once for each of these numbers: the "
                             f"most a block keeps at a level (at most {LOCAL_ENTRIES}; each "
                             "block keeping what it claims: tried and left out)")
    add_probe_arguments(parser, "push_pull,adaptive")
    args = parser.parse_args(argv)
    try:
        if args.blocks is not None and args.blocks < 1:
            raise RodiniaBFSError(f"--blocks must be at least 1, got {args.blocks}")
        if not 32 <= args.block_size <= 1024 or args.block_size % 32:
            raise RodiniaBFSError(f"--block-size must be a multiple of 32 from 32 to 1024, "
                                  f"got {args.block_size}")
        kept = parse_numbers(args.kept, "--kept", 1) if args.kept is not None else []
        if kept and max(kept) > LOCAL_ENTRIES:
            raise RodiniaBFSError(f"--kept: a block keeps at most {LOCAL_ENTRIES} vertices, "
                                  f"got {max(kept)}")
        steps, specs, device = probe_setup(args)
        graphs = []
        for spec in specs:
            graphs.append(probe_graph(device, spec, args.data, steps, args.sources, args.repeats,
                                      args.blocks, args.block_size, kept))
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
