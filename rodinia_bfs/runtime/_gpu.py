"""What the two GPU backends (hip and cuda) do alike, written once.

HIP and the CUDA driver API have the same shape: a module loaded from a code object, a
function looked up in it, memory allocated and copied, streams and events, a launch
with a ``void* kernelParams[]``. The classes here hold everything around the vendor
calls: argument checks, copy-size checks, pinned memory as NumPy arrays, the kernel
argument packer, the occupancy cache, the opt-in for large shared memory, the compile
wrapper. Each backend subclasses :class:`GpuDevice` and fills in the small ``_``
methods, each of which is one vendor call (``hipMalloc`` or ``cuMemAlloc``...) that
the tutorial can point at.
"""

from __future__ import annotations

import logging
import weakref
from abc import abstractmethod
from typing import Sequence

import numpy as np

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.runtime import _checks
from rodinia_bfs.runtime.base import Device, DeviceBuffer, Event, Kernel, Module, PinnedArray, Stream

log = logging.getLogger(__name__)

#: A host-to-device copy of at least this many bytes from pageable memory is made from
#: the source pinned in place (``hipHostRegister``, the copy, ``hipHostUnregister``):
#: on an H100, 128 MiB took 18.77-23.02 ms pageable and 9.51-11.76 ms this way, pinning
#: included (benchmarks/results/h100-2026-11-25-diagnostics). A small copy is quick
#: either way.
PIN_IN_PLACE_BYTES = 16 << 20


def quietly(destroy, handle) -> None:
    """Release a handle from a finalizer, where raising would only print a warning."""
    try:
        destroy(handle)
    except Exception:
        pass


def text(value) -> str:
    """A name the driver returned as bytes (NUL-padded) or str, as plain text."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value).strip()


def _finalize(owner, destroy, handle) -> None:
    finalizer = weakref.finalize(owner, quietly, destroy, handle)
    finalizer.atexit = False


class GpuKernel(Kernel):
    """A ``__global__`` function (``hipFunction_t`` / ``CUfunction``)."""

    def __init__(self, module: "GpuModule", name: str, handle):
        self.module = module  # keeps the code loaded as long as the kernel is used
        self.name = name
        self.handle = handle
        self.packer = _checks.ArgPacker()  # this kernel's kernelParams, reused launch after launch
        self.shared_opt_in = 0  # dynamic shared memory it may use beyond the default
        self.occupancy: dict[tuple[int, int], int] = {}


class GpuModule(Module):
    """A loaded code object; ``log`` is the run-time compiler's output."""

    def __init__(self, device: "GpuDevice", handle, name: str, log_text: str):
        self.device = device
        self.handle = handle
        self.name = name
        self.log = log_text
        self._kernels: dict[str, GpuKernel] = {}
        _finalize(self, device._module_unload, handle)

    def get_function(self, name: str) -> GpuKernel:
        """``hipModuleGetFunction`` / ``cuModuleGetFunction``."""
        kernel = self._kernels.get(name)
        if kernel is None:
            handle = self.device._module_get_function(self.handle, name, self.name)
            kernel = self._kernels[name] = GpuKernel(self, name, handle)
        return kernel


class GpuStream(Stream):
    def __init__(self, device: "GpuDevice"):
        self.device = device
        self.handle = device._stream_create()
        _finalize(self, device._stream_destroy, self.handle)

    def synchronize(self) -> None:
        """``hipStreamSynchronize`` / ``cuStreamSynchronize``."""
        self.device._stream_synchronize(self.handle)


class GpuEvent(Event):
    def __init__(self, device: "GpuDevice"):
        self.device = device
        self.handle = device._event_create()
        _finalize(self, device._event_destroy, self.handle)

    def record(self, stream: GpuStream | None = None) -> None:
        """``hipEventRecord`` / ``cuEventRecord`` (the null stream when ``stream`` is None)."""
        self.device._event_record(self.handle, self.device._stream(stream))

    def synchronize(self) -> None:
        """``hipEventSynchronize`` / ``cuEventSynchronize``."""
        self.device._event_synchronize(self.handle)

    def elapsed_ms(self, end: "GpuEvent") -> float:
        """``hipEventElapsedTime`` / ``cuEventElapsedTime``; both events must have completed."""
        return float(self.device._event_elapsed_ms(self.handle, end.handle))


