"""The Python API and the one run path the command line, the bench and the examples share.

``rodinia_bfs.bfs`` on every kind of graph argument, checked against scipy; its errors
are library exceptions; ``plan`` puts the default variant in one place; ``open_device``
handles the emulator's warp size; the command line and the bench go through these
helpers, and the reference runs only when asked for. The README's snippet runs here.
"""

import functools
import re

import numpy as np
import pytest
import scipy.sparse

import rodinia_bfs
from rodinia_bfs import api
from rodinia_bfs.cli import main
from rodinia_bfs.errors import DeviceError, RodiniaBFSError, ValidationError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.formats import save_graph
from rodinia_bfs.validate import check_parents
from rodinia_bfs.variants import STEPS

from helpers import ROOT, awkward_graph, scipy_levels


@pytest.fixture(scope="module")
def cpu():
    return api.open_device("cpu")[0]


@functools.cache
def random_matrix(n=3000, density=0.002, seed=1):
    """A random sparse matrix, made once per test session (the tests only read it). A
    NumPy Generator draws its entries: with a seed alone, scipy draws them from a
    permutation of all n * n positions (0.5 s at n = 3000)."""
    return scipy.sparse.random(n, n, density=density, format="csr",
                               random_state=np.random.default_rng(seed))


# -- bfs --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [None, "reference", "rodinia", "queue"])
def test_bfs_on_a_scipy_matrix(variant):
    matrix = random_matrix()
    graph = CSRGraph.from_scipy(matrix)
    levels, parents = rodinia_bfs.bfs(matrix, 17, variant=variant, backend="cpu")
    np.testing.assert_array_equal(levels, scipy_levels(graph, 17))
    assert levels.dtype == np.int32
    name = variant or api.DEFAULT_VARIANT
    if name == "reference" or STEPS[name].returns_parents:
        assert parents.dtype == np.int32
        check_parents(graph, 17, levels, parents)
    else:
        assert parents is None


def test_bfs_on_a_graph_a_path_and_an_open_device(tmp_path, cpu):
    graph = awkward_graph()
    expected = scipy_levels(graph, 650)
    levels, _ = rodinia_bfs.bfs(graph, 650, variant="reference")
    np.testing.assert_array_equal(levels, expected)
    path = tmp_path / "g.mtx"
    save_graph(graph, path)
    np.testing.assert_array_equal(rodinia_bfs.bfs(path, 650, variant="reference")[0], expected)
    np.testing.assert_array_equal(rodinia_bfs.bfs(str(path), 650, backend=cpu)[0], expected)


def test_bfs_on_a_gpu_like_warp_of_64():
    device = api.open_device("cpu", warp_size=64)[0]
    assert device.warp_size == 64
    matrix = random_matrix(1500, 0.004, seed=2)
    graph = CSRGraph.from_scipy(matrix)
    levels, parents = rodinia_bfs.bfs(matrix, 3, backend=device, validate=True)
    np.testing.assert_array_equal(levels, scipy_levels(graph, 3))
    check_parents(graph, 3, levels, parents)


def test_bfs_validate_raises_on_a_wrong_result(monkeypatch):
    """validate=True raises (never exits) when a step gets a level wrong."""
    step = STEPS["queue"]
    results = step.results

    def wrong(self, *args, **kwargs):
        levels, parents = results(self, *args, **kwargs)
        levels[int(np.argmax(levels))] += 1
        return levels, parents

    monkeypatch.setattr(step, "results", wrong)
    matrix = random_matrix(800, 0.01)
    rodinia_bfs.bfs(matrix, 0, variant="queue", backend="cpu")  # not checked: no error
    with pytest.raises(ValidationError):
        rodinia_bfs.bfs(matrix, 0, variant="queue", backend="cpu", validate=True)


