"""Write the results of a benchmark: JSON, a markdown table, a CSV table, plots.

Plots need matplotlib (the ``plot`` extra); everything else needs only the standard
library. :func:`docs_include` writes reStructuredText that shows one results folder
(its table and plots) on a page of Sphinx docs::

    python -m rodinia_bfs.bench.report benchmarks/results/<device>-<date> > results.inc

The tutorial's own includes, in ``docs/_generated/``, are written by
:mod:`rodinia_bfs.bench.includes` from the same pieces.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import statistics
import sys
from pathlib import Path

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.safe_output import replaced, write_text

# -- numbers as text ---------------------------------------------------------------


def _significant(x: float, digits: int = 3) -> str:
    """``x`` with about ``digits`` significant digits and no exponent."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def format_ms(ms: float) -> str:
    return _significant(ms, 3)


def format_gteps(value: float) -> str:
    return _significant(value, 3)


def format_speedup(value: float) -> str:
    return _significant(value, 3) + "x"


def _levels_text(levels: list[int]) -> str:
    low, high = min(levels), max(levels)
    return str(low) if low == high else f"{low}-{high}"


# -- tables ------------------------------------------------------------------------


def variant_names(results: dict) -> list[str]:
    """The GPU variants in the results, in the order they ran."""
    names: list[str] = []
    for graph in results["graphs"]:
        for name in graph["variants"]:
            if name not in names:
                names.append(name)
    return names


#: What a user waits for, beside each variant's search time (see docs/measuring.rst):
#: the key in the results and the column's name. Results of runs that did not measure
#: them have none of these columns.
WAITS = [("setup_ms", "set-up ms"), ("setup_cold_ms", "cold set-up ms"),
         ("wall_ms", "wall ms"), ("oneshot_ms", "one-call ms"),
         ("wall_overhead_ms", "wall - search ms")]


def _has_waits(results: dict) -> bool:
    return any("wall_ms" in measured for graph in results["graphs"]
               for measured in graph["variants"].values())


def table_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the results table: one row per graph, every figure of each
    variant (the table of table.md and table.csv)."""
    names = variant_names(results)
    waits = WAITS if _has_waits(results) else []
    copies = any(graph.get("result_copy_ms") is not None for graph in results["graphs"])
    header = ["graph", "vertices", "arcs", "undirected edges", "levels", "reference ms"]
    header += ["result copy ms"] if copies else []
    for name in names:
        header += [f"{name} ms", f"{name} GTEPS", f"{name} speed-up", f"{name} Graph500 GTEPS"]
        header += [f"{name} {column}" for _, column in waits]
    rows = []
    for graph in results["graphs"]:
        undirected = graph.get("undirected_edges")
        row = [
            graph["name"],
            f"{graph['vertices']:,}",
            f"{graph.get('arcs', graph['edges']):,}",  # older results call the arcs "edges"
            "directed" if graph["directed"] else (f"{undirected:,}" if undirected else ""),
            _levels_text(graph["levels"]),
            format_ms(graph["reference"]["median_ms"]),
        ]
        row += [_ms_or_blank(graph.get("result_copy_ms"))] if copies else []
        for name in names:
            measured = graph["variants"].get(name)
            if measured is None:
                row += [""] * (4 + len(waits))
            elif not measured["valid"]:
                row += ["FAILED" if measured.get("failed") else "INVALID"]
                row += ["-"] * (3 + len(waits))
            else:
                graph500 = measured.get("gteps_graph500_median")
                row += [
                    format_ms(measured["median_ms"]),
                    format_gteps(measured["gteps_median"]),
                    format_speedup(measured["speedup_vs_reference"]),
                    format_gteps(graph500) if graph500 is not None else "",
                ]
                row += [_ms_or_blank(measured.get(key)) for key, _ in waits]
        rows.append(row)
    return header, rows


def _ms_or_blank(ms: float | None) -> str:
    return "" if ms is None else format_ms(ms)


def us_per_level(times_ms: list[float], levels: list[int]) -> float:
    """The median over the sources of one BFS's time divided by its number of levels, in µs."""
    return statistics.median(1000.0 * t / max(n, 1) for t, n in zip(times_ms, levels))


