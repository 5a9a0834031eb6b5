"""How far one rung is behind the fastest rung on each graph, from ``benchmarks/ladder.py``
runs (their ``results.json``): the default step against the others, timed in turns.

    python benchmarks/fastest_rung.py adaptive RUN/results.json [RUN2/results.json ...] \\
        -o table.md

One row per graph: the fastest rung by median with the spread of its repeat medians
(``--among`` names the rungs that count, where a run timed others beside the steps),
the chosen rung likewise, how far behind it is (its median over the fastest's, less 1),
and whether the two spreads lie apart (only then is the gap more than the run's noise).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def rows(rung: str, paths: list[Path], among: list[str] | None = None) -> list[dict]:
    """One row per graph of every run, in the order given; the fastest of ``among`` (of
    every rung without it)."""
    found = []
    for path in paths:
        for graph in json.loads(path.read_text())["graphs"]:
            rungs = {row["label"]: row for row in graph["rungs"]
                     if among is None or row["label"] in among or row["label"] == rung}
            missing = [label for label in among or [] if label not in rungs]
            if missing:
                raise SystemExit(f"{path}: {graph['name']} has no rung {missing[0]!r}")
            if rung not in rungs:
                raise SystemExit(f"{path}: {graph['name']} has no rung {rung!r} "
                                 f"(it has {', '.join(rungs)})")
            fastest = min(rungs.values(), key=lambda row: row["median_ms"])
            mine = rungs[rung]
            low, high = mine["spread_ms"]
            apart = high < fastest["spread_ms"][0] or low > fastest["spread_ms"][1]
            found.append({"graph": graph["name"], "fastest": fastest, "rung": mine,
                          "behind": mine["median_ms"] / fastest["median_ms"] - 1.0,
                          "apart": apart, "run": path.parent.name})
    return found


def markdown(rung: str, found: list[dict]) -> str:
    lines = [f"How far `{rung}` is behind the fastest rung of each graph, timed in turns.", "",
             "Medians and the spread of the repeat medians, ms; apart: the two spreads do not "
             "overlap", "",
             f"| graph | fastest | median | spread | {rung} | spread | behind | apart | run |",
             "|---|---|---:|---:|---:|---:|---:|:---:|---|"]
    for row in found:
        fast, mine = row["fastest"], row["rung"]
        lines.append(
            f"| {row['graph']} | {fast['label']} | {fast['median_ms']:.4f} "
            f"| {fast['spread_ms'][0]:.4f}-{fast['spread_ms'][1]:.4f} | {mine['median_ms']:.4f} "
            f"| {mine['spread_ms'][0]:.4f}-{mine['spread_ms'][1]:.4f} "
            f"| {100 * row['behind']:.1f} % | {'yes' if row['apart'] else 'no'} | {row['run']} |")
    runs = list(dict.fromkeys(row["run"] for row in found))  # in order, once each
    worst = [max((row for row in found if row["run"] == run), key=lambda row: row["behind"])
             for run in runs]
    lines += ["", "Furthest behind, by run: " + "; ".join(
        f"{row['run']}: {row['graph']}, {100 * row['behind']:.1f} %" for row in worst) + "."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rung", help="the rung's label in the runs (a step's name)")
    parser.add_argument("runs", nargs="+", type=Path, help="ladder.py results.json files")
    parser.add_argument("--among", help="comma-separated labels of the rungs that count "
                        "(default: every rung of a run)")
    parser.add_argument("-o", "--out", type=Path, help="markdown file (default: print)")
    args = parser.parse_args(argv)
    among = [label.strip() for label in args.among.split(",")] if args.among else None
    text = markdown(args.rung, rows(args.rung, args.runs, among))
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
