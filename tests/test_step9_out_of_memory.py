"""Step 9 (out_of_memory): what is special to it beyond the step contract.

Every mode against the reference on the emulator (warp 32 and 64) with small chunks, so
that a level's subgraph takes many copies, from one source and from several with a depth
limit; the bytes each level moves; the host gather
against a plain loop; the argument records against the header; the memory-cap
decision; compile checks; and, marked gpu, every mode on a GPU.
"""


import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.variants.out_of_memory import (
    DIRECTIONS, GATHERS, MODES, RUNGS, OomCounts, OomSingleArgs, OutOfMemoryArgs, OutOfMemoryBFS,
    choose_for_memory, compiled_gather, in_memory_bytes, vertex_array_bytes)
from rodinia_bfs.variants.out_of_memory import gather_edges as numpy_gather
from rodinia_bfs.variants.push_pull_basic import beamer_direction

from helpers import (AWKWARD_SOURCES, awkward_graph, check_run, check_sources, ctypes_layouts,
                     hiprtc_or_skip, nvrtc_or_skip, pairwise_params, scipy_levels, sources_of,
                     tiny_graphs)


def _graphs():
    return {
        "awkward": awkward_graph,
        "kronecker-9": lambda: kronecker(9, seed=3, progress=False),
        "hubs-30x30": lambda: grid_with_hubs(30, 30, seed=2),
        "grid-23x17": lambda: grid2d(23, 17),
    }


#: Each mode with each direction.
MODE_DIRECTIONS = [(m, d) for m in MODES for d in DIRECTIONS]


#: The options that change which kernels run: the tuned default (on these small graphs
#: the single block runs nearly every push level), no single block (a launch per
#: level), every rung off (the basic kernels), and a single block of 8 vertices, which
#: hands levels to the host and takes them back.
RUNG_SETS = {
    "tuned": {},
    "no-single": {"single_block": 0},
    "basic": {"single_block": 0, "aggregate": False, "edge_push": False, "aligned": False,
              "gather": "numpy"},
    "single-8": {"single_block": 8},
}


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=sorted(_graphs()), config=[f"{m}-{d}" for m, d in MODE_DIRECTIONS],
    rungs=sorted(RUNG_SETS)), indirect=["device"])
def test_every_mode_matches_the_reference(device, name, config, rungs):
    """Chunks of 37 edges (subgraph): a hub's list spans several copies. Pairwise: every
    mode and direction on every graph, each at warp 32 and at 64, with every set of
    rungs."""
    mode, direction = config.rsplit("-", 1)
    graph = _graphs()[name]()
    extra = AWKWARD_SOURCES if name == "awkward" else ()
    with OutOfMemoryBFS(device, graph, host_edges=mode, chunk_edges=37, block_size=64,
                        max_blocks=2, direction=direction, **RUNG_SETS[rungs]) as step:
        check_sources(step, sorted(set(sources_of(graph)) | set(extra)))


def nearest_start_levels(graph: CSRGraph, starts, depth=None) -> np.ndarray:
    """Distance to the nearest start by scipy (scipy_levels from each start), -1 where no
    start reaches or beyond ``depth``."""
    each = scipy_levels(graph, list(starts)).reshape(len(starts), -1).astype(np.int64)
    big = np.iinfo(np.int32).max
    nearest = np.where(each < 0, big, each).min(axis=0)
    limit = big - 1 if depth is None else depth
    return np.where(nearest <= limit, nearest, -1).astype(np.int32)


@pytest.mark.parametrize(*pairwise_params(
    device=[32, 64], name=["awkward", "kronecker-9"],
    config=[f"{m}-{d}" for m, d in MODE_DIRECTIONS], depth=["none", "0", "1", "3"],
    rungs=sorted(RUNG_SETS)), indirect=["device"])