@pytest.mark.parametrize("graph, source, kwargs, message", [
    (CSRGraph.from_edges([0], [1], 2), 5, {}, "source 5 is outside the graph"),
    (CSRGraph.from_edges([0], [1], 2), 0, {"variant": "warp-drive"}, "unknown variant"),
    (CSRGraph.from_edges([0], [1], 2), 0, {"variant": "all"}, "run one variant"),
    (CSRGraph.from_edges([0], [1], 2), 0, {"backend": "tpu"}, "unknown backend 'tpu'"),
    (scipy.sparse.random(3, 4, density=0.5, format="csr"), 0, {}, "is square"),
    ([[0, 1], [1, 0]], 0, {}, "expected a CSRGraph, a scipy.sparse matrix or a file path"),
    ("no-such-file.mtx", 0, {}, "no such file"),
])
def test_bfs_errors_are_library_errors(graph, source, kwargs, message):
    with pytest.raises(RodiniaBFSError, match=re.escape(message)):
        rodinia_bfs.bfs(graph, source, **kwargs)


def test_readme_snippet_runs():
    """The README's five lines, run as they are written there."""
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- api-example-begin -->")[1].split("<!-- api-example-end -->")[0]
    code = block.strip().removeprefix("```python").removesuffix("```")
    lines = [line for line in code.strip().splitlines() if line.strip()]
    assert len(lines) == 5
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    levels, parents, matrix = namespace["levels"], namespace["parents"], namespace["matrix"]
    graph = CSRGraph.from_scipy(matrix)
    np.testing.assert_array_equal(levels, scipy_levels(graph, 0))
    if parents is not None:  # the default GPU step, or the reference, returns a tree
        check_parents(graph, 0, levels, parents)


def test_readme_install_lines_follow_the_rule():
    """Each ROCm release in the README's table gets the command `rodinia-bfs info` gives."""
    from rodinia_bfs.rocm import install_command

    text = (ROOT / "README.md").read_text()
    table = text.split("<!-- rocm-install-begin -->")[1].split("<!-- rocm-install-end -->")[0]
    rows = re.findall(r"^\| (\d+)\.(\d+) \| `(.*)` \|$", table, flags=re.M)
    assert len(rows) >= 6
    for major, minor, command in rows:
        assert command == install_command((int(major), int(minor)))


# -- scipy conversions --------------------------------------------------------------------


def test_scipy_round_trip():
    graph = awkward_graph()  # duplicates, self loops, one-way arcs
    matrix = graph.to_scipy()
    assert matrix.shape == (graph.num_vertices,) * 2 and matrix.nnz == graph.num_arcs
    back = CSRGraph.from_scipy(matrix)
    assert back.directed and back == graph
    undirected = graph.symmetrize()
    back = CSRGraph.from_scipy(undirected.to_scipy())
    assert not back.directed and back == undirected
    assert back.edge_counts() == undirected.edge_counts()


def test_from_scipy_formats_and_direction():
    coo = scipy.sparse.coo_matrix(([1, 1, 1, 0], ([0, 0, 1, 2], [1, 1, 2, 2])), shape=(4, 4))
    graph = CSRGraph.from_scipy(coo)  # the COO duplicate is one entry; a stored zero an edge
    assert graph.directed and graph.edges()[0].tolist() == [0, 1, 2]
    assert graph.targets.tolist() == [1, 2, 2]
    both = CSRGraph.from_scipy(coo, directed=False)
    assert not both.directed and both.num_arcs == 5  # 0-1, 1-2 both ways, the loop once
    symmetric = scipy.sparse.csr_array(np.array([[0, 1], [1, 0]]))
    assert not CSRGraph.from_scipy(symmetric).directed
    assert CSRGraph.from_scipy(symmetric, directed=True).directed
    with pytest.raises(TypeError):
        CSRGraph.from_scipy(np.eye(3))


# -- plan and open_device: the default in one place ---------------------------------------


def test_default_variant_is_a_step():
    assert api.DEFAULT_VARIANT in STEPS


@pytest.mark.parametrize("backend", ["hip", "cuda", "cpu"])
def test_a_named_backend_without_variant_runs_the_default_step(backend):
    chosen = api.plan(None, backend)
    assert chosen.variants == (api.DEFAULT_VARIANT,) and chosen.backend == backend
    assert api.DEFAULT_VARIANT in chosen.variant_reason


