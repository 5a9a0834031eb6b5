"""Checking a BFS result: exact levels, and Graph500's five rules for the parent tree.

Levels have one right answer, so they are compared with the CPU reference value by
value. Parents do not: a vertex reached by two frontier vertices may take either as
its parent, and a GPU picks whichever thread wins. So a parent array is checked the
way Graph500 checks it, by the properties every BFS tree has:

1. the parents form a tree rooted at the source: no cycle;
2. each tree edge joins vertices whose levels differ by exactly one;
3. every edge of the graph joins levels that differ by at most one, or has neither
   end reached (for a directed graph: an edge out of a reached vertex leads to a
   reached vertex at most one level further);
4. the tree spans exactly the reached vertices;
5. each tree edge ``parents[v] -> v`` is an edge of the graph.

Every failure raises :class:`~rodinia_bfs.errors.ValidationError` with one line that
names the rule and an offending vertex. The checks are vectorised: a scale-20
Kronecker graph (33 million stored edges) is checked in well under a second.
"""

from __future__ import annotations

import os

import numpy as np

from rodinia_bfs.errors import ValidationError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.reference import BFSResult, bfs_reference, check_depth_limit, start_vertices

#: Graph500's rules, as the error messages name them.
RULES = {
    1: "the parent tree has no cycle",
    2: "tree edges join levels that differ by exactly 1",
    3: "every edge out of a reached vertex leads to a reached vertex at most 1 level further",
    4: "the tree spans exactly the reached vertices",
    5: "every tree edge is an edge of the graph",
}

#: Vertices listed in a mismatch message.
EXAMPLES = 5

#: Rules 3 and 5 walk the edges in pieces of about this many: the temporary arrays
#: then stay in the cache, and the memory used stays small on the largest graphs.
EDGES_PER_PIECE = 1 << 18


def _rule_failure(rule: int, example: str, count: int = 1, what: str = "vertices"):
    """The one-line error for ``rule``: the first example, and how many more fail."""
    more = f" (and {count - 1} more {what})" if count > 1 else ""
    return ValidationError(f"Graph500 rule {rule} ({RULES[rule]}) fails: {example}{more}")


def check_levels(levels, expected, *, what: str = "levels") -> None:
    """Raise :class:`ValidationError` unless ``levels`` equals ``expected`` exactly."""
    levels, expected = np.asarray(levels), np.asarray(expected)
    if levels.shape != expected.shape:
        raise ValidationError(f"{what}: got {levels.size} values, expected {expected.size}")
    wrong = np.flatnonzero(levels != expected)
    if wrong.size:
        shown = ", ".join(
            f"vertex {v} got {levels[v]} expected {expected[v]}" for v in wrong[:EXAMPLES]
        )
        more = ", ..." if wrong.size > EXAMPLES else ""
        raise ValidationError(
            f"{what}: {wrong.size} of {expected.size} vertices differ ({shown}{more})"
        )


def _vertex_array(values, n: int, what: str) -> np.ndarray:
    """``values`` as an int32 array of one entry per vertex, each in -1..n-1."""
    values = np.asarray(values)
    if values.shape != (n,):
        raise ValidationError(
            f"{what}: got shape {values.shape}, expected one value per vertex ({n})"
        )
    if values.dtype.kind not in "iu":
        raise ValidationError(f"{what}: got {values.dtype} values, expected integers")
    bad = np.flatnonzero((values < -1) | (values >= n))
    if bad.size:
        v = int(bad[0])
        raise ValidationError(f"{what}: vertex {v} has {values[v]}, outside -1..{n - 1}")
    return values.astype(np.int32, copy=False)


def _tree_roots(parents: np.ndarray) -> np.ndarray:
    """Where each vertex ends up when it follows parent pointers until they stop.

    Pointer jumping: after k rounds ``jump[v]`` is v's ancestor 2**k steps up, so
    log2(n) rounds cover the longest possible chain. A vertex without a parent is its
    own end; a vertex on a cycle (or below one) never reaches a vertex that stops.
    """
    n = parents.size
    jump = np.where(parents >= 0, parents, np.arange(n, dtype=np.int32))
    for _ in range(max(n - 1, 1).bit_length()):
        further = jump[jump]
        if np.array_equal(further, jump):
            break
        jump = further
    return jump


def _piece_bounds(graph: CSRGraph) -> list[tuple[int, int]]:
    """The vertices cut into ranges ``(lo, hi)`` of about :data:`EDGES_PER_PIECE` arcs
    each (a vertex's arcs stay in one range)."""
    offsets = graph.offsets
    cuts = np.searchsorted(offsets, np.arange(EDGES_PER_PIECE, graph.num_edges, EDGES_PER_PIECE))
    bounds = np.unique(np.concatenate([[0], cuts, [graph.num_vertices]]))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def _edge_piece(graph: CSRGraph, lo: int, hi: int):
    """The arcs ``u[i] -> v[i]`` out of the vertices ``lo .. hi - 1``."""
    offsets = graph.offsets
    u = np.repeat(np.arange(lo, hi, dtype=np.int32), np.diff(offsets[lo : hi + 1]))
    return u, graph.targets[offsets[lo] : offsets[hi]]