def test_several_sources_and_a_depth_limit(device, name, config, depth, rungs):
    """Several starts (the hub, one of its neighbours, a vertex with no out-edges, the
    last vertex) in every mode and direction, with depth limits of 0, 1 and 3 levels and
    none: levels as scipy's, a forest by Graph500's rules, the levels expanded as steps
    1-4 count them, and each level's frontier and, pushing, its out-edges read from host
    memory (4 bytes each in the subgraph mode). Then a plain search on the same set-up."""
    from rodinia_bfs.validate import check_parents

    mode, direction = config.rsplit("-", 1)
    limit = None if depth == "none" else int(depth)
    graph = _graphs()[name]()
    degrees = graph.degrees()
    hub = int(np.argmax(degrees))
    starts = sorted({hub, int(graph.neighbors(hub)[0]), graph.num_vertices - 1,
                     *np.flatnonzero(degrees == 0)[:1].tolist()})
    with OutOfMemoryBFS(device, graph, host_edges=mode, chunk_edges=37, block_size=64,
                        max_blocks=2, direction=direction, **RUNG_SETS[rungs]) as step:
        run = step.search(None, sources=starts, depth_limit=limit)
        levels, parents = step.results()
        np.testing.assert_array_equal(levels, nearest_start_levels(graph, starts, limit))
        check_parents(graph, None, levels, parents, sources=starts, depth_limit=limit)
        unlimited = int(nearest_start_levels(graph, starts).max()) + 1  # levels expanded
        assert run.iterations == len(step.last_records) == (
            unlimited if limit is None else min(limit, unlimited))
        assert run.frontier_sizes == np.bincount(levels[levels >= 0])[:run.iterations].tolist()
        # Beamer's rule from the first frontier (every start) on: auto's directions.
        n_f = np.bincount(levels[levels >= 0], minlength=run.iterations + 1)
        m_f = np.bincount(levels[levels >= 0], weights=degrees[levels >= 0],
                          minlength=run.iterations + 1).astype(np.int64)
        going, previous, m_u = "push", 0, graph.num_edges - int(m_f[0])
        for k, record in enumerate(step.last_records):
            going = beamer_direction(going, n_f[k], m_f[k], m_u, graph.num_vertices, previous)
            assert record.direction == (going if step.direction == "auto" else step.direction)
            m_u, previous = m_u - int(m_f[k + 1]), n_f[k]
            if record.direction == "push":
                assert record.edges == int(m_f[k])
            if mode == "subgraph":
                assert record.bytes_htod == 4 * record.edges
        check_run(step, starts[-1], step.run(starts[-1]))


def test_subgraph_pull_levels_gather_a_probe_then_the_rest(device):
    """Subgraph mode, pulling: a level gathers the first PULL_PROBE in-edges (hubs first)
    of each vertex not reached yet, then the rest of the in-lists of those still not
    reached; a host model gives the same edges, fewer than the whole in-lists, and fewer
    bytes than pushing every level."""
    from rodinia_bfs.variants.out_of_memory import PULL_PROBE

    graph = kronecker(9, seed=3, progress=False)  # undirected: in-lists = out-lists
    source = int(np.argmax(graph.degrees()))
    with OutOfMemoryBFS(device, graph, host_edges="subgraph", chunk_edges=64) as step:
        run = step.run(source)
        check_run(step, source, run)
        records = step.last_records
    assert "pull" in [r.direction for r in records]
    in_lists = graph.hubs_first(graph.degrees())
    levels, pulled, whole = run.levels, 0, 0
    for k, record in enumerate(records):
        if record.direction != "pull":
            continue
        expected = 0
        for v in np.flatnonzero((levels > k) | (levels < 0)):  # not reached before level k
            targets = in_lists.targets[in_lists.offsets[v]:in_lists.offsets[v + 1]]
            expected += min(targets.size, PULL_PROBE)
            if not (levels[targets[:PULL_PROBE]] == k).any():
                expected += max(targets.size - PULL_PROBE, 0)
            whole += targets.size
        assert record.edges == expected and record.bytes_htod == 4 * expected
        pulled += expected
    assert pulled < whole
    assert sum(r.bytes_htod for r in records) < 4 * sum(_frontier_edges(graph, source))


