"""The ``hip`` backend: AMD GPUs through HIP Python (``from hip import hip, hiprtc``).

Every method is one HIP call, named after it: kernels are compiled at run time with
hiprtc for the device's own architecture (``--offload-arch=`` its ``gcnArchName``)
and loaded with ``hipModuleLoadData``; memory, copies, streams, events and launches
are the HIP runtime calls of the same names. Each call's result goes through
:func:`hip_check`, which raises :class:`~rodinia_bfs.errors.DeviceError` with the
HIP error's name.

Compiling needs no GPU: :func:`compile_for_arch` runs hiprtc for any target, which is
how the test suite checks every kernel for gfx90a and gfx1030 on machines without one.

Finding the libraries: HIP Python opens ``libamdhip64.so`` and ``libhiprtc.so`` by
those bare names. Where they are not on the loader's path (ROCm in ``/opt/rocm/lib``
without ``ldconfig``, or Debian's packages, which ship only ``libamdhip64.so.5`` and put
hiprtc's functions in it), :func:`configure_libraries` finds them and points HIP Python
at the full paths before its first call. ``RODINIA_BFS_HIP_LIBRARY`` and
``RODINIA_BFS_HIPRTC_LIBRARY`` name the files explicitly.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.metadata
import logging
import os
import platform
import re
import sysconfig
from pathlib import Path


from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.runtime import _checks, kernel_cache
from rodinia_bfs.runtime._gpu import GpuDevice, text

try:
    from hip import hip, hiprtc
except ImportError as exc:  # the backend reports itself unusable, the package still imports
    hip = hiprtc = None
    _IMPORT_ERROR: Exception | None = exc
else:
    _IMPORT_ERROR = None

# Where HIP Python takes the names of the libraries it opens at its first call:
# hip-python 6.x reads the module attributes chip.DLL and chiprtc.DLL; later releases
# (built on rocm.bindings) ask rocm.bindings.util.paths.get_library_path.
try:
    from hip import chip, chiprtc
except ImportError:
    chip = chiprtc = None
try:
    from rocm.bindings.util import paths as _rocm_paths
except ImportError:
    _rocm_paths = None

log = logging.getLogger(__name__)

HIP_LIBRARY_ENV = "RODINIA_BFS_HIP_LIBRARY"
HIPRTC_LIBRARY_ENV = "RODINIA_BFS_HIPRTC_LIBRARY"


# ---------------------------------------------------------------------------------
# Finding libamdhip64 and libhiprtc
# ---------------------------------------------------------------------------------

def _has_symbol(path: str, symbol: str) -> bool:
    """Can ``path`` be loaded, and does it export ``symbol``?"""
    try:
        return hasattr(ctypes.CDLL(path), symbol)
    except OSError:
        return False


def _library_dirs() -> list[Path]:
    """Where ROCm's libraries are installed: ``$ROCM_PATH/lib``, ``/opt/rocm/lib``, Debian's."""
    dirs = []
    if os.environ.get("ROCM_PATH"):
        dirs.append(Path(os.environ["ROCM_PATH"]) / "lib")
    dirs.append(Path("/opt/rocm/lib"))
    multiarch = sysconfig.get_config_var("MULTIARCH") or f"{platform.machine()}-linux-gnu"
    dirs.append(Path("/usr/lib") / multiarch)
    return dirs


def _version_key(path: Path) -> tuple:
    """Newest major version first; of one major, the shortest name (``libx.so.6``, the soname)."""
    suffix = path.name.split(".so", 1)[1].lstrip(".")
    numbers = [int(p) if p.isdigit() else -1 for p in suffix.split(".") if p]
    return (numbers[0] if numbers else -1, -len(numbers))


def _search(stem: str, symbol: str) -> str | None:
    """The first ``<dir>/<stem>.so`` or newest ``<stem>.so.N`` that exports ``symbol``."""
    for directory in _library_dirs():
        versioned = sorted(directory.glob(f"{stem}.so.*"), key=_version_key, reverse=True)
        for candidate in [directory / f"{stem}.so", *versioned]:
            if candidate.is_file() and _has_symbol(str(candidate), symbol):
                return str(candidate)
    return None


#: ``{"hip": path or None, "hiprtc": path or None}`` once :func:`configure_libraries` ran.
LIBRARIES: dict[str, str | None] = {}


def _hip_python_choice(shortname: str) -> str | None:
    """The library newer HIP Python finds by itself (its bundled copy, a ROCm wheel,
    ``$ROCM_PATH/lib``), or None when it would only try the bare name."""
    if _rocm_paths is None:
        return None
    try:
        path = os.fsdecode(_rocm_paths.get_library_path(shortname))
    except Exception:
        return None
    return path if os.path.isabs(path) and os.path.exists(path) else None


def _find(env: str, shortname: str, symbol: str) -> str | None:
    """Environment variable, then HIP Python's own choice, the bare name, known folders."""
    return (os.environ.get(env)
            or _hip_python_choice(shortname)
            or (f"lib{shortname}.so" if _has_symbol(f"lib{shortname}.so", symbol) else None)
            or _search(f"lib{shortname}", symbol))


