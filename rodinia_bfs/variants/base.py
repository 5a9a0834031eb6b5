"""What every step of the tutorial has in common on the host side: the step contract.

A step is set up once per graph (compile the kernels, upload the CSR arrays, allocate
its work arrays) and then runs one BFS per source. Keeping the two apart lets the
benchmark time the BFS without the upload, as Rodinia's own timer does.

A step implements three things and inherits the rest:

* ``__init__``: call ``super().__init__(device, graph)`` (which creates the step's
  stream), then compile (:meth:`GPUStep._compile`), upload (:meth:`GPUStep._upload`)
  and allocate (:meth:`GPUStep._alloc`);
* ``_reset(source)``: queue the start state of a BFS on ``self.stream``; what it
  returns is handed to the host loop;
* ``_host_loop(start, timer)``: the levels, calling ``timer.end_level()`` after each
  and :meth:`GPUStep._runaway_guard` with the bound that a working kernel cannot pass.

:meth:`GPUStep.search` checks the source, resets, runs the loop and collects the
per-level times; :meth:`GPUStep.results` downloads ``self.levels`` (and
``self.parents`` where the step has them), into arrays of the caller's if given.

A step that also searches from several start vertices at once, and stops after a
number of levels, says so with ``takes_sources = True`` in its class, implements
``_reset_many(starts)`` and lets its host loop stop after ``self.max_levels`` levels.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from rodinia_bfs.errors import ArgumentError, DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.reference import BFSResult, check_depth_limit, start_vertices
from rodinia_bfs.runtime.base import Device, Stream


def check_fits(device: Device, graph: CSRGraph, bytes_per_vertex: int, bytes_per_edge: int) -> None:
    """Refuse, in one line, a graph the device cannot hold, before allocating anything."""
    need = graph.num_vertices * bytes_per_vertex + graph.num_edges * bytes_per_edge
    if need > device.total_memory:
        raise RodiniaBFSError(
            f"the graph needs about {need / 2**30:.1f} GiB of device memory; "
            f"{device.name} has {device.total_memory / 2**30:.1f} GiB"
        )


def field_views(record: np.ndarray, names) -> dict[str, np.ndarray]:
    """One-element views of the fields ``names`` of ``record`` (an argument record that
    a prepared launch passes by value; its first element): ``views[name][0] = value``
    writes the field in place. A write by field name (``record[name] = value``) builds
    a view each time, about a microsecond, which a search of a tenth of a millisecond
    feels when the host writes several before its launch."""
    return {name: record[name][:1] for name in names}


def bitmap_of(vertices: np.ndarray, words: int) -> np.ndarray:
    """A bitmap of ``words`` 32-bit words with the bits of ``vertices`` set, as the
    kernels keep a set of vertices (bitmap.h): bit v % 32 of word v / 32."""
    bits = np.zeros(32 * words, bool)
    bits[vertices] = True
    return np.packbits(bits, bitorder="little").view(np.uint32)


class DeviceMemory:
    """The buffers one owner allocates on one device, freed together (``hipFree``)."""

    def __init__(self, device: Device):
        self.device = device
        self.buffers = []

    def alloc(self, nbytes: int):
        """``hipMalloc`` (at least one byte); freed by :meth:`free`."""
        buf = self.device.malloc(max(int(nbytes), 1))
        self.buffers.append(buf)
        return buf

    def upload(self, array: np.ndarray):
        """``hipMalloc`` + ``hipMemcpy`` of ``array``; freed by :meth:`free`."""
        buf = self.device.to_device(array)
        self.buffers.append(buf)
        return buf

    def free(self) -> None:
        while self.buffers:
            self.device.free(self.buffers.pop())


class LevelTimer:
    """The per-level profile of ``profile=True``: an event recorded on the step's stream
    before the first level and after each one (``hipEventRecord``); without profiling
    it does nothing, so the timed runs record no events."""

    def __init__(self, device: Device, stream: Stream, enabled: bool):
        self.device, self.stream = device, stream
        self.marks = [device.event()] if enabled else []
        if enabled:
            self.marks[0].record(stream)

    def end_level(self) -> None:
        """Mark the end of a level (after its stream synchronisation)."""
        if self.marks:
            self.marks.append(self.device.event())
            self.marks[-1].record(self.stream)

    def elapsed_ms(self) -> list[float]:
        """Milliseconds between consecutive marks: one per level, [] without profiling."""
        if not self.marks:
            return []
        self.marks[-1].synchronize()
        return [a.elapsed_ms(b) for a, b in zip(self.marks, self.marks[1:])]


#: ``max_levels`` of a search without a depth limit: more levels than any graph of
#: 32-bit vertex ids has, so the host loops stop only when the frontier is empty.
NO_DEPTH_LIMIT = 2**31 - 1


class GPUStep(ABC):
    """A BFS step that runs on a :class:`~rodinia_bfs.runtime.base.Device`."""

    #: Variant name on the command line (``--variant``).
    name: str
    #: Its kernel file in ``hip_kernels/``.
    kernel_file: str
    #: Whether :meth:`run` returns parents as well as levels.
    returns_parents: bool = False
    #: Whether the result has ``frontier_sizes``: the frontier of each level, as counted
    #: on the device.
    reports_frontier_sizes: bool = False
    #: Whether each round of the host loop is one level, so that ``iterations`` is the
    #: number of levels; a step that runs several levels per launch sets it False.
    one_level_per_iteration: bool = True
    #: Whether this class's ``_reset_many`` and host loop take ``sources=`` and
    #: ``depth_limit=``; read through :meth:`takes_search_options`, which asks the
    #: classes that define the step's reset and host loop, not a parent of theirs.
    takes_sources: bool = False
    #: The levels the current search may expand: its ``depth_limit``, or
    #: :data:`NO_DEPTH_LIMIT`. The host loops of the steps that take ``sources`` stop there.
    max_levels: int = NO_DEPTH_LIMIT

    def __init__(self, device: Device, graph: CSRGraph):
        self.device = device
        self.graph = graph
        self._memory = DeviceMemory(device)
        #: The step's stream (``hipStreamCreate``): the reset, the launches and the copies
        #: of a search are queued on it, in order.
        self.stream = device.stream()
        self._staged = None  # pinned start state of a multi-source search (_start_state)

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        """The ``-D`` tunables this step compiles with by default on a device of
        ``warp_size``; the compile checks for every target use them too. A step whose
        defaults depend on the graph (step 5's rows) gives those of ``graph`` where one is
        given, and those of a graph of any degrees where not."""
        return {}

    def _compile(self, defines: dict) -> "object":
        """Compile the step's kernel file with ``defines`` (hiprtc + ``hipModuleLoadData``)."""
        return self.device.compile(
            kernel_source(self.kernel_file), self.kernel_file, defines=defines,
            headers=kernel_headers(),
        )

    def _alloc(self, nbytes: int):
        """``hipMalloc``; freed by :meth:`close`."""
        return self._memory.alloc(nbytes)

    def _upload(self, array: np.ndarray):
        """``hipMalloc`` + ``hipMemcpy`` of ``array``; freed by :meth:`close`."""
        return self._memory.upload(array)

    def search(self, source: int | None, profile: bool = False, *, sources=None,
               depth_limit: int | None = None) -> BFSResult:
        """One BFS from ``source``, left on the device: the reset and the host loop.

        The returned :class:`BFSResult` has ``iterations`` (and per-level figures with
        ``profile=True``) but no levels yet; :meth:`results` downloads them.
        ``sources`` (a list of start vertices, instead of ``source``) and
        ``depth_limit`` (levels to expand at most) need a step that
        :meth:`takes_search_options`; the others refuse them in one line."""
        if sources is None and depth_limit is None:
            self.max_levels = NO_DEPTH_LIMIT
            start = self._reset(self.graph.check_source(source))
        else:
            self.check_search_options(sources, depth_limit)
            starts = start_vertices(self.graph, source, sources)
            depth = check_depth_limit(depth_limit)
            self.max_levels = NO_DEPTH_LIMIT if depth is None else depth
            start = self._reset_many(starts)
        timer = LevelTimer(self.device, self.stream, profile)
        outcome = self._host_loop(start, timer)
        outcome.level_times_ms = timer.elapsed_ms()
        return outcome

    @classmethod
    def takes_search_options(cls) -> bool:
        """Whether this step searches from several sources and stops at a depth limit:
        the classes that define its ``_reset`` and its ``_host_loop`` both say
        ``takes_sources = True``. (A step that derives from one that does but writes its
        own reset or loop does not inherit the claim.)"""
        def says(method: str) -> bool:
            owner = next(k for k in cls.__mro__ if method in vars(k))
            return bool(vars(owner).get("takes_sources", False))

        return says("_reset") and says("_host_loop")

    @classmethod
    def check_search_options(cls, sources=None, depth_limit=None) -> None:
        """Refuse ``sources``/``depth_limit`` in one line on a step that cannot do them."""
        if (sources is None and depth_limit is None) or cls.takes_search_options():
            return
        from rodinia_bfs.variants import STEPS

        able = ", ".join(["reference"] + [n for n, k in STEPS.items() if k.takes_search_options()])
        asked = " and ".join(o for o, v in (("sources=", sources), ("depth_limit=", depth_limit))
                             if v is not None)
        raise ArgumentError(f"the {cls.name} step does not support {asked} yet; "
                            f"variants that do: {able}")

    def _reset_many(self, starts: np.ndarray):
        """Queue the start state of a BFS from every vertex of ``starts`` (int32, sorted,
        no repeats) on ``self.stream``; return what the host loop starts from. Only the
        steps that :meth:`takes_search_options` have one."""
        raise ArgumentError(f"the {self.name} step does not support several sources")

    def _start_state(self, starts: np.ndarray):
        """The start state of a search from ``starts`` in pinned host memory, for
        ``_reset_many`` to upload: ``levels`` (-1, and 0 at each start), ``parents`` (-1,
        and each start its own), and ``starts`` itself. The buffers are allocated at the
        first such search and reused: before they are overwritten, the stream is waited for,
        so that no upload of the previous search still reads them (a search with
        ``depth_limit=0`` runs no level, and its host loop may return without waiting)."""
        n, k = self.graph.num_vertices, starts.size
        if self._staged is None:
            self._staged = tuple(self.device.host_malloc(max(n, 1), np.int32) for _ in range(3))
        else:
            self.stream.synchronize()
        levels, parents, staged_starts = (a[:n] for a in self._staged)
        levels.fill(-1)
        parents.fill(-1)
        levels[starts] = 0
        parents[starts] = starts
        staged_starts[:k] = starts
        return levels, parents, staged_starts[:k]

    @abstractmethod
    def _reset(self, source: int):
        """Queue the start state of a BFS from ``source`` on ``self.stream``; return what
        the host loop starts from (None if nothing)."""

    @abstractmethod
    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        """Run the levels of one BFS; return its ``iterations`` (and ``frontier_sizes``
        where the step counts them)."""

    def _runaway_guard(self, level: int, count: int, bound: int, what: str) -> None:
        """Stop a host loop that a broken kernel would keep going round for ever (or
        past the end of its queues): ``count`` of ``what`` can never pass ``bound`` in a
        correct BFS."""
        if count > bound:
            raise DeviceError(
                f"{self.name} BFS did not finish after {level} levels: {count} {what}, "
                f"more than the {bound} a working kernel can reach on this graph"
            )

    def results(self, out=None, *, parents: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Download the last search's levels (and parents, where the step has them and
        ``parents`` is True; ``None`` otherwise).

        ``out``: ``(levels, parents)`` host arrays to download into (int32, one per
        vertex, C-contiguous, writeable; either may be None for a new array). Pinned
        arrays (``device.host_malloc``) are the fastest: the GPU copies into them
        directly. Both copies are queued on the step's stream, then waited for once."""
        n = self.graph.num_vertices
        want_parents = parents and self.returns_parents
        levels_out, parents_out = (None, None) if out is None else out
        levels_out = check_download_target(levels_out, n, "levels")
        parents_out = check_download_target(parents_out, n, "parents") if want_parents else None
        if n:
            self.device.memcpy_dtoh_async(levels_out, self.levels.view(0, 4 * n), self.stream)
            if want_parents:
                self.device.memcpy_dtoh_async(parents_out, self.parents.view(0, 4 * n),
                                              self.stream)
        self.stream.synchronize()
        return levels_out, parents_out

    def run(self, source: int, profile: bool = False) -> BFSResult:
        """One BFS from ``source``: :meth:`search`, then :meth:`results`."""
        outcome = self.search(source, profile=profile)
        outcome.levels, outcome.parents = self.results()
        return outcome

    def close(self) -> None:
        """Free the device memory of this step (``hipFree``)."""
        self._memory.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def check_download_target(array, n: int, what: str) -> np.ndarray:
    """``array`` checked as the host side of a download of ``n`` int32, or a new one."""
    if array is None:
        return np.empty(n, dtype=np.int32)
    if (not isinstance(array, np.ndarray) or array.dtype != np.int32 or array.shape != (n,)
            or not array.flags.c_contiguous or not array.flags.writeable):
        got = (f"{array.dtype} {array.shape}" if isinstance(array, np.ndarray)
               else type(array).__name__)
        raise ArgumentError(f"out {what}: need a writeable C-contiguous int32 array of shape "
                            f"({n},), got {got}")
    return array