@pytest.mark.parametrize("threads", [1, 3])
def test_gather_threads(device, threads, monkeypatch):
    """A chunk gathered in pieces on several threads, each piece a few edges: the same
    answer and the same bytes as one thread."""
    from rodinia_bfs.variants import out_of_memory

    monkeypatch.setattr(out_of_memory, "MIN_GATHER_PIECE", 2)
    graph = kronecker(9, seed=3, progress=False)
    source = int(np.argmax(graph.degrees()))
    with OutOfMemoryBFS(device, graph, host_edges="subgraph", chunk_edges=1000,
                        gather_threads=threads, direction="push") as step:
        check_run(step, source, step.run(source))
        assert ([r.bytes_htod for r in step.last_records]
                == [4 * e for e in _frontier_edges(graph, source)])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(tiny_graphs()))
def test_tiny_graphs(device, mode, name):
    graph = tiny_graphs()[name]
    with OutOfMemoryBFS(device, graph, host_edges=mode) as step:
        check_sources(step, sorted({0, graph.num_vertices - 1}))


def _frontier_edges(graph: CSRGraph, source: int) -> list[int]:
    """The out-edges of each level's frontier, from the reference."""
    levels = bfs_reference(graph, source).levels
    degrees = graph.degrees()
    return [int(degrees[levels == k].sum()) for k in range(int(levels.max()) + 1)]


@pytest.mark.parametrize("source", [0, 900, 5])
def test_subgraph_moves_the_frontier_edges_only(device, source):
    """Subgraph mode, pushing: each level copies 4 bytes per out-edge of its frontier,
    no more."""
    graph = awkward_graph()
    with OutOfMemoryBFS(device, graph, host_edges="subgraph", chunk_edges=50,
                        direction="push") as step:
        run = step.run(source)
        check_run(step, source, run)
        records = step.last_records
    expected = _frontier_edges(graph, source)
    assert [r.edges for r in records] == expected
    assert [r.bytes_htod for r in records] == [4 * e for e in expected]
    assert [r.frontier for r in records] == run.frontier_sizes
    assert all(r.mode == "subgraph" and r.bytes_dtoh == 12 * r.frontier + 8 for r in records)
    assert sum(r.bytes_htod for r in records) <= 4 * graph.num_edges


@pytest.mark.parametrize("mode, rungs", [("zero_copy", "no-single"), ("managed", "tuned"),
                                         ("zero_copy", "basic")])
def test_mapped_modes_count_sectors(device, mode, rungs):
    """zero_copy and managed: a level's bytes are the 32-byte sectors its lists span,
    which a host loop over the frontier counts the same way, whichever kernel pushed
    (a thread per edge, the single block, a warp per vertex)."""
    graph = grid_with_hubs(30, 30, seed=2)
    source = int(np.argmax(graph.degrees()))
    with OutOfMemoryBFS(device, graph, host_edges=mode, direction="push",
                        **RUNG_SETS[rungs]) as step:
        run = step.run(source)
        check_run(step, source, run)
        records = step.last_records
    levels = run.levels
    for k, record in enumerate(records):
        sectors = 0
        for v in np.flatnonzero(levels == k):
            begin, end = int(graph.offsets[v]), int(graph.offsets[v + 1])
            if end > begin:
                sectors += (end + 7) // 8 - begin // 8
        assert record.bytes_htod == 32 * sectors
        assert record.edges == int(graph.degrees()[levels == k].sum())
        assert record.mode == mode


@pytest.mark.parametrize("mode, aligned", [("zero_copy", True), ("managed", False)])
def test_pull_levels_stop_early(device, mode, aligned):
    """Beamer's rule pulls the wide levels of a Kronecker graph; a pull level reads each
    unreached vertex's in-list (hubs first) a warp's width at a time (in runs that begin
    at a multiple of the warp's width, or where the list does) up to the run that holds
    its first in-neighbour on the frontier: a host model of that gives the same edges
    and sectors, and fewer edges than whole lists."""
    graph = kronecker(9, seed=3, progress=False)  # undirected: in-lists = out-lists
    source = int(np.argmax(graph.degrees()))
    with OutOfMemoryBFS(device, graph, host_edges=mode, aligned=aligned,
                        single_block=0) as step:
        run = step.run(source)
        check_run(step, source, run)
        records = step.last_records
    assert "pull" in [r.direction for r in records]
    in_lists = graph.hubs_first(graph.degrees())
    warp, levels, pulled, lists = device.warp_size, run.levels, 0, 0
    for k, record in enumerate(records):
        if record.direction != "pull":
            continue
        read = sectors = whole = 0
        for v in np.flatnonzero((levels > k) | (levels < 0)):  # not reached before level k
            begin, end = int(in_lists.offsets[v]), int(in_lists.offsets[v + 1])
            hits = np.flatnonzero(levels[in_lists.targets[begin:end]] == k)
            first = begin - begin % warp if aligned else begin  # where the first run starts
            run_of_hit = (begin + hits[0] - first) // warp if hits.size else 0
            stop = min(end, first + (run_of_hit + 1) * warp) if hits.size else end
            read += stop - begin
            whole += end - begin
            if stop > begin:
                sectors += (stop + 7) // 8 - begin // 8
        assert (record.edges, record.bytes_htod) == (read, 32 * sectors)
        pulled, lists = pulled + read, lists + whole
    assert pulled < lists


