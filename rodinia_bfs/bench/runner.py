"""Run a benchmark: time every variant on every graph, validate every run.

For each graph (of a suite, or a file given on the command line) the runner

1. picks ``K`` sources Graph500-style: at random with a fixed seed, among the vertices
   with at least one out-edge (:func:`select_sources`);
2. times the CPU reference from each source; its levels are what every GPU run is
   checked against, and its median is the baseline every speed-up is quoted against;
3. times the upload of the CSR arrays to the device on its own;
4. for each GPU step: sets it up twice, timed (compile, upload, allocate), first with
   an empty kernel cache (``setup_cold_ms``), then with the kernels in it
   (``setup_ms``); runs one warm-up BFS, then times one BFS per source with device
   events around ``step.search`` (the reset and the whole host loop); the download of
   the result (``step.results()``) comes after the second event and is not timed. Each
   result is checked against the reference *after* the timed region;
5. times the same sources again on the host clock, each search with its levels and
   parents downloaded into host memory (``wall_ms``: what a user of a prepared graph
   waits for), validated the same way;
6. runs once more with ``profile=True`` for the per-level profile;
7. times a few one-shot calls, ``rodinia_bfs.bfs(graph, source, variant=...)`` from the
   CSRGraph in host memory (``oneshot_ms``: the step set up again at each call),
   validated too.

A run that fails validation marks its variant invalid: its times are dropped (never
report the time of a wrong answer) and the bench ends with a non-zero exit status.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import rodinia_bfs
from rodinia_bfs.bench.suites import (
    DEFAULT_DATA_DIR,
    GraphSpec,
    available_host_memory,
    default_sources,
    estimated_device_bytes,
    file_specs,
    suite_graphs,
)
from rodinia_bfs.errors import RodiniaBFSError, ValidationError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.progress import Progress
from rodinia_bfs.runtime import kernel_cache

#: Seed of the source selection, so that every device is timed on the same sources.
DEFAULT_SEED = 0

#: The CPU reference that is timed as the baseline (see :func:`time_reference`).
REFERENCE_METHOD = "frontier"


@dataclass
class BenchConfig:
    """What to run; the command line fills it in."""

    suite: str | None = "quick"  # None: only the files
    files: list[Path] = field(default_factory=list)  # the user's graph files
    variants: list[str] = field(default_factory=list)  # empty: reference + every GPU step
    backend: str = "auto"
    sources: int | None = None  # None: the suite's default (see default_source_count)
    seed: int = DEFAULT_SEED
    graphs: list[str] | None = None  # None: the whole suite
    data_dir: Path | None = None  # None: <project root>/../shared/data
    warp_size: int | None = None  # cpu backend only
    command: str = ""  # the command line, for the record


# -- the measures ---------------------------------------------------------------------

def select_sources(graph: CSRGraph, count: int, seed: int = DEFAULT_SEED) -> list[int]:
    """``count`` distinct random vertices with out-degree >= 1 (all of them if fewer).

    Graph500 draws its 64 search keys the same way: a source without edges would
    time an empty search. The same graph, count and seed always give the same list.
    """
    candidates = np.flatnonzero(graph.degrees() >= 1)
    if candidates.size == 0:
        raise RodiniaBFSError(f"graph {graph.name or ''} has no vertex with an out-edge")
    rng = np.random.default_rng(seed)
    chosen = rng.choice(candidates, size=min(count, candidates.size), replace=False)
    return [int(v) for v in chosen]


def traversed_edges(graph: CSRGraph, levels: np.ndarray) -> int:
    """The directed edges out of reached vertices: what a BFS must look at.

    For an undirected graph stored both ways, each undirected edge counts twice.
    """
    return int(graph.degrees()[levels >= 0].sum())


def input_edges(graph: CSRGraph, levels: np.ndarray, loops: np.ndarray | None = None) -> int:
    """Graph500's count: the input edges in the component the search traversed.

    For an undirected graph, each undirected edge with its ends reached counts once,
    self loops and duplicates included, as Graph500 counts its edge list (the edge
    counts of :meth:`~rodinia_bfs.graphs.csr.CSRGraph.edge_counts`): about half of
    :func:`traversed_edges`. For a directed graph every arc out of a reached vertex is
    an input edge, as in :func:`traversed_edges`. ``loops`` is :func:`self_loops`, if
    already known.
    """
    arcs = traversed_edges(graph, levels)
    if graph.directed:
        return arcs
    if loops is None:
        loops = self_loops(graph)
    return (arcs + int(loops[levels >= 0].sum())) // 2


def self_loops(graph: CSRGraph) -> np.ndarray:
    """How many self loops (arcs ``u -> u``) each vertex has."""
    tails = graph.edges()[0]
    return np.bincount(tails[graph.targets == tails], minlength=graph.num_vertices)


def gteps(edges: int, milliseconds: float) -> float:
    """Giga traversed edges per second."""
    return edges / (milliseconds * 1e-3) / 1e9 if milliseconds > 0 else float("inf")


def spread(times_ms: list[float]) -> dict:
    """Median, min and max of a list of times."""
    return {
        "median_ms": float(np.median(times_ms)),
        "min_ms": float(np.min(times_ms)),
        "max_ms": float(np.max(times_ms)),
        "times_ms": [float(t) for t in times_ms],
    }


def frontier_sizes(levels: np.ndarray) -> list[int]:
    """How many vertices each level holds: the frontier that level expands."""
    reached = levels[levels >= 0]
    return [int(c) for c in np.bincount(reached)] if reached.size else []


def _depth(levels: np.ndarray) -> int:
    """Number of levels: the source's is level 0."""
    return int(levels.max()) + 1 if levels.size and levels.max() >= 0 else 0