#: The columns of the table the bench prints (every other figure is in table.csv and
#: results.json).
TERMINAL_COLUMNS = ["graph", "vertices", "arcs", "variant", "median ms", "wall ms", "GTEPS",
                    "µs per level", "set-up ms", "valid"]
LEFT = {0, 3, 9}  # the columns of words


def terminal_rows(results: dict) -> list[list[str]]:
    """One row per graph and variant (the CPU reference first), :data:`TERMINAL_COLUMNS`."""
    rows = []
    for graph in results["graphs"]:
        first = [graph["name"], f"{graph['vertices']:,}", f"{graph.get('arcs', graph['edges']):,}"]
        reference = graph["reference"]
        rows.append(first + [
            "reference", format_ms(reference["median_ms"]), "",
            format_gteps(reference["gteps_median"]),
            format_ms(us_per_level(reference["times_ms"], graph["levels"])), "", "yes"])
        for name, measured in graph["variants"].items():
            if measured["valid"]:
                cells = [format_ms(measured["median_ms"]), _ms_or_blank(measured.get("wall_ms")),
                         format_gteps(measured["gteps_median"]),
                         format_ms(us_per_level(measured["times_ms"], measured["levels"])),
                         _ms_or_blank(measured.get("setup_ms")), "yes"]
            else:
                cells = ["-"] * 5 + ["FAILED" if measured.get("failed") else "INVALID"]
            rows.append(["", "", "", name, *cells])
    return rows


def terminal_table(results: dict) -> str:
    """The short table the bench prints: :data:`TERMINAL_COLUMNS`, aligned, as markdown;
    below it the fastest variant per graph and the skipped graphs."""
    rows = terminal_rows(results)
    widths = [max(len(cell) for cell in column) for column in zip(TERMINAL_COLUMNS, *rows)]

    def line(cells):
        padded = [cell.ljust(width) if i in LEFT else cell.rjust(width)
                  for i, (cell, width) in enumerate(zip(cells, widths))]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ("-" if i in LEFT else ":")
                          for i, w in enumerate(widths)) + "|"
    lines = [short_caption(results), "", line(TERMINAL_COLUMNS), rule]
    lines += [line(row) for row in rows]
    fastest = fastest_lines(results)
    if fastest:
        lines += ["", "Fastest variant per graph, and the default step (adaptive):", ""]
        lines += [f"- {text}" for text in fastest]
    for skipped in results.get("skipped", []):
        lines += ["", f"Skipped {skipped['name']}: {skipped['reason']}"]
    return "\n".join(lines) + "\n"


def short_caption(results: dict) -> str:
    """What the short table shows, in two lines; the rest is in the files."""
    meta = results["meta"]
    what = f"suite {meta['suite']}" if meta.get("suite") else "graph files"
    return (
        f"Medians over {meta['sources_per_graph']} sources per graph ({what}; "
        f"{meta['device_description']}; {meta['date'][:10]}).\n"
        f"median: the search; wall: the search and its result in host memory; set-up: to "
        f"ready to search, kernel cache warm. Every other figure: --json or --out.")


def caption(results: dict) -> str:
    """One line saying what the table shows and where it was measured."""
    meta = results["meta"]
    where = meta["device_description"]
    what = f"suite {meta['suite']}" if meta.get("suite") else "graph files"
    return (
        f"Median time of one BFS over {meta['sources_per_graph']} sources per graph "
        f"({what}; {where}; {meta['date'][:10]}). "
        f"Speed-up: CPU reference median / variant median. GTEPS: arcs out of the reached "
        f"vertices per second; Graph500 GTEPS: input edges of the traversed component per "
        f"second, each undirected edge once."
    )


