"""
Chapter 2: the frontier queue
=============================

What you will learn:

* how the queue step launches one thread per frontier vertex instead of one per graph
  vertex, and how the size of each launch comes from the device: the counter that
  ``atomicAdd`` incremented, copied back through pinned memory;
* that ``atomicCAS`` lets exactly one thread claim each vertex, so every reached vertex
  enters the queue exactly once: the queue sizes the host saw add up, level by level,
  to the vertices of each level;
* how a parent array (who claimed each vertex) is checked with Graph500's five rules,
  since a BFS tree is not unique.

Two graphs: the Rodinia-style graph of chapter 1 (65,536 vertices) and a Graph500
Kronecker graph of scale 14, whose frontier jumps from a handful of vertices to most
of the graph in two levels. Both searches start from a vertex other than 0.

Run::

    python examples/02_frontier_queue.py [--backend auto|hip|cuda|cpu] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one parent of the first result before it
is checked, to show what a failure looks like.
"""

# [example-begin]
import numpy as np

from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import kronecker, rodinia_graphgen
from rodinia_bfs.runtime.base import ceil_div
from rodinia_bfs.validate import report
from rodinia_bfs.variants.queue import QueueBFS


def search(device, graph, source: int, inject_error: bool) -> list[str]:
    """One BFS with the queue step; returns what failed validation (nothing if all passed)."""
    print(f"graph: {graph!r}, source {source}")
    with QueueBFS(device, graph) as step:
        result = step.run(source)
        # The grid of each launch, as the host loop computed it from the counter.
        grids = [min(ceil_div(size, step.block_size), step.max_blocks)
                 for size in result.frontier_sizes]
    levels, parents = result.levels, result.parents
    reached = levels >= 0
    print(f"queue: {result.iterations} iterations of the host loop, "
          f"{np.count_nonzero(reached):,} vertices reached")
    # The counter of each level, as the host read it: it sized the next launch.
    print(f"  frontier size per level: {result.frontier_sizes}")
    print(f"  blocks per launch: {grids}")

    if inject_error:
        # A vertex that is its own parent is a cycle in the tree: Graph500's rule 1.
        child = int(np.flatnonzero(levels == 2)[0])
        parents[child] = child
        print(f"  (injected error: vertex {child} made its own parent)")

    # Levels exactly as the CPU reference has them; parents by Graph500's five rules.
    problems = []
    example.check_result(problems, "", graph, source, result,
                         ok="levels == CPU reference levels, parents pass Graph500's five rules")
    # Each reached vertex was enqueued exactly once, in the queue of its own level.
    per_level = np.bincount(levels[reached]).tolist()
    if result.frontier_sizes == per_level:
        print("  ok: queue sizes == vertices per level (no vertex enqueued twice)")
    else:
        problems.append(f"queue sizes {result.frontier_sizes} != vertices per level {per_level}")
    return problems


def main() -> int:
    parser = example.parser(__doc__, injects="one parent")
    args = parser.parse_args()

    device = example.open_device(args.backend)

    problems = search(device, rodinia_graphgen(65536, seed=0), 4242, args.inject_error)
    problems += search(device, kronecker(14, seed=0, progress=False), 100, False)

    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
