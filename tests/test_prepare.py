"""Prepare once, search many times: rodinia_bfs.prepare and PreparedGraph.

The prepared graph holds the step the bench and the examples build
(``STEPS[name](device, graph)``); its searches download into pinned buffers it reuses
(or the caller's, or new ones), skip the parents when asked, search from several sources
and stop at a depth limit (checked against the CPU reference on the emulator, warp 32
and 64, for every step that takes them), and leave results on the device behind DLPack.
"""

import ctypes
import gc
import re
import weakref

import numpy as np
import pytest
import scipy.sparse.csgraph

import rodinia_bfs
from rodinia_bfs import api, dlpack
from rodinia_bfs.errors import ArgumentError, ArgumentTypeError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_frontier, bfs_reference, bfs_serial
from rodinia_bfs.validate import check_levels, check_parents
from rodinia_bfs.variants import STEPS

from helpers import awkward_graph

#: Every step: each searches from several sources and stops at a depth limit.
MULTI_SOURCE_STEPS = ("rodinia", "queue", "privatized", "balanced", "edge_centric",
                      "persistent_basic", "persistent", "push_pull_basic", "push_pull",
                      "adaptive_basic", "adaptive", "multi_gpu", "out_of_memory")


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    return api.open_device("cpu", warp_size=request.param)[0]


@pytest.fixture(scope="module")
def graph():
    """Kronecker scale 9 (hubs: balanced's large queue), plus a path and isolated
    vertices hung off it (several components, a long tail)."""
    core = kronecker(9, seed=4)
    n = core.num_vertices
    src, dst = core.edges()
    tail = np.arange(n, n + 40)
    src = np.r_[src, [7], tail[:-1]]
    dst = np.r_[dst, [n], tail[1:]]
    arcs = CSRGraph.from_edges(src, dst, n + 45)  # 5 isolated vertices at the end
    return arcs.symmetrize()


def scipy_multi_levels(graph, starts, depth_limit=None):
    """Distance to the nearest start by scipy, -1 where none is reachable or it is
    beyond the limit: an implementation we did not write."""
    distances = scipy.sparse.csgraph.shortest_path(graph.to_scipy(), unweighted=True,
                                                   indices=list(starts)).min(axis=0)
    if depth_limit is not None:
        distances[distances > depth_limit] = np.inf
    return np.where(np.isinf(distances), -1, distances).astype(np.int32)


# -- the reference ----------------------------------------------------------------------

SEARCHES = [
    ({"sources": [3, 300, 3, 520]}, [3, 300, 520], None),
    ({"sources": [0], "depth_limit": 2}, [0], 2),
    ({"source": 5, "depth_limit": 0}, [5], 0),
    ({"source": 530, "depth_limit": 6}, [530], 6),
    ({"sources": np.arange(0, 550, 37), "depth_limit": 1}, list(range(0, 550, 37)), 1),
    ({"sources": [545, 546]}, [545, 546], None),  # isolated vertices only
]


@pytest.mark.parametrize("kwargs, starts, depth", SEARCHES)
def test_reference_multi_source_and_depth_limit(graph, kwargs, starts, depth):
    serial, frontier = bfs_serial(graph, **kwargs), bfs_frontier(graph, **kwargs)
    expected = scipy_multi_levels(graph, starts, depth)
    np.testing.assert_array_equal(serial.levels, expected)
    np.testing.assert_array_equal(frontier.levels, expected)
    np.testing.assert_array_equal(frontier.parents, serial.parents)
    assert all(serial.parents[s] == s for s in starts)
    check_parents(graph, kwargs.get("source"), serial.levels, serial.parents,
                  sources=kwargs.get("sources"), depth_limit=depth)


def test_the_forest_check_can_fail(graph):
    result = bfs_reference(graph, sources=[3, 300])
    parents = result.parents.copy()
    parents[300] = 3  # a source that is not its own root
    with pytest.raises(RodiniaBFSError, match="the source 300 has parent 3"):
        check_parents(graph, None, result.levels, parents, sources=[3, 300])
    limited = bfs_reference(graph, 3, depth_limit=1)
    with pytest.raises(RodiniaBFSError, match="rule 3"):  # without the limit, it is wrong
        check_parents(graph, 3, limited.levels, limited.parents)


