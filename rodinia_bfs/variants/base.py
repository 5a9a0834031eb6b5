"""What every step of the tutorial has in common on the host side.

A step is set up once per graph (compile the kernels, upload the CSR arrays, allocate
its work arrays) and then runs one BFS per source. Keeping the two apart lets the
benchmark time the BFS without the upload, as Rodinia's own timer does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.reference import check_source  # the same one-line error as the reference
from rodinia_bfs.runtime.base import Device


@dataclass
class BFSRun:
    """The outcome of one BFS: ``levels`` (int32, -1 unreachable), ``parents`` where the
    step computes them, and ``iterations``: how many times the host loop went round."""

    levels: np.ndarray | None = None
    parents: np.ndarray | None = None
    iterations: int = 0
    #: Milliseconds of each iteration, when run with ``profile=True``.
    level_times_ms: list[float] = field(default_factory=list)
    #: Vertices in the frontier of each iteration, where the step counts them on the device.
    frontier_sizes: list[int] = field(default_factory=list)


def check_fits(device: Device, graph: CSRGraph, bytes_per_vertex: int, bytes_per_edge: int) -> None:
    """Refuse, in one line, a graph the device cannot hold, before allocating anything."""
    need = graph.num_vertices * bytes_per_vertex + graph.num_edges * bytes_per_edge
    if need > device.total_memory:
        raise RodiniaBFSError(
            f"the graph needs about {need / 2**30:.1f} GiB of device memory; "
            f"{device.name} has {device.total_memory / 2**30:.1f} GiB"
        )


class GPUStep(ABC):
    """A BFS step that runs on a :class:`~rodinia_bfs.runtime.base.Device`."""

    #: Variant name on the command line (``--variant``).
    name: str
    #: Its kernel file in ``hip_kernels/``.
    kernel_file: str
    #: Whether :meth:`run` returns parents as well as levels.
    returns_parents: bool = False

    def __init__(self, device: Device, graph: CSRGraph):
        self.device = device
        self.graph = graph
        self._buffers = []

    @classmethod
    def default_defines(cls, warp_size: int) -> dict:
        """The ``-D`` tunables this step compiles with by default on a device of
        ``warp_size``; the compile checks for every target use them too."""
        return {}

    def _compile(self, defines: dict) -> "object":
        return self.device.compile(
            kernel_source(self.kernel_file), self.kernel_file, defines=defines,
            headers=kernel_headers(),
        )

    def _alloc(self, nbytes: int):
        buf = self.device.malloc(max(int(nbytes), 1))
        self._buffers.append(buf)
        return buf

    def _upload(self, array: np.ndarray):
        buf = self.device.to_device(array)
        self._buffers.append(buf)
        return buf

    @abstractmethod
    def search(self, source: int, profile: bool = False) -> BFSRun:
        """One BFS from ``source``, left on the device: the reset and the host loop.

        The returned :class:`BFSRun` has ``iterations`` (and per-level figures with
        ``profile=True``) but no levels yet; :meth:`results` downloads them."""

    @abstractmethod
    def results(self) -> tuple[np.ndarray, np.ndarray | None]:
        """Download the last search's levels (and parents, where the step has them)."""

    def run(self, source: int, profile: bool = False) -> BFSRun:
        """One BFS from ``source``: :meth:`search`, then :meth:`results`."""
        outcome = self.search(source, profile=profile)
        outcome.levels, outcome.parents = self.results()
        return outcome

    def close(self) -> None:
        """Free the device memory of this step (``hipFree``)."""
        while self._buffers:
            self.device.free(self._buffers.pop())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