# [report-fastest-begin]
def fastest_lines(results: dict, adaptive: str = "adaptive") -> list[str]:
    """One line per graph: the fastest valid GPU variant and how far ``adaptive`` (the
    default GPU step) is from it; none where ``adaptive`` was not measured."""
    lines = []
    for graph in results["graphs"]:
        timed = {name: m["median_ms"] for name, m in graph["variants"].items()
                 if m.get("valid") and m.get("median_ms") is not None}
        if adaptive not in timed or len(timed) < 2:
            continue
        best = min(timed, key=timed.get)
        if best == adaptive:
            others = {k: v for k, v in timed.items() if k != adaptive}
            runner_up = min(others, key=others.get)
            ahead = (others[runner_up] / timed[adaptive] - 1.0) * 100.0
            lines.append(f"{graph['name']}: fastest {adaptive} ({format_ms(timed[adaptive])} ms), "
                         f"{ahead:.1f} % ahead of {runner_up} ({format_ms(others[runner_up])} ms)")
        else:
            behind = (timed[adaptive] / timed[best] - 1.0) * 100.0
            lines.append(f"{graph['name']}: fastest {best} ({format_ms(timed[best])} ms); "
                         f"{adaptive} {format_ms(timed[adaptive])} ms, {behind:.1f} % behind")
    return lines
# [report-fastest-end]


