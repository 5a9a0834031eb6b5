"""What getting a result out costs, per variant and graph, from bench runs (``bench --out``
or ``--json``): the median over the sources of each wall time minus the search inside
the same call (``wall_overhead_ms``), beside the bound it is held to, the pinned copy of
the result plus 0.1 ms. Where the run timed that copy again after each call
(``wall_copy_times_ms``: the same bytes from the step's arrays into the same pinned
buffers), the bound is each call's own copy: the median of wall - search - copy
(``wall_beyond_copy_ms``) must be at most 0.1 ms; for older runs, the graph's
``result_copy_ms`` (one such copy, timed once per graph) + 0.1 ms.

    python benchmarks/wall_overhead.py benchmarks/results/RUN [RUN ...] -o table.md
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

#: What a call may cost beyond copying its result (Python, the launch of the copies).
SLACK_MS = 0.1


def load(path: Path) -> dict:
    path = Path(path)
    return json.loads((path / "results.json" if path.is_dir() else path).read_text())


def rows(results: dict) -> list[tuple[str, str, float, float, bool]]:
    """(graph, variant, wall - search, bound, within) for every timed variant; the bound
    is the median own copy + 0.1 ms where the run timed it, else result_copy_ms + 0.1 ms."""
    found = []
    for graph in results["graphs"]:
        floor = graph.get("result_copy_ms")
        for variant, measured in graph["variants"].items():
            overhead = measured.get("wall_overhead_ms")
            if overhead is None:
                continue
            beyond = measured.get("wall_beyond_copy_ms")
            if beyond is not None:
                copy = float(np.median(measured["wall_copy_times_ms"]))
                found.append((graph["name"], variant, overhead, copy + SLACK_MS,
                              beyond <= SLACK_MS))
            elif floor is not None:
                found.append((graph["name"], variant, overhead, floor + SLACK_MS,
                              overhead <= floor + SLACK_MS))
    return found


def table(paths: list[Path]) -> str:
    lines = []
    for path in paths:
        results = load(path)
        meta = results["meta"]
        found = rows(results)
        within = sum(ok for *_, ok in found)
        lines += [f"## {Path(path).name}", "",
                  f"{meta.get('device', '?')}, {meta.get('date', '?')}: {within} of {len(found)} "
                  f"(variant, graph) within the bound.", "",
                  "| graph | variant | wall - search ms | copy + 0.1 ms | within |",
                  "|---|---|---:|---:|---|"]
        lines += [f"| {g} | {v} | {o:.3f} | {b:.3f} | {'yes' if ok else '**no**'} |"
                  for g, v, o, b, ok in found]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="bench result folders or JSON files")
    parser.add_argument("-o", "--out", type=Path, help="write the table here too")
    args = parser.parse_args(argv)
    text = table(args.runs)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
