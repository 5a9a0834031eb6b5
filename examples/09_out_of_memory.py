"""
Chapter 9: a graph whose edges stay in host memory
==================================================

What you will learn:

* how a BFS runs when only the vertex arrays fit on the GPU: the edge array stays in
  host memory, and each level reaches it one of three ways;
* ``subgraph``: the device scans the frontier's degrees, the host gathers just those
  edges and copies them over; only the edges a level needs cross the bus;
* ``zero_copy``: the kernel reads pinned host memory in place through a mapped
  pointer, a warp per frontier vertex;
* ``managed``: unified memory that the driver migrates on demand, the same kernel;
* that in the last two a wide level pulls (Beamer's rule, as step 6): each vertex not
  reached yet reads its in-list only up to its first in-neighbour on the frontier;
* how many bytes each level moves, against the size of the edge array;
* that the three give the same answer: every result is checked against the CPU
  reference.

Run::

    python examples/09_out_of_memory.py [--backend auto|hip|cuda|cpu] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like.
"""

# [example-begin]
import numpy as np

from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.out_of_memory import MODES, OutOfMemoryBFS


def main() -> int:
    parser = example.parser(__doc__)
    args = parser.parse_args()
    device = example.open_device(args.backend)

    graph = kronecker(12, seed=1, progress=False)
    source = int(np.argmax(graph.degrees()))
    reference = bfs_reference(graph, source)
    edge_bytes = 4 * graph.num_edges
    print(f"graph: {graph!r}, source {source}; the edge array is {edge_bytes:,} bytes")
    problems = []
    for mode in MODES:
        # Chunks of 4,096 edges: a wide level of the subgraph mode takes several copies.
        with OutOfMemoryBFS(device, graph, host_edges=mode, chunk_edges=4096) as step:
            result = step.run(source)
            records = step.last_records
        moved = sum(r.bytes_htod for r in records)
        print(f"\n{mode}: {result.iterations} levels, {moved:,} bytes host -> device "
              f"({100 * moved / edge_bytes:.0f} % of the edge array)")
        for level, r in enumerate(records):
            print(f"  level {level} ({r.direction}): frontier {r.frontier:>5,}, "
                  f"edges read {r.edges:>7,}, {r.bytes_htod:>8,} bytes over")
        if args.inject_error and not problems:
            example.inject_level_error(result.levels)
        example.check_result(problems, mode, graph, source, result, reference)
    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
# [example-end]