# -- every step that takes them, against the reference --------------------------------


@pytest.mark.parametrize("name, options", [
    *[(name, {}) for name in MULTI_SOURCE_STEPS],
    ("balanced", {"block_threshold": 64, "block_piece": 48}),  # hubs cut into pieces
    ("queue", {"block_size": 32, "max_blocks": 1}),  # the kernel's grid-stride loop
])
def test_steps_search_from_several_sources_and_stop_at_a_depth(device, graph, name, options):
    with rodinia_bfs.prepare(graph, name, device, **options) as prepared:
        assert prepared.step.takes_search_options()
        for kwargs, starts, depth in SEARCHES:
            levels, parents = prepared.bfs(**kwargs, copy=True)
            check_levels(levels, scipy_multi_levels(graph, starts, depth))
            if parents is not None:
                check_parents(graph, kwargs.get("source"), levels, parents,
                              sources=kwargs.get("sources"), depth_limit=depth)
        # A plain search after the others starts from a clean state.
        levels, _ = prepared.bfs(11)
        check_levels(levels, bfs_reference(graph, 11).levels)


def test_a_large_start_vertex_goes_in_as_all_its_pieces(device, graph):
    hub = int(np.argmax(graph.degrees()))
    with rodinia_bfs.prepare(graph, "balanced", device, block_threshold=64,
                             block_piece=16) as prepared:
        assert prepared.step.queue_of(int(graph.degrees()[hub])) == "large"
        levels, parents = prepared.bfs(sources=[hub, 2, hub + 1], depth_limit=3)
        check_levels(levels, scipy_multi_levels(graph, [hub, 2, hub + 1], 3))
        check_parents(graph, None, levels, parents, sources=[hub, 2, hub + 1], depth_limit=3)


def test_steps_that_cannot_refuse_in_one_line():
    """Each step either takes the options or refuses them, naming those that do."""
    able = [name for name, step in STEPS.items() if step.takes_search_options()]
    assert set(MULTI_SOURCE_STEPS) <= set(able)
    for name, step in STEPS.items():
        if name in able:
            step.check_search_options([1, 2], 3)
            continue
        for kwargs, asked in (({"sources": [1]}, "sources="), ({"depth_limit": 2}, "depth_limit="),
                              ({"sources": [1], "depth_limit": 2}, "sources= and depth_limit=")):
            message = (f"the {name} step does not support {asked} yet; variants that do: "
                       f"reference, {', '.join(able)}")
            with pytest.raises(ArgumentError, match=re.escape(message)):
                step.check_search_options(**kwargs)


def test_a_step_that_writes_its_own_reset_does_not_inherit_the_claim():
    class OwnReset(STEPS["balanced"]):
        name = "own_reset"

        def _reset(self, source):
            return super()._reset(source)

    assert STEPS["balanced"].takes_search_options()
    assert not OwnReset.takes_search_options()
    able = ", ".join(name for name, step in STEPS.items() if step.takes_search_options())
    with pytest.raises(ArgumentError, match=re.escape(
            f"the own_reset step does not support sources= and depth_limit= yet; "
            f"variants that do: reference, {able}")):
        OwnReset.check_search_options([1, 2], 3)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"sources": []}, ArgumentError, "sources is empty"),
    ({"source": 1, "sources": [2]}, ArgumentError, "give a source or sources=[...], not both"),
    ({}, ArgumentError, "a search needs a source"),
    ({"sources": [1, 9999]}, ArgumentError, "sources[1] = 9999 is outside the graph"),
    ({"sources": [1.5]}, ArgumentError, "sources[0] = 1.5 is not an integer vertex id"),
    ({"sources": [True]}, ArgumentTypeError, "got bools"),
    ({"source": 1, "depth_limit": -1}, ArgumentError, "depth_limit must be 0 or more levels"),
    ({"source": 1, "depth_limit": 1.5}, ArgumentError, "depth_limit must be an integer"),
    ({"source": 1, "depth_limit": True}, ArgumentTypeError, "depth_limit must be an integer"),
])
@pytest.mark.parametrize("variant", ["reference", "queue"])
def test_bad_search_arguments_are_one_line(graph, variant, kwargs, error, message):
    with rodinia_bfs.prepare(graph, variant, "cpu") as prepared:
        with pytest.raises(error, match=re.escape(message)):
            prepared.bfs(**kwargs)


