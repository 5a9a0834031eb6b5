"""``rodinia-bfs bench``: time every variant on a suite of graphs, validated.

* :mod:`~rodinia_bfs.bench.suites` -- which graphs each suite runs on;
* :mod:`~rodinia_bfs.bench.runner` -- the timing, the validation, the measures;
* :mod:`~rodinia_bfs.bench.report` -- JSON, markdown and CSV tables, plots.

The JSON written by ``--json`` (and ``--out``) holds::

    {"meta": {date, host, cpu, cpu_count, suite, files, sources_per_graph, seed, variants,
              backend, device, arch, warp_size, total_memory, device_description,
              versions: {rodinia_bfs, python, numpy, scipy, hip-python?, cuda-python?, ...},
              command, argv},
     "graphs": [{name, description, vertices, edges, arcs, undirected_edges, directed,
                 max_degree, mean_degree, sources, traversed_edges, input_edges, levels,
                 frontier_sizes, upload_ms, result_copy_ms,
                 reference: {method, median_ms, min_ms, max_ms, times_ms, gteps_median,
                             gteps_graph500_median},
                 variants: {NAME: {setup_ms, setup_cold_ms, median_ms, min_ms, max_ms,
                                   times_ms, wall_ms, wall_times_ms, wall_search_times_ms,
                                   wall_overhead_ms, wall_copy_times_ms?,
                                   wall_beyond_copy_ms?, oneshot_ms,
                                   oneshot_times_ms, gteps_median, gteps_graph500_median,
                                   levels, iterations, valid, speedup_vs_reference,
                                   profile: {source, frontier_sizes, level_times_ms}}}}],
     "skipped": [{name, reason}]}

``sources``, ``traversed_edges``, ``input_edges``, ``levels``, ``times_ms`` and
``iterations`` are lists with one entry per source, in the same order; so is
``wall_times_ms`` and ``wall_search_times_ms``, and ``oneshot_times_ms`` is one entry for each of the first
sources (:data:`~rodinia_bfs.bench.runner.ONESHOT_SOURCES` at most). ``edges`` is
``arcs`` (stored directed edges), the name older results use; ``undirected_edges`` is
``null`` for a directed graph (see :meth:`~rodinia_bfs.graphs.csr.CSRGraph.edge_counts`).

Two GTEPS: ``gteps_median`` counts the arcs out of the reached vertices
(:func:`~rodinia_bfs.bench.runner.traversed_edges`, what a BFS reads), and
``gteps_graph500_median`` the input edges in the traversed component, each undirected
edge once (:func:`~rodinia_bfs.bench.runner.input_edges`, Graph500's TEPS). Each is the
median over the sources of that source's edges over its time.

What a user waits for, per variant (docs/measuring.rst explains each): ``setup_ms``
(the CSRGraph in host memory to ready to search, the kernel cache warm),
``setup_cold_ms`` (the same with an empty kernel cache), ``wall_ms`` (median of one
search with its levels and parents in host memory, host clock), ``wall_search_times_ms``
(the search inside each of those calls, device events), ``wall_overhead_ms`` (the median
of each call's wall time minus its own search: what getting the result out costs),
``wall_copy_times_ms`` (that result's copy into the same pinned buffers timed again
after each call, its floor) and ``wall_beyond_copy_ms`` (the median of wall - search -
copy), both absent for a step whose result comes from several GPUs, and ``oneshot_ms``
(median of one ``rodinia_bfs.bfs()`` call); per graph, ``result_copy_ms`` is one copy of
a levels and a parents array into pinned host memory between fresh buffers.
Results written before these were measured lack them.

The bench prints a short table (:func:`~rodinia_bfs.bench.report.terminal_table`);
``table.md`` and ``table.csv`` hold every figure, one row per graph.

A variant that failed validation has ``valid: false`` and an ``error``, and no times.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from rodinia_bfs.bench.runner import BenchConfig, all_valid, run_bench, select_sources
from rodinia_bfs.bench.suites import SUITES
from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.progress import Progress

__all__ = ["BenchConfig", "Progress", "SUITES", "all_valid", "main", "run_bench",
           "select_sources"]

EXIT_ERROR = 1
EXIT_INVALID = 3


def _split(text: str | None) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()] if text else []


def command_line(args, config: BenchConfig) -> str:
    """The command that repeats this run, every choice spelled out."""
    from rodinia_bfs.bench.runner import resolve_variants

    words = ["rodinia-bfs", "bench", *map(str, config.files)]
    if config.suite:
        words += ["--suite", config.suite]
    words += ["--backend", config.backend,
              "--variants", ",".join(["reference", *resolve_variants(config.variants)]),
              "--sources", str(config.sources), "--seed", str(config.seed)]
    if config.warp_size:
        words += ["--warp-size", str(config.warp_size)]
    if config.graphs:
        words += ["--graphs", ",".join(config.graphs)]
    for option, value in (("--data", args.data), ("--json", args.json),
                          ("--plot", args.plot), ("--out", args.out)):
        if value:
            words += [option, str(value)]
    return shlex.join(words)


def main(args) -> int:
    """Run ``rodinia-bfs bench`` from parsed command-line ``args``; return the exit status."""
    from rodinia_bfs.bench import report

    if args.plot:
        report.require_matplotlib()  # fail now, not after an hour of measuring
    # --out writes the plots where matplotlib is there, and says so where it is not
    plots_in_out = bool(args.out) and report.have_matplotlib()
    files = list(getattr(args, "files", None) or [])
    suite = args.suite or (None if files else "quick")
    if args.graphs and suite is None:
        raise RodiniaBFSError("--graphs picks graphs of a suite: give --suite too")
    if args.data and not Path(args.data).is_dir():
        raise RodiniaBFSError(f"--data {args.data}: no such folder")
    config = BenchConfig(
        suite=suite,
        files=[Path(f) for f in files],
        variants=_split(args.variants),
        backend=args.backend,
        sources=args.sources,
        seed=args.seed,
        graphs=_split(args.graphs) or None,
        data_dir=Path(args.data) if args.data else None,
        warp_size=args.warp_size,
    )
    results = run_bench(config)
    # The command that repeats the run, with the source count run_bench settled on.
    config.command = results["meta"]["command"] = command_line(args, config)

    sys.stdout.write(report.terminal_table(results))  # the short table; all of it in the files
    sys.stdout.flush()
    if args.json:
        report.write_json(results, Path(args.json))
    if args.plot:
        report.write_plots(results, Path(args.plot))
    if args.out:
        report.write_results_dir(results, Path(args.out), plots=plots_in_out)
        if not plots_in_out:
            print(f"rodinia-bfs: {report.PLOTS_SKIPPED}", file=sys.stderr)

    broken = [(g["name"], name, v) for g in results["graphs"]
              for name, v in g["variants"].items() if not v["valid"]]
    for graph, name, measured in broken:
        what = "failed" if measured.get("failed") else "validation failed"
        print(f"rodinia-bfs: {name} on {graph}: {what}: {measured['error'].splitlines()[0]}",
              file=sys.stderr)
    if any(not v.get("failed") for _, _, v in broken):
        return EXIT_INVALID
    if broken:
        return EXIT_ERROR
    if not results["graphs"]:
        print("rodinia-bfs: error: nothing was measured: every graph was skipped "
              f"({'; '.join(s['name'] + ': ' + s['reason'] for s in results['skipped'])})",
              file=sys.stderr)
        return EXIT_ERROR
    return 0
