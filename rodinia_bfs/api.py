"""One run path: the Python API, and the helpers the command line, the benchmark and the
examples share.

* :func:`bfs` -- breadth-first search on a graph you already hold, in one call.
* :func:`prepare` -- a graph on the device with its step compiled, searched any number of
  times (:class:`PreparedGraph`): several sources, depth limits, results in reused pinned
  memory or left on the device for CuPy and PyTorch.
* :func:`plan` -- which variant runs on which backend when none or ``auto`` is asked for.
* :func:`open_device` -- open a device: the ``auto`` choice and its reason, the cpu
  emulator's warp size.
* :func:`run_variant` -- one search with a named variant on an open device.
* :func:`~rodinia_bfs.validate.validate_result` (in :mod:`rodinia_bfs.validate`) -- the
  one check of a result: levels exactly against the CPU reference, parents by Graph500's
  rules.

Every error is a :class:`~rodinia_bfs.errors.RodiniaBFSError` (a missing GPU is a
:class:`~rodinia_bfs.errors.DeviceError`, a bad file a
:class:`~rodinia_bfs.errors.GraphFormatError`); nothing here prints or exits.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from rodinia_bfs.errors import ArgumentError, ArgumentTypeError, DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph

#: The GPU step that runs when a GPU backend is asked for without naming a variant:
#: step 7, which chooses per level among the kernels of steps 5 and 6 (chapter 7).
DEFAULT_VARIANT = "adaptive"


# -- which variant, which device ----------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What a run will do, decided before anything is loaded or compiled.

    ``variants`` to run in order (``reference`` is the CPU reference, the others GPU
    steps); ``backend`` the resolved backend of the GPU steps (``None`` when only the
    reference runs); ``backend_reason`` and ``variant_reason`` say why, one line each.
    """

    variants: tuple[str, ...]
    backend: str | None
    backend_reason: str = ""
    variant_reason: str = ""

    def open(self, *, warp_size: int | None = None):
        """Open the device of :attr:`backend`; returns ``(device, reason)`` as
        :func:`open_device` does, ``(None, "")`` when only the reference runs."""
        if self.backend is None:
            return None, ""
        explicit = self.backend_reason == "requested"
        device, note = _create(self.backend, warp_size, explicit=explicit)
        return device, self.backend_reason + note


def variant_names() -> tuple[str, ...]:
    """Every variant name: ``reference`` and the GPU steps, in tutorial order."""
    from rodinia_bfs.variants import VARIANT_NAMES

    return tuple(VARIANT_NAMES)


def plan(variant: str | None = None, backend: str = "auto") -> Plan:
    """Resolve what to run.

    ``variant`` is a name of :func:`variant_names`, ``"all"`` (every one), or ``None``:

    * with a backend named (``hip``, ``cuda`` or ``cpu``), ``None`` runs
      :data:`DEFAULT_VARIANT` on it;
    * with ``backend="auto"``, ``None`` runs :data:`DEFAULT_VARIANT` when a GPU is found,
      and the CPU reference when none is (the emulator is there to learn with, not to be
      fast: name the ``cpu`` backend to run the GPU steps on it).

    An unknown variant or backend raises :class:`RodiniaBFSError` before any work.
    """
    from rodinia_bfs.runtime import BACKENDS, choose_backend
    from rodinia_bfs.variants import STEPS, get_step

    if backend != "auto" and backend not in BACKENDS:
        raise DeviceError(f"unknown backend {backend!r}; choose auto, {', '.join(BACKENDS)}")
    if variant == "all":
        variants, variant_reason = variant_names(), "every variant"
    elif variant is not None:
        if variant != "reference":
            get_step(variant)  # an unknown name fails here, with the list of names
        variants, variant_reason = (variant,), ""
    else:
        variants, variant_reason = None, None
    if variants is not None and not any(name in STEPS for name in variants):
        return Plan(variants, None, "", variant_reason)

    name, why = choose_backend(backend)
    if variants is None:
        if backend == "auto" and name == "cpu":
            return Plan(("reference",), None, why,
                        "no variant named and no GPU found: the CPU reference")
        variants = (DEFAULT_VARIANT,)
        variant_reason = f"no variant named: {DEFAULT_VARIANT}, the default GPU step"
    return Plan(tuple(variants), name, why, variant_reason)