# -- the prepared graph ------------------------------------------------------------------


def test_prepare_holds_the_step_and_closes_it(graph):
    with rodinia_bfs.prepare(graph, "queue", "cpu") as prepared:
        assert type(prepared.step) is STEPS["queue"] and prepared.variant == "queue"
        assert prepared.device is api._device_for("cpu")  # one device per backend
        for source in (0, 17, 300):
            levels, parents = prepared.bfs(source, copy=True)
            check_levels(levels, bfs_reference(graph, source).levels)
            check_parents(graph, source, levels, parents)
        assert prepared.last_result.iterations > 0
    assert prepared.step._memory.buffers == []  # freed
    with pytest.raises(ArgumentError, match="this prepared graph is closed"):
        prepared.bfs(0)
    assert "closed" in repr(prepared)


def test_results_land_in_reused_pinned_buffers(graph):
    with rodinia_bfs.prepare(graph, "privatized", "cpu") as prepared:
        first, first_parents = prepared.bfs(3)
        kept = first.copy()
        second, second_parents = prepared.bfs(300)
        assert np.shares_memory(first, second) and np.shares_memory(first_parents, second_parents)
        assert not first.flags.writeable and not second_parents.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            second[0] = 5
        # The first result was overwritten by the second search, as documented.
        np.testing.assert_array_equal(first, bfs_reference(graph, 300).levels)
        assert not np.array_equal(kept, first)
        own, own_parents = prepared.bfs(3, copy=True)
        assert own.flags.writeable and not np.shares_memory(own, second)
        np.testing.assert_array_equal(own, kept)


def test_results_into_the_callers_arrays(graph):
    n = graph.num_vertices
    for variant in ("balanced", "reference"):
        with rodinia_bfs.prepare(graph, variant, "cpu") as prepared:
            levels, parents = np.empty(n, np.int32), np.empty(n, np.int32)
            got = prepared.bfs(9, out=(levels, parents))
            assert got[0] is levels and got[1] is parents
            np.testing.assert_array_equal(levels, bfs_reference(graph, 9).levels)
            check_parents(graph, 9, levels, parents)
            for bad in (np.empty(n, np.int64), np.empty(n - 1, np.int32), np.empty(2 * n, np.int32)[::2]):
                with pytest.raises(ArgumentError, match=re.escape(f"out levels: need a writeable "
                                                                  f"C-contiguous int32 array of shape ({n},)")):
                    prepared.bfs(9, out=(bad, None))


def test_parents_false_skips_the_download(graph, monkeypatch):
    n = graph.num_vertices
    with rodinia_bfs.prepare(graph, "queue", "cpu") as prepared:
        device = prepared.device
        copies = []
        download = device.memcpy_dtoh_async

        def spy(dst, src, stream):
            copies.append(dst.nbytes)
            return download(dst, src, stream)

        monkeypatch.setattr(device, "memcpy_dtoh_async", spy)
        levels, parents = prepared.bfs(5, parents=False)
        assert parents is None and copies.count(4 * n) == 1
        copies.clear()
        levels, parents = prepared.bfs(5)
        assert parents is not None and copies.count(4 * n) == 2
    monkeypatch.undo()


def test_validate_checks_every_search(graph, monkeypatch):
    step = STEPS["queue"]
    results = step.results

    def wrong(self, *args, **kwargs):
        levels, parents = results(self, *args, **kwargs)
        levels[int(np.argmax(levels))] += 1
        return levels, parents

    with rodinia_bfs.prepare(graph, "queue", "cpu", validate=True) as prepared:
        prepared.bfs(sources=[1, 2], depth_limit=3)
        monkeypatch.setattr(step, "results", wrong)
        with pytest.raises(rodinia_bfs.ValidationError):
            prepared.bfs(sources=[1, 2], depth_limit=3)


