"""
Chapter 0: graphs and the CPU reference
=======================================

What you will learn:

* how a graph is held in CSR form (32-bit vertex ids, 64-bit edge offsets), and that a
  graph file holds exactly those arrays: write it, read it back, get the same edges;
* the two CPU reference BFS implementations, the serial queue BFS and the
  level-synchronous frontier BFS, and that they agree vertex by vertex;
* how a BFS result is validated: levels compared exactly, the parent tree checked
  with Graph500's five rules;
* Rodinia's result file, ``i) cost:c`` per vertex.

Two graphs: a small Rodinia-style random graph (few, wide levels) and a 2-D grid
(many, narrow levels). This chapter needs no device; ``--backend`` is accepted so that
every example takes the same options.

Run::

    python examples/00_graphs_and_reference.py [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of a result before it is checked,
to show what a failure looks like.
"""

# [example-begin]
import tempfile
from pathlib import Path

import numpy as np

from rodinia_bfs import examples_support as example
from rodinia_bfs.errors import ValidationError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.formats import load_graph, load_rodinia, save_graph
from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen
from rodinia_bfs.reference import bfs_frontier, bfs_serial
from rodinia_bfs.resultfile import read_result_file, write_result_file
from rodinia_bfs.validate import check_levels, check_parents, report


def sorted_edges(graph: CSRGraph) -> np.ndarray:
    """The edges as (source, target) rows in sorted order: equal for equal edge sets,
    whatever order a file listed them in."""
    sources, targets = graph.edges()
    pairs = np.stack([sources, targets], axis=1).astype(np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def round_trip(graph: CSRGraph, folder: Path, source: int) -> list[str]:
    """Write ``graph`` as Rodinia text and as MatrixMarket, read both back, compare the edges."""
    problems = []
    rodinia_file = folder / f"{graph.name}.txt"
    save_graph(graph, rodinia_file, source=source)
    back, file_source = load_rodinia(rodinia_file)
    print(f"  wrote and read {rodinia_file.name}: {back.num_edges:,} arcs, source {file_source}")
    if file_source != source:
        problems.append(f"{rodinia_file.name}: source {file_source}, expected {source}")
    if not np.array_equal(sorted_edges(back), sorted_edges(graph)):
        problems.append(f"{rodinia_file.name}: the edges read back differ")

    matrix_file = folder / f"{graph.name}.mtx"
    save_graph(graph, matrix_file)
    back = load_graph(matrix_file)
    kind = "undirected" if not back.directed else "directed"
    print(f"  wrote and read {matrix_file.name}: {back.num_edges:,} arcs ({kind})")
    if not np.array_equal(sorted_edges(back), sorted_edges(graph)):
        problems.append(f"{matrix_file.name}: the edges read back differ")
    return problems


def search_and_check(graph: CSRGraph, source: int, inject_error: bool) -> list[str]:
    """Both reference BFS implementations from ``source``, checked against each other
    and with Graph500's rules. Returns one line per failed check."""
    serial = bfs_serial(graph, source)
    frontier = bfs_frontier(graph, source)
    if inject_error:
        # Pretend the frontier BFS got one vertex wrong: the farthest one, one level too far.
        wrong = int(np.argmax(frontier.levels))
        frontier.levels[wrong] += 1
        print(f"  (injected error: level of vertex {wrong} changed to {frontier.levels[wrong]})")

    reached = int(np.count_nonzero(serial.levels >= 0))
    depth = int(serial.levels.max()) + 1
    print(f"  BFS from {source}: {reached:,} of {graph.num_vertices:,} vertices reached "
          f"in {depth} levels")
    sizes = np.bincount(serial.levels[serial.levels >= 0])
    print(f"  largest level: {sizes.max():,} vertices (level {int(np.argmax(sizes))})")

    checks = [
        ("frontier levels == serial levels",
         lambda: check_levels(frontier.levels, serial.levels)),
        ("serial parents pass Graph500's rules",
         lambda: check_parents(graph, source, serial.levels, serial.parents)),
        ("frontier parents pass Graph500's rules",
         lambda: check_parents(graph, source, frontier.levels, frontier.parents)),
    ]
    problems = []
    for what, check in checks:
        try:
            check()
            print(f"  ok: {what}")
        except ValidationError as exc:
            print(f"  FAILED: {what}")
            problems.append(f"{graph.name}: {exc}")
    return problems


def main() -> int:
    parser = example.parser(__doc__,
                            backend_help="accepted for uniformity; chapter 0 runs on the host only")
    args = parser.parse_args()

    # The graphs, each with a source other than 0: Rodinia-style random (4,099
    # vertices, not a multiple of any block size) and a 60 x 45 grid from its last corner.
    graphs = [
        (rodinia_graphgen(4099, seed=1), 17),
        (grid2d(60, 45), 60 * 45 - 1),
    ]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i, (graph, source) in enumerate(graphs):
            print(f"{graph!r}")
            problems += round_trip(graph, folder, source)
            problems += search_and_check(graph, source, inject_error=args.inject_error and i == 0)

        # Rodinia's result file for the last search, read back line by line.
        graph, source = graphs[-1]
        levels = bfs_serial(graph, source).levels
        result_file = folder / "result.txt"
        write_result_file(result_file, levels)
        lines = result_file.read_text().splitlines()[1:]  # after the numbering line
        print(f"result file: {len(lines):,} lines, e.g. {lines[source]!r} (the source), "
              f"{lines[0]!r}")
        try:
            check_levels(read_result_file(result_file), levels, what="result file")
        except ValidationError as exc:
            problems.append(str(exc))

    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