def _workers(pieces: int) -> int:
    """Threads for the pass over the arcs: NumPy's gathers and compares release the GIL,
    so a large graph's pieces go to one thread per CPU this process may use."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, pieces // 4))


def check_parents(graph: CSRGraph, source: int | None, levels, parents, *, sources=None,
                  depth_limit: int | None = None) -> None:
    """Check a parent array with Graph500's five rules (see the module docstring).

    ``levels`` are the levels the same BFS returned (check them first with
    :func:`check_levels`); ``parents[v]`` is ``v``'s parent, ``-1`` for an
    unreached vertex, and ``parents[source] == source``. A search from several
    ``sources`` (``source`` then None) grows a forest: each of them is a root, its own
    parent at level 0. After a search stopped at ``depth_limit``, rule 3 leaves out
    the edges out of the last level (they were never looked at).
    """
    starts = start_vertices(graph, source, sources)
    depth = check_depth_limit(depth_limit)
    n = graph.num_vertices
    levels = _vertex_array(levels, n, "levels")
    parents = _vertex_array(parents, n, "parents")
    not_zero = starts[levels[starts] != 0]
    if not_zero.size:
        s = int(not_zero[0])
        raise ValidationError(f"levels: the source {s} has level {levels[s]}, not 0")
    reached = levels >= 0
    has_parent = parents >= 0
    others = has_parent.copy()
    others[starts] = False  # the tree edges: parents[v] -> v for v != source
    is_start = np.zeros(n, dtype=bool)
    is_start[starts] = True

    # Rule 1: from every vertex with a parent, the parent pointers lead to the source,
    # and the source is its own parent. Anything else is a cycle or a broken chain.
    not_own = starts[parents[starts] != starts]
    if not_own.size:
        s = int(not_own[0])
        raise _rule_failure(1, f"the source {s} has parent {parents[s]}, not itself")
    roots = _tree_roots(parents)
    lost = np.flatnonzero(has_parent & ~is_start[roots])
    if lost.size:
        v, end = int(lost[0]), int(roots[lost[0]])
        if parents[end] < 0:
            example = f"the parents of vertex {v} lead to vertex {end}, which has no parent"
        else:
            example = f"the parents of vertex {v} go round a cycle (through vertex {end})"
        raise _rule_failure(1, example, lost.size)

    # Rule 4: a vertex has a parent exactly when it was reached.
    mismatch = np.flatnonzero(reached != has_parent)
    if mismatch.size:
        v = int(mismatch[0])
        example = f"vertex {v} has level {levels[v]} but parent {parents[v]}"
        raise _rule_failure(4, example, mismatch.size)

    # Rule 2: each tree edge goes down exactly one level.
    children = np.flatnonzero(others)
    wrong = children[levels[children] != levels[parents[children]] + 1]
    if wrong.size:
        v = int(wrong[0])
        p = int(parents[v])
        example = f"vertex {v} has level {levels[v]}, its parent {p} has level {levels[p]}"
        raise _rule_failure(2, example, wrong.size)

    # Rules 5 and 3 in one pass over the edges. Rule 5: mark each vertex whose
    # parent -> vertex edge is seen. Rule 3: an edge u -> v out of a reached u must
    # reach v, at most one level below u; with an unreached v counted as infinitely
    # far, that is one comparison per edge: reach[v] <= limit[u].
    tree_edge_seen = np.zeros(n, dtype=bool)
    infinity = np.iinfo(np.int32).max
    reach = np.where(reached, levels, infinity)
    expanded = reached if depth is None else reached & (levels < depth)
    limit = np.where(expanded, levels + 1, infinity)  # an unexpanded u constrains nothing
    degrees = graph.degrees()

    def check_piece(bounds):  # -> (edges breaking rule 3, the first of them or None)
        lo, hi = bounds
        u, v = _edge_piece(graph, lo, hi)
        is_tree_edge = parents[v] == u
        tree_edge_seen[v[is_tree_edge]] = True  # only ever set: threads may share it
        bad = reach[v] > np.repeat(limit[lo:hi], degrees[lo:hi])
        count = int(np.count_nonzero(bad))
        i = int(np.argmax(bad)) if count else 0
        return count, (int(u[i]), int(v[i])) if count else None

    pieces = _piece_bounds(graph)
    workers = _workers(len(pieces))
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            checked = list(pool.map(check_piece, pieces))
    else:
        checked = [check_piece(bounds) for bounds in pieces]
    bad_edges = sum(count for count, _ in checked)
    # The first bad edge by its tail, as one pass in vertex order would find it.
    first_bad = next((first for _, first in checked if first is not None), None)
    missing = np.flatnonzero(others & ~tree_edge_seen)
    if missing.size:
        v = int(missing[0])
        example = f"the tree edge {parents[v]} -> {v} is not in the graph"
        raise _rule_failure(5, example, missing.size)
    if first_bad is not None:
        a, b = first_bad
        to = f"level {levels[b]}" if levels[b] >= 0 else "an unreached vertex"
        example = f"the edge {a} -> {b} goes from level {levels[a]} to {to}"
        raise _rule_failure(3, example, bad_edges, what="edges")


def validate_result(
    graph: CSRGraph,
    source: int | None,
    levels,
    parents=None,
    reference: BFSResult | None = None,
    *,
    sources=None,
    depth_limit: int | None = None,
) -> BFSResult:
    """Check a BFS result: levels exactly against the CPU reference (computed here
    unless given), parents (if given) with Graph500's rules. Returns the reference.
    ``sources`` and ``depth_limit``: as :func:`~rodinia_bfs.reference.bfs_reference`."""
    options = {"sources": sources, "depth_limit": depth_limit}
    if reference is None:
        reference = bfs_reference(graph, source, **options)
    check_levels(levels, reference.levels)
    if parents is not None:
        check_parents(graph, source, levels, parents, **options)
    return reference


def report(problems: list[str]) -> int:
    """Print each problem and the one-line verdict the examples end with; return the
    exit status (0 when nothing failed, 1 otherwise)."""
    for problem in problems:
        print(f"  {problem}")
    if problems:
        print(f"validation failed ({len(problems)} errors)")
        return 1
    print("validation passed")
    return 0
