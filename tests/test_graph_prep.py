"""Preparing the graph on the device (hip_kernels/graph_prep.hip, rodinia_bfs/graph_prep.py).

Every kernel runs on the emulator at warp 32 and 64 against NumPy, three times: with
the GPUs' tiles, the emulator's, and tiles so small (a block of 64 threads, one entry
a thread in a scan tile, two keys in a radix tile) that small arrays take many tiles
and the scan of the tiles' sums takes several rounds. The orderings the steps read are compared byte
for byte with the host functions they replace; the kernel file is compile-checked
with hiprtc and NVRTC.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

from rodinia_bfs import graph_prep
from rodinia_bfs.graph_prep import Buffers, DeviceGraph, GraphPrep
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.persistent import PersistentBFS, build_edge_records, build_rows
from rodinia_bfs.variants.push_pull import PushPullBFS, bottom_up_inputs

from helpers import ROOT, awkward_graph, hiprtc_or_skip, nvrtc_or_skip

#: Tiles (block_size, scan_items, radix_items): the GPUs' default, small ones, and the
#: emulator's (which the functions the steps call use here).
TILES = {"default": (graph_prep.BLOCK_SIZE, graph_prep.SCAN_ITEMS, graph_prep.RADIX_ITEMS),
         "small": (64, 1, 2), "emulator": tuple(graph_prep.EMULATOR_TILES.values())}


@pytest.fixture(scope="module", params=sorted(TILES))
def prep(request, device):
    block, scan_items, radix_items = TILES[request.param]
    return GraphPrep(device, block_size=block, scan_items=scan_items, radix_items=radix_items)


def download(device, buf, count, dtype):
    return device.from_device(buf, count, dtype)


def random_graph(n: int, m: int, seed: int, hub: bool = False) -> CSRGraph:
    """m random arcs on n vertices (some isolated when m is small); with ``hub`` a third
    of them leave vertex 1 (a row far longer than a block)."""
    rng = np.random.default_rng(seed)
    sources, targets = rng.integers(0, n, m), rng.integers(0, n, m)
    if hub:
        sources[: m // 3] = 1
    return CSRGraph.from_edges(sources, targets, n, name=f"random-{n}-{m}")


def shuffled_symmetric(n: int, m: int, seed: int) -> CSRGraph:
    """A symmetric graph (duplicates and self loops kept) whose lists are not sorted."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    graph = CSRGraph.from_edges(np.concatenate([a, b]), np.concatenate([b, a]), n)
    lists = [rng.permutation(np.array(graph.neighbors(v))) for v in range(n)]
    return CSRGraph(graph.offsets, np.concatenate(lists).astype(np.int32), name="shuffled")


def directed_cycle(n: int) -> CSRGraph:
    """Every in-degree equals its out-degree, yet no arc has a partner."""
    return CSRGraph.from_edges(np.arange(n), (np.arange(n) + 1) % n, n, name="cycle")


#: Graphs at the edges: no vertex, one, no edge, one huge row, isolated vertices, a
#: symmetric graph with unsorted lists, a directed one that balances its degrees.
GRAPHS = {
    "no-vertex": lambda: CSRGraph(np.zeros(1, np.int64), np.zeros(0, np.int32)),
    "one-vertex": lambda: CSRGraph(np.zeros(2, np.int64), np.zeros(0, np.int32)),
    "one-self-loop-thrice": lambda: CSRGraph.from_edges([0, 0, 0], [0, 0, 0], 1),
    "edgeless-70": lambda: CSRGraph(np.zeros(71, np.int64), np.zeros(0, np.int32)),
    "two-vertices-5000-arcs": lambda: random_graph(2, 5000, 1),
    "hub-300": lambda: random_graph(300, 5000, 2, hub=True),
    "sparse-7000": lambda: random_graph(7000, 900, 3),
    "shuffled-symmetric": lambda: shuffled_symmetric(1500, 6000, 4),
    "cycle-77": lambda: directed_cycle(77),
    "awkward": awkward_graph,
    "kronecker-9": lambda: kronecker(9, seed=3, progress=False),
    "grid-13x11": lambda: grid2d(13, 11),
}


@pytest.fixture
def scratch(device):
    with Buffers(device) as buffers:
        yield buffers


# -- the primitives ---------------------------------------------------------------------

@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 1000, 5000])
def test_exclusive_scan(device, prep, scratch, count):
    """count + 1 outputs, the last the total; 64-bit sums (entries near 2^40)."""
    rng = np.random.default_rng(count)
    values = rng.integers(0, 2**40, count, dtype=np.uint64)
    values[::7] = 0
    buf = scratch.alloc(8 * (count + 1))
    device.memcpy_htod(buf, np.append(values, np.uint64(12345)))  # the last is overwritten
    prep.exclusive_scan(buf, count, scratch)
    want = np.concatenate([[0], np.cumsum(values, dtype=np.uint64)])
    np.testing.assert_array_equal(download(device, buf, count + 1, np.uint64), want)