# -- one graph ---------------------------------------------------------------------

def time_reference(graph: CSRGraph, sources: list[int], progress: Progress, label: str):
    """Time the CPU reference from each source; return its timings and results.

    The baseline is the vectorised NumPy frontier BFS (``method="frontier"``) on every
    graph, whatever its size, so that speed-ups on different graphs compare alike.
    """
    from rodinia_bfs.reference import bfs_reference

    bfs_reference(graph, sources[0], method=REFERENCE_METHOD)  # warm-up
    times, results = [], []
    for j, source in enumerate(sources):
        progress.status(f"{label}: reference, source {j + 1}/{len(sources)}")
        # [bench-reference-timing-begin]
        start = time.perf_counter()
        result = bfs_reference(graph, source, method=REFERENCE_METHOD)
        elapsed_ms = (time.perf_counter() - start) * 1e3
        # [bench-reference-timing-end]
        times.append(elapsed_ms)
        results.append(result)
    return times, results


def time_upload(device, graph: CSRGraph) -> float:
    """Milliseconds to allocate and copy the CSR arrays to the device (host clock)."""
    device.synchronize()
    start = time.perf_counter()
    buffers = [device.to_device(graph.offsets), device.to_device(graph.targets)]
    device.synchronize()
    elapsed_ms = (time.perf_counter() - start) * 1e3
    for buf in buffers:
        device.free(buf)
    return elapsed_ms


def _validate(graph: CSRGraph, source: int, levels, parents, reference) -> None:
    """Raise ValidationError unless the result matches the reference (and Graph500's rules)."""
    from rodinia_bfs.validate import validate_result

    validate_result(graph, source, levels, parents, reference)


#: How many sources ``oneshot_ms`` is the median of: each call sets the step up again.
ONESHOT_SOURCES = 3


def _timed_setup(device, step_class, graph: CSRGraph):
    """The step set up on ``graph`` (compile, upload, allocate), and the milliseconds it took."""
    device.synchronize()
    start = time.perf_counter()
    step = step_class(device, graph)
    device.synchronize()
    return step, (time.perf_counter() - start) * 1e3


def _marking_end(search, end, stream):
    """``search``, followed by ``end`` recorded on ``stream``: after the search's last
    kernel and before the download that the caller queues next."""

    def search_then_mark(*args, **kwargs):
        run = search(*args, **kwargs)
        end.record(stream)
        return run

    return search_then_mark


def _timed_download(device, stream, copies) -> float:
    """Milliseconds (host clock) to copy each ``(host array, device buffer)`` of
    ``copies``, all queued on ``stream`` and then waited for once, as
    :meth:`~rodinia_bfs.variants.base.GPUStep.results` downloads a result."""
    device.synchronize()
    start = time.perf_counter()
    for host, buffer in copies:
        device.memcpy_dtoh_async(host, buffer, stream)
    stream.synchronize()
    return (time.perf_counter() - start) * 1e3


