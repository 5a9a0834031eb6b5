"""A cluster of blocks as a tier for wide road-like levels, timed against steps 5 and 7:
an attempt for issue 26, kept out of the steps until it has earned a place there.

    python benchmarks/cluster.py --suite large --graphs road-NY,delaunay-20 \\
        --blocks 8,16 --sources 8 --repeats 3 --backend cuda --out DIR

The kernel is ``benchmarks/cluster_bfs.hip``: the whole search in one launch of
``blocks`` blocks. On an NVIDIA GPU of compute capability 9.0 or later they are one
cluster: the visited bitmap is split over their shared memories, each block appends what
it claims to a queue in its own shared memory, the next level shares every block's queue
out evenly, and the cluster's barrier ends a level. Elsewhere (HIP, the emulator, older
NVIDIA GPUs) the same code keeps the slices in global memory and waits at a grid barrier.

Each rung (``cluster`` with one ``--blocks``, and the steps named by ``--steps``) is set
up on the graph and timed from every source in turns, as ``benchmarks/ladder.py`` times
its rungs, every result's levels checked against the CPU reference and the cluster's
parents by Graph500's rules too. ``--out DIR`` receives ``results.json``, ``table.md``
and ``command.txt``.
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
from rodinia_bfs.variants.persistent import build_rows  # noqa: E402

from ladder import (Probe, add_probe_arguments, check_probe, markdown, parse_numbers,  # noqa: E402
                    probe_setup, reference_runs, rung_rows, time_rungs, write_run)

SOURCE = (ROOT / "benchmarks" / "cluster_bfs.hip").read_text()

#: Threads of each block, and entries of each of a block's two queues.
BLOCK_SIZE = 1024
QUEUE_CAPACITY = 4096

#: With the solo rung: levels of at most this many vertices are block 0's alone (a
#: vertex a thread, at most a queue's worth).
SOLO_LIMIT = 1024

#: The largest cluster NVIDIA calls portable; more needs the function's opt-in.
PORTABLE_CLUSTER = 8

#: The ladder: the basic cluster, then each rung added to the ones before; last, a rung
#: tried on the basic cluster alone (each block expands its own queue).
_TUNED = {"warp_append": True, "spread_by_warps": True}
LADDER = [("basic", {}), ("+ warp appends", {"warp_append": True}),
          ("+ spread by warps", _TUNED),
          ("+ rows", {**_TUNED, "rows": True}),
          ("+ check first", {**_TUNED, "rows": True, "check_first": True}),
          ("rows, + solo levels", {**_TUNED, "rows": True, "solo_limit": SOLO_LIMIT}),
          ("basic, own queues", {"local_queues": True})]

ERRORS = {1: "a block's queue filled up", 2: "it ran more levels than the graph has vertices",
          3: "a grid barrier gave up"}


class ClusterArgs(ctypes.Structure):
    """``struct ClusterArgs`` of cluster_bfs.hip, passed by value."""

    _fields_ = [("offsets", ctypes.c_uint64), ("edges", ctypes.c_uint64),
                ("rows", ctypes.c_uint64), ("levels", ctypes.c_uint64), ("parents", ctypes.c_uint64),
                ("slices", ctypes.c_uint64), ("status", ctypes.c_uint64),
                ("barrier", ctypes.c_uint64), ("slice_words", ctypes.c_uint32),
                ("bitmap_words", ctypes.c_uint32), ("n", ctypes.c_int32),
                ("source", ctypes.c_int32)]


def hardware_clusters(device) -> bool:
    """Whether ``device`` runs the kernel as a cluster (NVIDIA, compute capability 9.0+)."""
    return device.backend == "cuda" and tuple(device.compute_capability) >= (9, 0)


class ClusterProbe(Probe):
    """The cluster BFS on one graph: set up once, then ``search(source)`` and
    ``results()`` as a step has them (what ``ladder.time_rungs`` calls)."""

    name = "cluster"

    def __init__(self, device, graph, blocks: int, block_size: int = BLOCK_SIZE,
                 queue_capacity: int = QUEUE_CAPACITY, local_queues: bool = False,
                 rows: bool = False, check_first: bool = False, warp_append: bool = False,
                 spread_by_warps: bool = False, solo_limit: int = 0):
        if not 1 <= blocks <= device.warp_size:
            raise RodiniaBFSError(f"blocks must be between 1 and {device.warp_size}, got {blocks}")
        self.device, self.graph, self.blocks = device, graph, blocks
        self.hardware = hardware_clusters(device)
        self.stream = device.stream()
        # Rows as wide as the largest degree, rounded up to a power of two (at least a
        # batch of 4 edges).
        most = int(graph.degrees().max()) if graph.num_vertices else 0
        width = max(4, 1 << max(most - 1, 0).bit_length()) if rows else 0
        module = device.compile(SOURCE, "cluster_bfs.hip", headers=kernel_headers(),
                                defines={"CLUSTER_BLOCKS": blocks, "BLOCK_SIZE": block_size,
                                         "QUEUE_CAPACITY": queue_capacity,
                                         "LOCAL_QUEUES": int(local_queues), "ROW_WIDTH": width,
                                         "CHECK_FIRST": int(check_first),
                                         "WARP_APPEND": int(warp_append),
                                         "SPREAD_BY_WARPS": int(spread_by_warps),
                                         "SOLO_LIMIT": int(solo_limit)})
        self.module = module
        self.kernel = module.get_function("cluster_bfs")
        n = graph.num_vertices
        words = -(-max(n, 1) // 32)
        self.bitmap_words = -(-words // blocks)
        self.slice_words = self.bitmap_words + 2 * queue_capacity + 8  # counts[5], padded
        shared = 4 * self.slice_words if self.hardware else 0
        if self.hardware and shared > device.max_shared_memory_per_block - 1024:
            raise RodiniaBFSError(
                f"a slice of {shared} bytes does not fit a block's shared memory "
                f"({device.max_shared_memory_per_block}): more blocks, or a smaller queue")
        self.allow_cluster(self.kernel)
        self._upload_graph()
        alloc = self._alloc
        if width:
            self.rows = device.to_device(build_rows(graph, width))
            self.buffers.append(self.rows)
        self.levels, self.parents = alloc(4 * max(n, 1)), alloc(4 * max(n, 1))
        self.slices = alloc(4 * (1 if self.hardware else self.slice_words * blocks))
        self.status, self.barrier = alloc(2 * 4), alloc(GRID_BARRIER_BYTES)
        rows_ptr = self.rows.ptr if width else self.edges.ptr  # (not read without rows)
        self.args = ClusterArgs(self.offsets.ptr, self.edges.ptr, rows_ptr, self.levels.ptr,
                                self.parents.ptr, self.slices.ptr, self.status.ptr,
                                self.barrier.ptr, self.slice_words, self.bitmap_words, n, 0)
        self.shared = shared
        self.launch = device.prepare_launch(self.kernel, blocks, block_size, [self.args],
                                            shared_mem=shared, cooperative=not self.hardware)
        self.start = device.host_malloc(2, np.int32)  # the source's level and parent
        device.memset(self.barrier, 0)

    def allow_cluster(self, kernel) -> None:
        """Let ``kernel`` run as a cluster larger than NVIDIA's portable size (8), where
        the device has such clusters."""
        if not self.hardware or self.blocks <= PORTABLE_CLUSTER:
            return
        from cuda.bindings import driver  # the cuda backend's module

        attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
        err, = driver.cuFuncSetAttribute(kernel.handle, attribute, 1)
        if err:
            raise DeviceError(f"cuFuncSetAttribute({kernel.name}, non-portable cluster size): {err}")

    def search(self, source: int) -> None:
        dev, s = self.device, self.stream
        dev.memset(self.levels, 0xFF, stream=s)
        dev.memset(self.parents, 0xFF, stream=s)
        dev.memset(self.status, 0, stream=s)
        self.start[:] = (0, source)
        dev.memcpy_htod_async(self.levels.view(4 * source, 4), self.start[:1], s)
        dev.memcpy_htod_async(self.parents.view(4 * source, 4), self.start[1:], s)
        self.args.source = int(source)
        self.launch[0] = self.args
        self.launch(s)

    def results(self):
        self.stream.synchronize()
        status = self.device.from_device(self.status, 2, np.uint32)
        if not self.hardware:
            self.device.check_grid_barrier(self.barrier, self.kernel.name)
        if status[1]:
            raise DeviceError(f"cluster BFS failed: {ERRORS.get(int(status[1]), status[1])}")
        self.last_levels = int(status[0])
        return self._levels_and_parents()


def barrier_cost(device, blocks: int, block_size: int, rounds: int, repeats: int) -> dict:
    """Microseconds of one empty level (``cluster_barrier_cost``): the barrier alone, and
    with warp 0 reading every block's count first. Events around a launch of ``rounds``
    levels, less a launch of none, over ``rounds``; the median of ``repeats``."""
    from rodinia_bfs.graphs.generators import grid2d

    probe = ClusterProbe(device, grid2d(4, 4), blocks, block_size=block_size, queue_capacity=16)
    try:
        kernel = probe.module.get_function("cluster_barrier_cost")
        probe.allow_cluster(kernel)
        stream, begin, end = probe.stream, device.event(), device.event()
        device.memset(probe.status, 0)
        row = {"blocks": blocks, "threads": block_size, "hardware": probe.hardware}
        for read, key in ((0, "barrier_us"), (1, "with_counts_us")):
            launches = {r: device.prepare_launch(kernel, blocks, block_size,
                                                 [probe.args, np.uint32(r), np.uint32(read)],
                                                 shared_mem=probe.shared,
                                                 cooperative=not probe.hardware)
                        for r in (0, rounds)}
            costs = []
            for _ in range(repeats + 1):  # the first is a warm-up
                elapsed = {}
                for r, launch in launches.items():
                    device.memset(probe.barrier, 0, stream=stream)
                    begin.record(stream)
                    launch(stream)
                    end.record(stream)
                    end.synchronize()
                    elapsed[r] = begin.elapsed_ms(end)
                costs.append(1000.0 * (elapsed[rounds] - elapsed[0]) / rounds)
            row[key] = float(np.median(costs[1:]))
        status = device.from_device(probe.status, 2, np.uint32)
        if status[1]:
            raise DeviceError(f"cluster_barrier_cost failed: {ERRORS.get(int(status[1]), status[1])}")
        return row
    finally:
        probe.close()


def probe_graph(device, spec, data, blocks_list, steps, count, repeats,
                block_size: int = BLOCK_SIZE, ladder=LADDER) -> dict:
    graph = spec.build(data)
    sources, expected, depths = reference_runs(graph, count)
    rungs, runners, left_out = [], [], []
    try:
        for k in blocks_list:
            for rung_name, options in ladder:
                # A cluster the device cannot hold (too many blocks, a slice too large) is
                # left out of the table, with the reason, and the other rungs go on.
                try:
                    probe = ClusterProbe(device, graph, k, block_size=block_size, **options)
                except (DeviceError, RodiniaBFSError) as exc:
                    left_out.append({"blocks": k, "rung": rung_name, "reason": str(exc)})
                    print(f"cluster of {k} blocks, {rung_name}, left out on {spec.name}: {exc}",
                          flush=True)
                    continue
                runners.append(probe)
                where = "a cluster" if probe.hardware else "a grid barrier"
                rungs.append({"label": f"cluster of {k} ({where}), {rung_name}",
                              "variant": "cluster",
                              "options": {"blocks": k, "hardware": probe.hardware, **options}})
        for name in steps:
            runners.append(get_step(name)(device, graph))
            rungs.append({"label": name, "variant": name, "options": {}})
        timed, timed_rungs = [], []
        for runner, rung in zip(runners, rungs):
            try:
                runner.run(sources[0])  # warm-up
                if rung["variant"] == "cluster":  # the parents too, by Graph500's rules
                    check_probe(runner, rung["label"], graph, sources, expected)
            except DeviceError as exc:
                # A cluster rung that runs out of room (a block's queue) is left out, with
                # the reason; a wrong answer is never left out: it stops the run.
                if rung["variant"] != "cluster":
                    raise
                left_out.append({"label": rung["label"], "reason": str(exc)})
                print(f"{rung['label']} left out on {spec.name}: {exc}", flush=True)
                continue
            timed.append(runner)
            timed_rungs.append(rung)
        rungs = timed_rungs
        times = time_rungs(device, timed, sources, expected, repeats)
    finally:
        for runner in runners:
            runner.close()
    rows = rung_rows(rungs, times, depths)
    return {"name": spec.name, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "sources": sources, "levels": depths, "median_levels": float(np.median(depths)),
            "rungs": rows, "left_out": left_out}


def barrier_markdown(rows: list[dict]) -> str:
    lines = ["### An empty level", "",
             "| blocks | threads each | waits at | barrier µs | with the counts read µs |",
             "|---:|---:|---|---:|---:|"]
    for r in rows:
        where = "the cluster's barrier" if r["hardware"] else "a grid barrier"
        lines.append(f"| {r['blocks']} | {r['threads']} | {where} | {r['barrier_us']:.2f} "
                     f"| {r['with_counts_us']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="8",
                        help="the cluster rungs: blocks sharing the search (default 8)")
    parser.add_argument("--block-size", type=int, default=BLOCK_SIZE,
                        help=f"threads of each block (default {BLOCK_SIZE})")
    parser.add_argument("--barrier-cost", action="store_true",
                        help="first time an empty level for 1, 2, 4 and each --blocks")
    parser.add_argument("--basic-only", action="store_true",
                        help="only the basic cluster, not the ladder of rungs on top of it")
    add_probe_arguments(parser, "persistent,adaptive")
    args = parser.parse_args(argv)
    try:
        blocks_list = parse_numbers(args.blocks, "--blocks", 1)
        steps, specs, device = probe_setup(args)
        barriers = []
        if args.barrier_cost:
            for k in sorted({1, 2, 4, *blocks_list}):
                try:
                    barriers.append(barrier_cost(device, k, args.block_size, 1000, 5))
                except (DeviceError, RodiniaBFSError) as exc:
                    print(f"barrier cost of {k} blocks left out: {exc}", flush=True)
            print(barrier_markdown(barriers), flush=True)
        graphs = []
        for spec in specs:
            graphs.append(probe_graph(device, spec, args.data, blocks_list, steps,
                                      args.sources, args.repeats, args.block_size,
                                      LADDER[:1] if args.basic_only else LADDER))
            print(markdown(graphs[-1], args.repeats), flush=True)
    except (RodiniaBFSError, DeviceError) as exc:
        print(f"cluster: {exc}", file=sys.stderr)
        return 1
    write_run(args, "cluster.py", argv, device, graphs, "A cluster of blocks against steps 5 and 7",
              (barrier_markdown(barriers) + "\n" if barriers else "")
              + "\n".join(markdown(g, args.repeats) for g in graphs),
              sources_per_graph=args.sources, repeats=args.repeats, barrier_cost=barriers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
