"""Step 7's basic version (adaptive_basic) on the cpu emulator at warp size 32 and 64.

What is special to it: the kernel and the block size of each level come from that
level's profile alone (the host functions, on hand-made numbers, and the record of a
search against them, from one source or several, up to a depth limit); both kernels
and several block sizes run in one search; the answer never depends on the choice.
"""

import numpy as np
import pytest

from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.adaptive_basic import AdaptiveBasicBFS, choose_block, choose_kernel

from helpers import awkward_graph, check_run


def random_directed(n: int = 700, m: int = 3000, seed: int = 4) -> CSRGraph:
    rng = np.random.default_rng(seed)
    return CSRGraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n,
                               name="random-directed")


GRAPHS = {
    "awkward": awkward_graph,  # directed; components, isolated vertices, loops, duplicates
    "random-directed": random_directed,
    "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
    "grid-23x19": lambda: grid2d(23, 19),
}


def sources_of(graph):
    n = graph.num_vertices
    return sorted({0, n // 3, n - 1, int(np.argmax(graph.degrees()))})


def test_registered_before_the_tuned_step():
    names = list(STEPS)
    assert STEPS["adaptive_basic"] is AdaptiveBasicBFS
    assert names.index("adaptive_basic") + 1 == names.index("adaptive")
    # Step 6's basic kernels, compiled as they are.
    assert AdaptiveBasicBFS.kernel_file == STEPS["push_pull_basic"].kernel_file


def test_the_kernel_for_a_profile():
    """Pull only when the level is wide on both counts, whatever came before."""
    n, m_u = 2400, 1400
    assert choose_kernel(200, 101, m_u, n) == "pull"    # 101 * 14 > 1400, 200 * 24 > 2400
    assert choose_kernel(200, 100, m_u, n) == "push"    # 100 * 14 = 1400: not more
    assert choose_kernel(100, 5000, m_u, n) == "push"   # 100 * 24 = 2400: not more
    assert choose_kernel(101, 5000, 0, n) == "pull"     # the tail of a wide search
    assert choose_kernel(200, 94, m_u, n, alpha=15, beta=18) == "pull"


@pytest.mark.parametrize("items, expected", [
    (1, 32), (31 * 64, 32), (31 * 64 + 1, 64), (32 * 256, 256), (10 ** 9, 256)])
def test_the_block_for_a_profile(items, expected):
    """The largest block, from a warp up to 256 threads, that gives each of 32
    multiprocessors a block."""
    assert choose_block(items, 32, 32, 256) == expected


def test_the_block_is_never_below_a_warp_nor_above_the_largest():
    assert choose_block(1, 100, 64, 1024) == 64
    assert choose_block(1, 100, 64, 48) == 48  # a block size below the warp stays
    assert choose_block(10 ** 6, 1, 32, 128) == 128


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_matches_independent_bfs(device, name, direction):
    graph = GRAPHS[name]()
    with AdaptiveBasicBFS(device, graph, block_size=128, max_blocks=3,
                          direction=direction) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(step, source, result)
            assert len(step.last_choices) == result.iterations


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_each_level_is_chosen_from_its_profile(device, monkeypatch, name):
    """The record of a search is what the host functions give for each level's counts,
    recomputed from the reference levels (n_f, m_f, m_u); with as many multiprocessors
    as a large GPU has, the block sizes vary with the frontier."""
    monkeypatch.setattr(device, "multiprocessor_count", 100)
    graph = GRAPHS[name]()
    degrees, n = graph.degrees(), graph.num_vertices
    with AdaptiveBasicBFS(device, graph) as step:
        for source in sources_of(graph):
            result = step.run(source)
            check_run(step, source, result)
            levels = result.levels
            reached = levels >= 0
            n_fs = np.bincount(levels[reached]).tolist()
            m_fs = np.bincount(levels[reached], weights=degrees[reached]).astype(int).tolist()
            m_u = graph.num_edges - int(degrees[source])
            expected = []
            for n_f, m_f, next_m_f in zip(n_fs, m_fs, m_fs[1:] + [0]):
                kernel = choose_kernel(n_f, m_f, m_u, n)
                items = n_f if kernel == "push" else n
                expected.append((kernel, choose_block(items, 100, device.warp_size, 256)))
                m_u -= next_m_f
            assert step.last_choices == expected


@pytest.mark.parametrize("depth_limit", [None, 2])
def test_several_sources_and_a_depth_limit(device, monkeypatch, depth_limit):
    """Level 0's profile counts every start vertex (n_f) and their edges (m_f); the
    search stops after the depth limit's levels, as step 2's does."""
    monkeypatch.setattr(device, "multiprocessor_count", 100)
    graph = GRAPHS["kronecker-10"]()
    degrees, n = graph.degrees(), graph.num_vertices
    starts = sorted({0, n // 3, int(np.argmax(degrees))})
    expected = bfs_reference(graph, sources=starts, depth_limit=depth_limit).levels
    with AdaptiveBasicBFS(device, graph) as step:
        result = step.search(None, sources=starts, depth_limit=depth_limit)
        levels, parents = step.results()
    np.testing.assert_array_equal(levels, expected)
    check_parents(graph, None, levels, parents, sources=starts, depth_limit=depth_limit)
    reached = expected >= 0
    n_fs = np.bincount(expected[reached]).tolist()
    m_fs = np.bincount(expected[reached], weights=degrees[reached]).astype(int).tolist()
    m_u, want = graph.num_edges - m_fs[0], []
    for n_f, m_f, next_m_f in zip(n_fs, m_fs, m_fs[1:] + [0]):
        kernel = choose_kernel(n_f, m_f, m_u, n)
        items = n_f if kernel == "push" else n
        want.append((kernel, choose_block(items, 100, device.warp_size, 256)))
        m_u -= next_m_f
    assert step.last_choices == want[:depth_limit]
    assert result.iterations == len(step.last_choices)
    assert result.frontier_sizes == n_fs[:depth_limit]


def test_both_kernels_and_several_shapes_in_one_search(device, monkeypatch):
    """With 4 multiprocessors: a pull level over the 1,024 vertices in blocks of 256, the
    small push levels in blocks of a warp."""
    monkeypatch.setattr(device, "multiprocessor_count", 4)
    graph = GRAPHS["kronecker-10"]()
    source = int(np.flatnonzero(graph.degrees() == 1)[0])
    with AdaptiveBasicBFS(device, graph) as step:
        check_run(step, source, step.run(source))
        kernels = [kernel for kernel, _ in step.last_choices]
        blocks = {block for _, block in step.last_choices}
    assert kernels[0] == "push" and "pull" in kernels and kernels[-1] == "push"
    assert blocks == {device.warp_size, 256}