def _point_hip_python_at(runtime: str | None, compiler: str | None) -> None:
    """Make HIP Python open ``runtime`` and ``compiler`` (full paths or bare names)."""
    if chip is not None:
        if runtime:
            chip.DLL = runtime.encode()
        if compiler:
            chiprtc.DLL = compiler.encode()
    elif _rocm_paths is not None:
        chosen = {"amdhip64": runtime, "hiprtc": compiler}
        find_default = _rocm_paths.get_library_path

        def get_library_path(shortname, *args, **kwargs):
            if chosen.get(shortname):
                return os.fsencode(chosen[shortname])
            return find_default(shortname, *args, **kwargs)

        _rocm_paths.get_library_path = get_library_path


#: ``{"hip": path or None, "hiprtc": path or None}`` once :func:`configure_libraries` ran.
LIBRARIES: dict[str, str | None] = {}


def configure_libraries() -> dict[str, str | None]:
    """Point HIP Python at ``libamdhip64`` and ``libhiprtc`` (once, before its first call).

    Order for each: the environment variable, where HIP Python itself would look,
    the bare name (the loader's own search, ``LD_LIBRARY_PATH`` included), then the
    known install folders. hiprtc falls back to the HIP runtime library when that one
    carries the hiprtc functions, as Debian's ``libamdhip64.so.5`` does. Returns the
    path chosen for each (``None``: not found).
    """
    if LIBRARIES or hip is None:
        return LIBRARIES
    runtime = _find(HIP_LIBRARY_ENV, "amdhip64", "hipMalloc")
    compiler = _find(HIPRTC_LIBRARY_ENV, "hiprtc", "hiprtcCompileProgram")
    if not compiler and runtime and _has_symbol(runtime, "hiprtcCompileProgram"):
        compiler = runtime
    _point_hip_python_at(runtime, compiler)
    LIBRARIES.update(hip=runtime, hiprtc=compiler)
    return LIBRARIES


def _library_hint(which: str) -> str:
    env = HIP_LIBRARY_ENV if which == "hip" else HIPRTC_LIBRARY_ENV
    name = "libamdhip64.so" if which == "hip" else "libhiprtc.so"
    return (
        f"{name} not found: install ROCm (or Debian's libamdhip64-5, libhiprtc-builtins5, "
        f"libamd-comgr2, rocm-device-libs), set ROCM_PATH, or set {env} to the library's path"
    )


# ---------------------------------------------------------------------------------
# The error check
# ---------------------------------------------------------------------------------

def _error_name(err) -> str:
    """``hipGetErrorName`` for a ``hipError_t``, ``hiprtcGetErrorString`` for a ``hiprtcResult``."""
    try:
        if isinstance(err, hip.hipError_t):
            name = hip.hipGetErrorName(err)[-1]
        else:  # a 1-tuple in hip-python 6, (HIPRTC_SUCCESS, name) later
            name = hiprtc.hiprtcGetErrorString(err)[-1]
    except Exception:
        name = None
    if name is None:  # the library could not be asked; the enum knows its own name
        return getattr(err, "name", str(err))
    return name.decode() if isinstance(name, bytes) else str(name)


