"""Step 5's basic kernel (``persistent_basic``): what is special to it.

The step contract (tests/test_step_contract.py) runs it like every step; here: awkward
graphs from several sources, a depth limit that stops the one launch mid-search, a grid
that strides over a queue larger than itself, the argument record's layout against the
C header, and kernels broken on purpose (a block that skips the barrier, a claim that
lets vertices in twice, a barrier that gives up) ending in a clear error, never a hang.
"""

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS
from rodinia_bfs.variants.persistent_basic import ARGS, STATUS, PersistentBasicBFS
from rodinia_bfs.variants.queue import QueueBFS

from helpers import (AWKWARD_SOURCES, awkward_graph, check_run, check_sources, edit_kernel,
                     hiprtc_or_skip, load_benchmark, nvrtc_or_skip, with_kernel)

KERNEL = "persistent_basic.hip"
#: The barrier at the end of a level, as the kernel has it.
LEVEL_BARRIER = "if (!grid_sync(a.barrier)) return;\n        level++;"


def small_blocks(device) -> dict:
    """Blocks of one warp, two of them: every wide level strides over its queue."""
    return {"block_size": device.warp_size, "max_blocks": 2}


def cycle(n: int) -> CSRGraph:
    """0 -> 1 -> ... -> n - 1 -> 0, one way."""
    return CSRGraph.from_edges(np.arange(n), (np.arange(n) + 1) % n, n, name=f"cycle-{n}")


def test_registered_between_step_4_and_the_tuned_step():
    names = list(STEPS)
    assert STEPS["persistent_basic"] is PersistentBasicBFS
    # after step 4 and its sidebar, the edge-centric kernel
    assert names.index("edge_centric") + 1 == names.index("persistent_basic")
    assert names.index("persistent_basic") + 1 == names.index("persistent")


# -- results ---------------------------------------------------------------------------

def test_awkward_graph(device):
    """Isolated vertices (1236), self loops (3, 640), duplicate edges, one-way arcs (5),
    a star (900) and several components, from sources other than 0, on one set-up."""
    with PersistentBasicBFS(device, awkward_graph()) as step:
        assert step.grid_blocks == device.cooperative_grid(step.kernel, step.block_size)
        check_sources(step, [*AWKWARD_SOURCES, 650, 1236, 0])


@pytest.mark.parametrize("graph, source", [
    (lambda: kronecker(9, seed=2, progress=False), 3),
    (lambda: grid2d(23, 17), 200),
    (lambda: cycle(301), 7),
], ids=["kronecker-9", "grid-23x17", "cycle-301"])
def test_grid_strides_over_a_larger_queue(device, graph, source):
    """Two blocks of one warp: a wide level has more vertices than the grid threads."""
    with PersistentBasicBFS(device, graph(), **small_blocks(device)) as step:
        assert step.grid_blocks == 2
        run = step.run(source, profile=True)
        check_run(step, source, run)
    assert len(run.level_times_ms) == run.iterations


@pytest.mark.parametrize("kwargs, kernel_source", [
    ({"source": 7, "depth_limit": 5}, 7),  # the kernel puts the source in
    ({"sources": [150, 7, 151], "depth_limit": 4}, -1),  # the host stages queue 0
    ({"sources": [7, 150]}, -1),  # no limit: the search ends when the queue is empty
], ids=["one-source", "several", "no-limit"])
def test_depth_limit_stops_the_launch_mid_search(device, kwargs, kernel_source):
    """A one-way cycle of 301 vertices has hundreds of levels: the one cooperative launch
    stops at the depth limit, leaves the vertices beyond it at -1, and reports the levels
    it expanded, as step 2's host loop counts them."""
    graph = cycle(301)
    expected = bfs_reference(graph, **kwargs)
    kwargs = {"source": None, **kwargs}  # search() takes a source or None
    with PersistentBasicBFS(device, graph, **small_blocks(device)) as step:
        run = step.search(**kwargs, profile=True)
        assert int(step.h_args["source"][0]) == kernel_source
        levels, parents = step.results()
    np.testing.assert_array_equal(levels, expected.levels)
    check_parents(graph, kwargs.get("source"), levels, parents,
                  sources=kwargs.get("sources"), depth_limit=kwargs.get("depth_limit"))
    with QueueBFS(device, graph) as queue:
        assert run.iterations == queue.search(**kwargs).iterations
    limit = kwargs.get("depth_limit")
    assert run.iterations == (expected.levels.max() + 1 if limit is None else limit)
    assert len(run.level_times_ms) == run.iterations


@pytest.mark.parametrize("starts", [[3, 20], [3]])
def test_depth_limit_zero_launches_nothing(device, starts):
    """No level to expand: the start state is the result, and no launch is made."""
    graph = cycle(30)
    with PersistentBasicBFS(device, graph) as step:
        step.launch = None  # a launch would fail
        step.search(None, sources=starts, depth_limit=0)
        levels, parents = step.results()
    np.testing.assert_array_equal(np.flatnonzero(levels != -1), starts)
    np.testing.assert_array_equal(levels[starts], 0)
    np.testing.assert_array_equal(parents[starts], starts)


