"""The collectives step 8 calls between its GPUs: NCCL, RCCL, or the cpu stand-in.

One process drives every GPU, so the communicators come from ``ncclCommInitAll`` (a
clique of communicators, one per device, with no rendezvous between processes), and
each collective is issued once per device between ``ncclGroupStart`` and
``ncclGroupEnd``: one thread cannot wait in one device's call for the others to join.

* :class:`NcclCollective`: NVIDIA's NCCL through ``nccl4py`` (its low-level bindings
  take device pointers and stream handles as integers, like our runtime);
* :class:`RcclCollective`: AMD's RCCL through hip-python's ``rccl`` bindings (the same
  API under the same names);
* :class:`InProcessCollective`: a stand-in for the cpu backend only, so that CI can
  test the exchange logic with several emulated devices. It copies between their
  buffers in this process; it is not a communication layer for GPUs.

Every operation works on the devices' own streams and is asynchronous on GPUs, like
a kernel launch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Sequence

import ctypes

import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs.runtime.base import Device, DeviceBuffer, Stream

#: What to install for the collectives, by backend.
INSTALL_HINT = {
    "cuda": "pip install 'rodinia-bfs[nccl]' (nccl4py and the NCCL runtime nvidia-nccl-cu13)",
    "hip": "pip install 'rodinia-bfs[rccl]' (hip-python's RCCL bindings) and ROCm's librccl",
}


class Collective(ABC):
    """Collectives over ``devices``: rank ``k`` is ``devices[k]``."""

    #: Library name for messages and reports.
    name: str

    def __init__(self, devices: Sequence[Device]):
        self.devices = list(devices)

    @abstractmethod
    def all_gather_u32(self, buffers: Sequence[DeviceBuffer], count: int,
                       streams: Sequence[Stream]) -> None:
        """In-place ``ncclAllGather``: ``buffers[k]`` holds ``len(devices)`` blocks of
        ``count`` 32-bit words; rank ``k`` contributes its block ``k`` and receives
        every other rank's block into the same place."""

    @abstractmethod
    def reduce_max_i32(self, buffers: Sequence[DeviceBuffer], count: int, root: int,
                       streams: Sequence[Stream]) -> None:
        """In-place ``ncclReduce`` with ``ncclMax``: ``buffers[root]`` gets the element-wise
        maximum of the first ``count`` int32 of every rank's buffer."""

    @abstractmethod
    def send_recv_i32(self, sends: Sequence[DeviceBuffer], counts: np.ndarray, capacity: int,
                      recvs: Sequence[DeviceBuffer], streams: Sequence[Stream]) -> None:
        """``ncclSend`` / ``ncclRecv`` pairs in one group: rank ``p`` sends ``counts[p, q]``
        int32 from ``sends[p]`` at ``q * capacity`` to rank ``q``, which receives them into
        ``recvs[q]`` after those of the ranks before ``p`` (:func:`receive_offsets`)."""

    def close(self) -> None:
        """Destroy the communicators (``ncclCommDestroy``)."""


def receive_offsets(counts: np.ndarray) -> np.ndarray:
    """Where rank ``q`` receives rank ``p``'s ids: ``offsets[p, q]`` ints into its buffer."""
    offsets = np.zeros_like(counts)
    offsets[1:] = np.cumsum(counts[:-1], axis=0)
    return offsets


# [collective-stand-in-begin]
class InProcessCollective(Collective):
    """Stand-in for NCCL on the cpu backend: the emulated devices' memory is this
    process's memory, so a collective is a few copies between their buffers."""

    name = "in-process stand-in (cpu backend)"

    def __init__(self, devices: Sequence[Device]):
        if any(d.backend != "cpu" for d in devices):
            raise DeviceError("the in-process collective is only for the cpu backend")
        super().__init__(devices)

    def all_gather_u32(self, buffers, count, streams) -> None:
        block = 4 * count
        for k, dst in enumerate(buffers):
            for j, src in enumerate(buffers):
                if j != k:
                    ctypes.memmove(dst.ptr + j * block, src.ptr + j * block, block)

    def reduce_max_i32(self, buffers, count, root, streams) -> None:
        arrays = [d.from_device(b, count, np.int32) for d, b in zip(self.devices, buffers)]
        self.devices[root].memcpy_htod(buffers[root].view(0, 4 * count),
                                       np.maximum.reduce(arrays))

    def send_recv_i32(self, sends, counts, capacity, recvs, streams) -> None:
        at = receive_offsets(counts)
        for p, q in zip(*np.nonzero(counts)):
            p, q = int(p), int(q)
            ctypes.memmove(recvs[q].ptr + 4 * int(at[p, q]), sends[p].ptr + 4 * capacity * q,
                           4 * int(counts[p, q]))
# [collective-stand-in-end]