@pytest.mark.parametrize("gather", GATHERS)
def test_gather_matches_a_plain_loop(gather):
    """Both gathers (NumPy's vectorised one, the compiled loops) against the lists copied
    one by one, over every chunking; nothing written past a chunk's end."""
    gather_edges = compiled_gather() if gather == "compiled" else numpy_gather
    graph = awkward_graph()
    rng = np.random.default_rng(1)
    frontier = rng.choice(graph.num_vertices, 200, replace=False).astype(np.int32)
    degrees = graph.degrees()[frontier].astype(np.uint64)
    sub_offsets = np.concatenate([[0], np.cumsum(degrees)]).astype(np.uint64)
    expected = np.concatenate([graph.targets[graph.offsets[v]:graph.offsets[v + 1]]
                               for v in frontier])
    total = int(sub_offsets[-1])
    assert total == expected.size
    for chunk in (1, 7, 64, total):
        out = np.full(chunk + 1, -5, np.int32)
        got = []
        for first in range(0, total, chunk):
            count = min(chunk, total - first)
            gather_edges(graph.offsets[frontier], graph.targets, sub_offsets, first, count, out)
            got.append(out[:count].copy())
            assert out[chunk] == -5
        np.testing.assert_array_equal(np.concatenate(got), expected)


def test_argument_records_match_the_header(device):
    c_side, host_side = ctypes_layouts(device, [OomCounts, OutOfMemoryArgs, OomSingleArgs],
                                       "out_of_memory_args.h")
    assert c_side == host_side


def test_host_mapped_copies_the_array(device):
    array = np.arange(1000, dtype=np.int32)
    for managed in (False, True):
        mapped = device.host_mapped(array, managed=managed)
        np.testing.assert_array_equal(mapped.array, array)
        assert mapped.device_ptr and mapped.nbytes == array.nbytes
        assert mapped.kind == ("managed" if managed else "mapped")
        mapped.close()
        assert mapped.array is None


# -- the memory cap ----------------------------------------------------------------------

def test_cap_decision():
    graph = kronecker(10, seed=5, progress=False)
    need, vertices = in_memory_bytes(graph), vertex_array_bytes(graph.num_vertices)
    assert vertices < need
    assert choose_for_memory(graph, None) == (None, "")
    assert choose_for_memory(graph, need) == (None, "")
    name, why = choose_for_memory(graph, need - 1)
    assert name == "out_of_memory" and "host memory" in why
    assert choose_for_memory(graph, vertices + 4)[0] == "out_of_memory"
    with pytest.raises(RodiniaBFSError, match=r"vertex arrays need \d+ bytes .* more than the limit"):
        choose_for_memory(graph, vertices + 3)


def test_cli_cap_runs_step_9(tmp_path, capsys):
    """--gpu-memory-limit below the graph's need and no variant: step 9 runs, says so,
    and validates; below the vertex arrays: one line and a non-zero exit."""
    from rodinia_bfs.cli import main
    from rodinia_bfs.graphs.formats import save_graph

    graph = kronecker(8, seed=1, progress=False)  # 32 arcs a vertex: the edges dominate
    path = tmp_path / "kronecker.mtx"
    save_graph(graph, path)
    source = int(np.flatnonzero(graph.degrees())[5])
    limit = str(in_memory_bytes(graph) - 1)
    assert main(["run", str(path), "--backend", "cpu", "--source", str(source), "--validate",
                 "--gpu-memory-limit", limit, "--host-edges", "zero_copy"]) == 0
    out = capsys.readouterr().out
    assert "out_of_memory runs it with its edges in host memory" in out
    assert f"out_of_memory: source {source}" in out and "validation passed" in out
    assert main(["run", str(path), "--backend", "cpu", "--gpu-memory-limit", "100"]) != 0
    assert "vertex arrays need" in capsys.readouterr().err


