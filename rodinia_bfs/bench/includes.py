"""The files of ``docs/_generated/``: what the tutorial shows of committed results.

Every figure the tutorial quotes comes from a results folder of ``benchmarks/results/``
(one ``rodinia-bfs bench --out`` run, committed with its command). The pages do not copy
tables from there: they include files of ``docs/_generated/``, which this module writes
from the folders' ``results.json``. :data:`INCLUDES` says which file shows which folder,
and how:

``tables``
    where and when the results were measured, the command, and the results as four
    tables narrow enough for a page (the graphs; the median time; GTEPS; the speed-up);
``results``
    the same, followed by the plots;
``levels``
    figures per level: the median time of one level, and the levels that stand out in
    the per-level profile (the widest level, and each step's slowest);
``markdown``
    the tables of the folder's ``table.md`` as they are, for a run of a script other than
    the bench (``benchmarks/out_of_memory.py``), each with the line before it as its
    caption.

Run from the root of the checkout after committing new results::

    python -m rodinia_bfs.bench.includes           # rewrite docs/_generated/
    python -m rodinia_bfs.bench.includes --check   # exit 1 if a file is out of date

The tests run the check, and also check that each figure a page quotes in its prose is
a cell of these tables or of the folder's ``table.md``.
"""

from __future__ import annotations

import csv
import io
import json
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from rodinia_bfs.bench import report

ROOT = Path(__file__).resolve().parents[2]
GENERATED = Path("docs/_generated")

#: Which file of ``docs/_generated/`` shows which results folder, and how.
INCLUDES = {
    "bench_results.inc": ("benchmarks/results/cpu-emulator-quick", "results"),
    "gpu_results.inc": ("benchmarks/results/h100-2026-11-22h", "results"),
    "gpu_table.inc": ("benchmarks/results/h100-2026-11-22h", "tables"),
    "gpu_levels.inc": ("benchmarks/results/h100-2026-11-22h", "levels"),
    "h100_levels.inc": ("benchmarks/results/h100-2026-11-23c", "levels"),
    "h100_steps5_7.inc": ("benchmarks/results/h100-2026-11-26-steps5-7-bench/standard", "tables"),
    "h100_steps5_7_in_turns.inc": ("benchmarks/results/h100-2026-11-27-steps5-7-claims", "markdown"),
    "h100_oom_k24.inc": ("benchmarks/results/h100-2026-11-26-oom2-k24", "markdown"),
    "h100_oom_roads.inc": ("benchmarks/results/h100-2026-11-26-oom-roads", "markdown"),
}


@dataclass
class Table:
    caption: str
    header: list[str]
    rows: list[list[str]]

    def rst(self) -> list[str]:
        """The table as a ``csv-table`` directive with its rows inline."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows(self.rows)
        lines = [f".. csv-table:: {self.caption}", "   :header-rows: 1", ""]
        lines += ["   " + line for line in out.getvalue().splitlines()]
        return lines + [""]

    def cells(self) -> set[str]:
        return {cell for row in self.rows for cell in row if cell}


def load_results(folder: str | Path) -> dict:
    return json.loads((ROOT / folder / "results.json").read_text())


def _where(results: dict) -> str:
    meta = results["meta"]
    return f"{meta['device_description']}; {meta['date'][:10]}"


# -- the results, split into tables that fit a page ---------------------------------


def result_tables(results: dict) -> list[Table]:
    """The results table of ``table.md``, cell for cell, as four narrower tables."""
    header, rows = report.table_rows(results)
    column = {name: i for i, name in enumerate(header)}
    names = report.variant_names(results)
    graphs = {g["name"]: g for g in results["graphs"]}
    sources = results["meta"]["sources_per_graph"]

    def pick(suffix: str, with_reference: bool) -> list[list[str]]:
        picked = []
        for row in rows:
            cells = [row[column["graph"]]]
            if with_reference:
                cells.append(row[column["reference ms"]])
            cells += [row[column[f"{name} {suffix}"]] for name in names]
            picked.append(cells)
        return picked

    return [
        Table("The graphs: vertices, arcs (directed edges as stored: an undirected edge "
              "counts twice), the largest out-degree, and the number of levels from the "
              "sources (fewest-most).",
              ["graph", "vertices", "arcs", "max degree", "levels"],
              [[row[column["graph"]], row[column["vertices"]], row[column["arcs"]],
                f"{graphs[row[column['graph']]]['max_degree']:,}", row[column["levels"]]]
               for row in rows]),
        Table(f"Median time of one BFS in ms, over {sources} sources per graph "
              f"({_where(results)}). The reference is the CPU reference.",
              ["graph", "reference", *names], pick("ms", True)),
        Table(f"GTEPS: directed edges out of the reached vertices per second, in billions, "
              f"median over the sources ({_where(results)}).",
              ["graph", *names], pick("GTEPS", False)),
        Table(f"Speed-up over the CPU reference: its median time over the step's "
              f"({_where(results)}).",
              ["graph", *names], pick("speed-up", False)),
    ]


# -- figures per level --------------------------------------------------------------


def _valid(graph: dict, name: str) -> dict | None:
    measured = graph["variants"].get(name)
    return measured if measured and measured.get("valid") else None


def level_time_table(results: dict) -> Table:
    """The median over the sources of one BFS's time divided by its number of levels."""
    names = report.variant_names(results)
    rows = []
    for graph in results["graphs"]:
        row = [graph["name"], report._levels_text(graph["levels"])]
        for name in names:
            measured = _valid(graph, name)
            if measured is None:
                row.append("")
                continue
            per_level = [1000 * t / levels for t, levels in zip(measured["times_ms"], graph["levels"])]
            row.append(report.format_ms(statistics.median(per_level)))
        rows.append(row)
    return Table(
        f"Time per level in µs: one BFS's time divided by its number of levels, median "
        f"over the {results['meta']['sources_per_graph']} sources ({_where(results)}). "
        f"It includes everything a level costs: launches, copy-back and the wait.",
        ["graph", "levels", *names], rows)