def hip_check(result: tuple, call: str):
    """Unwrap HIP Python's ``(error, value...)`` tuple, raising on any error.

    Returns ``None``, the single value, or a tuple of the values. ``call`` names the
    HIP call for the message, e.g. ``"hipMalloc(4096 bytes)"``.
    """
    err = result[0]
    if err:  # hipSuccess and HIPRTC_SUCCESS are 0
        _clear_last_error()
        raise DeviceError(f"{call}: {_error_name(err)}")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def _clear_last_error() -> None:
    """Reset the runtime's last error once we have reported it ourselves.

    HIP keeps the error of a failed call until ``hipGetLastError`` reads it; left
    there, the check after the next launch would blame that launch for it.
    """
    try:
        hip.hipGetLastError()
    except Exception:
        pass


def _loading(call):
    """Run ``call()``, turning HIP Python's failure to open a library into DeviceError."""
    try:
        return call()
    except DeviceError:
        raise
    except RuntimeError as exc:  # "failed to dlopen ..." or a missing symbol
        message = f"HIP Python could not load the HIP libraries: {exc}"
        if "dlsym" in str(exc):  # e.g. hipGetDevicePropertiesR0600 is ROCm 6's name
            message += (f"; hip-python {_hip_python_version()} must match the installed "
                        "ROCm's major version (pip install 'hip-python==<ROCm version>.*')")
        raise DeviceError(message) from exc


def _hip_python_version() -> str:
    try:
        return importlib.metadata.version("hip-python")
    except importlib.metadata.PackageNotFoundError:
        return "(unknown version)"


def _require_hip_python() -> None:
    if hip is None:
        raise DeviceError(f"hip-python is not installed (pip install hip-python): {_IMPORT_ERROR}")


# ---------------------------------------------------------------------------------
# Compiling with hiprtc (no GPU needed)
# ---------------------------------------------------------------------------------

# ROCm's comgr compiles from a temporary folder and names the source "CompileSource"
# in its diagnostics; the log is clearer with the name the program was given.
_COMGR_SOURCE = re.compile(r"\S*comgr-[^/\s]+/input/CompileSource")
_COMGR_INCLUDE = re.compile(r"\S*comgr-[^/\s]+/(?:input|include)/")


def _readable_log(text: str, name: str) -> str:
    text = _COMGR_SOURCE.sub(name, text)
    return _COMGR_INCLUDE.sub("", text).strip()


def offload_arch(gcn_arch_name: str) -> str:
    """``"gfx90a:sramecc+:xnack-"`` -> ``"gfx90a"``: the target without its feature flags.

    The code then runs whatever the device's xnack/sramecc mode is.
    """
    return gcn_arch_name.split(":", 1)[0].strip()


_KNOWN_TARGETS: list[set[str] | None] = []


def _comgr_library() -> str | None:
    """The ROCm code object manager (comgr) that hiprtc compiles through."""
    if LIBRARIES.get("hiprtc"):
        _has_symbol(LIBRARIES["hiprtc"], "hiprtcCompileProgram")  # loads it and what it links
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "libamd_comgr" in line:
                    return line.split(None, 5)[-1].strip()
    except OSError:
        pass
    for soname in ("libamd_comgr.so.3", "libamd_comgr.so.2"):
        if _has_symbol(soname, "amd_comgr_get_isa_count"):
            return soname
    return _search("libamd_comgr", "amd_comgr_get_isa_count")


def known_targets() -> set[str] | None:
    """The ``gfx`` targets this ROCm's compiler knows (``None`` if it cannot be asked).

    Asked of comgr (``amd_comgr_get_isa_name``) because an old hiprtc given a target
    it does not know can abort the whole process instead of returning an error.
    """
    if not _KNOWN_TARGETS:
        targets = None
        path = _comgr_library()
        if path:
            try:
                comgr = ctypes.CDLL(path)
                count = ctypes.c_size_t()
                if comgr.amd_comgr_get_isa_count(ctypes.byref(count)) == 0:
                    targets = set()
                    for i in range(count.value):
                        isa = ctypes.c_char_p()
                        if comgr.amd_comgr_get_isa_name(ctypes.c_size_t(i), ctypes.byref(isa)) == 0:
                            # "amdgcn-amd-amdhsa--gfx90a:xnack+" -> "gfx90a"
                            targets.add(offload_arch(isa.value.decode().rsplit("--", 1)[-1]))
            except (OSError, AttributeError, UnicodeDecodeError):
                targets = None
        _KNOWN_TARGETS.append(targets or None)
    return _KNOWN_TARGETS[0]


