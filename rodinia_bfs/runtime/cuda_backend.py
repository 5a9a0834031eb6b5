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

import functools
from pathlib import Path

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.runtime import _checks, kernel_cache
from rodinia_bfs.runtime._gpu import GpuDevice, quietly, text

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


def compile_options(arch: str, defines: dict | None = None) -> list[str]:
    """NVRTC's options for a compile for ``arch`` with the ``-D`` macros ``defines``."""
    return [
        f"--gpu-architecture={arch}",
        f"--pre-include={COMPAT_HEADER}",
        "-default-device",  # functions without __device__/__host__ are device code
        "-std=c++17",
    ] + _checks.define_options(defines)


def compiler_identity() -> str:
    """Which NVRTC compiles, for the kernel cache's key: its version and the versions of
    the packages that bring it (a patch release keeps ``nvrtcVersion``)."""
    return "; ".join(["nvrtc %d.%d" % nvrtc_version(), *_nvrtc_packages()])


@functools.lru_cache(maxsize=1)
def _nvrtc_packages() -> tuple[str, ...]:
    import importlib.metadata

    found = []
    for dist in ("cuda-bindings", "cuda-python", "nvidia-cuda-nvrtc", "nvidia-cuda-nvrtc-cu12"):
        try:
            found.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    return tuple(found)


def compile_program(source: str, arch: str = "sm_90", name: str = "kernel.hip",
                    defines: dict | None = None,
                    headers: dict[str, str] | None = None, *,
                    cache: bool | None = False, options: tuple[str, ...] = ()) -> tuple[bytes, str]:
    """Compile HIP C++ ``source`` with NVRTC; returns ``(code, log)``.

    ``arch`` ``"sm_90"`` gives a cubin, ``"compute_90"`` PTX. ``headers`` (include
    name -> text) and ``cuda_hip_compat.h`` are handed to NVRTC in memory. ``options``
    are NVRTC options beyond the usual ones (``--ptxas-options=-v``: each kernel's
    registers and spills in the log). Raises
    :class:`CompileError` with NVRTC's full log when the source does not compile.
    ``cache=True`` (or ``None``: unless ``RODINIA_BFS_KERNEL_CACHE=0``) takes the code
    from the :mod:`~rodinia_bfs.runtime.kernel_cache` when it was compiled before, as
    the device's ``compile`` does.
    """
    nvrtc_version()  # a clear error when NVRTC is missing
    all_headers = _checks.all_headers(headers)
    all_headers.setdefault(COMPAT_HEADER, compat_header())
    options = compile_options(arch, defines) + list(options)
    return kernel_cache.compiled(
        "nvrtc", compiler_identity(), source, name, options, all_headers,
        lambda: _nvrtc_compile(source, arch, name, options, all_headers), cache=cache)


def _nvrtc_compile(source: str, arch: str, name: str, options: list[str],
                   all_headers: dict[str, str]) -> tuple[bytes, str]:
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

_NULL_STREAM = None  # a CUstream(0), made once cuda-python is known to be there


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


