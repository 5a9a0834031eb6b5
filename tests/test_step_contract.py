"""The step contract: what every GPU step registered in ``STEPS`` must do.

A new step gets all of these by registering in ``rodinia_bfs.variants.STEPS``; its own
test file keeps only what is special to it (its tunables, its kernel broken on purpose).
Every test runs each step with its default tunables on the cpu emulator at warp size
32 and 64 (the ``device`` fixture), and, marked ``gpu``, on a GPU where one is visible.
Where a test also goes over graphs, the steps, graphs and warp sizes are taken pairwise
(``helpers.pairwise``): every step meets every graph, at one warp size or the other, and
every step and every graph runs at both; a new step adds one test per graph, not two.
A step's class attributes say what its results hold: ``returns_parents``,
``reports_frontier_sizes``, ``one_level_per_iteration`` (see ``helpers.check_run``).
"""

import numpy as np
import pytest

from rodinia_bfs import graph_prep
from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.generators import grid2d, kronecker, rodinia_graphgen
from rodinia_bfs.kernels import kernel_dir, kernel_headers, kernel_source
from rodinia_bfs.variants import STEPS, VARIANT_NAMES, GPUStep, get_step

from helpers import (AWKWARD_SOURCES, GRAPHS, REAL_GRAPHS, awkward_graph, check_run,
                     check_sources, hiprtc_or_skip, nvrtc_or_skip, pairwise_params, real_graph,
                     small_awkward_graph, sources_of, tiny_graphs)

STEP_NAMES = list(STEPS)

#: CDNA 2 (MI200, wavefronts of 64) and RDNA 2 (wavefronts of 32).
AMD_TARGETS = {"gfx90a": 64, "gfx1030": 32}
#: Ampere (A100) and Hopper (H100, H200): warps of 32.
NVIDIA_TARGETS = ["sm_80", "sm_90"]


@pytest.fixture(params=STEP_NAMES)
def step_class(request) -> type[GPUStep]:
    return STEPS[request.param]


def each_step_pairwise(**factors):
    """Parametrize over every step, the warp sizes 32 and 64, and ``factors``, pairwise
    (for the ``step_class`` and ``device`` fixtures)."""
    return pytest.mark.parametrize(
        *pairwise_params(step_class=STEP_NAMES, device=[32, 64], **factors),
        indirect=["step_class", "device"])


def _sources(step, name) -> list[int]:
    graph = step.graph
    extra = AWKWARD_SOURCES if name == "awkward" else ()
    return sorted(set(sources_of(graph)) | set(extra))


def _emulated_sources(step, name) -> list[int]:
    """_sources, but on the awkward graph without the generic choice's two vertices in
    between (one in its random component, one on its path of 300 levels): its own
    sources search from both already (3 and 5, 640), and on the emulator each search of
    that depth costs seconds for the steps that pay per level."""
    if name == "awkward":
        graph = step.graph
        ends = {0, graph.num_vertices - 1, int(np.argmax(graph.degrees()))}
        return sorted(set(AWKWARD_SOURCES) | ends)
    return _sources(step, name)


# -- registration ------------------------------------------------------------------

def test_registered_under_its_name(step_class):
    """The registry, the command line and the kernel file agree on the step."""
    assert STEPS[step_class.name] is step_class
    assert get_step(step_class.name) is step_class
    assert step_class.name in VARIANT_NAMES
    assert (kernel_dir() / step_class.kernel_file).is_file()


def test_every_kernel_file_belongs_to_a_step():
    """A kernel file no step uses would escape the checks below (the set-up's kernels
    have their own, in test_graph_prep.py)."""
    used = {step.kernel_file for step in STEPS.values()} | {graph_prep.KERNEL_FILE}
    assert {p.name for p in kernel_dir().glob("*.hip")} == used


# -- correct results -------------------------------------------------------------------

@each_step_pairwise(name=sorted(GRAPHS))
def test_matches_independent_bfs(device, step_class, name):
    """Several sources on one set-up, each checked against scipy (and Graph500's rules)."""
    with step_class(device, GRAPHS[name]()) as step:
        check_sources(step, _emulated_sources(step, name))


@each_step_pairwise(name=sorted(tiny_graphs()))
def test_tiny_graphs(device, step_class, name):
    """One vertex, a lone self loop, and edges missing altogether."""
    graph = tiny_graphs()[name]
    with step_class(device, graph) as step:
        check_sources(step, sorted({0, graph.num_vertices - 1}))


def test_reruns_start_clean(device, step_class):
    """A second BFS on the same set-up must not see the first one's state: a search from
    the path, one from the random component (which reaches the path through one-way
    arcs), then the first again."""
    with step_class(device, small_awkward_graph()) as step:
        first = step.run(115)
        step.run(0)
        again = step.run(115)
        check_run(step, 115, again)
    np.testing.assert_array_equal(again.levels, first.levels)
    assert again.iterations == first.iterations
    assert again.frontier_sizes == first.frontier_sizes


def test_isolated_source_reaches_only_itself(device, step_class):
    with step_class(device, awkward_graph()) as step:
        run = step.run(1236)
        check_run(step, 1236, run)
    assert run.levels[1236] == 0 and np.count_nonzero(run.levels >= 0) == 1
    if step_class.returns_parents:
        assert run.parents[1236] == 1236 and np.count_nonzero(run.parents >= 0) == 1
    if step_class.one_level_per_iteration:
        assert run.iterations == 1
    if step_class.reports_frontier_sizes:
        assert run.frontier_sizes == [1]


def test_numpy_integer_source(device, step_class):
    graph = grid2d(6, 5)
    with step_class(device, graph) as step:
        check_run(step, 7, step.run(np.int64(7)))