def test_cli_host_edges_is_step_9s(tmp_path, capsys):
    from rodinia_bfs.cli import main

    assert main(["run", "--backend", "cpu", "--variant", "queue", "--host-edges",
                 "managed"]) != 0
    assert "--host-edges is used only by the variant out_of_memory; not by queue" in capsys.readouterr().err


def test_limit_sizes_the_chunk(device):
    graph = grid2d(23, 17)
    limit = vertex_array_bytes(graph.num_vertices) + 8 * 10  # two chunks of 10 edges
    with OutOfMemoryBFS(device, graph, host_edges="subgraph", memory_limit=limit) as step:
        assert step.chunk_edges == 10
        check_run(step, 3, step.run(3))
    with pytest.raises(RodiniaBFSError, match="vertex arrays need"):
        OutOfMemoryBFS(device, graph, memory_limit=vertex_array_bytes(graph.num_vertices))


def test_bad_options(device):
    graph = grid2d(4, 4)
    with pytest.raises(RodiniaBFSError, match="host_edges must be one of"):
        OutOfMemoryBFS(device, graph, host_edges="disk")
    with pytest.raises(RodiniaBFSError, match="multiple of the warp size"):
        OutOfMemoryBFS(device, graph, block_size=device.warp_size + 1)
    with pytest.raises(RodiniaBFSError, match="direction must be one of"):
        OutOfMemoryBFS(device, graph, host_edges="subgraph", direction="sideways")
    with pytest.raises(RodiniaBFSError, match="chunk_edges >= 1"):
        OutOfMemoryBFS(device, graph, chunk_edges=0)
    with pytest.raises(RodiniaBFSError, match="gather_threads"):
        OutOfMemoryBFS(device, graph, gather_threads=0)


def test_runaway_guard(device, monkeypatch):
    """A kernel that never stops finding vertices ends in a clear error: a level the
    host drives, or the levels of the single block."""
    graph = grid2d(5, 5)
    with OutOfMemoryBFS(device, graph, host_edges="zero_copy", single_block=0) as step:
        for queue in step.queues:  # the made-up frontier of one vertex is vertex 0
            device.memset(queue, 0)
        real = OomCounts.vertices, OomCounts.edges
        # The counts always say one more vertex was found, with no out-edges (so that no
        # kernel reads past the lists of the frontier it is told about).
        monkeypatch.setattr(OomCounts, "vertices", property(lambda self: 1))
        monkeypatch.setattr(OomCounts, "edges", property(lambda self: 0))
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)
        monkeypatch.setattr(OomCounts, "vertices", real[0])
        monkeypatch.setattr(OomCounts, "edges", real[1])
    real_levels = OutOfMemoryBFS._single_levels

    def never_done(self, *args):  # its last level always found one more vertex
        counts = real_levels(self, *args)
        counts["vertices"][-1] = 1
        return counts

    monkeypatch.setattr(OutOfMemoryBFS, "_single_levels", never_done)
    with OutOfMemoryBFS(device, graph, host_edges="zero_copy") as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(0)


def test_single_block_reports_what_it_ran(device, monkeypatch):
    """A count of levels that the single block cannot have run is an error, not a loop."""
    with OutOfMemoryBFS(device, grid2d(5, 5), host_edges="zero_copy") as step:
        real = device.memcpy_dtoh_async

        def zero_levels(dst, src, stream):
            real(dst, src, stream)
            if src is step.sb_out:
                dst[:4] = 0  # "no level run"
        monkeypatch.setattr(device, "memcpy_dtoh_async", zero_levels)
        with pytest.raises(DeviceError, match="reports 0 levels"):
            step.run(0)