def time_result_copy(device, graph: CSRGraph, repeats: int = 20) -> float:
    """The floor of what getting a result out costs: the median milliseconds of copying
    a levels and a parents array (``4 * num_vertices`` bytes each) from the device into
    pinned host memory (:func:`_timed_download`)."""
    n = max(graph.num_vertices, 1)
    source = device.malloc(8 * n)
    levels, parents = device.host_malloc(n, np.int32), device.host_malloc(n, np.int32)
    copies = [(levels, source.view(0, 4 * n)), (parents, source.view(4 * n, 4 * n))]
    try:
        stream = device.stream()
        # The first copy touches the pages: not counted.
        times = [_timed_download(device, stream, copies) for _ in range(repeats + 1)]
        return float(np.median(times[1:]))
    finally:
        device.free(source)


def time_own_copy(device, step, levels, parents) -> float | None:
    """The copy inside a wall time, alone: the step's levels (and parents, where
    ``parents`` is not None) copied again from its device arrays into the same pinned
    host arrays (:func:`_timed_download`). None for a step that gathers its result
    another way (from several GPUs)."""
    from rodinia_bfs.variants.base import GPUStep

    if type(step).results is not GPUStep.results:
        return None
    n = step.graph.num_vertices
    copies = [(levels, step.levels.view(0, 4 * n))] if n else []
    if n and parents is not None:
        copies.append((parents, step.parents.view(0, 4 * n)))
    return _timed_download(device, step.stream, copies)


def search_and_download(prepared, source: int):
    """One search with its levels and parents in host memory, as a user of a prepared
    graph waits for it: :meth:`rodinia_bfs.PreparedGraph.bfs`, the search and the
    download into the pinned buffers that the prepared graph reuses."""
    return prepared.bfs(source)


def time_step(device, step_class, graph: CSRGraph, sources: list[int],
              expected: list, progress: Progress, label: str) -> dict:
    """Set up one GPU step on ``graph``, time it from each source, validate, profile;
    then what a user waits for: the set-up with an empty and with a warm kernel cache,
    a search with its result downloaded, and one ``rodinia_bfs.bfs()`` call."""
    # The kernels go into an empty cache of their own: the first set-up compiles them
    # all (cold), every later one finds them (warm), whatever the user's cache holds,
    # and the user's cache is left as it was. (The cpu emulator's libraries have a
    # cache of their own, which stays warm: their compiles take seconds.)
    with tempfile.TemporaryDirectory(prefix="rodinia-bfs-bench-kernels-") as kernels, \
            kernel_cache.using(kernels):
        step, setup_cold_ms = _timed_setup(device, step_class, graph)
        step.close()
        step, setup_ms = _timed_setup(device, step_class, graph)
        result = {"setup_ms": setup_ms, "setup_cold_ms": setup_cold_ms, "valid": True}
        try:
            measured = _time_searches(device, step, graph, sources, expected, progress, label)
        finally:
            step.close()
        if "error" not in measured:  # one call at a time: no second copy of the step
            measured.update(_time_oneshot(device, step_class.name, graph, sources, expected,
                                          progress, label))
    if "error" in measured:  # never the time of a wrong answer
        result.update(valid=False, error=measured["error"])
    else:
        result.update(measured)
    return result


