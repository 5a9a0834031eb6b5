"""The device interface that the host code of every step is written against.

Its names mirror HIP so that the tutorial can say, for each call, which HIP call it
is: :meth:`Device.compile` is ``hiprtcCompileProgram`` + ``hipModuleLoadData``,
:meth:`Module.get_function` is ``hipModuleGetFunction``, :meth:`Device.malloc` is
``hipMalloc``, :meth:`Device.launch` is ``hipModuleLaunchKernel`` and so on. Three
backends implement it: ``hip`` (HIP Python), ``cuda`` (cuda-python with NVRTC) and
``cpu`` (the emulator of this package).

Kernel arguments are typed explicitly: a device pointer is a :class:`DeviceBuffer`,
a scalar is a NumPy scalar (``np.int32(n)``, ``np.int64(m)``, ``np.uint32(x)``...).
A bare Python ``int`` is refused, because nothing says whether the kernel expects 4
or 8 bytes; getting that wrong reads garbage on the device.
"""

from __future__ import annotations

import ctypes
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from rodinia_bfs.errors import DeviceError

Dim3 = tuple[int, int, int]

#: Bytes of a ``GridBarrier`` (bfs_common.h); zero them before each cooperative launch.
GRID_BARRIER_BYTES = 16
#: What a launch whose grid barrier gave up (its failed word set) is told, after the name
#: of its kernel.
BARRIER_GAVE_UP = ("a block waited too long at the grid barrier, or for an entry of a "
                   "queue, and the launch gave up; some block never reached grid_sync or "
                   "never wrote its entries")


def dim3(value) -> Dim3:
    """``5`` -> ``(5, 1, 1)``; ``(5, 2)`` -> ``(5, 2, 1)``."""
    if isinstance(value, (int, np.integer)):
        value = (int(value),)
    value = tuple(int(v) for v in value)
    if not 1 <= len(value) <= 3 or any(v < 1 for v in value):
        raise DeviceError(f"grid and block dimensions must be 1 to 3 positive ints, got {value}")
    return value + (1,) * (3 - len(value))


def ceil_div(a: int, b: int) -> int:
    """Integer ceil-division, the grid size that covers ``a`` items with blocks of ``b``."""
    return -(-int(a) // int(b))


@dataclass(eq=False)
class DeviceBuffer:
    """Device memory: ``ptr`` is the device address (an int), ``nbytes`` its size."""

    ptr: int
    nbytes: int
    device: "Device"
    freed: bool = False

    #: The allocation this buffer is a view of (None for an allocation itself).
    owner: "DeviceBuffer | None" = None

    def __int__(self) -> int:
        return self.ptr

    def view(self, offset: int, nbytes: int | None = None) -> "DeviceBuffer":
        """The bytes ``[offset, offset + nbytes)`` of this buffer, as a buffer (pointer arithmetic)."""
        nbytes = self.nbytes - offset if nbytes is None else nbytes
        if offset < 0 or nbytes < 0 or offset + nbytes > self.nbytes:
            raise DeviceError(
                f"view [{offset}, {offset + nbytes}) is outside a buffer of {self.nbytes} bytes"
            )
        root = self.owner or self
        return DeviceBuffer(self.ptr + offset, nbytes, self.device, owner=root)


class PinnedArray(np.ndarray):
    """A NumPy array over page-locked host memory (``hipHostMalloc``); ``ptr`` is its address."""

    @property
    def ptr(self) -> int:
        return int(self.ctypes.data)


class MappedHostArray:
    """A host array that kernels read in place, without a copy to the device
    (:meth:`Device.host_mapped`): ``array`` is the host's NumPy view, ``device_ptr`` the
    address a kernel uses. :meth:`close` lets the memory go (it is freed once no view
    of ``array`` is left)."""

    def __init__(self, array: np.ndarray, device_ptr: int, kind: str):
        self.array, self.device_ptr, self.kind = array, int(device_ptr), kind
        self.nbytes = array.nbytes

    def close(self) -> None:
        self.array = None


#: The scalar argument types a kernel may take, with their C names.
SCALAR_TYPES = {
    np.dtype(np.int8): "int8_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.uint32): "uint32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.uint64): "uint64_t",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}