def markdown_table(results: dict) -> str:
    """The results as a markdown table, preceded by its caption."""
    header, rows = table_rows(results)
    numeric = [i > 0 for i in range(len(header))]
    lines = [
        caption(results),
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" if right else "---" for right in numeric) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    fastest = fastest_lines(results)
    if fastest:
        lines += ["", "Fastest variant per graph, and the default step (adaptive):", ""]
        lines += [f"- {line}" for line in fastest]
    for skipped in results.get("skipped", []):
        lines.append("")
        lines.append(f"Skipped {skipped['name']}: {skipped['reason']}")
    return "\n".join(lines) + "\n"


def csv_table(results: dict) -> str:
    """The same table as CSV (the docs show it with a ``csv-table``)."""
    header, rows = table_rows(results)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def write_json(results: dict, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(results, indent=1) + "\n")


# -- plots ---------------------------------------------------------------------


def have_matplotlib() -> bool:
    """Whether matplotlib can be imported (the ``plot`` extra is installed)."""
    try:
        require_matplotlib()
    except RodiniaBFSError:
        return False
    return True


#: What the bench says when ``--out`` writes no plots.
PLOTS_SKIPPED = ("plots skipped: matplotlib is not installed "
                 "(pip install 'rodinia-bfs[plot]' to get them)")


def require_matplotlib():
    """matplotlib's pyplot on the headless Agg backend, or a one-line error."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RodiniaBFSError(
            "--plot needs matplotlib: pip install 'rodinia-bfs[plot]'"
        ) from None
    return plt


def write_plots(results: dict, directory: Path) -> list[Path]:
    """gteps.png, frontier.png and one level_time_<graph>.png per graph; returns the paths."""
    plt = require_matplotlib()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = [_plot_gteps(plt, results, directory / "gteps.png"),
               _plot_frontiers(plt, results, directory / "frontier.png")]
    for graph in results["graphs"]:
        written.append(
            _plot_level_times(plt, results, graph, directory / f"level_time_{graph['name']}.png")
        )
    return written


def _title_suffix(results: dict) -> str:
    meta = results["meta"]
    return f"{meta['device'] or 'CPU'} ({meta['backend'] or 'reference only'}), {meta['date'][:10]}"


def _plot_gteps(plt, results: dict, path: Path) -> Path:
    """Grouped bars: GTEPS of each variant (reference first) on each graph, log scale."""
    graphs = results["graphs"]
    names = ["reference", *variant_names(results)]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(graphs) * max(1, len(names)) / 2), 4.2))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        xs, heights = [], []
        for i, graph in enumerate(graphs):
            measured = graph["reference"] if name == "reference" else graph["variants"].get(name)
            if measured and measured.get("valid", True) and measured.get("gteps_median"):
                xs.append(i - 0.4 + (k + 0.5) * width)
                heights.append(measured["gteps_median"])
        ax.bar(xs, heights, width=width, label=name)
    ax.set_yscale("log")
    ax.set_xticks(range(len(graphs)))
    ax.set_xticklabels([g["name"] for g in graphs], rotation=20, ha="right")
    ax.set_ylabel("GTEPS (median over sources)")
    ax.set_title(f"Traversed edges per second\n{_title_suffix(results)}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    with replaced(path) as temporary:
        fig.savefig(temporary, dpi=110, format="png")
    plt.close(fig)
    return path


def _plot_frontiers(plt, results: dict, path: Path) -> Path:
    """Frontier size per level, one panel per graph: the parallelism each level offers."""
    graphs = results["graphs"]
    columns = min(3, max(1, len(graphs)))
    rows = max(1, math.ceil(len(graphs) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(4.0 * columns, 2.9 * rows), squeeze=False)
    for ax, graph in zip(axes.flat, graphs):
        sizes = graph["frontier_sizes"]
        ax.semilogy(range(len(sizes)), sizes, marker="o" if len(sizes) <= 40 else None,
                    markersize=3)
        ax.set_title(f"{graph['name']} (source {graph['sources'][0]})", fontsize=9)
        ax.set_xlabel("level")
        ax.set_ylabel("frontier size")
        ax.grid(which="both", alpha=0.3)
    for ax in list(axes.flat)[len(graphs):]:
        ax.axis("off")
    fig.suptitle("Vertices per BFS level", fontsize=10)
    fig.tight_layout()
    with replaced(path) as temporary:
        fig.savefig(temporary, dpi=110, format="png")
    plt.close(fig)
    return path


def _plot_level_times(plt, results: dict, graph: dict, path: Path) -> Path:
    """Frontier size (top) and each variant's time per level (bottom) on one graph."""
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(6.4, 5.0),
                                      gridspec_kw={"height_ratios": [1, 2]})
    sizes = graph["frontier_sizes"]
    top.semilogy(range(len(sizes)), sizes, color="0.4")
    top.set_ylabel("frontier size")
    top.grid(which="both", alpha=0.3)
    for name, measured in graph["variants"].items():
        if measured.get("valid") and measured.get("profile"):
            times = measured["profile"]["level_times_ms"]
            bottom.semilogy(range(len(times)), times, label=name,
                            marker="o" if len(times) <= 40 else None, markersize=3)
    bottom.set_xlabel("level (host-loop iteration)")
    bottom.set_ylabel("time per level (ms)")
    bottom.grid(which="both", alpha=0.3)
    if bottom.get_legend_handles_labels()[0]:
        bottom.legend(fontsize=8)
    top.set_title(f"{graph['name']}, source {graph['sources'][0]}\n{_title_suffix(results)}",
                  fontsize=10)
    fig.tight_layout()
    with replaced(path) as temporary:
        fig.savefig(temporary, dpi=110, format="png")
    plt.close(fig)
    return path


# -- a results folder, and the docs page that shows it ---------------------------------