class CudaDevice(GpuDevice):
    """One NVIDIA GPU through the CUDA driver API, in its primary context. What it shares
    with the hip backend is in :class:`~rodinia_bfs.runtime._gpu.GpuDevice`; here is
    one driver call per method."""

    backend = "cuda"
    _names = {"malloc": "cuMemAlloc", "free": "cuMemFree", "host_malloc": "cuMemHostAlloc",
              "launch": "cuLaunchKernel", "launch_cooperative": "cuLaunchCooperativeKernel"}

    def __init__(self, device_id: int = 0):
        global _NULL_STREAM
        super().__init__()
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

        self.name = text(cu_check(driver.cuDeviceGetName(256, self.handle), "cuDeviceGetName"))
        self.total_memory = int(cu_check(driver.cuDeviceTotalMem(self.handle), "cuDeviceTotalMem"))
        a = driver.CUdevice_attribute
        self.compute_capability = (self._attribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                   self._attribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.warp_size = self._attribute(a.CU_DEVICE_ATTRIBUTE_WARP_SIZE)
        self.multiprocessor_count = self._attribute(a.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        self.max_threads_per_block = self._attribute(a.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        self.shared_memory_per_block = self._attribute(a.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
        self.max_shared_memory_per_block = max(self.shared_memory_per_block, self._attribute(
            a.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
        self.cooperative_launch = bool(self._attribute(a.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
        self.clock_rate_hz = 1e9  # %globaltimer counts nanoseconds
        self.l2_cache_bytes = self._attribute(a.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        self.arch = "sm_%d%d" % self.compute_capability
        self._target = None  # what NVRTC compiles for, decided at the first compile

    def activate(self) -> None:
        """``cuCtxSetCurrent`` of this GPU's primary context."""
        cu_check(driver.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    def _attribute(self, which) -> int:
        return int(cu_check(driver.cuDeviceGetAttribute(which, self.handle),
                            f"cuDeviceGetAttribute({getattr(which, 'name', which)})"))

    def _error_name(self, err) -> str:
        return _error_name(err)

    @staticmethod
    def _stream(stream):
        return _NULL_STREAM if stream is None else stream.handle

    # -- compilation: NVRTC for this device (a cubin where NVRTC knows it) ---------------
    def _compile(self, source, name, defines, headers):
        if self._target is None:
            self._target = nvrtc_target(*self.compute_capability)
        return compile_program(source, self._target, name, defines, headers, cache=None)

    def _module_load(self, code, name):
        return cu_check(driver.cuModuleLoadData(code), f"cuModuleLoadData({name}, {self._target})")

    def _module_unload(self, handle):
        driver.cuModuleUnload(handle)

    def _module_get_function(self, module, name, module_name):
        return cu_check(driver.cuModuleGetFunction(module, name.encode()),
                        f"cuModuleGetFunction({name!r} in {module_name})")

    # -- memory ------------------------------------------------------------------------
    def _mem_alloc(self, nbytes):
        return driver.cuMemAlloc(nbytes)

    def _mem_get_info(self):
        return cu_check(driver.cuMemGetInfo(), "cuMemGetInfo")

    def _mem_free(self, ptr):
        cu_check(driver.cuMemFree(ptr), "cuMemFree")

    def _host_alloc(self, nbytes):
        return driver.cuMemHostAlloc(nbytes, 0)

    def _host_free(self, ptr):
        quietly(driver.cuMemFreeHost, ptr)

    def host_mapped(self, array, managed=False):
        """``cuMemHostAlloc(CU_MEMHOSTALLOC_DEVICEMAP)`` + ``cuMemHostGetDevicePointer``,
        or ``cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL)``; never more managed memory than
        the device has free (``cuMemGetInfo``)."""
        import numpy as np

        from rodinia_bfs.runtime.base import MappedHostArray
        array = np.ascontiguousarray(array)
        nbytes = max(array.nbytes, 1)
        if managed:
            free, _ = self._mem_get_info()
            if nbytes > free:
                raise DeviceError(f"cuMemAllocManaged({_checks.format_bytes(nbytes)}): the "
                                  f"device has only {_checks.format_bytes(free)} free")
            ptr = cu_check(driver.cuMemAllocManaged(
                nbytes, driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL),
                f"cuMemAllocManaged({_checks.format_bytes(nbytes)})")
            host_ptr = device_ptr = int(ptr)
            release = lambda p: quietly(driver.cuMemFree, p)  # noqa: E731
        else:
            ptr = cu_check(driver.cuMemHostAlloc(nbytes, driver.CU_MEMHOSTALLOC_DEVICEMAP),
                           f"cuMemHostAlloc({_checks.format_bytes(nbytes)}, DEVICEMAP)")
            device_ptr = int(cu_check(driver.cuMemHostGetDevicePointer(ptr, 0),
                                      "cuMemHostGetDevicePointer"))
            host_ptr, release = int(ptr), self._host_free
        host = _checks.pinned_array(host_ptr, array.nbytes, array.shape, array.dtype, release)
        host[...] = array
        return MappedHostArray(host, device_ptr, "managed" if managed else "mapped")

    def prefetch_to_host(self, mapped, stream=None):
        """``cuMemPrefetchAsync`` of managed memory to the host."""
        if mapped.kind != "managed":
            return
        location = driver.CUmemLocation()
        location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        cu_check(driver.cuMemPrefetchAsync(mapped.device_ptr, mapped.nbytes, location, 0,
                                           self._stream(stream)),
                 "cuMemPrefetchAsync(host)")

    def _host_register(self, ptr, nbytes):
        return driver.cuMemHostRegister(ptr, nbytes, 0)[0] == driver.CUresult.CUDA_SUCCESS

    def _host_unregister(self, ptr):
        cu_check(driver.cuMemHostUnregister(ptr), "cuMemHostUnregister")

    def _copy_htod(self, dst, src, nbytes):
        cu_check(driver.cuMemcpyHtoD(dst, src, nbytes), "cuMemcpyHtoD")

    def _copy_dtoh(self, dst, src, nbytes):
        cu_check(driver.cuMemcpyDtoH(dst, src, nbytes), "cuMemcpyDtoH")

    def _copy_htod_async(self, dst, src, nbytes, stream):
        cu_check(driver.cuMemcpyHtoDAsync(dst, src, nbytes, stream), "cuMemcpyHtoDAsync")

    def _copy_dtoh_async(self, dst, src, nbytes, stream):
        cu_check(driver.cuMemcpyDtoHAsync(dst, src, nbytes, stream), "cuMemcpyDtoHAsync")

    def _memset_async(self, ptr, byte, nbytes, stream):
        cu_check(driver.cuMemsetD8Async(ptr, byte, nbytes, stream), "cuMemsetD8Async")

    # -- streams and events ----------------------------------------------------------------
    def _stream_create(self):
        return cu_check(driver.cuStreamCreate(0), "cuStreamCreate")

    def _stream_destroy(self, handle):
        driver.cuStreamDestroy(handle)

    def _stream_synchronize(self, handle):
        cu_check(driver.cuStreamSynchronize(handle), "cuStreamSynchronize")

    def _event_create(self):
        return cu_check(driver.cuEventCreate(0), "cuEventCreate")

    def _event_destroy(self, handle):
        driver.cuEventDestroy(handle)

    def _event_record(self, handle, stream):
        cu_check(driver.cuEventRecord(handle, stream), "cuEventRecord")

    def _event_synchronize(self, handle):
        cu_check(driver.cuEventSynchronize(handle), "cuEventSynchronize")

    def _event_elapsed_ms(self, start, end):
        return cu_check(driver.cuEventElapsedTime(start, end), "cuEventElapsedTime")

    # -- launches ----------------------------------------------------------------------------
    def _launch_kernel(self, kernel, grid, block, shared_mem, stream, params, cooperative):
        if cooperative:
            return driver.cuLaunchCooperativeKernel(kernel.handle, *grid, *block, shared_mem,
                                                    stream, params)[0]
        return driver.cuLaunchKernel(kernel.handle, *grid, *block, shared_mem, stream, params, 0)[0]

    def _occupancy(self, kernel, block_size, shared_mem):
        return cu_check(
            driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel.handle, block_size, shared_mem),
            f"cuOccupancyMaxActiveBlocksPerMultiprocessor({kernel.name}, {block_size} threads, "
            f"{shared_mem} bytes of shared memory)")

    def _set_max_dynamic_shared(self, kernel, nbytes):
        cu_check(driver.cuFuncSetAttribute(
            kernel.handle, driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            nbytes), f"cuFuncSetAttribute({kernel.name}, {nbytes} bytes of dynamic shared memory)")

    def _device_synchronize(self):
        cu_check(driver.cuCtxSynchronize(), "cuCtxSynchronize")


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
