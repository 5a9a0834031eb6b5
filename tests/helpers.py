"""Small graphs and an independent BFS shared by the tests."""

import os
from pathlib import Path

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph

from rodinia_bfs.graphs.csr import CSRGraph

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RODINIA_BFS_DATA", ROOT.parent / "shared" / "data"))

# Tests on the real graphs skip where they are absent; CI has them, so there a missing
# folder is an error, not a quiet row of skips.
if os.environ.get("CI") and not (DATA / "road").is_dir():
    raise RuntimeError(f"CI is set but the real graphs are not in {DATA}")


def gpu_device_or_skip():
    """A device of the first usable GPU backend (hip, then cuda), else skip with the reason."""
    import pytest

    from rodinia_bfs.runtime import get_device, probe_backends

    reasons = []
    for name in ("hip", "cuda"):
        usable, reason = probe_backends()[name]
        if usable:
            return get_device(name)
        reasons.append(f"{name}: {reason}")
    pytest.skip("no GPU backend usable (" + "; ".join(reasons) + ")")


def scipy_levels(graph: CSRGraph, source: int) -> np.ndarray:
    """Levels by scipy's unweighted shortest paths: an implementation we did not write."""
    n = graph.num_vertices
    matrix = scipy.sparse.csr_matrix(
        (np.ones(graph.num_edges), graph.targets.astype(np.int64), graph.offsets), shape=(n, n)
    )
    dist = scipy.sparse.csgraph.shortest_path(
        matrix, method="D", unweighted=True, directed=True, indices=source
    )
    return np.where(np.isinf(dist), -1, dist).astype(np.int32)


def awkward_graph() -> CSRGraph:
    """Several components, isolated vertices, self loops, duplicate edges, one-way arcs;
    1,237 vertices: not a multiple of any block size."""
    rng = np.random.default_rng(7)
    n = 1237
    src, dst = [], []
    # component A: a random graph on 0..599
    a = rng.integers(0, 600, size=(2, 2400))
    src += list(a[0]); dst += list(a[1])
    # component B: a long path 600..899 (many levels), stored both ways
    path = np.arange(600, 900)
    src += list(path[:-1]) + list(path[1:]); dst += list(path[1:]) + list(path[:-1])
    # one-way arcs from A into B's middle, never back
    src += [5, 17]; dst += [750, 751]
    # self loops and duplicate edges
    src += [3, 3, 3, 640]; dst += [3, 4, 4, 640]
    # 900..1199: a star centred on 900; 1200..1236: isolated
    src += [900] * 299; dst += list(range(901, 1200))
    return CSRGraph.from_edges(src, dst, n, name="awkward")


def step_defines(kernel_file: str, warp_size: int) -> dict:
    """The default ``-D`` tunables of the step that owns ``kernel_file``.

    Every kernel file belongs to a step; a new file without one fails the compile checks
    here rather than being compiled with made-up macros.
    """
    from rodinia_bfs.variants import STEPS

    for step in STEPS.values():
        if step.kernel_file == kernel_file:
            return step.default_defines(warp_size)
    raise AssertionError(f"hip_kernels/{kernel_file} belongs to no step in rodinia_bfs.variants.STEPS")
