"""The ``cpu`` backend: an emulator of the HIP execution model.

No GPU is needed. The same HIP kernel sources that hiprtc and NVRTC compile are
compiled here by the system C++ compiler (``$CXX``, else ``c++``, ``g++`` or
``clang++``) into a shared library, with ``include/hip_emulator.h`` pre-included. That
header defines what the HIP compiler would provide (``threadIdx``, ``__shared__``,
``__syncthreads``, atomics, the warp operations of ``bfs_common.h``) and, compiled on
its own, the emulator's runtime: a pool of worker threads that run the blocks of a
grid, each block's threads as cooperative fibers.

What the HIP calls become:

* ``hiprtcCompileProgram`` + ``hipModuleLoadData``: ``c++ -shared``, then ``dlopen``
  (through ctypes). The backend appends one launcher per kernel to the translation
  unit; the kernels are found by their ``extern "C" __global__ void NAME(`` lines.
* ``hipModuleLaunchKernel``: a call of the kernel's launcher with the same
  ``void* kernelParams[]`` array. ctypes releases the GIL for the call, and the launch
  returns when the whole grid has run.
* ``hipMalloc``: host memory from the C library (``posix_memalign``, 256-byte aligned);
  the "device address" is its address. ``hipMemcpy`` is a checked ``memmove``.
* Streams and events: everything is synchronous; events record ``time.perf_counter``.

Compiled libraries are cached on disk, keyed by everything that goes into them, so a
second run with the same sources does not invoke the compiler.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import json
import logging
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.runtime import _checks
from rodinia_bfs.runtime.base import (Device, DeviceBuffer, Event, Kernel, MappedHostArray, Module,
                                      PinnedArray, Stream, record_bytes)

#: The emulator header: pre-included into every kernel module, and the runtime's source.
EMULATOR_HEADER = Path(__file__).resolve().parent / "include" / "hip_emulator.h"

#: Bumped when the way modules are built changes, so that old cache entries are not used.
_CACHE_FORMAT = "rodinia-bfs-emu-1"
_BASE_FLAGS = ["-x", "c++", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden",
               "-U_FORTIFY_SOURCE"]
_OPT_FLAGS = ["-O2"]
#: Kernel modules: -Og builds step 7's module in 0.55 s (0.93 s at -O1, 0.43 s at -O0),
#: and its kernels run nearly as fast as at -O1: a launch spends its time in the
#: runtime's fibers, built with -O2. The whole test suite, cold, on 2 cores, -Og against
#: -O1 one after the other: 320 against 358 s, and 337 against 365 s in a second pair; at
#: -O0 the slower kernels cost more than the quicker builds saved.
_MODULE_OPT_FLAGS = ["-Og"]
_ASAN_FLAGS = ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"]
_ALIGNMENT = 256
_ABI = 2

log = logging.getLogger(__name__)

#: How many times this process ran the compiler to build a library (the tests read it).
compiler_runs = 0

_lock = threading.RLock()


# ---------------------------------------------------------------------------------------
# The compiler
# ---------------------------------------------------------------------------------------

class _Compiler:
    """A C++ compiler command, and what it says about itself."""

    def __init__(self, command: list[str], version: str):
        self.command = command
        self.version = version  # the whole `--version` output: part of every cache key
        first = version.splitlines()[0] if version else command[0]
        family = "clang++" if "clang" in first.lower() else "g++"
        numbers = re.findall(r"\b(\d+)\.(\d+)(?:\.\d+)?\b", first)
        short = f"{numbers[-1][0]}.{numbers[-1][1]}" if numbers else ""
        self.display = f"{family} {short}".strip()
        self.is_clang = family == "clang++"
        major = int(numbers[-1][0]) if numbers else 0
        # A kernel whose locals outgrow its fiber's stack must touch the guard page
        # below it (and fault) rather than jump over it into the next stack: stack
        # clash protection probes every page of a large frame.
        self.kernel_flags = ["-fstack-clash-protection"] if major >= (11 if self.is_clang else 8) else []

    @property
    def identity(self) -> str:
        return json.dumps([self.command, self.version])

    def run(self, args: list[str], cwd: str) -> tuple[int, str]:
        """Run the compiler; returns the exit status and its whole output."""
        global compiler_runs
        with _lock:
            compiler_runs += 1
        try:
            proc = subprocess.run(self.command + args, cwd=cwd, env=_clean_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, errors="replace", timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return 1, f"{shlex.join(self.command)}: {exc}"
        return proc.returncode, proc.stdout


def _clean_env() -> dict[str, str]:
    # A preloaded AddressSanitizer (see sanitize=True) is for this process, not for
    # the compiler.
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


_compilers: dict[tuple[str, ...], _Compiler | str] = {}


def _find_compiler() -> _Compiler:
    """``$CXX`` if set, else the first of c++, g++, clang++ that runs."""
    cxx = os.environ.get("CXX", "").strip()
    candidates = [shlex.split(cxx)] if cxx else [["c++"], ["g++"], ["clang++"]]
    problems = []
    for command in candidates:
        key = tuple(command)
        with _lock:
            found = _compilers.get(key)
            if found is None:
                found = _probe_compiler(command)
                _compilers[key] = found
        if isinstance(found, _Compiler):
            return found
        problems.append(found)
    raise DeviceError("no C++ compiler for the cpu emulator: " + "; ".join(problems))


def _probe_compiler(command: list[str]) -> _Compiler | str:
    path = shutil.which(command[0])
    if path is None:
        return f"{command[0]} not found"
    command = [path] + command[1:]
    try:
        proc = subprocess.run(command + ["--version"], env=_clean_env(), capture_output=True,
                              text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{shlex.join(command)} does not run: {exc}"
    if proc.returncode != 0:
        return f"{shlex.join(command)} --version failed: {proc.stderr.strip()[:200]}"
    return _Compiler(command, proc.stdout.strip())


# ---------------------------------------------------------------------------------------
# The cache of compiled libraries
# ---------------------------------------------------------------------------------------

def cache_dir() -> Path:
    """``$RODINIA_BFS_CACHE/emu``, else ``$XDG_CACHE_HOME/rodinia-bfs/emu``, else
    ``~/.cache/rodinia-bfs/emu``."""
    if os.environ.get("RODINIA_BFS_CACHE"):
        return Path(os.environ["RODINIA_BFS_CACHE"]) / "emu"
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "rodinia-bfs" / "emu"
    return Path.home() / ".cache" / "rodinia-bfs" / "emu"


def _cache_key(*parts) -> str:
    h = hashlib.sha256()
    for part in (_CACHE_FORMAT,) + parts:
        data = part if isinstance(part, bytes) else json.dumps(part, sort_keys=True).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:40]


@functools.lru_cache(maxsize=64)
def _headers_key(items: tuple[tuple[str, str], ...]) -> str:
    """The cache key's part for a module's headers (include name -> text), computed once
    per set of headers: every set-up of every step hands the same ones."""
    return _cache_key("headers", dict(items))


_fallback_dir: str | None = None


def _writable_cache() -> Path:
    """The cache folder, or a private temporary one where it cannot be created."""
    global _fallback_dir
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    with _lock:
        if _fallback_dir is None:
            _fallback_dir = tempfile.mkdtemp(prefix="rodinia-bfs-emu-cache-")
    return Path(_fallback_dir)


def _build(compiler: _Compiler, key: str, files: dict[str, str], main: str, flags: list[str],
           what: str) -> tuple[Path, str]:
    """Compile ``files[main]`` into ``<cache>/<key>.so`` unless it is there already.

    Returns the library and the compiler's output (warnings; empty from the cache).
    The library is written under a temporary name and renamed into place, so that
    processes compiling the same key at the same time never load a half-written file;
    and a lock on the key makes a second process (a test worker) wait for the first one's
    library instead of compiling it again.
    """
    folder = _writable_cache()
    target = folder / f"{key}.so"
    if target.is_file():
        return target, ""
    with _key_lock(folder, key):
        if target.is_file():  # built by the process that held the lock
            return target, ""
        return _compile_into(compiler, target, files, main, flags, what)


@contextlib.contextmanager
def _key_lock(folder: Path, key: str):
    """An exclusive lock on ``<folder>/.<key>.lock`` for as long as the ``with`` lasts
    (``fcntl.flock``: released when the file is closed, or by the system if the holder
    dies; no lock where there is no ``fcntl``: compiled twice at worst)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(folder / f".{key}.lock", "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        yield


def _compile_into(compiler: _Compiler, target: Path, files: dict[str, str], main: str,
                  flags: list[str], what: str) -> tuple[Path, str]:
    folder, key = target.parent, target.stem
    with tempfile.TemporaryDirectory(prefix="rodinia-bfs-emu-") as work:
        for rel, text in files.items():
            path = Path(work) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        partial = folder / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"
        status, log_text = compiler.run(flags + [main, "-o", str(partial)], cwd=work)
        if status != 0:
            partial.unlink(missing_ok=True)
            raise CompileError(
                f"compiling {what} for the cpu emulator failed "
                f"({compiler.display} exited with status {status})", log_text)
        os.replace(partial, target)
    return target, log_text


# ---------------------------------------------------------------------------------------
# The runtime library (scheduler, fibers, worker pool), one per process and flavour
# ---------------------------------------------------------------------------------------

class _Runtime:
    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        lib.bfs_emu_runtime_api.restype = ctypes.c_void_p
        lib.bfs_emu_runtime_api.argtypes = []
        self.api = lib.bfs_emu_runtime_api()


_runtimes: dict[str, _Runtime] = {}


def _runtime(compiler: _Compiler, sanitize: bool) -> _Runtime:
    header = EMULATOR_HEADER.read_text()
    flags = _BASE_FLAGS + (_ASAN_FLAGS if sanitize else _OPT_FLAGS) + ["-pthread", "-DBFS_EMU_RUNTIME"]
    key = _cache_key("runtime", compiler.identity, header, flags)
    with _lock:
        if key not in _runtimes:
            path, _ = _build(compiler, key, {"hip_emulator_runtime.cpp": header},
                             "hip_emulator_runtime.cpp", flags, "the emulator runtime")
            _runtimes[key] = _Runtime(ctypes.CDLL(str(path)))
        return _runtimes[key]


# ---------------------------------------------------------------------------------------
# Finding the kernels of a source
# ---------------------------------------------------------------------------------------

_COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
_KERNEL = re.compile(
    r'extern\s*"C"\s*(?P<pre>(?:__\w+__\s*(?:\([^()]*\))?\s*)+)void\s+'
    r'(?:__\w+__\s*\([^()]*\)\s*)*(?P<name>[A-Za-z_]\w*)\s*\(')


_INCLUDE = re.compile(r'^\s*#\s*include\s*"(?P<name>[^"]+)"', re.MULTILINE)


def _blank_comments(m: re.Match) -> str:
    text = m.group(0)
    return text if text[0] in "\"'" else " "


@functools.lru_cache(maxsize=512)
def _kernels_and_includes(text: str) -> tuple[tuple[int, bool, str], ...]:
    """What kernel_names needs of one text, in order of appearance: (offset, True,
    kernel) for each ``extern "C" __global__`` kernel and (offset, False, name) for each
    ``#include "name"``, comments and strings left out. Kept per text: a step's source
    and its headers are scanned once, not at every compile of every set-up."""
    stripped = _COMMENT_OR_STRING.sub(_blank_comments, text)
    found = [(m.start(), True, m.group("name")) for m in _KERNEL.finditer(stripped)
             if "__global__" in m.group("pre")]
    found += [(m.start(), False, m.group("name")) for m in _INCLUDE.finditer(stripped)]
    return tuple(sorted(found))


def kernel_names(source: str, headers: dict[str, str] | None = None,
                 _seen: frozenset = frozenset()) -> list[str]:
    """The ``extern "C" __global__`` kernels of a source, in order of appearance,
    those of the ``headers`` it includes (a later step may include an earlier one's
    kernel file) included."""
    headers = headers or {}
    names = []
    for _, is_kernel, name in _kernels_and_includes(source):
        if is_kernel:
            group = [name]
        elif name in headers and name not in _seen:
            group = kernel_names(headers[name], headers, _seen | {name})
        else:
            continue
        names.extend(k for k in group if k not in names)
    return names


# ---------------------------------------------------------------------------------------
# Device objects
# ---------------------------------------------------------------------------------------

class _LaunchConfig(ctypes.Structure):
    # Mirrors bfs_emu::LaunchConfig in hip_emulator.h.
    _fields_ = [
        ("grid", ctypes.c_ulonglong * 3),
        ("block", ctypes.c_ulonglong * 3),
        ("shared_mem", ctypes.c_ulonglong),
        ("workers", ctypes.c_longlong),
        ("cooperative", ctypes.c_longlong),
    ]


_LAUNCHER_ARGTYPES = [ctypes.POINTER(_LaunchConfig), ctypes.c_void_p, ctypes.c_int,
                      ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_int]

# ArgKind codes of hip_emulator.h: kind * 65536 + size. The launcher compares them with
# its kernel's parameter types, so that np.int64 passed for an int, or a record whose
# size is not the struct's, is an error.
_ARG_INT, _ARG_FLOAT, _ARG_POINTER, _ARG_RECORD = 1, 2, 3, 4


def _arg_key(arg):
    """What decides an argument's code: its type, and a record's size."""
    if isinstance(arg, (ctypes.Structure, np.ndarray)):
        return type(arg), record_bytes(arg)
    return type(arg)


def _arg_code(key) -> int:
    if isinstance(key, tuple):
        return _ARG_RECORD * 65536 + key[1]
    if issubclass(key, DeviceBuffer):
        return _ARG_POINTER * 65536 + 8
    dtype = np.dtype(key)
    return (_ARG_FLOAT if dtype.kind == "f" else _ARG_INT) * 65536 + dtype.itemsize


class CpuKernel(Kernel):
    def __init__(self, module: "CpuModule", name: str, launcher):
        self.module = module
        self.name = name
        self._launcher = launcher
        # As in the GPU backends: kernelParams built in one reused buffer.
        self.packer = _checks.ArgPacker()
        self._codes: dict[tuple, ctypes.Array] = {}  # argument types -> ArgKind codes
        self._error = ctypes.create_string_buffer(1024)
        self._lock = threading.Lock()  # the packer and the error buffer are shared

    def codes(self, args) -> ctypes.Array:
        key = tuple(map(_arg_key, args))
        codes = self._codes.get(key)
        if codes is None:
            codes = (ctypes.c_int * max(len(key), 1))(*map(_arg_code, key))
            self._codes[key] = codes
        return codes

    def __repr__(self):
        return f"<CpuKernel {self.name} of {self.module.name}>"


class CpuModule(Module):
    """A compiled kernel library. ``kernels`` lists its kernels; ``log`` holds the
    compiler's warnings, if any; ``path`` is the cached library."""

    def __init__(self, lib: ctypes.CDLL, name: str, kernels: list[str], path: Path,
                 warp_size: int, log_text: str = ""):
        self.lib = lib
        self.name = name
        self.log = log_text
        self.kernels = kernels
        self.path = path
        self.warp_size = warp_size
        self._functions: dict[str, CpuKernel] = {}

    def get_function(self, name: str) -> CpuKernel:
        if name not in self._functions:
            if name not in self.kernels:
                raise DeviceError(
                    f"no kernel named {name!r} in {self.name} (its extern \"C\" __global__ "
                    f"kernels: {', '.join(self.kernels) or 'none'})")
            launcher = getattr(self.lib, f"bfs_emu_launch_{name}")
            launcher.argtypes = _LAUNCHER_ARGTYPES
            launcher.restype = ctypes.c_int
            self._functions[name] = CpuKernel(self, name, launcher)
        return self._functions[name]


class CpuStream(Stream):
    """Work on the emulator is synchronous: a stream has nothing to wait for."""

    def synchronize(self) -> None:
        pass


class CpuEvent(Event):
    def __init__(self):
        self._time: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        if self._time is None:
            raise DeviceError("event synchronized before it was recorded")

    def elapsed_ms(self, end: "CpuEvent") -> float:
        if self._time is None or getattr(end, "_time", None) is None:
            raise DeviceError("elapsed_ms needs two recorded events")
        return (end._time - self._time) * 1000.0


# The C library's allocator (AddressSanitizer's, when it is preloaded: its red zones
# then catch kernels that run past the end of a buffer).
_libc = ctypes.CDLL(None)
_posix_memalign = _libc.posix_memalign
_posix_memalign.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_size_t]
_posix_memalign.restype = ctypes.c_int
_libc_free = _libc.free
_libc_free.argtypes = [ctypes.c_void_p]
_libc_free.restype = None


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def asan_preloaded() -> bool:
    """Is AddressSanitizer's runtime loaded into this process?"""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return False
    return "libasan" in maps or "libclang_rt.asan" in maps