def test_auto_without_variant(monkeypatch):
    from rodinia_bfs import runtime

    monkeypatch.setattr(runtime, "choose_backend", lambda b: ("cpu", "auto chose cpu: no GPU"))
    chosen = api.plan(None, "auto")
    assert chosen.variants == ("reference",) and chosen.backend is None
    assert "no GPU found" in chosen.variant_reason
    monkeypatch.setattr(runtime, "choose_backend", lambda b: ("hip", "auto chose hip: 1 GPU"))
    chosen = api.plan(None, "auto")
    assert chosen.variants == (api.DEFAULT_VARIANT,) and chosen.backend == "hip"
    assert chosen.backend_reason == "auto chose hip: 1 GPU"


def test_plan_of_named_variants():
    assert api.plan("reference", "cuda") == api.Plan(("reference",), None)
    everything = api.plan("all", "cpu")
    assert everything.variants == ("reference", *STEPS) and everything.backend == "cpu"
    with pytest.raises(RodiniaBFSError, match="unknown variant 'nope'"):
        api.plan("nope", "cpu")


def test_warp_size_belongs_to_the_emulator(monkeypatch):
    with pytest.raises(DeviceError, match="only be chosen for the cpu emulator"):
        api.open_device("cuda", warp_size=64)
    from rodinia_bfs import runtime

    monkeypatch.setattr(runtime, "choose_backend", lambda b: ("cuda", "auto chose cuda: 1 GPU"))
    monkeypatch.setattr(runtime, "get_device", lambda name, **options: (name, options))
    device, why = api.open_device("auto", warp_size=64)
    assert device == ("cuda", {}) and "warp size 64 ignored" in why


# -- the command line and the bench take this path ---------------------------------------


def test_cli_runs_through_run_variant_and_computes_no_reference_unasked(monkeypatch, capsys):
    import rodinia_bfs.reference
    import rodinia_bfs.validate

    ran = []
    run_variant = api.run_variant
    monkeypatch.setattr(api, "run_variant",
                        lambda name, *a, **k: ran.append(name) or run_variant(name, *a, **k))

    def refuse(*args, **kwargs):
        raise AssertionError("the CPU reference ran without --validate")

    monkeypatch.setattr(rodinia_bfs.reference, "bfs_reference", refuse)
    monkeypatch.setattr(rodinia_bfs.validate, "bfs_reference", refuse)
    assert main(["run", "--variant", "rodinia", "--backend", "cpu"]) == 0
    assert ran == ["rodinia"]
    with pytest.raises(AssertionError, match="without --validate"):
        main(["run", "--variant", "rodinia", "--backend", "cpu", "--validate"])


def test_cli_backend_without_variant_says_what_ran(capsys):
    assert main(["run", "--backend", "cpu", "--validate"]) == 0
    out = capsys.readouterr().out
    assert f"variant: no variant named: {api.DEFAULT_VARIANT}, the default GPU step" in out
    assert re.search(rf"^\s*{api.DEFAULT_VARIANT}: source 0, .* validation passed$", out, re.M)


def test_cli_without_backend_or_variant_and_no_gpu(monkeypatch, capsys):
    from rodinia_bfs import runtime

    monkeypatch.setattr(runtime, "choose_backend", lambda b: ("cpu", "auto chose cpu: no GPU"))
    assert main(["run"]) == 0
    out = capsys.readouterr().out
    assert ("variant: no variant named and no GPU found: the CPU reference (--backend cpu "
            "runs the GPU steps on the emulator)") in out
    assert re.search(r"^\s*reference: source 0, ", out, re.M)


def test_bench_opens_and_validates_through_the_helpers(monkeypatch, capsys):
    import rodinia_bfs.validate

    opened, checked = [], []
    open_device, validate_result = api.open_device, rodinia_bfs.validate.validate_result
    monkeypatch.setattr(api, "open_device",
                        lambda *a, **k: opened.append(a) or open_device(*a, **k))
    monkeypatch.setattr(rodinia_bfs.validate, "validate_result",
                        lambda *a, **k: checked.append(a[1]) or validate_result(*a, **k))
    assert main(["bench", "--backend", "cpu", "--graphs", "grid-128x128", "--sources", "2",
                 "--variants", "rodinia"]) == 0
    assert opened == [("cpu",)]
    # two timed runs, the same two with their download (wall time), the profiled run,
    # and two one-shot bfs() calls (bfs() itself does not validate unless asked)
    assert len(checked) == 7