class GpuDevice(Device):
    """The part of a GPU device that does not depend on the vendor."""

    #: The vendor's names for the calls, for messages: ("hipMalloc", "hipModuleLaunchKernel", ...).
    _names: dict[str, str]

    def __init__(self):
        self._frees = 0  # counts free() calls, so that cached kernel arguments notice them

    # -- the vendor calls, one each ---------------------------------------------------
    @abstractmethod
    def _compile(self, source: str, name: str, defines: dict, headers) -> tuple[bytes, str]: ...
    @abstractmethod
    def _module_load(self, code: bytes, name: str): ...
    @abstractmethod
    def _module_unload(self, handle): ...
    @abstractmethod
    def _module_get_function(self, module, name: str, module_name: str): ...
    @abstractmethod
    def _mem_alloc(self, nbytes: int) -> tuple: ...
    @abstractmethod
    def _mem_get_info(self) -> tuple[int, int]: ...
    @abstractmethod
    def _mem_free(self, ptr: int) -> None: ...
    @abstractmethod
    def _host_alloc(self, nbytes: int) -> tuple: ...
    @abstractmethod
    def _host_free(self, ptr: int) -> None: ...
    @abstractmethod
    def _host_register(self, ptr: int, nbytes: int) -> bool:
        """Page-lock existing host memory in place (``hipHostRegister``); False where
        it cannot be (memory pinned already, say), leaving no error behind."""

    @abstractmethod
    def _host_unregister(self, ptr: int) -> None: ...

    @abstractmethod
    def _copy_htod(self, dst: int, src, nbytes: int) -> None: ...
    @abstractmethod
    def _copy_dtoh(self, dst, src: int, nbytes: int) -> None: ...
    @abstractmethod
    def _copy_htod_async(self, dst: int, src, nbytes: int, stream) -> None: ...
    @abstractmethod
    def _copy_dtoh_async(self, dst, src: int, nbytes: int, stream) -> None: ...
    @abstractmethod
    def _memset_async(self, ptr: int, byte: int, nbytes: int, stream) -> None: ...
    @abstractmethod
    def _stream_create(self): ...
    @abstractmethod
    def _stream_destroy(self, handle): ...
    @abstractmethod
    def _stream_synchronize(self, handle) -> None: ...
    @abstractmethod
    def _event_create(self): ...
    @abstractmethod
    def _event_destroy(self, handle): ...
    @abstractmethod
    def _event_record(self, handle, stream) -> None: ...
    @abstractmethod
    def _event_synchronize(self, handle) -> None: ...
    @abstractmethod
    def _event_elapsed_ms(self, start, end) -> float: ...
    @abstractmethod
    def _launch_kernel(self, kernel: GpuKernel, grid, block, shared_mem: int, stream, params: int,
                       cooperative: bool): ...
    @abstractmethod
    def _occupancy(self, kernel: GpuKernel, block_size: int, shared_mem: int) -> int: ...
    @abstractmethod
    def _set_max_dynamic_shared(self, kernel: GpuKernel, nbytes: int) -> None: ...
    @abstractmethod
    def _error_name(self, err) -> str: ...
    @abstractmethod
    def _device_synchronize(self) -> None: ...

    @staticmethod
    def _stream(stream: GpuStream | None):
        return None if stream is None else stream.handle

    # -- compilation ---------------------------------------------------------------
    def compile(self, source: str, name: str = "kernel.hip", defines: dict | None = None,
                headers: dict[str, str] | None = None) -> GpuModule:
        """The run-time compiler for this device, then ``hipModuleLoadData`` /
        ``cuModuleLoadData``. The device's warp width goes in as ``BFS_DEVICE_WARP_SIZE``:
        bfs_common.h refuses to compile a kernel whose own width differs."""
        defines = {**(defines or {}), "BFS_DEVICE_WARP_SIZE": self.warp_size}
        code, compile_log = self._compile(source, name, defines, headers)
        if compile_log:  # warnings: show them, as hipcc or nvcc would
            log.warning("compiler log for %s (%s):\n%s", name, self.arch, compile_log)
        return GpuModule(self, self._module_load(code, name), name, compile_log)

    # -- memory --------------------------------------------------------------------
    def malloc(self, nbytes: int) -> DeviceBuffer:
        """``hipMalloc`` / ``cuMemAlloc`` (an empty buffer for 0 bytes)."""
        nbytes = _checks.check_nbytes(nbytes)
        if nbytes == 0:
            return DeviceBuffer(0, 0, self)
        err, ptr = self._mem_alloc(nbytes)
        if err:
            raise DeviceError(self._allocation_failure(self._names["malloc"], nbytes, err))
        return DeviceBuffer(int(ptr), nbytes, self)

    def _allocation_failure(self, call: str, nbytes: int, err) -> str:
        message = f"{call}({_checks.format_bytes(nbytes)}): {self._error_name(err)}"
        try:
            free, total = self._mem_get_info()
            message += (f"; the device has {_checks.format_bytes(total)} in all, "
                        f"{_checks.format_bytes(free)} free")
        except DeviceError:
            message += f"; the device has {_checks.format_bytes(self.total_memory)} in all"
        return message

    def free(self, buf: DeviceBuffer) -> None:
        """``hipFree`` / ``cuMemFree``."""
        _checks.check_free(buf, self._names["free"])
        if buf.ptr:
            self._mem_free(buf.ptr)
        buf.freed = True
        self._frees += 1

    def host_malloc(self, shape, dtype) -> PinnedArray:
        """``hipHostMalloc`` / ``cuMemHostAlloc``: page-locked memory, released when the
        array (and every view of it) is garbage collected."""
        nbytes = _checks.pinned_nbytes(shape, dtype)
        err, ptr = self._host_alloc(max(nbytes, 1))
        if err:
            raise DeviceError(self._allocation_failure(self._names["host_malloc"], nbytes, err))
        return _checks.pinned_array(int(ptr), nbytes, shape, dtype, self._host_free)

    def memcpy_htod(self, dst: DeviceBuffer, src: np.ndarray) -> None:
        """A large copy from pageable memory pins the source in place first, so that it
        goes at the bus's rate instead of through the driver's small staging buffers,
        and lets it go after (:data:`PIN_IN_PLACE_BYTES`)."""
        src = np.ascontiguousarray(src)
        _checks.check_copy(src.nbytes, dst, "memcpy host to device")
        if not src.nbytes:
            return
        host = _checks.host_buffer(src, "source")
        pinned = (src.nbytes >= PIN_IN_PLACE_BYTES and not isinstance(src, PinnedArray)
                  and self._host_register(src.ctypes.data, src.nbytes))
        try:
            self._copy_htod(dst.ptr, host, src.nbytes)
        finally:
            if pinned:
                self._host_unregister(src.ctypes.data)

    def memcpy_dtoh(self, dst: np.ndarray, src: DeviceBuffer) -> None:
        host = _checks.host_buffer(dst, "destination", writable=True)
        _checks.check_copy(dst.nbytes, src, "memcpy device to host")
        if dst.nbytes:
            self._copy_dtoh(host, src.ptr, dst.nbytes)

    def memcpy_htod_async(self, dst: DeviceBuffer, src: np.ndarray, stream: GpuStream) -> None:
        host = _checks.host_buffer(src, "source")
        _checks.check_copy(src.nbytes, dst, "memcpy host to device")
        if src.nbytes:
            self._copy_htod_async(dst.ptr, host, src.nbytes, self._stream(stream))

    def memcpy_dtoh_async(self, dst: np.ndarray, src: DeviceBuffer, stream: GpuStream) -> None:
        host = _checks.host_buffer(dst, "destination", writable=True)
        _checks.check_copy(dst.nbytes, src, "memcpy device to host")
        if dst.nbytes:
            self._copy_dtoh_async(host, src.ptr, dst.nbytes, self._stream(stream))

    def memset(self, buf: DeviceBuffer, byte: int, nbytes: int | None = None,
               stream: GpuStream | None = None) -> None:
        nbytes = _checks.check_memset(buf, byte, nbytes)
        if nbytes:
            self._memset_async(buf.ptr, int(byte), nbytes, self._stream(stream))

    # -- execution -----------------------------------------------------------------
    def stream(self) -> GpuStream:
        return GpuStream(self)

    def event(self) -> GpuEvent:
        return GpuEvent(self)

    def synchronize(self) -> None:
        """``hipDeviceSynchronize`` / ``cuCtxSynchronize``."""
        self._device_synchronize()

    def launch(self, kernel: GpuKernel, grid, block, args: Sequence, shared_mem: int = 0,
               stream: GpuStream | None = None) -> None:
        """``hipModuleLaunchKernel`` / ``cuLaunchKernel`` with ``kernelParams``."""
        self._launch(kernel, _checks.launch_dims(grid), _checks.launch_dims(block), args,
                     shared_mem, stream, cooperative=False)

    def _launch_cooperative(self, kernel: GpuKernel, grid, block, args: Sequence,
                            shared_mem: int, stream: GpuStream | None) -> None:
        if not self.cooperative_launch:
            raise DeviceError(f"{self.name} does not support cooperative launches")
        self._launch(kernel, grid, block, args, shared_mem, stream, cooperative=True)

    def _launch(self, kernel: GpuKernel, grid, block, args, shared_mem, stream, cooperative):
        if shared_mem > kernel.shared_opt_in:
            self._opt_in(kernel, shared_mem)
        params = kernel.packer.pack(args, self._frees)  # the address of the void* kernelParams[]
        err = self._launch_kernel(kernel, grid, block, shared_mem, self._stream(stream), params,
                                  cooperative)
        if err:
            self._launch_failed(kernel, grid, block, shared_mem, cooperative, err)

    def _launch_prepared(self, launch, stream) -> None:
        """A prepared launch keeps its own ``kernelParams`` (an ArgPacker): written whole
        at its first launch and after any ``free`` (which re-checks its buffers), then
        only where ``launch[i] = value`` changed them."""
        packer = launch.backend_state
        if packer is None:
            if launch.shared_mem > launch.kernel.shared_opt_in:
                self._opt_in(launch.kernel, launch.shared_mem)
            packer = launch.backend_state = _checks.ArgPacker(max(len(launch.args), 1))
        if not packer.packed_for(self._frees):
            packer.pack(launch.args, self._frees)
        err = self._launch_kernel(launch.kernel, launch.grid, launch.block, launch.shared_mem,
                                  self._stream(stream), packer.params_address, launch.cooperative)
        if err:
            self._launch_failed(launch.kernel, launch.grid, launch.block, launch.shared_mem,
                                launch.cooperative, err)

    def _launch_failed(self, kernel, grid, block, shared_mem, cooperative, err):
        call = self._names["launch_cooperative" if cooperative else "launch"]
        raise DeviceError(f"{call}({kernel.name}, grid={tuple(grid)}, block={tuple(block)}, "
                          f"shared_mem={shared_mem}): {self._error_name(err)}")

    def _opt_in(self, kernel: GpuKernel, shared_mem: int) -> None:
        """Let ``kernel`` have ``shared_mem`` bytes of dynamic shared memory. What a block
        gets by default (``shared_memory_per_block``) is shared with the kernel's static
        shared memory, so a kernel whose static and dynamic shared memory together pass
        it needs the opt-in even where its dynamic part alone does not: a launch that asks
        for more dynamic shared memory than the kernel was let have sets it, once."""
        if shared_mem <= 0:
            return
        if shared_mem > self.max_shared_memory_per_block:
            raise DeviceError(
                f"{kernel.name}: {shared_mem} bytes of dynamic shared memory; a block of "
                f"{self.name} can have at most {self.max_shared_memory_per_block}")
        self._set_max_dynamic_shared(kernel, int(shared_mem))
        kernel.shared_opt_in = int(shared_mem)

    def max_active_blocks(self, kernel: GpuKernel, block_size: int, shared_mem: int = 0) -> int:
        """The occupancy query of the vendor, once per launch shape."""
        key = (int(block_size), int(shared_mem))
        if key not in kernel.occupancy:
            if shared_mem > kernel.shared_opt_in:
                self._opt_in(kernel, shared_mem)
            kernel.occupancy[key] = int(self._occupancy(kernel, *key))
        return kernel.occupancy[key]