def _asan_library(compiler: _Compiler) -> str:
    name = "libclang_rt.asan-x86_64.so" if compiler.is_clang else "libasan.so"
    try:
        proc = subprocess.run(compiler.command + [f"-print-file-name={name}"], env=_clean_env(),
                              capture_output=True, text=True, timeout=60)
        path = proc.stdout.strip()
        if proc.returncode == 0 and os.path.isabs(path) and os.path.exists(path):
            return path
    except (OSError, subprocess.TimeoutExpired):
        pass
    return f"$({shlex.join(compiler.command)} -print-file-name={name})"


_modules: dict[str, tuple[ctypes.CDLL, Path, str]] = {}


def _clear_memo() -> None:
    """Forget the modules loaded in this process, so that the next compile goes to the
    disk cache (the tests use it)."""
    with _lock:
        _modules.clear()


#: What the emulator says a multiprocessor holds, so that occupancy and cooperative
#: launches behave as on a GPU (the figures of an NVIDIA Hopper SM).
_THREADS_PER_MULTIPROCESSOR = 2048
#: The registers of a Hopper SM, and what the emulator takes a thread to hold, having no
#: compiler's count: 64, what steps 6 and 7's grid kernel takes on an H100 (chapter 7),
#: so that a multiprocessor holds 1,024 threads as it does there. (Half the blocks of
#: 2,048 threads' worth: every grid barrier of a cooperative launch waits for every
#: thread of the grid, and here each is a fiber that the workers switch to.)
_REGISTERS_PER_MULTIPROCESSOR = 65536
_REGISTERS_PER_THREAD = 64
_BLOCKS_PER_MULTIPROCESSOR = 32
_SHARED_PER_MULTIPROCESSOR = 228 * 1024
_SHARED_PER_BLOCK = 48 * 1024
_MAX_SHARED_PER_BLOCK = 227 * 1024  # BFS_EMU_MAX_DYNAMIC_SHARED in hip_emulator.h
_MAX_THREADS_PER_BLOCK = 1024
_L2_CACHE_BYTES = 50 * 1024 * 1024  # an H100's: the emulator has no cache of its own