def test_bfs_is_prepare_and_one_search(graph):
    levels, parents = rodinia_bfs.bfs(graph, 4, variant="rodinia", backend="cpu")
    assert parents is None and levels.flags.writeable and levels.base is None
    np.testing.assert_array_equal(levels, bfs_reference(graph, 4).levels)


# -- results on the device: DLPack -------------------------------------------------------

_get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
    ("PyCapsule_GetName", ctypes.pythonapi))
_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def test_numpy_takes_the_emulators_levels_without_a_copy(graph):
    with rodinia_bfs.prepare(graph, "balanced", "cpu") as prepared:
        levels, parents = prepared.bfs(sources=[2, 400], copy=True)
        on_device = prepared.device_levels()
        assert on_device.__dlpack_device__() == (1, 0)  # kDLCPU
        viewed = np.from_dlpack(on_device)
        assert viewed.ctypes.data == on_device.ptr == prepared.step.levels.ptr  # no copy
        assert viewed.dtype == np.int32 and viewed.shape == (graph.num_vertices,)
        np.testing.assert_array_equal(viewed, levels)
        np.testing.assert_array_equal(np.from_dlpack(prepared.device_parents()), parents)
        # device_result=True: the same arrays, nothing downloaded; then a new search
        # shows through the view.
        levels_on_device, parents_on_device = prepared.bfs(7, device_result=True)
        assert levels_on_device.ptr == on_device.ptr and parents_on_device is not None
        np.testing.assert_array_equal(viewed, bfs_reference(graph, 7).levels)


def test_the_capsule_and_its_struct(graph):
    with rodinia_bfs.prepare(graph, "queue", "cpu") as prepared:
        prepared.bfs(1)
        array = prepared.device_levels()
        before = len(dlpack._exported)
        capsule = array.__dlpack__(stream=None, max_version=(1, 0))
        assert _get_name(capsule) == b"dltensor"
        managed = dlpack.DLManagedTensor.from_address(_get_pointer(capsule, b"dltensor"))
        tensor = managed.dl_tensor
        assert tensor.data == array.ptr and tensor.ndim == 1 and tensor.byte_offset == 0
        assert (tensor.device.device_type, tensor.device.device_id) == (1, 0)
        assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (0, 32, 1)
        assert tensor.shape[0] == graph.num_vertices and not tensor.strides
        assert len(dlpack._exported) == before + 1
        del capsule, managed, tensor  # never consumed: the capsule's destructor frees it
        gc.collect()
        assert len(dlpack._exported) == before
        with pytest.raises(BufferError, match="copy"):
            array.__dlpack__(copy=True)
        with pytest.raises(BufferError, match="device"):
            array.__dlpack__(dl_device=(2, 0))


def test_a_view_keeps_the_prepared_graph_alive(graph):
    prepared = rodinia_bfs.prepare(graph, "queue", "cpu")
    prepared.bfs(1)
    viewed = np.from_dlpack(prepared.device_levels())
    alive = weakref.ref(prepared)
    del prepared
    gc.collect()
    assert alive() is not None  # the capsule's tensor holds it
    expected = bfs_reference(graph, 1).levels
    np.testing.assert_array_equal(viewed, expected)
    del viewed
    gc.collect()
    assert alive() is None  # the consumer called the deleter: nothing holds it now


class _FakeDevice:
    def __init__(self, backend, device_id=0):
        self.backend, self.device_id = backend, device_id


class _FakeBuffer:
    ptr = 0x7F0000001000


