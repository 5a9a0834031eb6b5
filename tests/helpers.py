"""Small graphs, an independent BFS and the checks of the step contract, shared by the tests."""

import functools
import os
from collections import deque
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


def python_bfs(graph: CSRGraph, source: int) -> np.ndarray:
    """Levels by a plain queue BFS in Python, a few lines to trust by reading."""
    levels = np.full(graph.num_vertices, -1, np.int32)
    levels[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in graph.neighbors(u):
            if levels[v] < 0:
                levels[v] = levels[u] + 1
                queue.append(v)
    return levels


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


def small_awkward_graph() -> CSRGraph:
    """The awkward graph's features on 237 vertices: a random component, a path of 24
    vertices (a few dozen levels, not hundreds), one-way arcs from the first into the
    path's middle, self loops (one on the path), duplicate edges, a one-way star and
    isolated vertices. For tests whose point is the graph's shape, not its depth: on the
    emulator each level of the multi-level steps costs milliseconds, however small."""
    rng = np.random.default_rng(7)
    n = 237
    src, dst = [], []
    # component A: a random graph on 0..99
    a = rng.integers(0, 100, size=(2, 400))
    src += list(a[0]); dst += list(a[1])
    # component B: a path 100..123, stored both ways
    path = np.arange(100, 124)
    src += list(path[:-1]) + list(path[1:]); dst += list(path[1:]) + list(path[:-1])
    # one-way arcs from A into B's middle, never back
    src += [5, 17]; dst += [112, 113]
    # self loops and duplicate edges
    src += [3, 3, 3, 106]; dst += [3, 4, 4, 106]
    # 124..223: a star centred on 124; 224..236: isolated
    src += [124] * 99; dst += list(range(125, 224))
    return CSRGraph.from_edges(src, dst, n, name="awkward-237")


#: Sources of the small awkward graph, as AWKWARD_SOURCES of the awkward graph: a self
#: loop (3), one-way arcs into the path (5), a self loop on the path (106), the centre
#: of the star (124).
SMALL_AWKWARD_SOURCES = (3, 5, 106, 124)


def tiny_graphs() -> dict:
    """Graphs at the edges of what a step must handle: one vertex, one vertex with a self
    loop, and 70 vertices without an edge."""
    return {
        "one-vertex": CSRGraph(np.zeros(2, np.int64), np.zeros(0, np.int32), name="one-vertex"),
        "self-loop": CSRGraph.from_edges([0], [0], 1, name="self-loop"),
        "edgeless-70": CSRGraph(np.zeros(71, np.int64), np.zeros(0, np.int32), name="edgeless-70"),
    }


def _test_graphs() -> dict:
    from rodinia_bfs.graphs.generators import grid2d, grid_with_hubs, kronecker, rodinia_graphgen

    return {
        "awkward": awkward_graph,
        "graphgen-3001": lambda: rodinia_graphgen(3001, seed=3),
        "grid-37x29": lambda: grid2d(37, 29),
        "kronecker-10": lambda: kronecker(10, seed=5, progress=False),
        "hubs-40x40": lambda: grid_with_hubs(40, 40, seed=2),
    }


#: The generated graphs every step runs on, by name (each a function that builds it):
#: none has a vertex count that is a multiple of a block size.
GRAPHS = _test_graphs()

#: Sources of the awkward graph with something to test: a self loop (3), one-way arcs
#: into the long path (5), a self loop on the path (640), the centre of the star (900).
AWKWARD_SOURCES = (3, 5, 640, 900)

#: The real graphs in the data folder the steps run on, with the sources to run from
#: (None: the vertex of largest degree).
REAL_GRAPHS = {
    "social/as-22july06.mtx": (None, 1),
    "social/email-Enron.mtx": (None, 1),
    "road/NY.gr.xz": (12345,),
}


@functools.cache
def real_graph(filename: str) -> CSRGraph:
    """A graph of the data folder, loaded once per test session; skip where it is absent."""
    import pytest

    from rodinia_bfs.graphs.formats import load_graph

    path = DATA / filename
    if not path.exists():
        pytest.skip(f"{path} not present")
    return load_graph(path)


def sources_of(graph: CSRGraph) -> list[int]:
    """0, two vertices in between, the last vertex, and the vertex of largest degree."""
    n = graph.num_vertices
    return sorted({0, n // 2 + 1, n // 3, n - 1, int(np.argmax(graph.degrees()))})


def probe_runs(probe, graph: CSRGraph, sources: list[int] | None = None):
    """Each search of a benchmark probe (``sources``, else ``sources_of(graph)``):
    yields ``(source, the reference's levels)`` once the probe's levels are those and its
    parents pass Graph500's rules; closes the probe when done."""
    from rodinia_bfs.validate import check_parents

    try:
        for source in sources_of(graph) if sources is None else sources:
            levels, parents = probe.run(source)
            expected = scipy_levels(graph, source)
            np.testing.assert_array_equal(levels, expected)
            check_parents(graph, source, levels, parents)
            yield source, expected
    finally:
        probe.close()


def check_run(step, source: int, run) -> None:
    """What every step promises for a BFS from ``source`` (the step contract): levels as
    scipy has them; parents that pass Graph500's rules where the step returns them (and
    None where it does not); one host-loop iteration per level; and, where the step
    counts them, frontier sizes that count each reached vertex exactly once."""
    from rodinia_bfs.validate import check_parents

    graph = step.graph
    expected = scipy_levels(graph, source)
    np.testing.assert_array_equal(run.levels, expected)
    if step.returns_parents:
        check_parents(graph, source, run.levels, run.parents)
    else:
        assert run.parents is None
    per_level = np.bincount(expected[expected >= 0]).tolist()
    if step.one_level_per_iteration:
        assert run.iterations == len(per_level)
    assert run.frontier_sizes == (per_level if step.reports_frontier_sizes else [])


def check_sources(step, sources) -> None:
    """Run ``step`` from each of ``sources`` in turn, on the same set-up, and check each run."""
    for source in sources:
        check_run(step, source, step.run(source))


def run_per_case(device, module, kernel: str, inputs: np.ndarray, cases: int,
                 outputs_per_case: int) -> np.ndarray:
    """Launch ``kernel(in, out, cases)`` of ``module`` with a thread per case over the
    uint32 ``inputs``, and return its ``outputs_per_case`` uint32 words a case."""
    data = device.to_device(inputs.astype(np.uint32))
    out = device.malloc(4 * outputs_per_case * cases)
    try:
        device.launch(module.get_function(kernel), (cases + 127) // 128, 128,
                      (data, out, np.uint32(cases)))
        device.synchronize()
        return device.from_device(out, outputs_per_case * cases, np.uint32).reshape(cases, -1)
    finally:
        device.free(data)
        device.free(out)


def edit_kernel(kernel_file: str, old: str, new: str) -> str:
    """The text of ``hip_kernels/<kernel_file>`` with ``old`` replaced by ``new``: a kernel
    broken on purpose. Fails if ``old`` is not there (the test would prove nothing)."""
    from rodinia_bfs.kernels import kernel_source

    source = kernel_source(kernel_file)
    assert old in source, f"{old!r} is not in {kernel_file}"
    return source.replace(old, new)


def compile_fails_without(device, kernel_file: str, defines: dict, missing: str) -> None:
    """``hip_kernels/<kernel_file>`` compiled without the tunable ``missing`` stops with a
    compile error that names it (a kernel must never guess a tunable)."""
    import pytest

    from rodinia_bfs.errors import CompileError
    from rodinia_bfs.kernels import kernel_headers, kernel_source

    defines = dict(defines)
    del defines[missing]
    with pytest.raises(CompileError, match=missing):
        device.compile(kernel_source(kernel_file), kernel_file, defines=defines,
                       headers=kernel_headers())


def with_kernel(step_class, source: str, name: str = "broken.hip", headers: dict | None = None):
    """``step_class`` compiling ``source`` instead of its kernel file, and ``headers`` (by
    include name) instead of those of ``hip_kernels/``."""
    from rodinia_bfs.kernels import kernel_headers

    class Patched(step_class):
        def _compile(self, defines):
            return self.device.compile(source, name, defines=defines,
                                       headers={**kernel_headers(), **(headers or {})})

    return Patched


def _required(env: str, reason: str | None):
    """Skip for ``reason``, or fail where ``env`` says the compiler must be there (as CI does)."""
    import pytest

    if reason:
        if os.environ.get(env) == "1":
            pytest.fail(f"{env}=1 but {reason}")
        pytest.skip(reason)


@functools.cache
def _hiprtc_problem() -> str | None:
    from rodinia_bfs.errors import DeviceError
    from rodinia_bfs.runtime import hip_backend

    if hip_backend.hip is None:
        return "hip-python not installed"
    if not hip_backend.configure_libraries().get("hiprtc"):
        return "hiprtc library not found (run .ci/install-rocm-hiprtc.sh)"
    try:
        hip_backend.compile_for_arch('extern "C" __global__ void k() {}', "gfx90a", "probe.hip")
    except DeviceError as exc:
        return f"hiprtc does not work: {exc}"
    return None


@functools.cache
def _nvrtc_problem() -> str | None:
    from rodinia_bfs.errors import DeviceError
    from rodinia_bfs.runtime import cuda_backend

    if cuda_backend.nvrtc is None:
        return "cuda-python not installed"
    try:
        cuda_backend.nvrtc_version()
    except DeviceError as exc:
        return str(exc)
    return None


def beyond_the_contract(step_class, define_sets, names, targets) -> list:
    """``pytest.param(arch, warp_size, which)`` for each target (an architecture and its
    warp size) and each set of ``define_sets(warp_size)`` (named by ``names``) that the
    step contract does not compile already: test_step_contract.py compiles every step with
    its defaults, for a graph of any degrees and for a mesh, for every target; a set equal
    to one of those is left to it."""
    import pytest

    from test_step_contract import FOR_GRAPHS

    params = []
    for arch, warp_size in targets:
        contract = [step_class.default_defines(warp_size, graph and graph())
                    for graph in FOR_GRAPHS.values()]
        for which, (name, defines) in enumerate(zip(names, define_sets(warp_size))):
            if defines not in contract:
                params.append(pytest.param(arch, warp_size, which, id=f"{arch}-{warp_size}-{name}"))
    return params


def syntax_error(compiler, arch: str):
    """The CompileError ``compiler`` (the hip or cuda backend module) raises for a kernel
    with a syntax error on line 3 of ``broken.hip``."""
    import pytest

    from rodinia_bfs.errors import CompileError
    from rodinia_bfs.kernels import kernel_headers

    source = '#include "bfs_common.h"\n\nextern "C" __global__ void k(int* a) { a[0] = ; }\n'
    with pytest.raises(CompileError) as caught:
        compiler.compile_for_arch(source, arch, "broken.hip", headers=kernel_headers())
    return caught.value


def hiprtc_or_skip():
    """The hip backend module where hiprtc compiles (no GPU needed), else skip; with
    ``RODINIA_BFS_REQUIRE_HIPRTC=1`` (CI) a missing hiprtc fails instead."""
    from rodinia_bfs.runtime import hip_backend

    _required("RODINIA_BFS_REQUIRE_HIPRTC", _hiprtc_problem())
    return hip_backend


def nvrtc_or_skip():
    """The cuda backend module where NVRTC compiles (no GPU needed), else skip; with
    ``RODINIA_BFS_REQUIRE_NVRTC=1`` (CI) a missing NVRTC fails instead."""
    from rodinia_bfs.runtime import cuda_backend

    _required("RODINIA_BFS_REQUIRE_NVRTC", _nvrtc_problem())
    return cuda_backend


# -- pairwise parameters -----------------------------------------------------------------

def pairwise(factors: dict, together: tuple = ()) -> list[dict]:
    """Rows (one dict per test) such that every pair of values of any two factors meets in
    at least one row: a covering array of strength 2, built greedily.

    The full product of factors with 2, 5 and 10 values is 100 tests; every pair of
    them fits in 50 rows (the two largest factors' pairs), and what goes wrong with a
    particular pair of values still meets that pair. Each row starts from the first pair
    no row holds yet; every other factor then takes the value that completes the most
    pairs not yet held with the values already chosen (ties: the value with the most
    pairs still open, then the first). The rows depend only on the factors and their
    order, so a test's id names the same parameters on every run.

    ``together``: partial rows (dicts of some factors' values) that must each appear in
    one row as they are, for combinations of more than two values that a test needs (a
    configuration made of several switches, say); they come first."""
    names = list(factors)
    values = [list(factors[name]) for name in names]
    if any(not v for v in values):
        return []
    if len(names) < 2:
        return [{names[0]: v} for v in values[0]] if names else [{}]
    open_pairs = {((i, a), (j, b))
                  for i in range(len(names)) for j in range(i + 1, len(names))
                  for a in range(len(values[i])) for b in range(len(values[j]))}

    def still_open(k, v):
        return sum(1 for p in open_pairs if (k, v) in p)

    rows = []
    starts = [{names.index(k): values[names.index(k)].index(v) for k, v in seed.items()}
              for seed in together]
    while open_pairs or starts:
        if starts:
            chosen = starts.pop(0)
        else:
            (i, a), (j, b) = min(open_pairs)
            chosen = {i: a, j: b}
        for k in range(len(names)):
            if k in chosen:
                continue

            def gain(v):
                new = sum(1 for f, u in chosen.items()
                          if ((min(f, k), u if f < k else v), (max(f, k), v if f < k else u))
                          in open_pairs)
                return new, still_open(k, v), -v

            chosen[k] = max(range(len(values[k])), key=gain)
        for f in chosen:
            for g in chosen:
                if f < g:
                    open_pairs.discard(((f, chosen[f]), (g, chosen[g])))
        rows.append({names[k]: values[k][chosen[k]] for k in range(len(names))})
    return rows


def pairwise_params(together: tuple = (), **factors):
    """``pairwise(factors)`` as arguments of ``pytest.mark.parametrize``: the argument
    names and one ``pytest.param`` per row, its id the row's values (a factor named
    ``device`` is a warp size for the ``device`` fixture: pass ``indirect=["device"]``; a
    ``True`` or ``False`` is the factor's name or ``no-`` and its name)."""
    import pytest

    def label(name, value):
        if isinstance(value, bool):
            return name if value else f"no-{name}"
        return f"warp{value}" if name == "device" else str(value)

    rows = pairwise(factors, together)
    return ",".join(factors), [
        pytest.param(*row.values(), id="-".join(label(k, v) for k, v in row.items()))
        for row in rows]


def ctypes_layouts(device, records, header: str) -> tuple[list[int], list[int]]:
    """The layout of ctypes ``records`` (classes named as their C structs in ``header``)
    as the device's compiler lays them out, and as ctypes does: for each record its
    size, then each field's offset and size. Offsets are address differences inside one
    instance: NVRTC has no __builtin_offsetof outside constant expressions."""
    import ctypes

    from rodinia_bfs.kernels import kernel_headers

    lines, probes = [], []
    for r, record in enumerate(records):
        c = record.__name__
        probes.append(f"    {c} probe{r};")
        lines.append(f"sizeof({c})")
        for field, _ in record._fields_:
            lines += [f"(char*)&probe{r}.{field} - (char*)&probe{r}", f"sizeof(probe{r}.{field})"]
    body = "\n".join(probes + [f"    out[{i}] = (bfs_u64)({e});" for i, e in enumerate(lines)])
    source = (f'#include "bfs_common.h"\n#include "{header}"\n'
              f'extern "C" __global__ void layout(bfs_u64* out)\n{{\n{body}\n}}\n')
    module = device.compile(source, "layout_probe.hip", headers=kernel_headers())
    out = device.malloc(8 * len(lines))
    try:
        device.launch(module.get_function("layout"), 1, 1, (out,))
        device.synchronize()
        c_side = device.from_device(out, len(lines), np.uint64).tolist()
    finally:
        device.free(out)
    host_side = []
    for record in records:
        host_side.append(ctypes.sizeof(record))
        for field, _ in record._fields_:
            host_side += [getattr(record, field).offset, getattr(record, field).size]
    return c_side, host_side


def load_benchmark(name: str):
    """``benchmarks/<name>.py`` as a module (the scripts are not a package; those that
    import ladder.py find it beside them)."""
    import importlib.util
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "benchmarks"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def broken_probe_levels(monkeypatch, module, old: str, new: str, make, graph):
    """The levels from vertex 0 of a benchmark probe (``module``, loaded by
    load_benchmark) whose kernel source has ``old`` replaced by ``new``; ``make(module,
    graph)`` sets the probe up."""
    broken = module.SOURCE.replace(old, new)
    assert broken != module.SOURCE
    monkeypatch.setattr(module, "SOURCE", broken)
    probe = make(module, graph)
    try:
        levels, _ = probe.run(0)
    finally:
        probe.close()
    return levels