@pytest.mark.parametrize("options, message", [
    ({"block_size": 0}, "block_size must be"),
    ({"block_size": 1 << 20}, "block_size must be"),
    ({"max_blocks": 0}, "max_blocks must be at least 1"),
])
def test_bad_options(device, options, message):
    with pytest.raises(RodiniaBFSError, match=message):
        PersistentBasicBFS(device, grid2d(3, 3), **options)


# -- the records: declared once in C, described once in Python ------------------------

#: Each record of hip_kernels/persistent_basic.h and its description in Python.
RECORDS = {"PersistentBasicArgs": ARGS, "PersistentBasicStatus": STATUS}


def layout_probe(record: str, dtype: np.dtype) -> str:
    """A kernel that writes the record's size, then each field's offset and size, in the
    order of ``dtype``; a field of ``dtype`` missing from the header fails to compile."""
    # Offsets as address differences inside one instance: NVRTC has no
    # __builtin_offsetof outside constant expressions.
    lines = [f"{record} probe;", f"out[0] = sizeof({record});"]
    for k, name in enumerate(dtype.names):
        lines.append(f"out[{1 + 2 * k}] = (bfs_u64)((char*)&probe.{name} - (char*)&probe);")
        lines.append(f"out[{2 + 2 * k}] = sizeof(probe.{name});")
    body = "\n        ".join(lines)
    return ('#include "persistent_basic.h"\n'
            'extern "C" __global__ void layout(bfs_u64* out)\n'
            "{\n    if (blockIdx.x == 0 && threadIdx.x == 0) {\n        " + body + "\n    }\n}\n")


def python_layout(dtype: np.dtype) -> list[int]:
    """The same figures from ``dtype``."""
    words = [dtype.itemsize]
    for name in dtype.names:
        field, offset = dtype.fields[name][:2]
        words += [offset, field.itemsize]
    return words


def device_layout(device, record: str, dtype: np.dtype) -> list[int]:
    """What the layout probe of ``record`` writes, run on ``device``."""
    module = device.compile(layout_probe(record, dtype), "layout.hip", headers=kernel_headers())
    words = len(python_layout(dtype))
    out = device.malloc(8 * words)
    try:
        device.launch(module.get_function("layout"), 1, 1, [out])
        device.synchronize()
        return device.from_device(out, words, np.uint64).tolist()
    finally:
        device.free(out)


@pytest.mark.parametrize("record", sorted(RECORDS))
def test_layout_matches_the_header(device, record):
    """sizeof and offsetof as the emulator's compiler lays the record out. The records
    have no padding (the size is the sum of the fields), so a field of the header missing
    from the description moves an offset or the size."""
    dtype = RECORDS[record]
    assert device_layout(device, record, dtype) == python_layout(dtype)
    assert dtype.itemsize == sum(dtype.fields[name][0].itemsize for name in dtype.names)


@pytest.mark.gpu
@pytest.mark.parametrize("record", sorted(RECORDS))
def test_gpu_layout_matches_the_header(gpu, record):
    """The same, as the GPU's own compiler lays the record out."""
    dtype = RECORDS[record]
    assert device_layout(gpu, record, dtype) == python_layout(dtype)