def record_address(arg) -> int | None:
    """Where an argument record lies in host memory, or None when ``arg`` is not one.

    A kernel's argument record is a C struct passed by value (declared once in a
    header), described in Python by a ``ctypes.Structure`` or by a NumPy array of one
    element of a structured dtype. ``kernelParams`` points at the record itself, and
    the launch call copies it: fields changed before a launch are what that launch
    gets. By value, the fields live where the GPU keeps every kernel argument (a
    constant bank that every thread reads without a load), not in registers."""
    if isinstance(arg, ctypes.Structure):
        return ctypes.addressof(arg)
    if isinstance(arg, np.ndarray) and arg.dtype.names is not None:
        if arg.size != 1 or not arg.flags.c_contiguous:
            raise TypeError("an argument record must be one contiguous element of a "
                            f"structured dtype, got shape {arg.shape}")
        return arg.ctypes.data
    return None


def record_bytes(arg) -> int:
    """The size of an argument record (:func:`record_address`)."""
    return ctypes.sizeof(arg) if isinstance(arg, ctypes.Structure) else arg.dtype.itemsize


def pack_args(args: Sequence) -> tuple[ctypes.Array, list]:
    """Pack kernel arguments into a ``void*[]`` of pointers to their values.

    This is the ``kernelParams`` array of ``hipModuleLaunchKernel`` / ``cuLaunchKernel``.
    Returns the array and the list of value objects, which the caller must keep alive
    until the launch call returns.
    """
    holders = []
    for i, arg in enumerate(args):
        if isinstance(arg, DeviceBuffer):
            if arg.freed or (arg.owner is not None and arg.owner.freed):
                raise DeviceError(f"kernel argument {i} is a freed device buffer")
            holders.append(ctypes.c_uint64(arg.ptr))
        elif isinstance(arg, np.generic) and arg.dtype in SCALAR_TYPES:
            holders.append(np.array(arg))  # 0-d array: stable address of the right width
        elif record_address(arg) is not None:
            holders.append(arg)  # pointed at, not copied (record_address)
        elif isinstance(arg, (bool, int, float)):
            raise TypeError(
                f"kernel argument {i} is a Python {type(arg).__name__} ({arg!r}); pass a typed "
                "NumPy scalar such as np.int32(x) or np.int64(x), as the kernel's C type says"
            )
        else:
            raise TypeError(f"kernel argument {i} has unsupported type {type(arg).__name__}")
    params = (ctypes.c_void_p * max(len(holders), 1))()
    for i, h in enumerate(holders):
        params[i] = (ctypes.addressof(h) if isinstance(h, (ctypes.c_uint64, ctypes.Structure))
                     else h.ctypes.data)
    return params, holders


class Kernel(ABC):
    """A ``__global__`` function of a compiled module (``hipFunction_t``)."""

    name: str


class Module(ABC):
    """A compiled code object (``hipModule_t``)."""

    @abstractmethod
    def get_function(self, name: str) -> Kernel:
        """``hipModuleGetFunction``."""


class Stream(ABC):
    """An in-order queue of device work (``hipStream_t``)."""

    @abstractmethod
    def synchronize(self) -> None:
        """``hipStreamSynchronize``: wait until everything queued has finished."""


class Event(ABC):
    """A marker in a stream (``hipEvent_t``), for timing."""

    @abstractmethod
    def record(self, stream: Stream | None = None) -> None:
        """``hipEventRecord``."""

    @abstractmethod
    def synchronize(self) -> None:
        """``hipEventSynchronize``."""

    @abstractmethod
    def elapsed_ms(self, end: "Event") -> float:
        """``hipEventElapsedTime(self, end)`` in milliseconds."""