def compile_options(arch: str, defines: dict | None = None) -> list[str]:
    """hiprtc's options for a compile for ``arch`` with the ``-D`` macros ``defines``."""
    return [f"--offload-arch={offload_arch(arch)}", "-O3", "-std=c++17"] + \
        _checks.define_options(defines)


@functools.lru_cache(maxsize=1)
def compiler_identity() -> str:
    """Which hiprtc compiles, for the kernel cache's key: ``hiprtcVersion`` and the
    libraries it runs (hiprtc and comgr), each with its size and time, which change
    when ROCm is updated under the same version number. Asked once per process."""
    try:
        words = ["hiprtc %d.%d" % tuple(hip_check(hiprtc.hiprtcVersion(), "hiprtcVersion"))]
    except (DeviceError, AttributeError):  # a HIP Python without it: the libraries say enough
        words = ["hiprtc"]
    for library in (LIBRARIES.get("hiprtc"), _comgr_library()):
        try:
            stat = os.stat(library)
            words.append(f"{library} {stat.st_size} {stat.st_mtime_ns}")
        except (OSError, TypeError):  # not found, or a bare name
            words.append(str(library))
    return "; ".join(words)


def compile_program(source: str, arch: str, name: str = "kernel.hip",
                    defines: dict | None = None,
                    headers: dict[str, str] | None = None, *,
                    cache: bool | None = False) -> tuple[bytes, str]:
    """Compile HIP C++ ``source`` with hiprtc for ``arch``; returns ``(code object, log)``.

    ``headers`` (include name -> text) are handed to hiprtc in memory, so that
    ``#include "bfs_common.h"`` works wherever the package is installed. Raises
    :class:`CompileError` with hiprtc's full log when the source does not compile.
    ``cache=True`` (or ``None``: unless ``RODINIA_BFS_KERNEL_CACHE=0``) takes the code
    from the :mod:`~rodinia_bfs.runtime.kernel_cache` when it was compiled before, as
    the device's ``compile`` does.
    """
    _require_hip_python()
    configure_libraries()
    if not LIBRARIES.get("hiprtc"):
        raise DeviceError(_library_hint("hiprtc"))
    targets = known_targets()
    if targets is not None and offload_arch(arch) not in targets:
        raise DeviceError(
            f"this ROCm's compiler does not know {offload_arch(arch)} (it knows "
            f"{', '.join(sorted(targets))}); a newer ROCm is needed")
    all_headers = _checks.all_headers(headers)
    options = compile_options(arch, defines)
    return kernel_cache.compiled(
        "hiprtc", compiler_identity(), source, name, options, all_headers,
        lambda: _hiprtc_compile(source, arch, name, options, all_headers), cache=cache)


def _hiprtc_compile(source: str, arch: str, name: str, options: list[str],
                    all_headers: dict[str, str]) -> tuple[bytes, str]:
    prog = _loading(lambda: hip_check(hiprtc.hiprtcCreateProgram(
        source.encode(), name.encode(), len(all_headers),
        [text.encode() for text in all_headers.values()],
        [include.encode() for include in all_headers]), "hiprtcCreateProgram"))
    try:
        encoded = [o.encode() for o in options]
        err, = hiprtc.hiprtcCompileProgram(prog, len(encoded), encoded)
        size = hip_check(hiprtc.hiprtcGetProgramLogSize(prog), "hiprtcGetProgramLogSize")
        raw_log = bytearray(size)
        if size:
            hip_check(hiprtc.hiprtcGetProgramLog(prog, raw_log), "hiprtcGetProgramLog")
        compile_log = _readable_log(raw_log.rstrip(b"\0").decode(errors="replace"), name)
        if err:
            raise CompileError(
                f"hiprtcCompileProgram: {_error_name(err)} compiling {name} for "
                f"{offload_arch(arch)} with {' '.join(options)}", compile_log)
        size = hip_check(hiprtc.hiprtcGetCodeSize(prog), "hiprtcGetCodeSize")
        code = bytearray(size)
        hip_check(hiprtc.hiprtcGetCode(prog, code), "hiprtcGetCode")
    finally:
        # hiprtcDestroyProgram takes a hiprtcProgram*: createRef() passes the address.
        hiprtc.hiprtcDestroyProgram(prog.createRef())
    return bytes(code), compile_log