def _time_searches(device, step, graph: CSRGraph, sources: list[int], expected: list,
                   progress: Progress, label: str) -> dict:
    """The search times (device events), the wall times and the per-level profile; or
    ``{"error": ...}`` when a result is wrong."""
    name = type(step).name
    step.run(sources[0])  # warm-up: the first launches load the code and fill caches
    stream = step.stream
    begin, end = device.event(), device.event()
    times, runs = [], []
    # The sources back to back, as a user searching many sources would run them:
    # each result is downloaded after its clock stops, and the CPU checks come after
    # the last search, so that no long host pause sits between two timed searches.
    for j, source in enumerate(sources):
        progress.status(f"{label}: {name}, source {j + 1}/{len(sources)}")
        # [bench-timing-begin]
        device.synchronize()  # nothing else in flight when the clock starts
        begin.record(stream)
        run = step.search(source)  # the reset and the whole host loop
        end.record(stream)
        end.synchronize()
        elapsed_ms = begin.elapsed_ms(end)
        # [bench-timing-end]
        run.levels, run.parents = step.results()  # the download is not timed
        times.append(elapsed_ms)
        runs.append(run)
    for source, run, reference in zip(sources, runs, expected):
        try:
            _validate(graph, source, run.levels, run.parents, reference)  # every timed search
        except ValidationError as exc:
            return {"error": f"source {source}: {exc}"}
    depths = [_depth(run.levels) for run in runs]
    iterations = [int(run.iterations) for run in runs]
    del runs

    # The same sources again, on the host clock, each with its result in host memory.
    # Device events mark the search inside the same call, so that what getting the
    # result out costs (wall - search) is paired call by call: a host-driven search
    # varies from one run to the next by more than a download takes.
    walls, searched, copies, answers = [], [], [], []
    from rodinia_bfs.api import PreparedGraph

    prepared = PreparedGraph.around(step)  # the step is closed by the caller
    step.search = _marking_end(step.search, end, stream)  # this loop only (deleted below)
    try:
        # A warm-up here too: the first search of a prepared graph allocates the pinned
        # buffers that every later one downloads into (milliseconds, once).
        search_and_download(prepared, sources[0])
        for j, source in enumerate(sources):
            progress.status(f"{label}: {name}, wall time, source {j + 1}/{len(sources)}")
            device.synchronize()
            # [bench-wall-timing-begin]
            start = time.perf_counter()
            begin.record(stream)
            levels, parents = search_and_download(prepared, source)
            wall_ms = (time.perf_counter() - start) * 1e3
            # [bench-wall-timing-end]
            walls.append(wall_ms)
            searched.append(begin.elapsed_ms(end))
            # A prepared graph may hand out the same buffers at every search: keep copies.
            answers.append((np.array(levels), None if parents is None else np.array(parents)))
            # Into the pinned buffers the call downloaded into (the arrays it returned
            # are read-only views of them).
            copies.append(time_own_copy(device, step, *prepared._pinned))
    finally:
        del step.search  # the step's own method again
    for source, (levels, parents), reference in zip(sources, answers, expected):
        try:
            _validate(graph, source, levels, parents, reference)
        except ValidationError as exc:
            return {"error": f"source {source} (wall time): {exc}"}
    del answers

    # One more run, not counted above: events after every level cost a little.
    profiled = step.run(sources[0], profile=True)
    try:
        _validate(graph, sources[0], profiled.levels, profiled.parents, expected[0])
    except ValidationError as exc:
        return {"error": f"source {sources[0]} (profile run): {exc}"}

    return {
        **spread(times),
        "wall_ms": float(np.median(walls)),
        "wall_times_ms": [float(t) for t in walls],
        "wall_search_times_ms": [float(t) for t in searched],
        "wall_overhead_ms": float(np.median(np.subtract(walls, searched))),
        **({} if None in copies else {
            "wall_copy_times_ms": [float(t) for t in copies],
            "wall_beyond_copy_ms": float(np.median(np.subtract(np.subtract(walls, searched),
                                                               copies)))}),
        "levels": depths,
        "iterations": iterations,
        "profile": {
            "source": sources[0],
            "frontier_sizes": frontier_sizes(expected[0].levels),
            "level_times_ms": [float(t) for t in profiled.level_times_ms],
        },
    }


def _time_oneshot(device, name: str, graph: CSRGraph, sources: list[int], expected: list,
                  progress: Progress, label: str) -> dict:
    """``rodinia_bfs.bfs()`` from the first :data:`ONESHOT_SOURCES` sources, each call
    from the CSRGraph in host memory to the result in host memory; or ``{"error": ...}``."""
    calls, answers = [], []
    count = min(ONESHOT_SOURCES, len(sources))
    for j, source in enumerate(sources[:count]):
        progress.status(f"{label}: {name}, one call, source {j + 1}/{count}")
        device.synchronize()
        # On the bench's own device: bfs() opens one per backend once in a process and
        # keeps it, so no call after a user's first pays for opening one.
        # [bench-oneshot-timing-begin]
        start = time.perf_counter()
        levels, parents = rodinia_bfs.bfs(graph, source, variant=name, backend=device)
        oneshot_ms = (time.perf_counter() - start) * 1e3
        # [bench-oneshot-timing-end]
        calls.append(oneshot_ms)
        answers.append((levels, parents))
    for source, (levels, parents), reference in zip(sources, answers, expected):
        try:
            _validate(graph, source, levels, parents, reference)
        except ValidationError as exc:
            return {"error": f"source {source} (one call): {exc}"}
    return {"oneshot_ms": float(np.median(calls)),
            "oneshot_times_ms": [float(t) for t in calls]}