class Device(ABC):
    """One device of one backend. Create it with :func:`rodinia_bfs.runtime.get_device`."""

    #: ``"hip"``, ``"cuda"`` or ``"cpu"``.
    backend: str
    #: Human-readable device name, e.g. ``"AMD Instinct MI210 (gfx90a)"``.
    name: str
    #: Threads per warp (wavefront): 64 on AMD Instinct, 32 on RDNA and NVIDIA.
    warp_size: int
    #: Compilation target: ``"gfx90a"``, ``"sm_90"``, ``"cpu-w32"``...
    arch: str
    #: Global memory in bytes.
    total_memory: int
    #: Multiprocessors (NVIDIA SMs, AMD compute units): how many blocks run side by side.
    multiprocessor_count: int
    #: The most threads one block may have.
    max_threads_per_block: int
    #: Shared memory a block may use without asking (48 KiB on NVIDIA, 64 KiB on AMD).
    shared_memory_per_block: int
    #: Shared memory a block may use when it opts in; the runtime opts in by itself when
    #: a launch asks for more dynamic shared memory than ``shared_memory_per_block``.
    max_shared_memory_per_block: int
    #: Ticks per second of ``device_clock()`` in bfs_common.h (per-level timing in a kernel).
    clock_rate_hz: float = 1e9
    #: Bytes of the level-2 cache that every multiprocessor shares (50 MiB on an H100):
    #: steps 6 and 7 claim by bit where a graph's per-vertex arrays outgrow it.
    l2_cache_bytes: int = 0

    # -- compilation ---------------------------------------------------------------
    @abstractmethod
    def compile(self, source: str, name: str = "kernel.hip", defines: dict | None = None,
                headers: dict[str, str] | None = None) -> Module:
        """Compile HIP C++ ``source`` with ``-D`` macros ``defines``; ``headers`` maps
        include names to their text. Raises :class:`~rodinia_bfs.errors.CompileError`
        with the compiler's full log on failure."""

    # -- memory --------------------------------------------------------------------
    @abstractmethod
    def malloc(self, nbytes: int) -> DeviceBuffer:
        """``hipMalloc``; raises DeviceError when the device is out of memory."""

    @abstractmethod
    def free(self, buf: DeviceBuffer) -> None:
        """``hipFree`` (freeing twice is an error)."""

    @abstractmethod
    def host_malloc(self, shape, dtype) -> PinnedArray:
        """``hipHostMalloc``: page-locked host memory as a NumPy array."""

    @abstractmethod
    def memcpy_htod(self, dst: DeviceBuffer, src: np.ndarray) -> None:
        """``hipMemcpy(..., hipMemcpyHostToDevice)`` of all of ``src``."""

    @abstractmethod
    def memcpy_dtoh(self, dst: np.ndarray, src: DeviceBuffer) -> None:
        """``hipMemcpy(..., hipMemcpyDeviceToHost)`` filling all of ``dst``."""

    @abstractmethod
    def memcpy_htod_async(self, dst: DeviceBuffer, src: np.ndarray, stream: Stream) -> None:
        """``hipMemcpyAsync`` host to device; ``src`` should be pinned."""

    @abstractmethod
    def memcpy_dtoh_async(self, dst: np.ndarray, src: DeviceBuffer, stream: Stream) -> None:
        """``hipMemcpyAsync`` device to host; ``dst`` should be pinned."""

    @abstractmethod
    def memset(self, buf: DeviceBuffer, byte: int, nbytes: int | None = None,
               stream: Stream | None = None) -> None:
        """``hipMemsetAsync`` of ``nbytes`` (default: all) to ``byte``, on ``stream``."""

    # -- execution -----------------------------------------------------------------
    @abstractmethod
    def stream(self) -> Stream:
        """``hipStreamCreate``."""

    @abstractmethod
    def event(self) -> Event:
        """``hipEventCreate``."""

    @abstractmethod
    def launch(self, kernel: Kernel, grid, block, args: Sequence, shared_mem: int = 0,
               stream: Stream | None = None) -> None:
        """``hipModuleLaunchKernel``: grid and block as ints or tuples, typed args."""

    @abstractmethod
    def synchronize(self) -> None:
        """``hipDeviceSynchronize``."""

    # -- cooperative launch ------------------------------------------------------------
    @abstractmethod
    def max_active_blocks(self, kernel: Kernel, block_size: int, shared_mem: int = 0) -> int:
        """``hipModuleOccupancyMaxActiveBlocksPerMultiprocessor``: how many blocks of
        ``block_size`` threads and ``shared_mem`` bytes of dynamic shared memory one
        multiprocessor holds at once (0 when not even one fits)."""

    @abstractmethod
    def _launch_cooperative(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence,
                            shared_mem: int, stream: Stream | None) -> None:
        """The backend's cooperative launch call, after :meth:`launch_cooperative`'s checks."""

    def cooperative_grid(self, kernel: Kernel, block_size: int, shared_mem: int = 0) -> int:
        """The most blocks a cooperative launch of ``kernel`` may have: all of them must be
        resident at once, so it is the occupancy times the multiprocessors."""
        return self.max_active_blocks(kernel, block_size, shared_mem) * self.multiprocessor_count

    def launch_cooperative(self, kernel: Kernel, grid, block, args: Sequence, shared_mem: int = 0,
                           stream: Stream | None = None) -> None:
        """``hipModuleLaunchCooperativeKernel``: a launch whose blocks are all resident at
        once, so that they can wait for each other at a grid barrier (``grid_sync`` in
        ``bfs_common.h``). A grid that cannot be co-resident is refused here, before the
        launch, instead of hanging at its first barrier."""
        grid, block = dim3(grid), dim3(block)
        self._check_coresident(kernel, grid, block, shared_mem)
        self._launch_cooperative(kernel, grid, block, args, shared_mem, stream)

    def _check_coresident(self, kernel: Kernel, grid: Dim3, block: Dim3, shared_mem: int) -> None:
        """Raise unless every block of the grid can be resident at once."""
        blocks, threads = grid[0] * grid[1] * grid[2], block[0] * block[1] * block[2]
        per_multiprocessor = self.max_active_blocks(kernel, threads, shared_mem)
        limit = per_multiprocessor * self.multiprocessor_count
        if blocks > limit:
            raise DeviceError(
                f"cooperative launch of {kernel.name}: {blocks} blocks of {threads} threads "
                f"({shared_mem} bytes of dynamic shared memory) cannot all be resident at once on "
                f"{self.name}; at most {limit} can ({per_multiprocessor} per multiprocessor x "
                f"{self.multiprocessor_count} multiprocessors)")

    def prepare_launch(self, kernel: Kernel, grid, block, args: Sequence, shared_mem: int = 0,
                       cooperative: bool = False) -> "PreparedLaunch":
        """A launch checked and packed once, to be made again and again: a host loop that
        launches one kernel per search with the same arguments but a few scalars. The
        checks of :meth:`launch` and :meth:`launch_cooperative` (dimensions, argument
        types, co-residency) run here; between two launches ``prepared[i] = value``
        changes one argument, and ``prepared(stream)`` queues the launch."""
        grid, block = dim3(grid), dim3(block)
        if cooperative:
            self._check_coresident(kernel, grid, block, shared_mem)
        pack_args(args)  # a badly typed argument fails here, with the reason
        return PreparedLaunch(self, kernel, grid, block, list(args), int(shared_mem),
                              cooperative)

    def _launch_prepared(self, launch: "PreparedLaunch", stream: Stream | None) -> None:
        """Queue a :class:`PreparedLaunch`. The GPU backends write its arguments once and
        then only those that change; this one launches with its argument list."""
        if launch.cooperative:
            self._launch_cooperative(launch.kernel, launch.grid, launch.block, launch.args,
                                     launch.shared_mem, stream)
        else:
            self.launch(launch.kernel, launch.grid, launch.block, launch.args,
                        launch.shared_mem, stream)

    def host_mapped(self, array: np.ndarray, managed: bool = False) -> MappedHostArray:
        """A copy of ``array`` in memory the host owns and kernels read in place: pinned
        and mapped into the device's address space (``hipHostMalloc`` with
        ``hipHostMallocMapped``, then ``hipHostGetDevicePointer``), or with ``managed``
        unified memory that the driver migrates page by page on demand
        (``hipMallocManaged``). A backend without it raises DeviceError."""
        raise DeviceError(f"the {self.backend} backend has no mapped host memory")

    def prefetch_to_host(self, mapped: MappedHostArray, stream=None) -> None:
        """Move the pages of managed memory ``mapped`` back to host memory
        (``hipMemPrefetchAsync`` to the CPU), queued on ``stream``: where they are before
        a kernel first touches them, and where a graph larger than the device keeps
        them. Mapped (pinned) memory never leaves the host: nothing to do."""
        if mapped.kind == "managed":
            raise DeviceError(f"the {self.backend} backend has no managed memory")

    def activate(self) -> None:
        """Make this device the one the calling thread works with (``hipSetDevice``).
        A process that drives several GPUs calls it before it works with each; a
        device is active on the thread that created it."""

    # -- conveniences built on the calls above ----------------------------------------
    def to_device(self, array: np.ndarray) -> DeviceBuffer:
        """Allocate and upload ``array`` (``hipMalloc`` + ``hipMemcpy``)."""
        array = np.ascontiguousarray(array)
        buf = self.malloc(max(array.nbytes, 1))
        if array.nbytes:
            self.memcpy_htod(buf, array)
        return buf

    def from_device(self, buf: DeviceBuffer, count: int, dtype) -> np.ndarray:
        """Download ``count`` items of ``dtype`` from ``buf``."""
        out = np.empty(count, dtype=dtype)
        if out.nbytes:
            self.memcpy_dtoh(out, buf)
        return out

    def check_grid_barrier(self, barrier: DeviceBuffer, kernel_name: str) -> None:
        """After a cooperative launch has finished: raise if its grid barrier gave up
        (a block waited longer than any real level takes, which means a bug)."""
        words = self.from_device(barrier, GRID_BARRIER_BYTES // 4, np.uint32)
        if words[1]:
            raise DeviceError(f"{kernel_name}: {BARRIER_GAVE_UP}")

    def describe(self) -> str:
        return f"{self.backend}: {self.name} ({self.arch}, warp size {self.warp_size})"


class PreparedLaunch:
    """A kernel launch checked and packed once (:meth:`Device.prepare_launch`).

    ``prepared[i] = value`` replaces argument ``i`` with a value of the same type (a
    NumPy scalar of the same dtype, or a :class:`DeviceBuffer`): a GPU backend writes
    that one value into the ``kernelParams`` it keeps. ``prepared(stream)`` queues the
    launch (``hipModuleLaunchKernel`` or ``hipModuleLaunchCooperativeKernel``)."""

    def __init__(self, device: Device, kernel: Kernel, grid: Dim3, block: Dim3, args: list,
                 shared_mem: int, cooperative: bool):
        self.device, self.kernel = device, kernel
        self.grid, self.block, self.args = grid, block, args
        self.shared_mem, self.cooperative = shared_mem, cooperative
        self._types = [type(a) for a in args]
        #: What the backend keeps for this launch (the GPU backends: its kernelParams).
        self.backend_state = None

    def __setitem__(self, index: int, value) -> None:
        if not -len(self.args) <= index < len(self.args):
            raise IndexError(f"{self.kernel.name} has {len(self.args)} arguments, not {index + 1}")
        index %= len(self.args)
        if type(value) is not self._types[index] and not (
                isinstance(value, DeviceBuffer) and issubclass(self._types[index], DeviceBuffer)):
            raise TypeError(f"argument {index} of {self.kernel.name} is a "
                            f"{self._types[index].__name__}, not a {type(value).__name__}")
        self.args[index] = value
        if self.backend_state is not None:
            self.backend_state.write(index, value)

    def __call__(self, stream: Stream | None = None) -> None:
        self.device._launch_prepared(self, stream)