def open_device(backend: str = "auto", *, warp_size: int | None = None):
    """Open a device; returns ``(device, reason)``.

    ``backend`` is ``auto`` (hip if an AMD GPU is visible, else cuda if an NVIDIA GPU is,
    else the cpu emulator), ``hip``, ``cuda`` or ``cpu``; ``reason`` says which was
    chosen and why (``"requested"`` when named). ``warp_size`` (32 or 64) is the cpu
    emulator's; a GPU has its own, so asking a named GPU backend for one is an error,
    and with ``auto`` it is ignored on a GPU, as the reason says. A backend that is not
    usable here raises :class:`~rodinia_bfs.errors.DeviceError` with one line.
    """
    from rodinia_bfs.runtime import choose_backend

    name, why = choose_backend(backend)
    device, note = _create(name, warp_size, explicit=backend != "auto")
    return device, why + note


def _create(name: str, warp_size: int | None, *, explicit: bool):
    """The device of backend ``name``, and a note on the warp size when it was ignored."""
    from rodinia_bfs.runtime import get_device

    options, note = {}, ""
    if warp_size is not None:
        if name == "cpu":
            options["warp_size"] = warp_size
        elif explicit:
            raise DeviceError(f"a warp size can only be chosen for the cpu emulator; the "
                              f"{name} backend uses its GPU's")
        else:
            note = f"; warp size {warp_size} ignored: the GPU has its own"
    return get_device(name, **options), note


# -- one search -----------------------------------------------------------------------


def run_variant(name: str, graph: CSRGraph, source: int, device=None, *,
                warm_up: bool = False, **options):
    """One BFS of variant ``name`` from ``source``; returns ``(result, milliseconds)``.

    ``result`` has ``levels`` and ``parents`` (``None`` where the step computes none) and,
    for a GPU step, ``iterations`` of its host loop. The time is that of the search alone:
    for a GPU step the set-up (compile, upload) and the download of the result are not in
    it, and ``warm_up=True`` runs one untimed search first, so the first launch's loading
    of the code is not in it either. GPU steps need ``device``; ``options`` go to the
    step (``gpus=2`` for ``multi_gpu``).
    """
    from rodinia_bfs.reference import bfs_reference
    from rodinia_bfs.variants import get_step

    if name == "reference":
        start = time.perf_counter()
        result = bfs_reference(graph, source)
        return result, (time.perf_counter() - start) * 1e3
    step_class = get_step(name)
    if device is None:
        raise DeviceError(f"the {name} step runs on a device; none was opened")
    with step_class(device, graph, **options) as step:
        if warm_up:
            step.search(source)
        start = time.perf_counter()
        result = step.search(source)  # returns after the last level's stream sync
        elapsed_ms = (time.perf_counter() - start) * 1e3
        result.levels, result.parents = step.results()
    return result, elapsed_ms


def as_graph(graph, *, symmetrize: bool = False) -> CSRGraph:
    """A :class:`CSRGraph` from a graph, a ``scipy.sparse`` matrix (see
    :meth:`CSRGraph.from_scipy`) or the path of a graph file (see
    :func:`~rodinia_bfs.graphs.formats.load_graph`); ``symmetrize=True`` makes it
    undirected."""
    if isinstance(graph, CSRGraph):
        pass
    elif isinstance(graph, (str, os.PathLike)):
        from rodinia_bfs.graphs.formats import load_graph

        graph = load_graph(graph)
    elif _is_scipy_sparse(graph):
        try:
            graph = CSRGraph.from_scipy(graph)
        except (TypeError, ValueError) as exc:
            raise ArgumentError(f"this matrix is not a graph: {exc}") from None
    else:
        raise ArgumentTypeError(
            f"expected a CSRGraph, a scipy.sparse matrix or a file path, got {type(graph).__name__}"
        )
    return graph.symmetrize() if symmetrize else graph


def _is_scipy_sparse(value) -> bool:
    try:
        import scipy.sparse
    except ImportError:
        return False
    return scipy.sparse.issparse(value)


# -- the one call ---------------------------------------------------------------------

_DEVICES: dict[str, object] = {}