def bench_graph(spec: GraphSpec, graph: CSRGraph, config: BenchConfig, device,
                step_names: list[str], progress: Progress, label: str) -> dict:
    """Every measure of one graph, as the ``graphs`` entry of the results."""
    from rodinia_bfs.bench.report import format_gteps, format_ms, format_speedup
    from rodinia_bfs.variants import get_step

    degrees = graph.degrees()
    counts = graph.edge_counts()
    sources = select_sources(graph, config.sources, config.seed)

    ref_times, expected = time_reference(graph, sources, progress, label)
    edges = [traversed_edges(graph, result.levels) for result in expected]
    loops = self_loops(graph)
    inputs = [input_edges(graph, result.levels, loops) for result in expected]
    entry = {
        "name": spec.name,
        "description": spec.description,
        "vertices": graph.num_vertices,
        "edges": graph.num_edges,  # = arcs, the name older results use
        "arcs": counts.arcs,
        "undirected_edges": counts.undirected_edges,
        "directed": bool(graph.directed),
        "max_degree": int(degrees.max()) if degrees.size else 0,
        "mean_degree": float(degrees.mean()) if degrees.size else 0.0,
        "sources": sources,
        "traversed_edges": edges,
        "input_edges": inputs,
        "levels": [_depth(result.levels) for result in expected],
        "frontier_sizes": frontier_sizes(expected[0].levels),
        "reference": {
            "method": f"rodinia_bfs.reference.bfs_reference(method={REFERENCE_METHOD!r})",
            **spread(ref_times),
            "gteps_median": _median_gteps(edges, ref_times),
            "gteps_graph500_median": _median_gteps(inputs, ref_times),
        },
        "upload_ms": None,
        "result_copy_ms": None,
        "variants": {},
    }
    reference_ms = entry["reference"]["median_ms"]
    progress.note(f"{label}: reference {format_ms(reference_ms)} ms (median)")

    if step_names:
        entry["upload_ms"] = time_upload(device, graph)
        entry["result_copy_ms"] = time_result_copy(device, graph)
    for name in step_names:
        try:
            measured = time_step(device, get_step(name), graph, sources, expected, progress, label)
        except ValidationError as exc:  # raised by the step itself
            measured = {"valid": False, "error": str(exc)}
        except RodiniaBFSError as exc:  # a device or compile error: report it, go on
            measured = {"valid": False, "error": str(exc), "failed": True}
        if measured["valid"]:
            measured["gteps_median"] = _median_gteps(edges, measured["times_ms"])
            measured["gteps_graph500_median"] = _median_gteps(inputs, measured["times_ms"])
            measured["speedup_vs_reference"] = reference_ms / measured["median_ms"]
            progress.note(
                f"{label}: {name} {format_ms(measured['median_ms'])} ms (median), "
                f"wall {format_ms(measured['wall_ms'])} ms, "
                f"set-up {format_ms(measured['setup_ms'])} ms "
                f"(cold {format_ms(measured['setup_cold_ms'])} ms), "
                f"one call {format_ms(measured['oneshot_ms'])} ms, "
                f"{format_gteps(measured['gteps_median'])} GTEPS (arcs), "
                f"{format_gteps(measured['gteps_graph500_median'])} GTEPS (Graph500), "
                f"{format_speedup(measured['speedup_vs_reference'])} the reference"
            )
        else:
            progress.note(f"{label}: {name} FAILED: {measured['error'].splitlines()[0]}")
        entry["variants"][name] = measured
    return entry


def _median_gteps(edges: list[int], times_ms: list[float]) -> float:
    """Median over the sources of each run's GTEPS (its own edges over its own time)."""
    return float(np.median([gteps(e, t) for e, t in zip(edges, times_ms)]))


# -- the whole suite --------------------------------------------------------------------

def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_run(config: BenchConfig, device, step_names: list[str]) -> dict:
    """The ``meta`` record: when, where, on what, with which versions, by which command."""
    versions = {
        "rodinia_bfs": rodinia_bfs.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": _version("scipy"),
    }
    for dist in ("hip-python", "cuda-python", "cuda-bindings", "matplotlib"):
        found = _version(dist)
        if found:
            versions[dist] = found
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "suite": config.suite,
        "files": [str(path) for path in config.files],
        "sources_per_graph": config.sources,
        "seed": config.seed,
        "variants": ["reference", *step_names],
        "versions": versions,
        "command": config.command,
        "argv": list(sys.argv),
    }
    if device is not None:
        meta.update(
            backend=device.backend,
            device=device.name,
            arch=device.arch,
            warp_size=int(device.warp_size),
            total_memory=int(device.total_memory),
            device_description=device.describe(),
        )
    else:
        meta.update(backend=None, device=None, arch=None, warp_size=None, total_memory=None,
                    device_description="CPU reference only")
    return meta