class NcclCollective(Collective):
    """NCCL through nccl4py's bindings of the C API."""

    name = "NCCL"

    def __init__(self, devices: Sequence[Device]):
        super().__init__(devices)
        try:
            from nccl.bindings import nccl
            nccl.get_version()  # loads libnccl.so.2: fails here if the runtime is missing
        except Exception as exc:
            raise RodiniaBFSError(f"multi_gpu needs NCCL on NVIDIA GPUs ({exc}); "
                                  f"{INSTALL_HINT['cuda']}") from None
        self._nccl = nccl
        self._u32, self._i32 = int(nccl.DataType.Uint32), int(nccl.DataType.Int32)
        self._max = int(nccl.RedOp.Max)
        self._comms = list(self._call("ncclCommInitAll", nccl.comm_init_all, len(self.devices),
                                      [d.device_id for d in self.devices]))

    def _call(self, what: str, fn, *args):
        try:
            return fn(*args)
        except Exception as exc:
            raise DeviceError(f"{what} failed: {exc}") from None

    def _grouped(self, what: str, issue) -> None:
        """Issue ``issue(rank)`` for every rank between ncclGroupStart and ncclGroupEnd."""
        nccl = self._nccl
        self._call("ncclGroupStart", nccl.group_start)
        try:
            for rank, device in enumerate(self.devices):
                device.activate()
                self._call(what, issue, rank)
        finally:
            self._call("ncclGroupEnd", nccl.group_end)

    def all_gather_u32(self, buffers, count, streams) -> None:
        nccl = self._nccl
        self._grouped("ncclAllGather", lambda k: nccl.all_gather(
            buffers[k].ptr + 4 * count * k, buffers[k].ptr, count, self._u32,
            self._comms[k], int(streams[k].handle)))

    def reduce_max_i32(self, buffers, count, root, streams) -> None:
        nccl = self._nccl
        self._grouped("ncclReduce", lambda k: nccl.reduce(
            buffers[k].ptr, buffers[k].ptr, count, self._i32, self._max, root,
            self._comms[k], int(streams[k].handle)))

    def send_recv_i32(self, sends, counts, capacity, recvs, streams) -> None:
        nccl, at = self._nccl, receive_offsets(counts)

        def pairs(k):  # rank k's sends, then its receives
            for q in np.nonzero(counts[k])[0]:
                nccl.send(sends[k].ptr + 4 * capacity * int(q), int(counts[k, q]), self._i32,
                          int(q), self._comms[k], int(streams[k].handle))
            for p in np.nonzero(counts[:, k])[0]:
                nccl.recv(recvs[k].ptr + 4 * int(at[p, k]), int(counts[p, k]), self._i32, int(p),
                          self._comms[k], int(streams[k].handle))

        self._grouped("ncclSend/ncclRecv", pairs)

    def close(self) -> None:
        while self._comms:
            self._nccl.comm_destroy(self._comms.pop())


class RcclCollective(Collective):
    """RCCL through hip-python's bindings, which mirror NCCL's C API."""

    name = "RCCL"

    def __init__(self, devices: Sequence[Device]):
        super().__init__(devices)
        try:
            from hip import rccl
        except Exception as exc:
            raise RodiniaBFSError(f"multi_gpu needs RCCL on AMD GPUs ({exc}); "
                                  f"{INSTALL_HINT['hip']}") from None
        self._rccl = rccl
        comms = np.zeros(len(self.devices), dtype=np.uint64)  # ncclComm_t handles
        self._check(rccl.ncclCommInitAll(comms, len(self.devices),
                                         np.array([d.device_id for d in self.devices], np.int32)),
                    "ncclCommInitAll")
        self._comms = [int(c) for c in comms]

    def _check(self, result, what: str) -> None:
        err = result[0] if isinstance(result, tuple) else result
        if err != self._rccl.ncclResult_t.ncclSuccess:
            raise DeviceError(f"{what} failed: {getattr(err, 'name', err)}")

    def _grouped(self, what: str, issue) -> None:
        rccl = self._rccl
        self._check(rccl.ncclGroupStart(), "ncclGroupStart")
        try:
            for rank, device in enumerate(self.devices):
                device.activate()
                self._check(issue(rank), what)
        finally:
            self._check(rccl.ncclGroupEnd(), "ncclGroupEnd")

    def all_gather_u32(self, buffers, count, streams) -> None:
        rccl = self._rccl
        self._grouped("ncclAllGather", lambda k: rccl.ncclAllGather(
            buffers[k].ptr + 4 * count * k, buffers[k].ptr, count,
            rccl.ncclDataType_t.ncclUint32, self._comms[k], streams[k].handle))

    def reduce_max_i32(self, buffers, count, root, streams) -> None:
        rccl = self._rccl
        self._grouped("ncclReduce", lambda k: rccl.ncclReduce(
            buffers[k].ptr, buffers[k].ptr, count, rccl.ncclDataType_t.ncclInt32,
            rccl.ncclRedOp_t.ncclMax, root, self._comms[k], streams[k].handle))

    def send_recv_i32(self, sends, counts, capacity, recvs, streams) -> None:
        rccl, at = self._rccl, receive_offsets(counts)
        int32 = rccl.ncclDataType_t.ncclInt32

        def pairs(k):  # rank k's sends, then its receives
            for q in np.nonzero(counts[k])[0]:
                self._check(rccl.ncclSend(sends[k].ptr + 4 * capacity * int(q), int(counts[k, q]),
                                          int32, int(q), self._comms[k], streams[k].handle),
                            "ncclSend")
            for p in np.nonzero(counts[:, k])[0]:
                self._check(rccl.ncclRecv(recvs[k].ptr + 4 * int(at[p, k]), int(counts[p, k]),
                                          int32, int(p), self._comms[k], streams[k].handle),
                            "ncclRecv")
            return (rccl.ncclResult_t.ncclSuccess,)

        self._grouped("ncclSend/ncclRecv", pairs)

    def close(self) -> None:
        while self._comms:
            self._rccl.ncclCommDestroy(self._comms.pop())


def open_collective(devices: Sequence[Device]) -> Collective:
    """The collective library for ``devices`` (all of one backend): NCCL on cuda, RCCL
    on hip, the in-process stand-in on the cpu emulator. A one-line error says what
    to install when the library is missing."""
    backend = devices[0].backend
    if any(d.backend != backend for d in devices):
        raise DeviceError("the devices of one collective must all be of one backend")
    return {"cuda": NcclCollective, "hip": RcclCollective,
            "cpu": InProcessCollective}[backend](devices)
