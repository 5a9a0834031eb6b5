"""
Chapter 4: load-balanced expansion
==================================

What you will learn:

* how step 4 sorts the frontier into three queues by degree: lists shorter than a warp
  go to a thread, lists shorter than a block to a warp, longer lists to whole blocks,
  cut into pieces so that one hub is expanded by many blocks at once;
* that the thresholds follow the device's warp size (32 on NVIDIA and RDNA, 64 on AMD
  Instinct), so the same vertex can be small on one GPU and medium on another;
* what the degree skew of a Kronecker graph and of a grid with hubs looks like, level
  by level, in those three queues;
* how the kernel's own counters (``count_paths``) confirm that every path ran and
  expanded exactly the vertices the host predicts.

Two graphs: a Graph500 Kronecker graph of scale 14, whose biggest hub has over ten
thousand edges, and a 256 x 256 grid with hubs of a hundred times the average degree,
each searched from a source other than 0.

Run::

    python examples/04_load_balanced.py [--backend auto|hip|cuda|cpu] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like.
"""

# [example-begin]
import numpy as np

from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import grid_with_hubs, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.balanced import QUEUES, BalancedBFS


def queue_table(step, graph, levels):
    """Per level of the reference BFS: how many frontier vertices each queue holds, the
    large queue's pieces, and the edges each queue expands (the kernel's rule, applied
    on the host to the degrees)."""
    degrees = graph.degrees()
    queue = np.array([step.queue_of(int(d)) for d in degrees])
    rows = []
    for level in range(int(levels.max()) + 1):
        frontier = levels == level
        row = {"level": level, "frontier": int(frontier.sum())}
        for name in QUEUES:
            mine = frontier & (queue == name)
            row[name] = int(mine.sum())
            row[f"{name} edges"] = int(degrees[mine].sum())
        row["pieces"] = int(step.pieces(degrees[frontier]).sum())
        rows.append(row)
    return rows


def main() -> int:
    parser = example.parser(__doc__)
    args = parser.parse_args()

    device = example.open_device(args.backend)
    # The tunables for this device's warp width: BLOCK_SIZE, WARP_THRESHOLD (= the warp
    # size), BLOCK_THRESHOLD (= the block size), BLOCK_PIECE, the local queues.
    print(f"tunables: {BalancedBFS.default_defines(device.warp_size)}")

    graphs = [
        (kronecker(14, seed=1, progress=False), 1000),  # skewed degrees, a few hubs
        (grid_with_hubs(256, 256, seed=1), 300),  # degree 2 to 4, and 66 hubs
    ]
    problems = []
    for graph, source in graphs:
        degrees = graph.degrees()
        print(f"\ngraph: {graph!r}, source {source}")
        print(f"  degrees: median {int(np.median(degrees))}, mean {degrees.mean():.1f}, "
              f"max {int(degrees.max()):,}")
        reference = bfs_reference(graph, source)

        # Set up (compile with the -D tunables, upload, allocate), then one BFS. With
        # count_paths the kernel also counts what each of its three paths expanded.
        with BalancedBFS(device, graph, count_paths=True) as step:
            result = step.run(source)
            counted = step.last_path_counts
            table = queue_table(step, graph, reference.levels)
        print(f"  {result.iterations} levels; frontier vertices per queue, and their edges:")
        print(f"    {'level':>5} {'frontier':>9} {'thread':>7} {'warp':>6} {'block':>6} "
              f"{'pieces':>7} {'thread edges':>13} {'warp edges':>11} {'block edges':>12}")
        for row in table:
            print(f"    {row['level']:>5} {row['frontier']:>9,} {row['small']:>7,} "
                  f"{row['medium']:>6,} {row['large']:>6,} {row['pieces']:>7,} "
                  f"{row['small edges']:>13,} {row['medium edges']:>11,} "
                  f"{row['large edges']:>12,}")
        # What the table predicts each path expands, against what the kernel counted.
        predicted = {
            name: {"entries": sum(r["pieces" if name == "large" else name] for r in table),
                   "edges": sum(r[f"{name} edges"] for r in table)}
            for name in QUEUES
        }
        for name, unit in zip(QUEUES, ("thread", "warp", "block")):
            print(f"  kernel, {unit} path: {counted[name]['entries']:,} queue entries, "
                  f"{counted[name]['edges']:,} edges")

        if args.inject_error and not problems:
            example.inject_level_error(result.levels)

        # Levels must equal the reference's; parents only have to form a valid BFS tree,
        # since which frontier vertex wins a claim depends on thread timing.
        example.check_result(problems, graph.name, graph, source, result, reference)
        if counted != predicted:
            problems.append(f"{graph.name}: the kernel's path counts {counted} are not the "
                            f"predicted {predicted}")
        else:
            print("  ok: each path expanded exactly the predicted entries and edges")

    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
