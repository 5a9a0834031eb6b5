"""The ``cuda`` backend: NVIDIA GPUs through NVIDIA's cuda-python.

The same ``hip_kernels/`` sources are compiled by NVRTC, with ``cuda_hip_compat.h``
pre-included, and run through the CUDA driver API. Each method is the driver call
that does what the HIP call of the interface does: ``hipMalloc`` is ``cuMemAlloc``,
``hipModuleLaunchKernel`` is ``cuLaunchKernel`` and so on. Every result goes through
:func:`cu_check`, which raises :class:`~rodinia_bfs.errors.DeviceError` with the
``CUresult`` name; compile errors raise :class:`~rodinia_bfs.errors.CompileError` with
NVRTC's full log.

Compiling needs no GPU and no driver, only NVRTC (``pip install cuda-bindings
nvidia-cuda-nvrtc``): :func:`compile_for_arch` is what the tests use to check every
kernel for ``sm_80`` and ``sm_90`` on machines without one.
"""

from __future__ import annotations

import logging
import weakref
from pathlib import Path
from typing import Sequence

import numpy as np

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.runtime import _checks
from rodinia_bfs.runtime.base import (
    Device,
    DeviceBuffer,
    Event,
    Kernel,
    Module,
    PinnedArray,
    Stream,
)

try:  # cuda-python 12.6 and later
    from cuda.bindings import driver, nvrtc
except ImportError:
    try:  # older cuda-python
        from cuda import cuda as driver, nvrtc
    except ImportError as exc:  # the backend reports itself unusable, the package still imports
        driver = nvrtc = None
        _IMPORT_ERROR: Exception | None = exc
    else:
        _IMPORT_ERROR = None
else:
    _IMPORT_ERROR = None

log = logging.getLogger(__name__)

#: The header pre-included before every kernel (rodinia_bfs/runtime/include/).
COMPAT_HEADER = "cuda_hip_compat.h"
_COMPAT_PATH = Path(__file__).resolve().parent / "include" / COMPAT_HEADER


# ---------------------------------------------------------------------------------
# The error check
# ---------------------------------------------------------------------------------

def _error_name(err) -> str:
    """``cuGetErrorName`` for a ``CUresult``, ``nvrtcGetErrorString`` for an ``nvrtcResult``."""
    name = None
    try:
        if isinstance(err, nvrtc.nvrtcResult):
            name = nvrtc.nvrtcGetErrorString(err)[1]
        else:
            name = driver.cuGetErrorName(err)[1]
    except Exception:  # no driver to ask: the enum knows its own name
        pass
    if not name:
        return getattr(err, "name", str(err))
    return name.decode() if isinstance(name, bytes) else str(name)


def cu_check(result: tuple, call: str):
    """Unwrap cuda-python's ``(error, value...)`` tuple, raising on any error.

    Returns ``None``, the single value, or a tuple of the values. ``call`` names the
    driver or NVRTC call for the message, e.g. ``"cuMemAlloc(4096 bytes)"``.
    """
    err = result[0]
    if err:  # CUDA_SUCCESS and NVRTC_SUCCESS are 0
        raise DeviceError(f"{call}: {_error_name(err)}")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def _require_cuda_python() -> None:
    if driver is None:
        raise DeviceError(f"cuda-python is not installed (pip install cuda-python): {_IMPORT_ERROR}")


# ---------------------------------------------------------------------------------
# Compiling with NVRTC (no GPU needed)
# ---------------------------------------------------------------------------------

def compat_header() -> str:
    """The text of ``cuda_hip_compat.h``."""
    return _COMPAT_PATH.read_text()


def nvrtc_version() -> tuple[int, int]:
    """NVRTC's ``(major, minor)``; DeviceError when the library is missing."""
    _require_cuda_python()
    try:
        return tuple(cu_check(nvrtc.nvrtcVersion(), "nvrtcVersion"))
    except DeviceError:
        raise
    except Exception as exc:  # cuda-python could not open libnvrtc
        raise DeviceError(
            f"NVRTC not found ({str(exc).strip()}); pip install nvidia-cuda-nvrtc (CUDA 13) or "
            "nvidia-cuda-nvrtc-cu12 (CUDA 12)") from exc