def profile_table(results: dict) -> Table:
    """The levels that stand out in each graph's profiled run: the widest, and the
    slowest of each step, with every step's time for that level."""
    names = report.variant_names(results)
    rows = []
    for graph in results["graphs"]:
        sizes = graph["frontier_sizes"]
        times = {}
        for name in names:
            measured = _valid(graph, name)
            if measured and measured.get("profile"):
                times[name] = measured["profile"]["level_times_ms"]
        widest = max(range(len(sizes)), key=sizes.__getitem__) if sizes else None
        slowest: dict[int, list[str]] = {}
        for name, levels in times.items():
            if levels:
                slowest.setdefault(max(range(len(levels)), key=levels.__getitem__), []).append(name)
        for level in sorted(set(slowest) | ({widest} if sizes else set())):
            which = ["widest"] if level == widest else []
            if level in slowest:
                which.append("slowest: " + ", ".join(slowest[level]))
            row = [graph["name"], str(graph["sources"][0]), str(level),
                   f"{sizes[level]:,}" if level < len(sizes) else "", "; ".join(which)]
            row += [report.format_ms(times[name][level])
                    if name in times and level < len(times[name]) else "" for name in names]
            rows.append(row)
    return Table(
        f"The profiled run (one BFS from the first source, an event after every level; "
        f"{_where(results)}): the widest level of each graph and the slowest level of "
        f"each step, with the time of that level in ms for every step. Level 0 is the "
        f"source's.",
        ["graph", "source", "level", "frontier", "which", *names], rows)


# -- the includes -------------------------------------------------------------------


def tables(folder: str | Path) -> list[Table]:
    """Every table the includes show of ``folder``."""
    results = load_results(folder)
    return result_tables(results) + [level_time_table(results), profile_table(results)]


def markdown_tables(folder: str | Path) -> tuple[str, list[Table]]:
    """The first line of a folder's ``table.md`` and its tables, each captioned with the
    last line of text before it."""
    text = (ROOT / folder / "table.md").read_text()
    first, tables, caption, rows = text.split("\n", 1)[0], [], "", []

    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in line.strip().strip("|").split("|")]

    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):  # not the rule
                rows.append(cells(line))
            continue
        if rows:
            named = caption if caption and caption != first.rstrip(":") else "Each way, a search"
            tables.append(Table(named, rows[0], rows[1:]))
            rows = []
        if line.strip():
            caption = line.strip().rstrip(":")
    return first, tables


def render(folder: str, kind: str) -> str:
    """The text of an include of ``kind`` showing the results in ``folder``."""
    if kind == "markdown":
        first, found = markdown_tables(folder)
        lines = [f".. Generated from {folder}/table.md by",
                 "   python -m rodinia_bfs.bench.includes", "", first, ""]
        for table in found:
            lines += table.rst()
        return "\n".join(lines)
    results = load_results(folder)
    from_root, _ = report.docs_paths(ROOT / folder, ROOT / "docs", ROOT / GENERATED)
    head = [f".. Generated from {folder}/results.json by",
            "   python -m rodinia_bfs.bench.includes", ""]
    if kind == "levels":
        lines = head
        for table in (level_time_table(results), profile_table(results)):
            lines += table.rst()
        return "\n".join(lines)
    lines = head + report.docs_header(folder, results, from_root)
    for table in result_tables(results):
        lines += table.rst()
    if kind == "results":
        lines += report.docs_figures(results, from_root)
    elif kind != "tables":
        raise ValueError(f"unknown kind of include {kind!r}")
    return "\n".join(lines)


def generated_folder(include: Path) -> str | None:
    """The results folder a generated include shows, from its first line."""
    first = include.read_text().split("\n", 1)[0]
    prefix = ".. Generated from "
    for source in ("/results.json by", "/table.md by"):
        if first.startswith(prefix) and first.endswith(source):
            return first[len(prefix):-len(source)]
    return None


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if set(argv) - {"--check"}:
        print("usage: python -m rodinia_bfs.bench.includes [--check]", file=sys.stderr)
        return 2
    check = "--check" in argv
    missing = [f"{folder}/{'table.md' if kind == 'markdown' else 'results.json'}"
               for folder, kind in INCLUDES.values()
               if not (ROOT / folder / ("table.md" if kind == "markdown" else "results.json")).is_file()]
    if missing or not (ROOT / "docs").is_dir():
        print(f"run this from a checkout of rodinia-bfs: {ROOT} has no docs/ or no "
              f"{missing[0] if missing else 'results'}", file=sys.stderr)
        return 1
    stale = []
    for name, (folder, kind) in INCLUDES.items():
        path = ROOT / GENERATED / name
        text = render(folder, kind)
        if path.is_file() and path.read_text() == text:
            continue
        if check:
            stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"out of date in {GENERATED}: {', '.join(stale)}; "
              "run python -m rodinia_bfs.bench.includes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