def compile_for_arch(source: str, arch: str, name: str = "kernel.hip",
                     defines: dict | None = None,
                     headers: dict[str, str] | None = None) -> bytes:
    """The code object hiprtc makes of ``source`` for ``arch`` (``"gfx90a"``...); no GPU needed."""
    return compile_program(source, arch, name, defines, headers)[0]


# ---------------------------------------------------------------------------------
# The device
# ---------------------------------------------------------------------------------

def _quietly(destroy, handle) -> None:
    """Release a handle from a finalizer, where raising would only print a warning; an
    error it returns must not linger for the next hipGetLastError."""
    try:
        if destroy(handle)[0]:
            _clear_last_error()
    except Exception:
        pass


class HipDevice(GpuDevice):
    """One AMD GPU through the HIP runtime. What it shares with the cuda backend is in
    :class:`~rodinia_bfs.runtime._gpu.GpuDevice`; here is one HIP call per method."""

    backend = "hip"
    _names = {"malloc": "hipMalloc", "free": "hipFree", "host_malloc": "hipHostMalloc",
              "launch": "hipModuleLaunchKernel",
              "launch_cooperative": "hipModuleLaunchCooperativeKernel"}

    def __init__(self, device_id: int = 0):
        super().__init__()
        _require_hip_python()
        configure_libraries()
        if not LIBRARIES.get("hip"):
            raise DeviceError(_library_hint("hip"))
        try:
            count = _loading(lambda: hip_check(hip.hipGetDeviceCount(), "hipGetDeviceCount"))
        except DeviceError as exc:
            raise DeviceError(f"no AMD GPU visible: {exc}") from exc
        if not 0 <= device_id < count:
            raise DeviceError(f"no AMD GPU {device_id}: hipGetDeviceCount found {count}")
        self.device_id = device_id
        hip_check(hip.hipSetDevice(device_id), f"hipSetDevice({device_id})")

        props = _loading(lambda: _device_properties(device_id))
        self.name = text(props.name)
        #: The full target, with feature flags: ``"gfx90a:sramecc+:xnack-"``.
        self.gcn_arch_name = text(props.gcnArchName)
        self.arch = offload_arch(self.gcn_arch_name)
        self.warp_size = int(props.warpSize)
        self.total_memory = int(props.totalGlobalMem)
        self.multiprocessor_count = int(props.multiProcessorCount)
        self.max_threads_per_block = int(props.maxThreadsPerBlock)
        self.shared_memory_per_block = int(props.sharedMemPerBlock)
        # AMD GPUs give a block all of its LDS (64 KiB) without opting in.
        self.max_shared_memory_per_block = max(self.shared_memory_per_block,
                                               int(getattr(props, "sharedMemPerBlockOptin", 0) or 0))
        self.cooperative_launch = bool(getattr(props, "cooperativeLaunch", 1))
        # The attribute: hipDeviceProp_t.l2CacheSize is documented as always 0 with HIP-Clang.
        self.l2_cache_bytes = int(hip_check(hip.hipDeviceGetAttribute(
            hip.hipDeviceAttribute_t.hipDeviceAttributeL2CacheSize, device_id),
            "hipDeviceGetAttribute(hipDeviceAttributeL2CacheSize)"))
        # wall_clock64() counts at wallClockRate kHz (100 MHz on MI200 and MI300).
        self.clock_rate_hz = 1000.0 * float(hip_check(hip.hipDeviceGetAttribute(
            hip.hipDeviceAttribute_t.hipDeviceAttributeWallClockRate, device_id),
            "hipDeviceGetAttribute(hipDeviceAttributeWallClockRate)"))

    def activate(self) -> None:
        """``hipSetDevice``."""
        hip_check(hip.hipSetDevice(self.device_id), f"hipSetDevice({self.device_id})")

    def _error_name(self, err) -> str:
        return _error_name(err)

    # -- compilation: hiprtc for this device's architecture ---------------------------------
    def _compile(self, source, name, defines, headers):
        return compile_program(source, self.arch, name, defines, headers, cache=None)

    def _module_load(self, code, name):
        return hip_check(hip.hipModuleLoadData(code), f"hipModuleLoadData({name})")

    def _module_unload(self, handle):
        _quietly(hip.hipModuleUnload, handle)

    def _module_get_function(self, module, name, module_name):
        return hip_check(hip.hipModuleGetFunction(module, name.encode()),
                         f"hipModuleGetFunction({name!r} in {module_name})")

    # -- memory ------------------------------------------------------------------------------
    def _mem_alloc(self, nbytes):
        err, ptr = hip.hipMalloc(nbytes)
        if err:
            _clear_last_error()
        return err, ptr

    def _mem_get_info(self):
        return hip_check(hip.hipMemGetInfo(), "hipMemGetInfo")

    def _mem_free(self, ptr):
        hip_check(hip.hipFree(ptr), "hipFree")

    def _host_alloc(self, nbytes):
        err, ptr = hip.hipHostMalloc(nbytes, hip.hipHostMallocDefault)
        if err:
            _clear_last_error()
        return err, ptr

    def _host_free(self, ptr):
        _quietly(hip.hipHostFree, ptr)

    def host_mapped(self, array, managed=False):
        """``hipHostMalloc(hipHostMallocMapped)`` + ``hipHostGetDevicePointer``, or
        ``hipMallocManaged(hipMemAttachGlobal)``; never more managed memory than the
        device has free (``hipMemGetInfo``)."""
        import numpy as np

        from rodinia_bfs.runtime.base import MappedHostArray
        array = np.ascontiguousarray(array)
        nbytes = max(array.nbytes, 1)
        if managed:
            free, _ = self._mem_get_info()
            if nbytes > free:
                raise DeviceError(f"hipMallocManaged({_checks.format_bytes(nbytes)}): the "
                                  f"device has only {_checks.format_bytes(free)} free")
            ptr = hip_check(hip.hipMallocManaged(nbytes, hip.hipMemAttachGlobal),
                            f"hipMallocManaged({_checks.format_bytes(nbytes)})")
            device_ptr, release = int(ptr), lambda p: _quietly(hip.hipFree, p)
        else:
            ptr = hip_check(hip.hipHostMalloc(nbytes, hip.hipHostMallocMapped),
                            f"hipHostMalloc({_checks.format_bytes(nbytes)}, mapped)")
            device_ptr = int(hip_check(hip.hipHostGetDevicePointer(ptr, 0),
                                       "hipHostGetDevicePointer"))
            release = self._host_free
        host = _checks.pinned_array(int(ptr), array.nbytes, array.shape, array.dtype, release)
        host[...] = array
        return MappedHostArray(host, device_ptr, "managed" if managed else "mapped")

    def prefetch_to_host(self, mapped, stream=None):
        """``hipMemPrefetchAsync`` of managed memory to the host (``hipCpuDeviceId``)."""
        if mapped.kind != "managed":
            return
        hip_check(hip.hipMemPrefetchAsync(mapped.device_ptr, mapped.nbytes, hip.hipCpuDeviceId,
                                          self._stream(stream)),
                  "hipMemPrefetchAsync(host)")

    def _host_register(self, ptr, nbytes):
        if hip.hipHostRegister(ptr, nbytes, hip.hipHostRegisterDefault)[0]:
            _clear_last_error()
            return False
        return True

    def _host_unregister(self, ptr):
        hip_check(hip.hipHostUnregister(ptr), "hipHostUnregister")

    def _copy_htod(self, dst, src, nbytes):
        hip_check(hip.hipMemcpy(dst, src, nbytes, hip.hipMemcpyKind.hipMemcpyHostToDevice),
                  "hipMemcpy(HostToDevice)")

    def _copy_dtoh(self, dst, src, nbytes):
        hip_check(hip.hipMemcpy(dst, src, nbytes, hip.hipMemcpyKind.hipMemcpyDeviceToHost),
                  "hipMemcpy(DeviceToHost)")

    def _copy_htod_async(self, dst, src, nbytes, stream):
        hip_check(hip.hipMemcpyAsync(dst, src, nbytes, hip.hipMemcpyKind.hipMemcpyHostToDevice,
                                     stream), "hipMemcpyAsync(HostToDevice)")

    def _copy_dtoh_async(self, dst, src, nbytes, stream):
        hip_check(hip.hipMemcpyAsync(dst, src, nbytes, hip.hipMemcpyKind.hipMemcpyDeviceToHost,
                                     stream), "hipMemcpyAsync(DeviceToHost)")

    def _memset_async(self, ptr, byte, nbytes, stream):
        hip_check(hip.hipMemsetAsync(ptr, byte, nbytes, stream), "hipMemsetAsync")

    # -- streams and events ----------------------------------------------------------------
    def _stream_create(self):
        return hip_check(hip.hipStreamCreate(), "hipStreamCreate")

    def _stream_destroy(self, handle):
        _quietly(hip.hipStreamDestroy, handle)

    def _stream_synchronize(self, handle):
        hip_check(hip.hipStreamSynchronize(handle), "hipStreamSynchronize")

    def _event_create(self):
        return hip_check(hip.hipEventCreate(), "hipEventCreate")

    def _event_destroy(self, handle):
        _quietly(hip.hipEventDestroy, handle)

    def _event_record(self, handle, stream):
        hip_check(hip.hipEventRecord(handle, stream), "hipEventRecord")

    def _event_synchronize(self, handle):
        hip_check(hip.hipEventSynchronize(handle), "hipEventSynchronize")

    def _event_elapsed_ms(self, start, end):
        return hip_check(hip.hipEventElapsedTime(start, end), "hipEventElapsedTime")

    # -- launches, then hipGetLastError as after every launch in HIP code ----------------------
    def _launch_kernel(self, kernel, grid, block, shared_mem, stream, params, cooperative):
        if cooperative:
            err = hip.hipModuleLaunchCooperativeKernel(kernel.handle, *grid, *block, shared_mem,
                                                       stream, params)[0]
        else:
            err = hip.hipModuleLaunchKernel(kernel.handle, *grid, *block, shared_mem, stream,
                                            params, None)[0]
        if not err:
            err = hip.hipGetLastError()[0]
        if err:
            _clear_last_error()
        return err

    def _occupancy(self, kernel, block_size, shared_mem):
        return hip_check(
            hip.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(kernel.handle, block_size,
                                                                   shared_mem),
            f"hipModuleOccupancyMaxActiveBlocksPerMultiprocessor({kernel.name}, {block_size} "
            f"threads, {shared_mem} bytes of shared memory)")

    def _set_max_dynamic_shared(self, kernel, nbytes):
        pass  # AMD GPUs give every block the LDS it asks for, up to the limit checked above

    def _device_synchronize(self):
        hip_check(hip.hipDeviceSynchronize(), "hipDeviceSynchronize")


