"""
Chapter 6: direction-optimizing BFS (push and pull)
===================================================

What you will learn:

* the idea first, with the basic version (``push_pull_basic``): one launch per level, a
  push kernel over a queue or a pull kernel over a bitmap, the direction chosen on the
  host by Beamer's rule from the counts each level reads back;
* BFS as a sparse matrix-vector product over the Boolean semiring (scipy): push is the
  product taken column by column, pull row by row;
* how Beamer's rule picks, before each level, between top-down (each frontier vertex
  pushes to its out-edges) and bottom-up (each unvisited vertex pulls a parent from its
  in-edges), from four counts the kernel sums on the device: n_f, m_f, n and m_u;
* what that choice looks like level by level on a Kronecker graph: top-down while the
  frontier is small, bottom-up through the wide middle levels, top-down for the tail;
  and on a grid, where every level stays top-down;
* that a directed graph is searched bottom-up through its reverse, a symmetric one
  through itself, and that vertices without in-edges (the many isolated vertices of a
  Kronecker graph) are never looked at by a bottom-up sweep;
* that forcing one direction for every level gives the same levels: the rule changes
  the work, never the answer.

Three graphs: a Graph500 Kronecker graph of scale 14, a 128 x 128 grid, and a directed
graph (the Kronecker graph's edges, each kept one way only), each searched from a
source other than 0: by the basic version, by sparse matrix-vector products, and by the
tuned kernel with Beamer's rule and with each direction forced.

Run::

    python examples/06_push_pull.py [--backend auto|hip|cuda|cpu] [--inject-error]
                                    [--levels-csv FILE]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like. ``--levels-csv`` writes the Kronecker
graph's per-level table (the one chapter 6 shows) to a CSV file.
"""

# [example-begin]
import csv

import numpy as np
import scipy.sparse

from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.push_pull import ALPHA, BETA, PushPullBFS, rule_table
from rodinia_bfs.variants.push_pull_basic import PushPullBasicBFS


# [spmv-bfs-begin]
def spmv_bfs(graph: CSRGraph, source: int, direction: str = "pull") -> np.ndarray:
    """Levels by sparse matrix-vector products over the Boolean semiring (OR, AND):
    the next frontier is A^T x masked by the unvisited vertices."""
    a = graph.to_scipy(dtype=bool)  # a[u, v]: an arc u -> v; bool sums are ORs
    a_t = a.T.tocsr()  # row v of A^T: the in-neighbours of v
    levels = np.full(graph.num_vertices, -1, np.int32)
    x = np.zeros(graph.num_vertices, bool)
    x[source] = True  # the frontier, a Boolean vector
    level = 0
    while x.any():
        levels[x] = level
        if direction == "push":  # column by column: only the frontier's columns of A^T
            y = (scipy.sparse.csr_matrix(x) @ a).toarray().ravel()
        else:  # row by row: each row of A^T dotted with x
            y = a_t @ x
        x = y & (levels < 0)  # the mask: only vertices not reached yet
        level += 1
    return levels
# [spmv-bfs-end]


def one_way(graph: CSRGraph) -> CSRGraph:
    """The directed graph that keeps each edge u - v of `graph` as the arc u -> v, u < v."""
    sources, targets = graph.edges()
    keep = sources < targets
    return CSRGraph.from_edges(sources[keep], targets[keep], graph.num_vertices,
                               name=f"{graph.name}-one-way")


def runs_of(directions: list[str]) -> str:
    """``push x2, pull x3, push x1``: the directions of a search, level by level."""
    runs = []
    for d in directions:
        if runs and runs[-1][0] == d:
            runs[-1][1] += 1
        else:
            runs.append([d, 1])
    return ", ".join(f"{d} x{count}" for d, count in runs)


def level_table(graph, source, levels, directions, wide):
    """Per level: Beamer's counts (from the reference levels and the degrees), the
    thresholds they are compared with, and the direction the kernel took (``wide``: the
    edges a pulled frontier must have more than, the step's pull_edges)."""
    return [{"level": row["level"], "n_f": row["n_f"], "m_f": row["m_f"], "m_u": row["m_u"],
             "m_u / alpha": row["m_u"] // ALPHA, "n / beta": graph.num_vertices // BETA,
             "rule": row["direction"], "taken": taken}
            for row, taken in zip(rule_table(graph, source, levels, wide=wide), directions)]