def _device_for(backend: str):
    """One device per backend for the life of the process: opening one (a GPU context,
    the emulator's compiler check) costs more than most searches."""
    if backend not in _DEVICES:
        _DEVICES[backend] = _create(backend, None, explicit=True)[0]
    return _DEVICES[backend]


def bfs(graph, source: int, variant: str | None = None, backend="auto",
        validate: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """Breadth-first search from ``source``; returns ``(levels, parents)``, two new
    ``int32`` NumPy arrays of length ``num_vertices`` that belong to the caller.

    ``levels[v]`` is the number of edges on a shortest path from ``source`` to ``v``,
    ``-1`` where ``v`` is unreachable. It equals
    ``scipy.sparse.csgraph.shortest_path(matrix, unweighted=True, indices=source)`` with
    ``inf`` replaced by ``-1``. ``parents[v]`` is the vertex ``v`` was reached from
    (``parents[source] == source``, ``-1`` where unreachable): one BFS tree of many,
    checked by Graph500's rules rather than against one answer; ``None`` for a step that
    computes no parents (``rodinia``). ``scipy.sparse.csgraph.breadth_first_order`` gives
    something else: the vertices in a visit order, and predecessors (``-9999`` for the
    source and for unreachable vertices), with no levels::

        import scipy.sparse, rodinia_bfs
        matrix = scipy.sparse.random(1000, 1000, density=0.01, format="csr", random_state=0)
        levels, parents = rodinia_bfs.bfs(matrix, 0)

    ``graph``: a :class:`CSRGraph`, a ``scipy.sparse`` matrix (entry ``(i, j)`` is an edge
    ``i -> j``; see :meth:`CSRGraph.from_scipy`) or the path of a graph file.
    ``source``: an integer vertex id, ``0 <= source < num_vertices`` (NumPy integers and
    whole floats such as ``2.0`` are taken; ``1.5`` and ``True`` are errors).
    ``variant``: any name of :func:`variant_names` but ``all``: ``reference`` (the CPU
    reference) or a GPU step of the tutorial (steps 1 to 8, and the basic kernels that
    open steps 5 to 7), or ``None``: see :func:`plan` (the default GPU step on a GPU, the
    CPU reference where there is none). ``backend``: ``auto``, ``hip``, ``cuda``,
    ``cpu`` (the emulator), or an open :class:`~rodinia_bfs.runtime.Device`.
    ``validate=True`` checks the result against the CPU reference (levels exactly,
    parents by Graph500's rules) and raises :class:`~rodinia_bfs.errors.ValidationError`
    if it differs.

    It is :func:`prepare`, one search into new arrays and the step closed again: to
    search one graph many times, prepare it once. Every error is a
    :class:`~rodinia_bfs.errors.RodiniaBFSError` in one line: a bad argument an
    :class:`~rodinia_bfs.errors.ArgumentError` (a ``ValueError``) or
    :class:`~rodinia_bfs.errors.ArgumentTypeError` (a ``TypeError``).
    """
    graph = as_graph(graph)
    graph.check_source(source)  # before anything is compiled
    with prepare(graph, variant, backend, validate=validate) as prepared:
        return prepared.bfs(source, copy=True)


# -- prepare once, search many times --------------------------------------------------


def prepare(graph, variant: str | None = None, backend="auto", *, validate: bool = False,
            **options) -> "PreparedGraph":
    """Put ``graph`` on a device and set up one step for it, to search it many times.

    Returns a :class:`PreparedGraph`: the device, and the step object the command line,
    the bench and the examples use (``STEPS[variant](device, graph, **options)``: the
    kernels compiled, the CSR arrays uploaded, the work arrays allocated). Use it as a
    context manager, or call :meth:`PreparedGraph.close`, to free the device memory::

        with rodinia_bfs.prepare(matrix, backend="cpu") as prepared:
            for source in (0, 17, 42):
                levels, parents = prepared.bfs(source)

    ``graph``, ``variant`` and ``backend``: as :func:`bfs` (devices are opened once per
    backend and kept for the process). ``validate=True`` checks every search against the
    CPU reference. ``options`` go to the step's constructor (``gpus=2`` for
    ``multi_gpu``, a step's tunables).
    """
    graph = as_graph(graph)
    if isinstance(backend, str):
        chosen = plan(variant, backend)
        if len(chosen.variants) != 1:
            raise ArgumentError("bfs() and prepare() each run one variant; loop over "
                                "variant_names() for all")
        name = chosen.variants[0]
        device = _device_for(chosen.backend) if chosen.backend else None
    else:  # an open device
        name, device = variant or DEFAULT_VARIANT, backend
    return PreparedGraph(graph, name, device, validate=validate, **options)


class PreparedGraph:
    """A graph on a device with one step set up for it: :meth:`bfs` any number of times.

    Made by :func:`prepare`. ``variant``, ``graph``, ``device`` (``None`` for the CPU
    reference) and ``step`` (the :class:`~rodinia_bfs.variants.base.GPUStep`, ``None``
    for the reference) are what it holds; ``last_result`` is the
    :class:`~rodinia_bfs.reference.BFSResult` of the last search (``iterations``).
    A context manager: leaving the ``with`` block closes the step (frees its memory).
    """

    def __init__(self, graph: CSRGraph, variant: str, device=None, *, validate: bool = False,
                 **options):
        from rodinia_bfs.variants import get_step

        self.graph, self.variant, self.device = graph, variant, device
        self.validate = validate
        self.step = None
        self.last_result = None
        self._pinned = None  # (levels, parents) in pinned host memory, made at first use
        self._closed = False
        if variant == "reference":
            if options:
                raise ArgumentError(f"the reference takes no options, got {', '.join(options)}")
            return
        step_class = get_step(variant)
        if device is None:
            raise DeviceError(f"the {variant} step runs on a device; none was opened")
        self.step = step_class(device, graph, **options)

    @classmethod
    def around(cls, step, *, validate: bool = False) -> "PreparedGraph":
        """A prepared graph around a step already set up (what the benchmark times: it
        sets the step up itself to time that). Closing it closes the step."""
        prepared = cls.__new__(cls)
        prepared.graph, prepared.variant, prepared.device = step.graph, step.name, step.device
        prepared.validate, prepared.step, prepared.last_result = validate, step, None
        prepared._pinned, prepared._closed = None, False
        return prepared

    # -- searching -------------------------------------------------------------------

    def bfs(self, source=None, *, sources=None, depth_limit=None, parents: bool = True,
            out=None, copy: bool = False, device_result: bool = False):
        """One BFS; returns ``(levels, parents)`` as :func:`bfs` describes them.

        ``source``: the start vertex; or ``sources=[...]``, several at once (multi-source
        BFS: ``levels[v]`` is the distance from ``v``'s nearest source, and each source
        is its own parent). ``depth_limit``: expand at most that many levels; vertices
        farther away get level and parent ``-1``. Both work on the reference and on every
        step (each one's :meth:`~rodinia_bfs.variants.base.GPUStep.takes_search_options`
        says so; a step that did not would raise :class:`~rodinia_bfs.errors.ArgumentError`
        naming those that do). ``parents=False`` skips the parents (``None`` comes back,
        and a GPU step downloads only the levels).

        Where the arrays live:

        * by default (GPU steps), in pinned host memory that this object reuses: the
          arrays are read-only views, **overwritten by the next** ``bfs()`` of this
          prepared graph and valid as long as you hold them; the fastest download;
        * ``copy=True``: new arrays of your own (what :func:`bfs` returns);
        * ``out=(levels, parents)``: into your arrays (int32, one per vertex,
          C-contiguous, writeable; ``parents`` may be None); they are returned;
        * ``device_result=True``: nothing is downloaded; the two are
          :class:`~rodinia_bfs.dlpack.DeviceArray` objects (as :meth:`device_levels` and
          :meth:`device_parents`), for ``cupy.from_dlpack`` or ``torch.from_dlpack``.

        The reference's arrays are always new ones of yours (or ``out``).
        """
        from rodinia_bfs.reference import check_depth_limit, start_vertices

        self._check_open()
        start_vertices(self.graph, source, sources)  # every argument checked before any work
        check_depth_limit(depth_limit)
        if self.step is None:
            return self._reference_bfs(source, sources, depth_limit, parents, out, device_result)
        step = self.step
        step.check_search_options(sources, depth_limit)  # before any work
        searched = {k: v for k, v in (("sources", sources), ("depth_limit", depth_limit))
                    if v is not None}
        self.last_result = step.search(source, **searched)
        want_parents = parents and step.returns_parents
        if device_result:
            if self.validate:
                self._validate(source, sources, depth_limit, *step.results(parents=want_parents))
            return self.device_levels(), self.device_parents() if want_parents else None
        pinned = out is None and not copy
        if pinned:
            out = self._pinned_buffers(want_parents)
        levels, parent_array = step.results(out, parents=want_parents)
        if self.validate:
            self._validate(source, sources, depth_limit, levels, parent_array)
        if pinned:
            levels, parent_array = _read_only(levels), _read_only(parent_array)
        return levels, parent_array

    def _reference_bfs(self, source, sources, depth_limit, parents, out, device_result):
        from rodinia_bfs.reference import bfs_reference

        if device_result:
            raise ArgumentError("device_result=True needs a GPU step; the reference runs on "
                                "the CPU")
        result = bfs_reference(self.graph, source, sources=sources, depth_limit=depth_limit)
        self.last_result = result
        levels, parent_array = result.levels, result.parents if parents else None
        if out is not None:
            from rodinia_bfs.variants.base import check_download_target

            levels_out, parents_out = out
            n = levels.size
            levels = _copy_into(check_download_target(levels_out, n, "levels"), levels)
            if parent_array is not None and parents_out is not None:
                parents_out = check_download_target(parents_out, n, "parents")
                parent_array = _copy_into(parents_out, parent_array)
        return levels, parent_array

    def _validate(self, source, sources, depth_limit, levels, parent_array) -> None:
        from rodinia_bfs.validate import validate_result

        validate_result(self.graph, source, levels, parent_array, sources=sources,
                        depth_limit=depth_limit)

    def _pinned_buffers(self, parents: bool):
        """The pinned (levels, parents) this object downloads into, allocated once
        (``hipHostMalloc``); parents only once a search asks for them."""
        n = self.graph.num_vertices
        levels, parent_array = self._pinned or (None, None)
        if levels is None:
            levels = self.device.host_malloc(n, np.int32)
        if parents and parent_array is None:
            parent_array = self.device.host_malloc(n, np.int32)
        self._pinned = (levels, parent_array)
        return levels, parent_array if parents else None

    # -- results left on the device ------------------------------------------------------

    def device_levels(self):
        """The last search's levels where they are, on the device: a
        :class:`~rodinia_bfs.dlpack.DeviceArray` (``__dlpack__``, and
        ``__cuda_array_interface__`` on NVIDIA) for ``cupy.from_dlpack`` /
        ``torch.from_dlpack``, without a copy. Overwritten by the next search, freed by
        :meth:`close`."""
        return self._device_array("levels")

    def device_parents(self):
        """The last search's parents on the device, as :meth:`device_levels`."""
        if self.step is not None and not self.step.returns_parents:
            raise ArgumentError(f"the {self.variant} step computes no parents")
        return self._device_array("parents")

    def _device_array(self, which: str):
        from rodinia_bfs.dlpack import DeviceArray, check_backend

        self._check_open()
        if self.step is None:
            raise ArgumentError("results on the device need a GPU step; the reference runs on "
                                "the CPU")
        if self.last_result is None:
            raise ArgumentError("no search yet: call bfs() first")
        check_backend(self.device)
        return DeviceArray(getattr(self.step, which), self.graph.num_vertices, self.device, self)

    # -- life ------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ArgumentError("this prepared graph is closed")

    def close(self) -> None:
        """Free the step's device memory (``hipFree``); searching afterwards is an error.
        Device arrays handed out before are no longer valid."""
        if not self._closed and self.step is not None:
            self.step.close()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        where = "the CPU" if self.device is None else self.device.backend
        state = ", closed" if self._closed else ""
        return f"<PreparedGraph {self.variant} on {where}: {self.graph!r}{state}>"


def _read_only(array):
    """A read-only plain-ndarray view of ``array`` (None stays None)."""
    if array is None:
        return None
    view = array.view(np.ndarray)
    view.flags.writeable = False
    return view


def _copy_into(target: np.ndarray, values: np.ndarray) -> np.ndarray:
    target[:] = values
    return target
