"""A before/after table from two bench runs of the same graphs and sources (``bench
--json``), made one after the other on one machine: each median with the min-max over
the sources, and whether the medians lie outside each other's range (only then is a
change called one).

    python benchmarks/before_after.py before.json after.json -o table.md
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def figures(path: Path) -> tuple[dict, dict]:
    data = json.loads(Path(path).read_text())
    found = {}
    for graph in data["graphs"]:
        for variant, result in graph["variants"].items():
            if variant != "reference" and "median_ms" in result:
                found[graph["name"], variant] = result
    return data["meta"], found


def verdict(before: dict, after: dict) -> str:
    if after["median_ms"] > before["max_ms"] and before["median_ms"] < after["min_ms"]:
        return "slower"
    if after["median_ms"] < before["min_ms"] and before["median_ms"] > after["max_ms"]:
        return "faster"
    return "no"


def table(before_path: Path, after_path: Path) -> str:
    meta, before = figures(before_path)
    _, after = figures(after_path)
    device = meta.get("device", "the GPU")
    lines = [f"Search time of one BFS, median (min-max) over the same sources, ms; {device}, "
             "one session, before then after. A change is called one only where the medians "
             "lie outside each other's range.", "",
             "| graph | step | before | after | outside the range? |",
             "|---|---|---:|---:|:---:|"]
    for key in before:
        if key in after:
            b, a = before[key], after[key]
            lines.append(f"| {key[0]} | {key[1]} | {b['median_ms']:.3f} ({b['min_ms']:.3f}-"
                         f"{b['max_ms']:.3f}) | {a['median_ms']:.3f} ({a['min_ms']:.3f}-"
                         f"{a['max_ms']:.3f}) | {verdict(b, a)} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("-o", "--out", type=Path)
    args = parser.parse_args(argv)
    text = table(args.before, args.after)
    if args.out:
        args.out.write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