PROFILED = {"graphgen-3001": (lambda: rodinia_graphgen(3001, seed=3), 7),
            "grid-37x29": (lambda: grid2d(37, 29), 100)}


@each_step_pairwise(name=sorted(PROFILED))
def test_profile_times_each_level(device, step_class, name):
    """``profile=True`` gives one time per iteration; without it, none are taken."""
    graph, source = PROFILED[name]
    with step_class(device, graph()) as step:
        run = step.run(source, profile=True)
        check_run(step, source, run)
        assert step.run(source).level_times_ms == []
    assert len(run.level_times_ms) == run.iterations
    assert all(t >= 0 for t in run.level_times_ms)


def test_source_outside_graph(device, step_class):
    with step_class(device, grid2d(4, 4)) as step:
        for source in (16, -1):
            with pytest.raises(RodiniaBFSError, match=f"source {source} is outside the graph"):
                step.run(source)
        check_run(step, 15, step.run(15))  # the set-up still works after a refusal


def test_graph_without_vertices(device, step_class):
    empty = CSRGraph(np.zeros(1, np.int64), np.zeros(0, np.int32))
    with step_class(device, empty) as step:
        with pytest.raises(RodiniaBFSError, match="outside the graph .it has no vertices"):
            step.run(0)


@each_step_pairwise(filename=sorted(REAL_GRAPHS))
def test_real_graphs(device, step_class, filename):
    graph = real_graph(filename)
    sources = [int(np.argmax(graph.degrees())) if s is None else s for s in REAL_GRAPHS[filename]]
    with step_class(device, graph) as step:
        check_sources(step, sources)


# -- the tunables the compile checks use are the ones a step runs with --------------

def test_default_defines_are_what_the_step_compiles(device, step_class, monkeypatch):
    compiled = []
    compile_ = device.compile

    def spy(source, name="kernel.hip", defines=None, headers=None):
        if name == step_class.kernel_file:  # not graph_prep's kernels, shared by steps 5-7
            compiled.append(dict(defines or {}))
        return compile_(source, name, defines=defines, headers=headers)

    monkeypatch.setattr(device, "compile", spy)
    for graph in (grid2d(3, 3), kronecker(6, seed=1, progress=False)):  # a mesh; hubs
        compiled.clear()
        with step_class(device, graph):
            pass
        assert compiled == [step_class.default_defines(device.warp_size, graph)]


# -- compile checks: hiprtc and NVRTC, no GPU needed ---------------------------------

#: The defaults for a graph of any degrees, and for a mesh (step 5's rows).
FOR_GRAPHS = {"any": None, "mesh": lambda: grid2d(3, 3)}


def _compile_cases() -> list:
    """(step, graph) for each step and each graph of FOR_GRAPHS whose kernel file and
    defaults differ from those of every case before it: a step whose tunables do not
    depend on the graph has one set of defines to compile, and it is compiled once per
    target; a step that compiles another step's kernel file with the same defines
    (adaptive_basic runs push_pull_basic.hip) adds nothing to compile."""
    cases, seen = [], []
    for name, step in STEPS.items():
        for graph in sorted(FOR_GRAPHS):
            built = FOR_GRAPHS[graph] and FOR_GRAPHS[graph]()
            compiled = (step.kernel_file, [step.default_defines(warp, built) for warp in (32, 64)])
            if compiled not in seen:
                seen.append(compiled)
                cases.append(pytest.param(name, graph, id=f"{name}-{graph}"))
    return cases


COMPILE_CASES = _compile_cases()


@pytest.mark.parametrize("step_class, graph", COMPILE_CASES, indirect=["step_class"])
@pytest.mark.parametrize("arch", sorted(AMD_TARGETS))
def test_compiles_with_hiprtc(step_class, arch, graph):
    hiprtc = hiprtc_or_skip()
    defines = step_class.default_defines(AMD_TARGETS[arch], FOR_GRAPHS[graph] and FOR_GRAPHS[graph]())
    code = hiprtc.compile_for_arch(kernel_source(step_class.kernel_file), arch,
                                   step_class.kernel_file, defines, headers=kernel_headers())
    assert code[:4] == b"\x7fELF"  # an AMD GPU code object


@pytest.mark.parametrize("step_class, graph", COMPILE_CASES, indirect=["step_class"])
@pytest.mark.parametrize("arch", NVIDIA_TARGETS)
def test_compiles_with_nvrtc_without_warnings(step_class, arch, graph):
    """Machine code for each target; and no warning, since the run-time compiler's log is
    shown to the user: a warning there (an unreachable loop of a batch of one, say) would
    be shown at every set-up."""
    nvrtc = nvrtc_or_skip()
    defines = step_class.default_defines(32, FOR_GRAPHS[graph] and FOR_GRAPHS[graph]())
    cubin, log = nvrtc.compile_program(kernel_source(step_class.kernel_file), arch,
                                       step_class.kernel_file, defines, headers=kernel_headers())
    assert cubin[:4] == b"\x7fELF"  # machine code for that GPU, loadable as it is
    assert log == ""


# -- on a GPU ----------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_gpu_matches_independent_bfs(gpu, step_class, name):
    with step_class(gpu, GRAPHS[name]()) as step:
        check_sources(step, _sources(step, name))


@pytest.mark.gpu
@pytest.mark.parametrize("filename", sorted(REAL_GRAPHS))
def test_gpu_real_graphs(gpu, step_class, filename):
    graph = real_graph(filename)
    with step_class(gpu, graph) as step:
        check_sources(step, [1, int(np.argmax(graph.degrees())), graph.num_vertices - 1])