# -- compile checks ------------------------------------------------------------------------
# test_step_contract.py compiles the step's kernel with its default defines (every rung
# on) for every target (hiprtc: gfx90a at 64 lanes, gfx1030 at 32; NVRTC: sm_80 and
# sm_90, without a warning). Here: the basic kernels, every rung off, once each way.

BASIC_DEFINES = {macro: 0 for macro in RUNGS.values()}


def test_basic_kernels_compile_with_nvrtc():
    from rodinia_bfs.kernels import kernel_headers, kernel_source

    nvrtc = nvrtc_or_skip()
    cubin, log = nvrtc.compile_program(kernel_source(OutOfMemoryBFS.kernel_file), "sm_90",
                                       OutOfMemoryBFS.kernel_file, BASIC_DEFINES,
                                       headers=kernel_headers())
    assert cubin[:4] == b"\x7fELF" and log == ""


def test_basic_kernels_compile_with_hiprtc():
    from rodinia_bfs.kernels import kernel_headers, kernel_source

    hiprtc = hiprtc_or_skip()
    code = hiprtc.compile_for_arch(kernel_source(OutOfMemoryBFS.kernel_file), "gfx90a",
                                   OutOfMemoryBFS.kernel_file, BASIC_DEFINES,
                                   headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


# -- on a GPU --------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("mode, rungs", [("subgraph", "tuned"), *(
    (m, r) for m in ("zero_copy", "managed") for r in ("tuned", "no-single", "basic"))])
def test_every_mode_on_a_gpu(gpu, mode, rungs):
    """Mapped host memory, managed memory (its pages sent back to the host between
    searches, and not) and the subgraph copies on a real device, with every rung and
    without."""
    for graph in (awkward_graph(), kronecker(14, seed=2, progress=False), grid2d(200, 150)):
        with OutOfMemoryBFS(gpu, graph, host_edges=mode, chunk_edges=4096,
                            **RUNG_SETS[rungs]) as step:
            check_sources(step, sources_of(graph))
            step.evict_edges()
            check_sources(step, sources_of(graph)[:1])
            if mode == "subgraph":  # a push level copies its frontier's out-edges
                source = sources_of(graph)[-1]
                step.run(source)
                expected = _frontier_edges(graph, source)
                for k, r in enumerate(step.last_records):
                    assert r.bytes_htod == 4 * r.edges
                    assert r.direction == "pull" or r.edges == expected[k]


# -- the measurement ---------------------------------------------------------------------

def test_benchmark_runs_on_the_emulator(tmp_path):
    """benchmarks/out_of_memory.py on a graph file: every mode validated, bytes per level
    that add up to the total, the copy bandwidth, JSON and markdown."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from rodinia_bfs.graphs.formats import save_graph

    root = Path(__file__).resolve().parents[1]
    graph = awkward_graph()
    path = tmp_path / "awkward.mtx"
    save_graph(graph, path)
    out = tmp_path / "out"
    command = [sys.executable, str(root / "benchmarks" / "out_of_memory.py"), str(path),
               "--backend", "cpu", "--sources", "2", "--repeats", "1", "--copy-mib", "1",
               "--in-memory", "queue", "--chunk-edges", "100", "-o", str(out)]
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
    results = json.loads((out / "out_of_memory.json").read_text())
    assert results["copy"]["gb_per_s_median"] > 0
    (entry,) = results["graphs"]
    assert entry["in_memory"]["validated"] and set(entry["modes"]) == set(MODES)
    for mode, m in entry["modes"].items():
        assert m["validated"] and m["median_ms"] > 0
        for p in m["per_source"]:
            assert len(p["bytes_htod"]) == p["levels"] == len(p["frontier"])
            if mode == "subgraph":
                assert p["bytes_htod"] == [4 * e for e in p["edges"]]
    assert "| awkward | out_of_memory subgraph |" in (out / "table.md").read_text()


def test_registered_after_step_8():
    from rodinia_bfs.variants import STEPS

    assert list(STEPS)[-1] == "out_of_memory"
    assert list(STEPS).index("out_of_memory") == list(STEPS).index("multi_gpu") + 1