def write_results_dir(results: dict, directory: Path, plots: bool = True) -> None:
    """Everything of one run in ``directory``: results.json, table.md, table.csv,
    command.txt and (with ``plots``) plots/*.png."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    write_json(results, directory / "results.json")
    write_text(directory / "table.md", markdown_table(results))
    write_text(directory / "table.csv", csv_table(results))
    write_text(directory / "command.txt", results["meta"]["command"] + "\n")
    if plots:
        write_plots(results, directory / "plots")


def docs_paths(results_dir: Path, docs_dir: Path = Path("docs"),
               include_dir: Path = Path("docs/_generated")) -> tuple[str, str]:
    """How a file in ``include_dir``, included by a page of ``docs_dir``, names the
    folder ``results_dir``: from the documentation root (``/...``: Sphinx's own
    directives, ``literalinclude`` and ``figure``) and from the included file
    (docutils' ``csv-table``)."""
    folder = Path(results_dir).resolve()
    from_root = "/" + Path(os.path.relpath(folder, Path(docs_dir).resolve())).as_posix()
    from_include = Path(os.path.relpath(folder, Path(include_dir).resolve())).as_posix()
    return from_root, from_include


def docs_header(results_dir: Path, results: dict, from_root: str) -> list[str]:
    """The lines that open an include: where and when the results were measured, the
    command that produced them, and a warning if they are CPU-emulator figures."""
    meta = results["meta"]
    shown = Path(results_dir).as_posix()
    lines = [
        f"Measured on **{meta['device_description']}** on {meta['date'][:10]}, "
        f"rodinia-bfs {meta['versions']['rodinia_bfs']}, "
        f"{'suite ``' + meta['suite'] + '``' if meta.get('suite') else 'graph files'}, "
        f"{meta['sources_per_graph']} sources per graph. The CPU reference ran on "
        f"{meta['cpu']}. The results are in ``{shown}``, produced by this command:",
        "",
        f".. literalinclude:: {from_root}/command.txt",
        "   :language: none",
        f"   :caption: {shown}/command.txt",
        "",
    ]
    if meta["backend"] == "cpu":
        lines += [
            ".. note::",
            "",
            "   These are **CPU-emulator figures, not GPU figures**. The ``cpu`` backend runs",
            "   every thread of the kernels on the host processor: its times say how the",
            "   emulator copes, not how a GPU would. They show the method and the shape of",
            "   the per-level profiles; the speed-ups of a GPU are not these.",
            "",
        ]
    return lines


def docs_figures(results: dict, from_root: str) -> list[str]:
    """The plots of a results folder, as ``figure`` directives."""
    lines = [
        f".. figure:: {from_root}/plots/gteps.png",
        "   :alt: GTEPS per variant and graph",
        "",
        "   GTEPS of each variant on each graph (median over the sources; log scale).",
        "",
        f".. figure:: {from_root}/plots/frontier.png",
        "   :alt: frontier size per level",
        "",
        "   Frontier size per level, from the first source of each graph.",
        "",
    ]
    for graph in results["graphs"]:
        lines += [
            f".. figure:: {from_root}/plots/level_time_{graph['name']}.png",
            f"   :alt: time per level on {graph['name']}",
            "",
            f"   {graph['name']}: frontier size and time of each level, per variant.",
            "",
        ]
    return lines


def docs_include(results_dir: Path, docs_dir: Path = Path("docs"),
                 include_dir: Path = Path("docs/_generated"), figures: bool = True) -> str:
    """The reStructuredText that shows the results in ``results_dir``, to be written
    into a file in ``include_dir`` and included by a page of the docs in ``docs_dir``.

    Sphinx's own directives (``literalinclude``, ``figure``) take paths relative to the
    documentation root when they start with ``/``; docutils' ``csv-table`` takes them
    relative to the included file. Both are written so.
    """
    results = json.loads((Path(results_dir) / "results.json").read_text())
    from_root, from_include = docs_paths(results_dir, docs_dir, include_dir)
    shown = Path(results_dir).as_posix()
    lines = [f".. Generated from {shown}/results.json by",
             f"   python -m rodinia_bfs.bench.report {shown}", ""]
    lines += docs_header(results_dir, results, from_root)
    lines += [
        f".. csv-table:: {caption(results)}",
        f"   :file: {from_include}/table.csv",
        "   :header-rows: 1",
        "",
    ]
    if figures:  # the chapters show the table alone; the measuring page shows the plots
        lines += docs_figures(results, from_root)
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m rodinia_bfs.bench.report [--table-only] RESULTS_DIR``, run from the
    project root: print the include that shows RESULTS_DIR on a page of ``docs/``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    figures = "--table-only" not in argv
    argv = [a for a in argv if a != "--table-only"]
    if len(argv) != 1:
        print("usage: python -m rodinia_bfs.bench.report [--table-only] RESULTS_DIR",
              file=sys.stderr)
        return 2
    sys.stdout.write(docs_include(Path(argv[0]), figures=figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
