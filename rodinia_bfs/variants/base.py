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
``self.parents`` where the step has them).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import Device, Stream


def check_fits(device: Device, graph: CSRGraph, bytes_per_vertex: int, bytes_per_edge: int) -> None:
    """Refuse, in one line, a graph the device cannot hold, before allocating anything."""
    need = graph.num_vertices * bytes_per_vertex + graph.num_edges * bytes_per_edge
    if need > device.total_memory:
        raise RodiniaBFSError(
            f"the graph needs about {need / 2**30:.1f} GiB of device memory; "
            f"{device.name} has {device.total_memory / 2**30:.1f} GiB"
        )


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

    def __init__(self, device: Device, graph: CSRGraph):
        self.device = device
        self.graph = graph
        self._memory = DeviceMemory(device)
        #: The step's stream (``hipStreamCreate``): the reset, the launches and the copies
        #: of a search are queued on it, in order.
        self.stream = device.stream()

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

    def search(self, source: int, profile: bool = False) -> BFSResult:
        """One BFS from ``source``, left on the device: the reset and the host loop.

        The returned :class:`BFSResult` has ``iterations`` (and per-level figures with
        ``profile=True``) but no levels yet; :meth:`results` downloads them."""
        source = self.graph.check_source(source)
        start = self._reset(source)
        timer = LevelTimer(self.device, self.stream, profile)
        outcome = self._host_loop(start, timer)
        outcome.level_times_ms = timer.elapsed_ms()
        return outcome

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

    def results(self) -> tuple[np.ndarray, np.ndarray | None]:
        """Download the last search's levels (and parents, where the step has them)."""
        n = self.graph.num_vertices
        levels = self.device.from_device(self.levels, n, np.int32)
        parents = self.device.from_device(self.parents, n, np.int32) if self.returns_parents else None
        return levels, parents

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