def test_the_protocols_on_the_gpu_backends():
    """The descriptors a CUDA or ROCm consumer reads (the memory behind them is only
    read on a GPU: see test_gpu_consumers)."""
    on_cuda = dlpack.DeviceArray(_FakeBuffer(), 1000, _FakeDevice("cuda", 1), owner=None)
    assert on_cuda.__dlpack_device__() == (2, 1)  # kDLCUDA
    assert on_cuda.__cuda_array_interface__ == {
        "shape": (1000,), "typestr": "<i4", "data": (0x7F0000001000, False), "version": 3,
        "strides": None, "stream": None}
    on_rocm = dlpack.DeviceArray(_FakeBuffer(), 1000, _FakeDevice("hip"), owner=None)
    assert on_rocm.__dlpack_device__() == (10, 0)  # kDLROCM
    assert not hasattr(on_rocm, "__cuda_array_interface__")
    capsule = on_rocm.__dlpack__()
    tensor = dlpack.DLManagedTensor.from_address(_get_pointer(capsule, b"dltensor")).dl_tensor
    assert (tensor.device.device_type, tensor.data, tensor.shape[0]) == (10, 0x7F0000001000, 1000)


@pytest.mark.parametrize("kwargs, message", [
    ({"device_result": True}, "device_result=True needs a GPU step"),
])
def test_the_reference_has_no_device(graph, kwargs, message):
    with rodinia_bfs.prepare(graph, "reference") as prepared:
        with pytest.raises(ArgumentError, match=re.escape(message)):
            prepared.bfs(0, **kwargs)
        with pytest.raises(ArgumentError, match="need a GPU step"):
            prepared.device_levels()


def test_device_results_need_a_search_and_parents(graph):
    with rodinia_bfs.prepare(graph, "rodinia", "cpu") as prepared:
        with pytest.raises(ArgumentError, match="no search yet"):
            prepared.device_levels()
        prepared.bfs(0)
        with pytest.raises(ArgumentError, match="the rodinia step computes no parents"):
            prepared.device_parents()


@pytest.mark.gpu
@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_gpu_consumers_take_the_levels_without_a_copy(gpu, library):
    """On a GPU: CuPy and PyTorch view the levels and parents in place (same address)
    and read the same values as the download."""
    module = pytest.importorskip(library)
    graph = kronecker(12, seed=3)
    with rodinia_bfs.prepare(graph, "queue", gpu) as prepared:
        levels, parents = prepared.bfs(sources=[0, 5, 77], copy=True)
        for on_device, host in ((prepared.device_levels(), levels),
                                (prepared.device_parents(), parents)):
            viewed = module.from_dlpack(on_device)
            address = viewed.data.ptr if library == "cupy" else viewed.data_ptr()
            assert address == on_device.ptr
            back = module.asnumpy(viewed) if library == "cupy" else viewed.cpu().numpy()
            np.testing.assert_array_equal(back, host)
        if gpu.backend == "cuda" and library == "cupy":
            viewed = module.asarray(prepared.device_levels())  # __cuda_array_interface__
            assert viewed.data.ptr == prepared.device_levels().ptr
            np.testing.assert_array_equal(module.asnumpy(viewed), levels)


@pytest.mark.gpu
@pytest.mark.parametrize("name", MULTI_SOURCE_STEPS)
def test_gpu_prepared_searches(gpu, graph, name):
    """On a GPU: uploads of the read-only graph arrays, downloads into the reused pinned
    buffers and the caller's arrays, several sources and depth limits."""
    with rodinia_bfs.prepare(graph, name, gpu) as prepared:
        for kwargs, starts, depth in SEARCHES:
            levels, parents = prepared.bfs(**kwargs)
            check_levels(levels, scipy_multi_levels(graph, starts, depth))
            if parents is not None:
                check_parents(graph, kwargs.get("source"), levels, parents,
                              sources=kwargs.get("sources"), depth_limit=depth)
        n = graph.num_vertices
        mine = (np.empty(n, np.int32), np.empty(n, np.int32))
        levels, _ = prepared.bfs(5, out=mine)
        assert levels is mine[0]
        check_levels(levels, bfs_reference(graph, 5).levels)


def test_readme_prepare_example_runs(capsys):
    """The README's prepare-once example, run as it is written there."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = text.split("<!-- prepare-example-begin -->")[1].split("<!-- prepare-example-end -->")[0]
    code = block.split("```python")[1].split("```")[0]
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["source 0: 90,000 reached, the farthest 598 edges away",
                     "source 45150: 90,000 reached, the farthest 300 edges away",
                     "source 89999: 90,000 reached, the farthest 598 edges away"]