class CpuDevice(Device):
    """The emulator as a device: ``warp_size`` 32 or 64, ``workers`` OS threads.

    Each worker counts as a multiprocessor: a cooperative launch may have as many blocks
    as ``workers`` multiprocessors of a GPU would hold, and runs each on a thread of its own.
    """

    backend = "cpu"
    max_threads_per_block = _MAX_THREADS_PER_BLOCK
    shared_memory_per_block = _SHARED_PER_BLOCK
    max_shared_memory_per_block = _MAX_SHARED_PER_BLOCK
    l2_cache_bytes = _L2_CACHE_BYTES

    def __init__(self, warp_size: int | None = None, workers: int | None = None,
                 sanitize: bool = False):
        if warp_size is None:
            text = os.environ.get("RODINIA_BFS_EMU_WARP_SIZE", "").strip() or "32"
            warp_size = int(text) if text.isdigit() else text
        if warp_size not in (32, 64):
            raise DeviceError(f"the cpu emulator's warp size must be 32 or 64, not {warp_size}")
        if workers is None:
            workers = _cpu_count()
        if int(workers) < 1:
            raise DeviceError(f"workers must be at least 1, not {workers}")
        self.compiler = _find_compiler()
        self.sanitize = bool(sanitize)
        if self.sanitize and not asan_preloaded():
            raise DeviceError(
                "sanitize=True builds kernels with AddressSanitizer, which Python can only load "
                "when its runtime is preloaded: run with "
                f"LD_PRELOAD={_asan_library(self.compiler)} ASAN_OPTIONS=detect_leaks=0")
        self.warp_size = warp_size
        self.workers = int(workers)
        self.multiprocessor_count = self.workers
        self.arch = f"cpu-w{warp_size}"
        self.total_memory = _physical_memory()
        plural = "worker" if self.workers == 1 else "workers"
        asan = ", AddressSanitizer" if self.sanitize else ""
        self.name = f"CPU emulator ({self.compiler.display}, {self.workers} {plural}{asan})"
        self._runtime = _runtime(self.compiler, self.sanitize)
        self._allocations: set[int] = set()
        self._frees = 0  # counts free calls: the argument packer re-checks buffers after one

    # -- compilation ----------------------------------------------------------------------
    def compile(self, source: str, name: str = "kernel.hip", defines: dict | None = None,
                headers: dict[str, str] | None = None) -> CpuModule:
        """Compile HIP C++ ``source`` into an emulator module.

        ``headers`` maps include names to their text (every header the source
        includes, as in the GPU backends). Compile errors raise CompileError
        with the compiler's log, whose diagnostics name ``name`` and its lines.
        """
        headers = _checks.all_headers(headers)
        name = _safe_file_name(name)
        for include in headers:
            _check_header_name(include)
        define_flags = _checks.define_options(dict(sorted((defines or {}).items())))
        kernels = kernel_names(source, headers)
        # One launcher per kernel, appended to the translation unit; #line makes any
        # error in them say where it comes from, and leaves the user's lines alone.
        launchers = "\n#line 1 \"<emulator launchers>\"\nBFS_EMU_MODULE()\n" + "".join(
            f"BFS_EMU_KERNEL({k})\n" for k in kernels)
        flags = (_BASE_FLAGS + (_ASAN_FLAGS if self.sanitize else _MODULE_OPT_FLAGS + ["-Wl,-z,defs"])
                 + self.compiler.kernel_flags
                 + ["-DBFS_EMULATOR", f"-DBFS_EMULATOR_WARP_SIZE={self.warp_size}"]
                 + define_flags + ["-include", str(EMULATOR_HEADER), "-I", "."])
        header_text = EMULATOR_HEADER.read_text()
        key = _cache_key("module", self.compiler.identity, header_text.encode(), name,
                         source.encode(), _headers_key(tuple(sorted(headers.items()))),
                         define_flags, self.warp_size, self.sanitize, flags)
        with _lock:
            if key not in _modules:
                files = dict(headers)
                files[name] = source + launchers
                path, log_text = _build(self.compiler, key, files, name, flags, name)
                if log_text.strip():  # warnings: show them, as a compiler would
                    log.warning("compiler output for %s (%s):\n%s", name, self.arch, log_text)
                lib = ctypes.CDLL(str(path))
                lib.bfs_emu_bind.argtypes = [ctypes.c_void_p]
                lib.bfs_emu_bind.restype = ctypes.c_int
                if lib.bfs_emu_bind(self._runtime.api) != 0:
                    raise DeviceError(f"{name}: the compiled module does not match the emulator runtime")
                _modules[key] = (lib, path, log_text)
            lib, path, log_text = _modules[key]
        return CpuModule(lib, name, kernels, path, self.warp_size, log_text)

    # -- memory -------------------------------------------------------------------------------
    def malloc(self, nbytes: int) -> DeviceBuffer:
        """``hipMalloc``: 256-byte aligned host memory from the C library."""
        nbytes = _checks.check_nbytes(nbytes)
        if nbytes > self.total_memory:
            raise DeviceError(f"malloc({_checks.format_bytes(nbytes)}): out of memory; the "
                              f"machine has {_checks.format_bytes(self.total_memory)} in all")
        ptr = ctypes.c_void_p()
        if _posix_memalign(ctypes.byref(ptr), _ALIGNMENT, max(nbytes, 1)) != 0 or not ptr.value:
            raise DeviceError(f"malloc({_checks.format_bytes(nbytes)}): out of memory")
        self._allocations.add(ptr.value)
        return DeviceBuffer(ptr.value, nbytes, self)

    def free(self, buf: DeviceBuffer) -> None:
        """``hipFree``."""
        _checks.check_free(buf, "free")
        if buf.ptr not in self._allocations:
            raise DeviceError("free: the buffer was not allocated by this device")
        self._allocations.discard(buf.ptr)
        _libc_free(buf.ptr)
        buf.freed = True
        self._frees += 1

    def host_malloc(self, shape, dtype) -> PinnedArray:
        """``hipHostMalloc``: ordinary memory here, nothing needs to be page-locked."""
        return np.zeros(shape, dtype=dtype).view(PinnedArray)

    def prefetch_to_host(self, mapped: MappedHostArray, stream=None) -> None:
        """Here every page is in host memory already."""

    def host_mapped(self, array: np.ndarray, managed: bool = False) -> MappedHostArray:
        """Mapped or managed memory: here the device is the host, so a plain copy of
        ``array`` whose own address the kernels read."""
        copy = np.array(array, copy=True, order="C")
        return MappedHostArray(copy, copy.ctypes.data, "managed" if managed else "mapped")

    def memcpy_htod(self, dst: DeviceBuffer, src: np.ndarray) -> None:
        src = np.ascontiguousarray(src)
        _checks.check_copy(src.nbytes, dst, "memcpy host to device")
        if src.nbytes:
            ctypes.memmove(dst.ptr, src.ctypes.data, src.nbytes)

    def memcpy_dtoh(self, dst: np.ndarray, src: DeviceBuffer) -> None:
        host = _checks.host_buffer(dst, "destination", writable=True)
        _checks.check_copy(host.nbytes, src, "memcpy device to host")
        if host.nbytes:
            ctypes.memmove(host.ctypes.data, src.ptr, host.nbytes)

    def memcpy_htod_async(self, dst: DeviceBuffer, src: np.ndarray, stream: Stream) -> None:
        # Synchronous here; the same checks as an asynchronous copy on a GPU.
        self.memcpy_htod(dst, _checks.host_buffer(src, "source"))

    def memcpy_dtoh_async(self, dst: np.ndarray, src: DeviceBuffer, stream: Stream) -> None:
        self.memcpy_dtoh(dst, src)

    def memset(self, buf: DeviceBuffer, byte: int, nbytes: int | None = None,
               stream: Stream | None = None) -> None:
        nbytes = _checks.check_memset(buf, byte, nbytes)
        if nbytes:
            ctypes.memset(buf.ptr, int(byte), nbytes)

    # -- execution ----------------------------------------------------------------------------
    def stream(self) -> CpuStream:
        return CpuStream()

    def event(self) -> CpuEvent:
        return CpuEvent()

    def launch(self, kernel: Kernel, grid, block, args: Sequence, shared_mem: int = 0,
               stream: Stream | None = None) -> None:
        self._run(kernel, grid, block, args, shared_mem, cooperative=False)

    def max_active_blocks(self, kernel: Kernel, block_size: int, shared_mem: int = 0) -> int:
        """The occupancy of an NVIDIA Hopper SM (threads, blocks, registers and shared
        memory per multiprocessor), each thread taken to hold _REGISTERS_PER_THREAD."""
        if not 1 <= int(block_size) <= _MAX_THREADS_PER_BLOCK or shared_mem > _MAX_SHARED_PER_BLOCK:
            return 0
        threads = min(_THREADS_PER_MULTIPROCESSOR,
                      _REGISTERS_PER_MULTIPROCESSOR // _REGISTERS_PER_THREAD)
        return min(_BLOCKS_PER_MULTIPROCESSOR, threads // int(block_size),
                   _SHARED_PER_MULTIPROCESSOR // max(int(shared_mem), 1))

    def _launch_cooperative(self, kernel, grid, block, args, shared_mem, stream) -> None:
        self._run(kernel, grid, block, args, shared_mem, cooperative=True)

    def _run(self, kernel: Kernel, grid, block, args: Sequence, shared_mem: int,
             cooperative: bool) -> None:
        if not isinstance(kernel, CpuKernel):
            raise DeviceError(f"launch: {kernel!r} is not a kernel of the cpu backend")
        grid, block = _checks.launch_dims(grid), _checks.launch_dims(block)
        if max(grid + block) >= 1 << 63:
            raise DeviceError(f"launch of {kernel.name}: grid {grid} or block {block} too large")
        if isinstance(shared_mem, bool) or not isinstance(shared_mem, (int, np.integer)) \
                or shared_mem < 0:
            raise DeviceError(f"launch of {kernel.name}: shared_mem must be a non-negative int")
        config = _LaunchConfig(grid, block, int(shared_mem), self.workers, int(cooperative))
        with kernel._lock:
            params = kernel.packer.pack(args, self._frees)
            status = kernel._launcher(ctypes.byref(config), params, len(args), kernel.codes(args),
                                      kernel._error, len(kernel._error))
            if status != 0:
                raise DeviceError(kernel._error.value.decode(errors="replace"))

    def synchronize(self) -> None:
        pass

    def __del__(self):
        # Buffers hold their device, so whatever is still allocated here is unreachable.
        try:
            for ptr in list(self._allocations):
                _libc_free(ptr)
            self._allocations.clear()
        except Exception:
            pass


def _safe_file_name(name: str) -> str:
    base = os.path.basename(str(name or ""))
    return base if re.fullmatch(r"[\w.+-]+", base) and base not in (".", "..") else "kernel.hip"


def _check_header_name(name: str) -> None:
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or ".." in parts:
        raise DeviceError(f"header name {name!r} must be a relative path inside the include folder")


# ---------------------------------------------------------------------------------------
# The backend entry points
# ---------------------------------------------------------------------------------------

def probe() -> tuple[bool, str]:
    """Usable when a C++ compiler runs; the reason names it."""
    try:
        compiler = _find_compiler()
    except DeviceError as exc:
        return False, str(exc)
    return True, f"emulator with {compiler.display} ({shlex.join(compiler.command)})"


def create(warp_size: int | None = None, workers: int | None = None, sanitize: bool = False,
           **unknown) -> CpuDevice:
    """``warp_size`` 32 or 64 (default ``$RODINIA_BFS_EMU_WARP_SIZE``, else 32),
    ``workers`` (default: the CPUs this process may use), ``sanitize``
    (AddressSanitizer build; needs libasan preloaded)."""
    if unknown:
        raise DeviceError(f"the cpu backend has no option(s) {', '.join(sorted(unknown))}")
    return CpuDevice(warp_size=warp_size, workers=workers, sanitize=sanitize)