def resolve_variants(requested: list[str]) -> list[str]:
    """The GPU steps to run: ``requested`` (names, ``reference`` allowed) or all of them."""
    from rodinia_bfs.variants import STEPS, VARIANT_NAMES

    if not requested:
        return list(STEPS)
    unknown = [name for name in requested if name not in VARIANT_NAMES]
    if unknown:
        raise RodiniaBFSError(
            f"unknown variant {unknown[0]!r}; choose from: {', '.join(VARIANT_NAMES)}"
        )
    return [name for name in requested if name in STEPS]


def default_source_count(config: BenchConfig, device) -> int:
    """Sources per graph when ``--sources`` is not given: the suite's, or for files
    alone 16 on a GPU and 4 on the cpu emulator (which runs every thread on the host)."""
    if config.suite is not None:
        return default_sources(config.suite)
    on_gpu = device is not None and device.backend != "cpu"
    return 16 if on_gpu else 4


def _too_big(need: int, have: int | None, what: str) -> str | None:
    """The reason to skip a graph that needs ``need`` bytes of ``what`` memory."""
    if have is None or need <= have:
        return None
    return f"needs about {need / 2**30:.1f} GiB of {what} memory, there are {have / 2**30:.1f} GiB"


def _bench_one(spec: GraphSpec, label: str, config: BenchConfig, device, step_names,
               data_dir: Path, progress: Progress, results: dict, skip) -> None:
    """Build one graph (unless it cannot fit) and measure it into ``results``."""
    device_memory = int(device.total_memory) if device is not None else None
    if not spec.available(data_dir):
        skip(spec, f"{spec.path(data_dir)} not found (use --data DIR)")
        return
    if spec.est_vertices:  # decided before the graph is generated
        reason = _too_big(estimated_device_bytes(spec.est_vertices, spec.est_edges),
                          device_memory, "device") or \
            _too_big(spec.host_bytes(), available_host_memory(), "free host")
        if reason:
            skip(spec, reason)
            return
    progress.note(f"{label}: {spec.description}")
    start = time.perf_counter()
    graph = spec.build(data_dir)
    progress.note(f"{label}: built in {time.perf_counter() - start:.1f} s: {graph.describe()}")
    reason = _too_big(estimated_device_bytes(graph.num_vertices, graph.num_edges),
                      device_memory, "device")
    if reason:
        skip(spec, reason)
        return
    results["graphs"].append(bench_graph(spec, graph, config, device, step_names, progress, label))


def run_bench(config: BenchConfig, progress: Progress | None = None) -> dict:
    """Run the suite and the files; return the results (see :mod:`rodinia_bfs.bench` for
    their layout). A graph that cannot fit the device (or the host, to generate it) is
    skipped with a note, decided from its estimated size before it is built."""
    specs = (suite_graphs(config.suite, config.graphs) if config.suite else []) + \
        file_specs(config.files)
    step_names = resolve_variants(config.variants)
    data_dir = Path(config.data_dir) if config.data_dir else DEFAULT_DATA_DIR

    device, why = None, ""
    if step_names:
        from rodinia_bfs.api import open_device

        device, why = open_device(config.backend, warp_size=config.warp_size)
    config.sources = config.sources or default_source_count(config, device)

    own_progress = progress is None
    progress = progress or Progress("bench", total=len(specs), unit="graph")
    if device is not None:
        progress.note(f"device: {device.describe()} [{why}]")
    results = {"meta": describe_run(config, device, step_names), "graphs": [], "skipped": []}

    def skip(spec, reason):
        progress.note(f"skipping {spec.name}: {reason}")
        results["skipped"].append({"name": spec.name, "reason": reason})

    finished = False
    try:
        for i, spec in enumerate(specs):
            _bench_one(spec, f"[graph {i + 1}/{len(specs)}] {spec.name}", config, device,
                       step_names, data_dir, progress, results, skip)
            progress.update()
        finished = True
    finally:
        if own_progress:
            progress.close(failed=not finished)
    return results


def all_valid(results: dict) -> bool:
    """True when every variant on every graph passed validation."""
    return all(v["valid"] for g in results["graphs"] for v in g["variants"].values())