def _device_properties(device_id: int):
    """``hipGetDeviceProperties``: hip-python 6 fills the ``hipDeviceProp_t`` it is
    given, later releases return a new one."""
    call = f"hipGetDeviceProperties({device_id})"
    try:
        return hip_check(hip.hipGetDeviceProperties(device_id), call)
    except TypeError:
        props = hip.hipDeviceProp_t()
        hip_check(hip.hipGetDeviceProperties(props, device_id), call)
        return props


# ---------------------------------------------------------------------------------
# The backend's entry points
# ---------------------------------------------------------------------------------

def probe() -> tuple[bool, str]:
    """Is an AMD GPU usable through HIP Python? ``(usable, reason)``."""
    if hip is None:
        return False, "hip-python not installed"
    configure_libraries()
    if not LIBRARIES.get("hip"):
        return False, "HIP runtime not found (libamdhip64.so)"
    try:
        count = _loading(lambda: hip_check(hip.hipGetDeviceCount(), "hipGetDeviceCount"))
    except DeviceError as exc:
        return False, f"no AMD GPU visible ({exc})"
    if count < 1:
        return False, "no AMD GPU visible"
    return True, f"{count} AMD GPU{'s' if count > 1 else ''} visible"


def create(device_id: int = 0, **options) -> HipDevice:
    """The AMD GPU ``device_id`` (``hipSetDevice``)."""
    if options:
        raise DeviceError(f"the hip backend takes no options {sorted(options)}")
    return HipDevice(device_id)
