"""
Chapter 7: adaptive BFS, the kernel chosen per level
====================================================

What you will learn:

* the idea first, with the basic version (``adaptive_basic``): after each level the host
  reads back the next frontier's profile and chooses, for that level alone, step 6's
  basic push or pull kernel and a block size that spreads its work over the device;
* that one search can use several kernels: step 5's single block while the frontier is
  small, step 6's cooperative kernel (top-down or bottom-up by Beamer's rule) while it
  is large, and the single block again for a long tail;
* what that choice looks like level by level on three graph classes: a Kronecker graph
  (a few wide levels), a grid (a mesh: many levels, a wide middle), and a road-like
  graph (a long, thin grid: every level small);
* that the choice is made on the device, from counts it has already: the host reads one
  record per batch of launches, never one per level;
* that the choice changes the work, never the answer: every result is checked against
  the CPU reference.

Run::

    python examples/07_adaptive.py [--backend auto|hip|cuda|cpu] [--inject-error]
                                   [--levels-csv FILE]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like. ``--levels-csv`` writes the per-level
table of the three graphs (the one chapter 7 shows) to a CSV file.
"""

# [example-begin]
import csv

import numpy as np

from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.adaptive_basic import AdaptiveBasicBFS

#: A single block of 64 threads with queues of 32 entries and levels of at most 1,024
#: edges: small enough that the graphs here, small for the emulator, use every kernel.
#: The hand-over by capacity alone, so that what each level ran depends on the frontier
#: only: the step's default also times the levels (the measured hand-over), and what it
#: chooses then depends on the device the example runs on.
OPTIONS = dict(sb_block_size=64, block_size=128, sb_capacity=32, sb_edge_limit=1024,
               handover="capacity")


def basic_runs(choices) -> str:
    """``push/256 x2, pull/256 x3``: the kernel and block size of each level."""
    runs = []
    for kernel, block in choices:
        if runs and runs[-1][0] == (kernel, block):
            runs[-1][1] += 1
        else:
            runs.append([(kernel, block), 1])
    return ", ".join(f"{kernel}/{block} x{count}" for (kernel, block), count in runs)


def main() -> int:
    parser = example.parser(__doc__)
    parser.add_argument("--levels-csv", metavar="FILE",
                        help="write the per-level table of the three graphs to FILE")
    args = parser.parse_args()

    device = example.open_device(args.backend)
    # Step 5's tunables (the single block, and step 4's queues) and step 6's (ALPHA,
    # BETA, BU_PROBE, BU_WARP_THRESHOLD, FORCE_DIRECTION).
    print(f"options: {OPTIONS}")

    graphs = [(kronecker(12, seed=1, progress=False), None), (grid2d(64, 64), 0),
              (grid2d(8, 1000), 0)]
    problems, table = [], []
    for graph, source in graphs:
        if source is None:  # a Kronecker source of small degree
            source = int(np.flatnonzero(graph.degrees() == 2)[0])
        print(f"\ngraph: {graph!r}, source {source}")
        reference = bfs_reference(graph, source)
        # The idea first: the basic version, the kernel and block size of each level
        # chosen on the host from its profile (n_f, m_f, m_u).
        with AdaptiveBasicBFS(device, graph) as basic:
            basic_result = basic.run(source)
            print(f"  adaptive_basic: {basic_result.iterations} levels: "
                  f"{basic_runs(basic.last_choices)}")
        example.check_result(problems, f"{graph.name} (basic)", graph, source, basic_result,
                             reference, ok=f"(basic) {example.LEVELS_AND_TREE_OK}")
        with AdaptiveBFS(device, graph, **OPTIONS) as step:
            result = step.run(source)
            choices, sizes, waits = step.last_choices, step.last_frontiers, step.last_host_waits
        # The choice per level, as runs of levels that chose alike: [kernel, first, last].
        runs = []
        for level, choice in enumerate(choices):
            if runs and runs[-1][0] == choice:
                runs[-1][2] = level
            else:
                runs.append([choice, level, level])
        print(f"  {result.iterations} levels, host waits {waits}:")
        for choice, first, last in runs:
            row = {"graph": graph.name, "levels": f"{first}-{last}", "kernel": choice,
                   "frontier": f"{min(sizes[first:last + 1]):,}-{max(sizes[first:last + 1]):,}"}
            table.append(row)
            print(f"    levels {row['levels']:>9}: {choice:<6} (frontier {row['frontier']})")

        if args.inject_error and not problems:
            example.inject_level_error(result.levels)
        example.check_result(problems, graph.name, graph, source, result, reference)

    if args.levels_csv:
        with open(args.levels_csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(table[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(table)
        print(f"\n(table written to {args.levels_csv})")
    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
# [example-end]