@pytest.mark.parametrize("n, m", [(1, 0), (1, 5), (97, 3000), (4000, 700)])
def test_in_degree_histogram_and_offsets(device, prep, scratch, n, m):
    graph = random_graph(n, m, n + m, hub=n > 1)
    on_device = DeviceGraph.upload(graph, scratch)
    out = scratch.alloc(8 * (n + 1))
    prep.in_offsets(on_device, out, scratch)
    in_degrees = np.bincount(graph.targets, minlength=n)
    want = np.concatenate([[0], np.cumsum(in_degrees)])
    np.testing.assert_array_equal(download(device, out, n + 1, np.int64), want)


@pytest.mark.parametrize("count, bits", [(0, 8), (1, 4), (129, 3), (1000, 32), (3333, 13)])
def test_radix_sort_is_stable(device, prep, scratch, count, bits):
    """Keys below 2^bits, sorted; equal keys keep their order, as NumPy's stable sort."""
    rng = np.random.default_rng(bits)
    keys = rng.integers(0, 2**bits, count, dtype=np.uint64).astype(np.uint32)
    keys[: count // 2] &= 0xF0F  # many equal keys
    values = np.arange(count, dtype=np.int32)
    bufs = [scratch.upload(keys), scratch.upload(values), scratch.alloc(4 * count),
            scratch.alloc(4 * count)]
    sorted_keys, sorted_values = prep.radix_sort(bufs[0], bufs[1], count, bits, bufs[2],
                                                 bufs[3], scratch)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(download(device, sorted_values, count, np.int32), order)
    np.testing.assert_array_equal(download(device, sorted_keys, count, np.uint32), keys[order])


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_hubs_first_order(device, prep, scratch, name):
    """Vertices by decreasing degree, equal degrees by increasing id."""
    graph = GRAPHS[name]()
    n = graph.num_vertices
    order = prep.hubs_first_order(DeviceGraph.upload(graph, scratch), scratch)
    want = np.lexsort((np.arange(n), -graph.degrees()))
    np.testing.assert_array_equal(download(device, order, n, np.int32), want)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_active_vertices(device, prep, scratch, name):
    graph = GRAPHS[name]()
    n = graph.num_vertices
    active = scratch.alloc(4 * n)
    count = prep.nonempty(scratch.upload(graph.offsets), n, active, scratch)
    want = np.flatnonzero(graph.degrees() > 0)
    assert count == want.size
    np.testing.assert_array_equal(download(device, active, count, np.int32), want)


def test_differ(device, prep, scratch):
    a = np.arange(1001, dtype=np.int32)
    for where in (0, 500, 1000):
        b = a.copy()
        b[where] = -7
        assert prep.differ(scratch.upload(a), scratch.upload(b), a.nbytes, scratch)
        # Only the bytes asked about count.
        assert not prep.differ(scratch.upload(a), scratch.upload(b), 4 * where, scratch)
    assert not prep.differ(scratch.upload(a), scratch.upload(a.copy()), a.nbytes, scratch)


# -- what the steps read, byte for byte ----------------------------------------------------

@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_reverse_and_hubs_first_match_the_host(device, name):
    graph = GRAPHS[name]()
    n, m = graph.num_vertices, graph.num_edges
    reverse = graph.reverse()
    with Buffers(device) as memory:
        on_device = DeviceGraph.upload(graph, memory)
        offsets, targets = graph_prep.device_reverse(device, on_device, memory)
        np.testing.assert_array_equal(download(device, offsets, n + 1, np.int64), reverse.offsets)
        np.testing.assert_array_equal(download(device, targets, m, np.int32), reverse.targets)
        offsets, targets = graph_prep.device_hubs_first(device, on_device, memory)
        hubs_first = reverse.hubs_first(graph.degrees())
        np.testing.assert_array_equal(download(device, offsets, n + 1, np.int64), reverse.offsets)
        np.testing.assert_array_equal(download(device, targets, m, np.int32), hubs_first.targets)


@pytest.mark.parametrize("known", [False, True], ids=["checked", "known"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_bottom_up_inputs_match_the_host(device, name, known):
    """In-offsets, in-lists hubs first, symmetry and the active list: what
    push_pull.bottom_up_inputs builds on the host; with the symmetry checked on the
    device, or known beforehand (the graph was checked on the host first)."""
    graph = GRAPHS[name]()
    n, m = graph.num_vertices, graph.num_edges
    reverse, symmetric, active = bottom_up_inputs(graph)
    uploaded = graph if known else CSRGraph(graph.offsets, graph.targets)
    assert uploaded.known_symmetric == (known and symmetric)
    with Buffers(device) as memory:
        on_device = DeviceGraph.upload(uploaded, memory)
        inputs = graph_prep.device_bottom_up_inputs(device, on_device, memory)
        assert inputs.symmetric == symmetric
        assert (inputs.in_offsets is on_device.offsets) == symmetric
        np.testing.assert_array_equal(download(device, inputs.in_offsets, n + 1, np.int64),
                                      reverse.offsets)
        np.testing.assert_array_equal(download(device, inputs.in_edges, m, np.int32),
                                      reverse.targets)
        assert inputs.active_count == active.size
        np.testing.assert_array_equal(download(device, inputs.active, active.size, np.int32),
                                      active)


def test_symmetry_is_checked_arc_by_arc():
    """The graphs above include both kinds, and the one that fools a degree check."""
    assert bottom_up_inputs(GRAPHS["shuffled-symmetric"]())[1]
    assert not bottom_up_inputs(GRAPHS["cycle-77"]())[1]
    assert not bottom_up_inputs(GRAPHS["awkward"]())[1]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_edge_records_and_rows_match_the_host(device, name):
    graph = GRAPHS[name]()
    n, m = graph.num_vertices, graph.num_edges
    records = build_edge_records(graph)
    most = int(graph.degrees().max(initial=0))
    width = 1 << max(most - 1, 0).bit_length()
    with Buffers(device) as memory:
        on_device = DeviceGraph.upload(graph, memory)
        built = graph_prep.device_edge_records(device, on_device, memory)
        assert download(device, built, m, records.dtype).tobytes() == records.tobytes()
        if width <= 64:
            rows = graph_prep.device_rows(device, on_device, width, memory)
            got = download(device, rows, max(n, 1) * width, np.int32)
            np.testing.assert_array_equal(got, build_rows(graph, width).ravel())
        if 2 <= width <= 64:  # marked for halves
            rows = graph_prep.device_rows(device, on_device, width, memory, halves=True)
            got = download(device, rows, max(n, 1) * width, np.int32)
            np.testing.assert_array_equal(got, build_rows(graph, width, halves=True).ravel())


def test_steps_read_what_the_host_would_build(device):
    """Steps 5 to 7 set up on the device: their inputs are the host functions' arrays."""
    for graph in (awkward_graph(), kronecker(9, seed=3, progress=False)):
        reverse, symmetric, active = bottom_up_inputs(graph)
        n, m = graph.num_vertices, graph.num_edges
        with PersistentBFS(device, graph, rows=False) as step:
            records = build_edge_records(graph)
            assert download(device, step.records, m, records.dtype).tobytes() == records.tobytes()
        for step_class in (PushPullBFS, AdaptiveBFS):
            with step_class(device, graph) as step:
                assert step.symmetric == symmetric and step.active_count == active.size
                assert (step.in_offsets is step.offsets) == symmetric
                np.testing.assert_array_equal(download(device, step.in_edges, m, np.int32),
                                              reverse.targets)
                np.testing.assert_array_equal(
                    download(device, step.in_offsets, n + 1, np.int64), reverse.offsets)
                np.testing.assert_array_equal(download(device, step.active, active.size,
                                                       np.int32), active)
                out = reverse.targets if (symmetric and step_class is PushPullBFS) else graph.targets
                np.testing.assert_array_equal(download(device, step.edges, m, np.int32), out)
    with PersistentBFS(device, grid2d(6, 5)) as step:  # rows
        rows = build_rows(grid2d(6, 5), step.row_width).ravel()
        np.testing.assert_array_equal(download(device, step.rows, rows.size, np.int32), rows)


def test_set_up_frees_what_it_built_on_failure(device, monkeypatch):
    """A set-up that fails after the preparation leaves nothing allocated."""
    allocated = []
    malloc = device.malloc
    monkeypatch.setattr(device, "malloc", lambda nbytes: allocated.append(malloc(nbytes))
                        or allocated[-1])
    with pytest.raises(Exception, match="block_size"):
        AdaptiveBFS(device, awkward_graph(), block_size=100)
    assert allocated and all(buf.freed for buf in allocated)


# -- on a GPU ------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("tiles", sorted(TILES))
def test_gpu_scan_and_radix_sort(gpu, tiles):
    block, scan_items, radix_items = TILES[tiles]
    prep = GraphPrep(gpu, block_size=block, scan_items=scan_items, radix_items=radix_items)
    rng = np.random.default_rng(9)
    count = 300_001
    values = rng.integers(0, 2**40, count, dtype=np.uint64)
    keys = rng.integers(0, 2**21, count, dtype=np.uint64).astype(np.uint32)
    with Buffers(gpu) as scratch:
        buf = scratch.alloc(8 * (count + 1))
        gpu.memcpy_htod(buf, np.append(values, np.uint64(0)))
        prep.exclusive_scan(buf, count, scratch)
        want = np.concatenate([[0], np.cumsum(values, dtype=np.uint64)])
        np.testing.assert_array_equal(download(gpu, buf, count + 1, np.uint64), want)
        bufs = [scratch.upload(keys), scratch.upload(np.arange(count, dtype=np.int32)),
                scratch.alloc(4 * count), scratch.alloc(4 * count)]
        _, ordered = prep.radix_sort(bufs[0], bufs[1], count, 21, bufs[2], bufs[3], scratch)
        np.testing.assert_array_equal(download(gpu, ordered, count, np.int32),
                                      np.argsort(keys, kind="stable"))


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS) + ["kronecker-16"])
def test_gpu_matches_the_host(gpu, name):
    graph = kronecker(16, progress=False) if name == "kronecker-16" else GRAPHS[name]()
    n, m = graph.num_vertices, graph.num_edges
    reverse, symmetric, active = bottom_up_inputs(graph)
    records = build_edge_records(graph)
    with Buffers(gpu) as memory:
        on_device = DeviceGraph.upload(graph, memory)
        inputs = graph_prep.device_bottom_up_inputs(gpu, on_device, memory)
        assert inputs.symmetric == symmetric and inputs.active_count == active.size
        np.testing.assert_array_equal(download(gpu, inputs.in_offsets, n + 1, np.int64),
                                      reverse.offsets)
        np.testing.assert_array_equal(download(gpu, inputs.in_edges, m, np.int32),
                                      reverse.targets)
        np.testing.assert_array_equal(download(gpu, inputs.active, active.size, np.int32),
                                      active)
        built = graph_prep.device_edge_records(gpu, on_device, memory)
        assert download(gpu, built, m, records.dtype).tobytes() == records.tobytes()


# -- compile checks ------------------------------------------------------------------------

#: AMD targets and their wavefront widths; NVIDIA targets.
AMD_TARGETS = {"gfx90a": 64, "gfx1030": 32}
NVIDIA_TARGETS = ["sm_80", "sm_90"]
SOURCE = kernel_source(graph_prep.KERNEL_FILE)
DEFINES = {"PREP_BLOCK_SIZE": graph_prep.BLOCK_SIZE, "SCAN_ITEMS": graph_prep.SCAN_ITEMS,
           "RADIX_ITEMS": graph_prep.RADIX_ITEMS}


@pytest.mark.parametrize("arch", sorted(AMD_TARGETS))
def test_compiles_with_hiprtc(arch):
    hiprtc = hiprtc_or_skip()
    code = hiprtc.compile_for_arch(SOURCE, arch, graph_prep.KERNEL_FILE, DEFINES,
                                   headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch", NVIDIA_TARGETS)
def test_compiles_with_nvrtc_without_warnings(arch):
    """Machine code for each target, and no warning (the log is shown at every set-up)."""
    nvrtc = nvrtc_or_skip()
    cubin, log = nvrtc.compile_program(SOURCE, arch, graph_prep.KERNEL_FILE, DEFINES,
                                       headers=kernel_headers())
    assert cubin[:4] == b"\x7fELF"
    assert log == ""


def test_a_block_size_the_scan_cannot_take_is_a_compile_error(device):
    from rodinia_bfs.errors import CompileError

    with pytest.raises(CompileError, match="power of two"):
        GraphPrep(device, block_size=96)


# -- the measurement -----------------------------------------------------------------------

def test_prep_costs_runs_on_the_emulator(tmp_path):
    """benchmarks/prep_costs.py on a tiny graph: the JSON and the table come out."""
    command = [sys.executable, str(ROOT / "benchmarks" / "prep_costs.py"), "--backend", "cpu",
               "--generate", "kronecker:8", "--repeats", "2", "--steps", "persistent,push_pull,adaptive",
               "-o", str(tmp_path)]
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
    results = json.loads((tmp_path / "prep_costs.json").read_text())
    rows = results["rows"]
    assert {row["step"] for row in rows} == {"persistent", "push_pull", "adaptive"}
    for row in rows:
        assert row["host_ms"]["median"] > 0 and row["device_ms"]["median"] > 0
    assert "| step | graph |" in (tmp_path / "table.md").read_text()