def static_layout_checks() -> str:
    """The layout of every record as static_asserts, for the GPU compilers (no GPU to
    run on)."""
    lines = ['#include "persistent_basic.h"']
    for record, dtype in RECORDS.items():
        size, *fields = python_layout(dtype)
        lines.append(f'static_assert(sizeof({record}) == {size}, "size of {record}");')
        for k, name in enumerate(dtype.names):
            offset, nbytes = fields[2 * k], fields[2 * k + 1]
            lines.append(f'static_assert(__builtin_offsetof({record}, {name}) == {offset}, '
                         f'"offset of {name}");')
            lines.append(f'static_assert(sizeof((({record}*)0)->{name}) == {nbytes}, '
                         f'"size of {name}");')
    lines.append('extern "C" __global__ void layout_checked() {}')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_layout_with_hiprtc(arch):
    hiprtc = hiprtc_or_skip()
    code = hiprtc.compile_for_arch(static_layout_checks(), arch, "layout.hip",
                                   headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


def test_layout_with_nvrtc():
    nvrtc = nvrtc_or_skip()
    cubin = nvrtc.compile_for_arch(static_layout_checks(), "sm_90", "layout.hip",
                                   headers=kernel_headers())
    assert cubin[:4] == b"\x7fELF"


def test_layout_checks_can_fail():
    """The static checks are not vacuous: a wrong offset stops the compile."""
    from rodinia_bfs.errors import CompileError

    nvrtc = nvrtc_or_skip()
    wrong = static_layout_checks().replace("PersistentBasicArgs, source) == ",
                                           "PersistentBasicArgs, source) == 1 + ")
    assert wrong != static_layout_checks()
    with pytest.raises(CompileError, match="offset of source"):
        nvrtc.compile_for_arch(wrong, "sm_90", "layout.hip", headers=kernel_headers())


# -- never a hang ------------------------------------------------------------------------

def test_block_that_skips_the_grid_barrier_is_an_error(device):
    """The last block leaves instead of waiting at the end of a level: the others would
    wait for ever. The emulator reports the deadlock (on a GPU the barrier's bounded
    wait gives up), and the search ends with an error."""
    broken = edit_kernel(KERNEL, LEVEL_BARRIER,
                         "if (blockIdx.x == gridDim.x - 1) return;\n" + LEVEL_BARRIER)
    with with_kernel(PersistentBasicBFS, broken)(device, grid2d(9, 9),
                                                 **small_blocks(device)) as step:
        with pytest.raises(DeviceError, match="deadlock"):
            step.run(0)


@pytest.mark.parametrize("graph, source", [
    (lambda: cycle(2), 0),  # one vertex a level for ever: the level bound
    (lambda: grid2d(6, 6), 14),  # queues that outgrow the graph: the size bound
], ids=["levels", "queue"])
def test_runaway_search_stops_with_an_error(device, graph, source):
    """A claim that lets a vertex in however often it is reached: the search would never
    end. The kernel's bound stops it, and the host says so."""
    broken = edit_kernel(KERNEL, "if (a.levels[u] != -1) continue;", "")
    broken = broken.replace("if (atomicCAS(&a.levels[u], -1, level + 1) == -1) {",
                            "if (atomicExch(&a.levels[u], level + 1) >= -1) {")
    with with_kernel(PersistentBasicBFS, broken)(device, graph(),
                                                 **small_blocks(device)) as step:
        with pytest.raises(DeviceError, match="did not finish"):
            step.run(source)


def test_barrier_that_gives_up_is_an_error(device):
    """A grid barrier that gives up (here: made to at level 3) ends the kernel before it
    writes its status; the host reports it instead of returning a half-done search."""
    broken = edit_kernel(KERNEL, LEVEL_BARRIER,
                         LEVEL_BARRIER.replace("grid_sync(a.barrier)",
                                               "grid_sync(a.barrier) || level == 3"))
    with with_kernel(PersistentBasicBFS, broken)(device, grid2d(9, 9),
                                                 **small_blocks(device)) as step:
        with pytest.raises(DeviceError, match="without writing its status"):
            step.run(0)


# -- the ladder script -------------------------------------------------------------------

def load_ladder():
    """benchmarks/ladder.py as a module."""
    return load_benchmark("ladder")


def test_ladder_times_the_basic_and_the_tuned_step(tmp_path, capsys):
    """benchmarks/ladder.py on the emulator and a tiny graph: both rungs timed from every
    source in every repeat, each result checked, the figures in JSON and a table."""
    import json
    from pathlib import Path

    graph = Path(__file__).resolve().parent / "data" / "example.gr"
    ladder = load_ladder()
    out = tmp_path / "ladder"
    code = ladder.main(["--backend", "cpu", "--files", str(graph), "--sources", "2",
                        "--repeats", "2", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    results = json.loads((out / "results.json").read_text())
    assert results["meta"]["backend"] == "cpu" and results["meta"]["repeats"] == 2
    (entry,) = results["graphs"]
    assert [r["variant"] for r in entry["rungs"]] == ["persistent_basic", "persistent"]
    for rung in entry["rungs"]:
        assert [len(repeat) for repeat in rung["times_ms"]] == [2, 2]
        low, high = rung["spread_ms"]
        assert low <= high and rung["min_ms"] <= low and high <= rung["max_ms"]
    first, second = entry["rungs"]
    assert first["beyond_spread"] is None and isinstance(second["beyond_spread"], bool)
    assert second["total_speedup"] == pytest.approx(first["median_ms"] / second["median_ms"])
    table = (out / "table.md").read_text()
    assert "| persistent_basic |" in table and "| persistent |" in table
    assert "benchmarks/ladder.py" in (out / "command.txt").read_text()


def test_ladder_stops_on_a_wrong_result(tmp_path, capsys, monkeypatch):
    """A rung whose levels differ from the reference's fails the run with one line."""
    from pathlib import Path

    correct = PersistentBasicBFS.results

    def wrong(self):
        levels, parents = correct(self)
        levels[levels == 1] = 2
        return levels, parents

    monkeypatch.setattr(PersistentBasicBFS, "results", wrong)
    graph = Path(__file__).resolve().parent / "data" / "example.gr"
    code = load_ladder().main(["persistent_basic", "--backend", "cpu", "--files", str(graph),
                               "--sources", "1", "--repeats", "1", "--out", str(tmp_path)])
    assert code == 1
    assert "wrong levels" in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()