def nvrtc_target(major: int, minor: int) -> str:
    """What NVRTC should compile for a device of compute capability ``major.minor``.

    ``sm_XX`` (a cubin, machine code the driver loads as it is) where this NVRTC
    knows the architecture; otherwise ``compute_XX`` of the newest one it knows that
    is not newer than the device (PTX, which the driver compiles when it loads it).
    """
    capability = 10 * major + minor
    known = list(cu_check(nvrtc.nvrtcGetSupportedArchs(), "nvrtcGetSupportedArchs"))
    if capability in known:
        return f"sm_{capability}"
    older = [arch for arch in known if arch <= capability]
    if not older:
        raise DeviceError(f"NVRTC {nvrtc_version()} cannot compile for sm_{capability}; "
                          f"it knows {known}")
    return f"compute_{max(older)}"


def compile_program(source: str, arch: str = "sm_90", name: str = "kernel.hip",
                    defines: dict | None = None,
                    headers: dict[str, str] | None = None) -> tuple[bytes, str]:
    """Compile HIP C++ ``source`` with NVRTC; returns ``(code, log)``.

    ``arch`` ``"sm_90"`` gives a cubin, ``"compute_90"`` PTX. ``headers`` (include
    name -> text) and ``cuda_hip_compat.h`` are handed to NVRTC in memory. Raises
    :class:`CompileError` with NVRTC's full log when the source does not compile.
    """
    nvrtc_version()  # a clear error when NVRTC is missing
    all_headers = _checks.all_headers(headers)
    all_headers.setdefault(COMPAT_HEADER, compat_header())
    options = [
        f"--gpu-architecture={arch}",
        f"--pre-include={COMPAT_HEADER}",
        "-default-device",  # functions without __device__/__host__ are device code
        "-std=c++17",
    ] + _checks.define_options(defines)

    prog = cu_check(nvrtc.nvrtcCreateProgram(
        source.encode(), name.encode(), len(all_headers),
        [text.encode() for text in all_headers.values()],
        [include.encode() for include in all_headers]), "nvrtcCreateProgram")
    try:
        encoded = [o.encode() for o in options]
        err, = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        size = cu_check(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        raw_log = bytearray(size)
        if size:
            cu_check(nvrtc.nvrtcGetProgramLog(prog, raw_log), "nvrtcGetProgramLog")
        compile_log = raw_log.rstrip(b"\0").decode(errors="replace").strip()
        if err:
            raise CompileError(
                f"nvrtcCompileProgram: {_error_name(err)} compiling {name} for {arch} "
                f"with {' '.join(options)}", compile_log)
        if arch.startswith("sm_"):
            size = cu_check(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
            code = bytearray(size)
            cu_check(nvrtc.nvrtcGetCUBIN(prog, code), "nvrtcGetCUBIN")
        else:
            size = cu_check(nvrtc.nvrtcGetPTXSize(prog), "nvrtcGetPTXSize")
            code = bytearray(size)  # NUL-terminated text, as cuModuleLoadData wants it
            cu_check(nvrtc.nvrtcGetPTX(prog, code), "nvrtcGetPTX")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return bytes(code), compile_log


def compile_for_arch(source: str, arch: str = "sm_90", name: str = "kernel.hip",
                     defines: dict | None = None,
                     headers: dict[str, str] | None = None) -> bytes:
    """The cubin (``sm_XX``) or PTX (``compute_XX``) NVRTC makes of ``source``; no GPU needed."""
    return compile_program(source, arch, name, defines, headers)[0]


# ---------------------------------------------------------------------------------
# The device
# ---------------------------------------------------------------------------------

class CudaKernel(Kernel):
    def __init__(self, module: "CudaModule", name: str, handle):
        self.module = module  # keeps the code loaded as long as the kernel is used
        self.name = name
        self.handle = handle  # CUfunction
        self.packer = _checks.ArgPacker()  # this kernel's kernelParams, reused launch after launch
        self.shared_opt_in = 0  # dynamic shared memory it may use beyond the default
        self.occupancy: dict[tuple[int, int], int] = {}


class CudaModule(Module):
    """Code loaded with ``cuModuleLoadData``; ``log`` is NVRTC's output."""

    def __init__(self, handle, name: str, log_text: str):
        self.handle = handle
        self.name = name
        self.log = log_text
        self._kernels: dict[str, CudaKernel] = {}
        self._finalizer = weakref.finalize(self, _quietly, driver.cuModuleUnload, handle)
        self._finalizer.atexit = False

    def get_function(self, name: str) -> CudaKernel:
        """``cuModuleGetFunction``."""
        kernel = self._kernels.get(name)
        if kernel is None:
            handle = cu_check(driver.cuModuleGetFunction(self.handle, name.encode()),
                              f"cuModuleGetFunction({name!r} in {self.name})")
            kernel = self._kernels[name] = CudaKernel(self, name, handle)
        return kernel


class CudaStream(Stream):
    def __init__(self):
        self.handle = cu_check(driver.cuStreamCreate(0), "cuStreamCreate")
        self._finalizer = weakref.finalize(self, _quietly, driver.cuStreamDestroy, self.handle)
        self._finalizer.atexit = False

    def synchronize(self) -> None:
        """``cuStreamSynchronize``."""
        cu_check(driver.cuStreamSynchronize(self.handle), "cuStreamSynchronize")


class CudaEvent(Event):
    def __init__(self):
        self.handle = cu_check(driver.cuEventCreate(0), "cuEventCreate")
        self._finalizer = weakref.finalize(self, _quietly, driver.cuEventDestroy, self.handle)
        self._finalizer.atexit = False

    def record(self, stream: CudaStream | None = None) -> None:
        """``cuEventRecord`` (on the null stream when ``stream`` is None)."""
        cu_check(driver.cuEventRecord(self.handle, _stream_handle(stream)), "cuEventRecord")

    def synchronize(self) -> None:
        """``cuEventSynchronize``."""
        cu_check(driver.cuEventSynchronize(self.handle), "cuEventSynchronize")

    def elapsed_ms(self, end: "CudaEvent") -> float:
        """``cuEventElapsedTime(self, end)``; both events must have completed."""
        return float(cu_check(driver.cuEventElapsedTime(self.handle, end.handle),
                              "cuEventElapsedTime"))


def _quietly(destroy, handle) -> None:
    """Release a handle from a finalizer, where raising would only print a warning."""
    try:
        destroy(handle)
    except Exception:
        pass


_NULL_STREAM = None  # a CUstream(0), made once cuda-python is known to be there


def _stream_handle(stream):
    return _NULL_STREAM if stream is None else stream.handle


def _init_driver() -> int:
    """``cuInit`` + ``cuDeviceGetCount``; DeviceError naming what is missing."""
    _require_cuda_python()
    try:
        err, = driver.cuInit(0)
    except Exception as exc:  # cuda-python could not open libcuda.so
        raise DeviceError(f"no NVIDIA driver (libcuda.so not found): {exc}") from exc
    if err == driver.CUresult.CUDA_ERROR_NO_DEVICE:
        raise DeviceError("no NVIDIA GPU visible (cuInit: CUDA_ERROR_NO_DEVICE)")
    cu_check((err,), "cuInit")
    return cu_check(driver.cuDeviceGetCount(), "cuDeviceGetCount")


class CudaDevice(Device):
    """One NVIDIA GPU through the CUDA driver API, in its primary context."""

    backend = "cuda"

    def __init__(self, device_id: int = 0):
        global _NULL_STREAM
        count = _init_driver()
        if not 0 <= device_id < count:
            raise DeviceError(f"no NVIDIA GPU {device_id}: cuDeviceGetCount found {count}")
        self.device_id = device_id
        self.handle = cu_check(driver.cuDeviceGet(device_id), f"cuDeviceGet({device_id})")
        # The primary context is the one the CUDA runtime (and so every other library
        # in the process) uses; it stays retained for the life of the process. It is
        # current on the thread that created the device: use the device from there.
        self.context = cu_check(driver.cuDevicePrimaryCtxRetain(self.handle),
                                "cuDevicePrimaryCtxRetain")
        cu_check(driver.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        if _NULL_STREAM is None:
            _NULL_STREAM = driver.CUstream(0)

        self.name = _text(cu_check(driver.cuDeviceGetName(256, self.handle), "cuDeviceGetName"))
        self.total_memory = int(cu_check(driver.cuDeviceTotalMem(self.handle), "cuDeviceTotalMem"))
        attribute = driver.CUdevice_attribute
        self.compute_capability = (self._attribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                   self._attribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.warp_size = self._attribute(attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE)
        self.multiprocessor_count = self._attribute(attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        self.max_threads_per_block = self._attribute(attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        self.shared_memory_per_block = self._attribute(
            attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
        self.max_shared_memory_per_block = max(self.shared_memory_per_block, self._attribute(
            attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
        self.cooperative_launch = bool(self._attribute(attribute.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
        self.arch = "sm_%d%d" % self.compute_capability
        self._frees = 0  # counts free() calls, so that cached kernel arguments notice them
        self._target = None  # what NVRTC compiles for, decided at the first compile

    def _attribute(self, which) -> int:
        return int(cu_check(driver.cuDeviceGetAttribute(which, self.handle),
                            f"cuDeviceGetAttribute({getattr(which, 'name', which)})"))

    # -- compilation ---------------------------------------------------------------
    def compile(self, source: str, name: str = "kernel.hip", defines: dict | None = None,
                headers: dict[str, str] | None = None) -> CudaModule:
        """NVRTC for this device (a cubin where NVRTC knows it), then ``cuModuleLoadData``."""
        if self._target is None:
            self._target = nvrtc_target(*self.compute_capability)
        defines = {**(defines or {}), "BFS_DEVICE_WARP_SIZE": self.warp_size}
        code, compile_log = compile_program(source, self._target, name, defines, headers)
        if compile_log:  # warnings: show them, as nvcc would
            log.warning("NVRTC log for %s (%s):\n%s", name, self._target, compile_log)
        handle = cu_check(driver.cuModuleLoadData(code), f"cuModuleLoadData({name}, {self._target})")
        return CudaModule(handle, name, compile_log)

    # -- memory --------------------------------------------------------------------
    def malloc(self, nbytes: int) -> DeviceBuffer:
        """``cuMemAlloc`` (an empty buffer for 0 bytes, as ``hipMalloc`` gives)."""
        nbytes = _checks.check_nbytes(nbytes)
        if nbytes == 0:
            return DeviceBuffer(0, 0, self)
        err, ptr = driver.cuMemAlloc(nbytes)
        if err:
            raise DeviceError(self._allocation_failure("cuMemAlloc", nbytes, err))
        return DeviceBuffer(int(ptr), nbytes, self)

    def _allocation_failure(self, call: str, nbytes: int, err) -> str:
        message = f"{call}({_checks.format_bytes(nbytes)}): {_error_name(err)}"
        try:
            free, total = cu_check(driver.cuMemGetInfo(), "cuMemGetInfo")
            message += (f"; the device has {_checks.format_bytes(total)} in all, "
                        f"{_checks.format_bytes(free)} free")
        except DeviceError:
            message += f"; the device has {_checks.format_bytes(self.total_memory)} in all"
        return message

    def free(self, buf: DeviceBuffer) -> None:
        """``cuMemFree``."""
        _checks.check_free(buf, "cuMemFree")
        if buf.ptr:
            cu_check(driver.cuMemFree(buf.ptr), "cuMemFree")
        buf.freed = True
        self._frees += 1

    def host_malloc(self, shape, dtype) -> PinnedArray:
        """``cuMemHostAlloc``; released with ``cuMemFreeHost`` when the array (and every
        view of it) is garbage collected."""
        nbytes = _checks.pinned_nbytes(shape, dtype)
        err, ptr = driver.cuMemHostAlloc(max(nbytes, 1), 0)
        if err:
            raise DeviceError(self._allocation_failure("cuMemHostAlloc", nbytes, err))
        return _checks.pinned_array(int(ptr), nbytes, shape, dtype, _host_free)

    def memcpy_htod(self, dst: DeviceBuffer, src: np.ndarray) -> None:
        """``cuMemcpyHtoD``."""
        src = np.ascontiguousarray(src)
        _checks.check_copy(src.nbytes, dst, "memcpy host to device")
        if src.nbytes:
            cu_check(driver.cuMemcpyHtoD(dst.ptr, _checks.host_buffer(src, "source"), src.nbytes),
                     "cuMemcpyHtoD")

    def memcpy_dtoh(self, dst: np.ndarray, src: DeviceBuffer) -> None:
        """``cuMemcpyDtoH``."""
        host = _checks.host_buffer(dst, "destination", writable=True)
        _checks.check_copy(dst.nbytes, src, "memcpy device to host")
        if dst.nbytes:
            cu_check(driver.cuMemcpyDtoH(host, src.ptr, dst.nbytes), "cuMemcpyDtoH")

    def memcpy_htod_async(self, dst: DeviceBuffer, src: np.ndarray, stream: CudaStream) -> None:
        """``cuMemcpyHtoDAsync``."""
        host = _checks.host_buffer(src, "source")
        _checks.check_copy(src.nbytes, dst, "memcpy host to device")
        if src.nbytes:
            cu_check(driver.cuMemcpyHtoDAsync(dst.ptr, host, src.nbytes, _stream_handle(stream)),
                     "cuMemcpyHtoDAsync")

    def memcpy_dtoh_async(self, dst: np.ndarray, src: DeviceBuffer, stream: CudaStream) -> None:
        """``cuMemcpyDtoHAsync``."""
        host = _checks.host_buffer(dst, "destination", writable=True)
        _checks.check_copy(dst.nbytes, src, "memcpy device to host")
        if dst.nbytes:
            cu_check(driver.cuMemcpyDtoHAsync(host, src.ptr, dst.nbytes, _stream_handle(stream)),
                     "cuMemcpyDtoHAsync")

    def memset(self, buf: DeviceBuffer, byte: int, nbytes: int | None = None,
               stream: CudaStream | None = None) -> None:
        """``cuMemsetD8Async``."""
        nbytes = buf.nbytes if nbytes is None else _checks.check_nbytes(nbytes)
        if not 0 <= int(byte) <= 255:
            raise DeviceError(f"memset: byte must be 0..255, got {byte}")
        _checks.check_copy(nbytes, buf, "memset")
        if nbytes:
            cu_check(driver.cuMemsetD8Async(buf.ptr, int(byte), nbytes, _stream_handle(stream)),
                     "cuMemsetD8Async")

    # -- execution -----------------------------------------------------------------
    def stream(self) -> CudaStream:
        return CudaStream()

    def event(self) -> CudaEvent:
        return CudaEvent()

    def launch(self, kernel: CudaKernel, grid, block, args: Sequence, shared_mem: int = 0,
               stream: CudaStream | None = None) -> None:
        """``cuLaunchKernel`` with ``kernelParams``: the address of a ``void*[]``."""
        gx, gy, gz = _checks.launch_dims(grid)
        bx, by, bz = _checks.launch_dims(block)
        if shared_mem > kernel.shared_opt_in:
            self._opt_in(kernel, shared_mem)
        params = kernel.packer.pack(args, self._frees)
        err = driver.cuLaunchKernel(
            kernel.handle, gx, gy, gz, bx, by, bz, shared_mem,
            _NULL_STREAM if stream is None else stream.handle, params, 0)[0]
        if err:
            raise DeviceError(
                f"cuLaunchKernel({kernel.name}, grid=({gx}, {gy}, {gz}), "
                f"block=({bx}, {by}, {bz}), shared_mem={shared_mem}): {_error_name(err)}")

    def _opt_in(self, kernel: CudaKernel, shared_mem: int) -> None:
        """``cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)``: a block may have more
        dynamic shared memory than the default 48 KiB only when its kernel asks for it."""
        if shared_mem <= self.shared_memory_per_block:
            return
        if shared_mem > self.max_shared_memory_per_block:
            raise DeviceError(
                f"{kernel.name}: {shared_mem} bytes of dynamic shared memory; a block of "
                f"{self.name} can have at most {self.max_shared_memory_per_block}")
        cu_check(driver.cuFuncSetAttribute(
            kernel.handle,
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            int(shared_mem)), f"cuFuncSetAttribute({kernel.name}, {shared_mem} bytes of shared memory)")
        kernel.shared_opt_in = int(shared_mem)

    def max_active_blocks(self, kernel: CudaKernel, block_size: int, shared_mem: int = 0) -> int:
        """``cuOccupancyMaxActiveBlocksPerMultiprocessor``."""
        key = (int(block_size), int(shared_mem))
        if key not in kernel.occupancy:
            if shared_mem > kernel.shared_opt_in:
                self._opt_in(kernel, shared_mem)
            kernel.occupancy[key] = int(cu_check(
                driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel.handle, *key),
                f"cuOccupancyMaxActiveBlocksPerMultiprocessor({kernel.name}, {key[0]} threads, "
                f"{key[1]} bytes of shared memory)"))
        return kernel.occupancy[key]

    def _launch_cooperative(self, kernel: CudaKernel, grid, block, args: Sequence,
                            shared_mem: int, stream: CudaStream | None) -> None:
        """``cuLaunchCooperativeKernel``."""
        if not self.cooperative_launch:
            raise DeviceError(f"{self.name} does not support cooperative launches")
        params = kernel.packer.pack(args, self._frees)
        err = driver.cuLaunchCooperativeKernel(
            kernel.handle, *grid, *block, shared_mem,
            _NULL_STREAM if stream is None else stream.handle, params)[0]
        if err:
            raise DeviceError(
                f"cuLaunchCooperativeKernel({kernel.name}, grid={grid}, block={block}, "
                f"shared_mem={shared_mem}): {_error_name(err)}")

    def synchronize(self) -> None:
        """``cuCtxSynchronize`` (what ``hipDeviceSynchronize`` is)."""
        cu_check(driver.cuCtxSynchronize(), "cuCtxSynchronize")


def _host_free(ptr: int) -> None:
    _quietly(driver.cuMemFreeHost, ptr)


def _text(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value).strip()


# ---------------------------------------------------------------------------------
# The backend's entry points
# ---------------------------------------------------------------------------------

def probe() -> tuple[bool, str]:
    """Is an NVIDIA GPU usable through cuda-python? ``(usable, reason)``."""
    if driver is None:
        return False, "cuda-python not installed"
    try:
        count = _init_driver()
    except DeviceError as exc:
        text = str(exc)
        if text.startswith("no NVIDIA driver"):
            return False, "no NVIDIA driver (libcuda.so not found)"
        if text.startswith("no NVIDIA GPU"):
            return False, "no NVIDIA GPU visible"
        return False, text
    if count < 1:
        return False, "no NVIDIA GPU visible"
    return True, f"{count} NVIDIA GPU{'s' if count > 1 else ''} visible"


def create(device_id: int = 0, **options) -> CudaDevice:
    """The NVIDIA GPU ``device_id``, in its primary context."""
    if options:
        raise DeviceError(f"the cuda backend takes no options {sorted(options)}")
    return CudaDevice(device_id)