def main() -> int:
    parser = example.parser(__doc__)
    parser.add_argument("--levels-csv", metavar="FILE",
                        help="write the Kronecker graph's per-level table to FILE")
    args = parser.parse_args()

    device = example.open_device(args.backend)
    # Step 4's tunables, and this step's: ALPHA, BETA, BU_PROBE, BU_WARP_THRESHOLD,
    # FORCE_DIRECTION (0: Beamer's rule).
    print(f"tunables: {PushPullBFS.default_defines(device.warp_size)}")

    graph = kronecker(14, seed=1, progress=False)
    low = int(np.flatnonzero(graph.degrees() == 2)[0])  # a source of small degree
    graphs = [(graph, low), (grid2d(128, 128), 300), (one_way(graph), low)]
    problems = []
    for graph, source in graphs:
        print(f"\ngraph: {graph!r}, source {source}")
        reference = bfs_reference(graph, source)

        # The idea first: the basic version, one launch per level, the direction chosen on
        # the host by Beamer's rule (the paper's alpha and beta) from each level's counts.
        with PushPullBasicBFS(device, graph) as basic:
            basic_result = basic.run(source)
            print(f"  push_pull_basic: {basic_result.iterations} levels: "
                  f"{runs_of(basic.last_directions)}")
        example.check_result(problems, f"{graph.name} (basic)", graph, source, basic_result,
                             reference, ok=f"(basic) {example.LEVELS_AND_TREE_OK}")
        # The same search as sparse matrix-vector products, pushed and pulled.
        wrong = [way for way in ("push", "pull")
                 if not np.array_equal(spmv_bfs(graph, source, way), reference.levels)]
        if wrong:
            problems.append(f"{graph.name}: the SpMV levels ({', '.join(wrong)}) differ from "
                            "the CPU reference")
        else:
            print("  ok: SpMV levels (push and pull) == CPU reference")

        # Set up once per graph: the in-edges (the graph itself if it is symmetric, else
        # its reverse) and the list of vertices a bottom-up sweep visits. Then one BFS
        # with Beamer's rule; count_paths makes the kernel count its sweeps too.
        with PushPullBFS(device, graph, count_paths=True) as step:
            print(f"  symmetric: {step.symmetric}; vertices with in-edges: "
                  f"{step.active_count:,} of {graph.num_vertices:,}")
            result = step.run(source)
            directions, swept = step.last_directions, step.last_sweep_counts
            wide = step.pull_edges
        rows = level_table(graph, source, reference.levels, directions, wide)
        print(f"  {result.iterations} levels:")
        print(f"    {'level':>5} {'n_f':>7} {'m_f':>8} {'m_u':>8} {'m_u/alpha':>9} "
              f"{'n/beta':>7} {'rule':>5} {'taken':>5}")
        for i, row in enumerate(rows):
            if len(rows) > 12 and i == 5:
                print(f"    {'...':>5} ({len(rows) - 8} more levels)")
            if len(rows) > 12 and 5 <= i < len(rows) - 3:
                continue  # a long search: its first and last levels tell the story
            print(f"    {row['level']:>5} {row['n_f']:>7,} {row['m_f']:>8,} {row['m_u']:>8,} "
                  f"{row['m_u / alpha']:>9,} {row['n / beta']:>7,} {row['rule']:>5} "
                  f"{row['taken']:>5}")
        pulls = directions.count("pull")
        print(f"  bottom-up sweeps: {pulls} levels, {swept['looked_at']:,} vertices looked at "
              f"({pulls} x {step.active_count:,}), {swept['found']:,} found")
        if args.levels_csv and graph is graphs[0][0]:
            with open(args.levels_csv, "w", newline="") as out:
                writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
                writer.writeheader()
                writer.writerows(rows)
            print(f"  (table written to {args.levels_csv})")

        results = {"auto": result}
        for forced in ("push", "pull"):
            with PushPullBFS(device, graph, direction=forced) as step:
                results[forced] = step.run(source)

        if args.inject_error and not problems:
            example.inject_level_error(result.levels)

        # Levels must equal the reference's; parents only have to form a valid BFS tree
        # (a bottom-up parent is any frontier in-neighbour). The device's direction must
        # be the rule's, and the rule must not change the answer.
        for mode, run in results.items():
            example.check_result(problems, f"{graph.name} ({mode})", graph, source, run,
                                 reference, ok=f"({mode}) {example.LEVELS_AND_TREE_OK}")
        if directions != [row["rule"] for row in rows]:
            problems.append(f"{graph.name}: the kernel's directions {directions} are not the "
                            "rule's")

    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
