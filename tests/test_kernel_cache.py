"""The kernel cache on disk (rodinia_bfs.runtime.kernel_cache), for hiprtc and NVRTC.

Both compilers make code without a GPU, so a hit, a miss, the key, a damaged entry and
processes writing the same entry at once are all tested here on a machine without one.
The NVRTC and hiprtc tests skip where the compiler is missing (and fail in CI, which
sets RODINIA_BFS_REQUIRE_NVRTC / RODINIA_BFS_REQUIRE_HIPRTC).
"""

import multiprocessing
from pathlib import Path
from types import SimpleNamespace

import pytest

from rodinia_bfs.errors import CompileError
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime import kernel_cache

from helpers import hiprtc_or_skip, nvrtc_or_skip

HEADERS = kernel_headers()
SOURCE = kernel_source("rodinia.hip")
TUNABLES = {"BLOCK_SIZE": 256}


@pytest.fixture
def folder(tmp_path):
    """An empty cache for the test."""
    with kernel_cache.using(tmp_path / "kernels") as path:
        yield path


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.bin")) if folder.is_dir() else []


class Builds:
    """A stand-in compiler that counts its compiles."""

    def __init__(self, code=b"\x7fELF code", log="a warning"):
        self.code, self.log, self.count = code, log, 0

    def __call__(self):
        self.count += 1
        return self.code, self.log


def compile_fake(build, source="kernel", options=("-DX=1",), version="1.0", **kw):
    return kernel_cache.compiled("fake", version, source, "k.hip", list(options),
                                 {"h.h": "header"}, build, **kw)


# -- the cache on its own ------------------------------------------------------------


def test_cache_dir_is_a_subfolder_of_the_cache_root(monkeypatch, tmp_path):
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path))
    assert kernel_cache.cache_dir() == tmp_path / "kernels"
    monkeypatch.delenv("RODINIA_BFS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert kernel_cache.cache_dir() == tmp_path / "xdg" / "rodinia-bfs" / "kernels"
    with kernel_cache.using(tmp_path / "other"):
        assert kernel_cache.cache_dir() == tmp_path / "other"
    assert kernel_cache.cache_dir() == tmp_path / "xdg" / "rodinia-bfs" / "kernels"


def test_miss_then_hit(folder):
    build = Builds()
    assert compile_fake(build) == (b"\x7fELF code", "a warning")
    assert build.count == 1 and len(entries(folder)) == 1
    assert compile_fake(build) == (b"\x7fELF code", "a warning")
    assert build.count == 1  # the second came from the disk


@pytest.mark.parametrize("change", [
    {"source": "kernel 2"}, {"options": ("-DX=2",)}, {"options": ("-DX=1", "-DY")},
    {"version": "1.1"},
])
def test_everything_that_goes_in_is_in_the_key(folder, change):
    build = Builds()
    compile_fake(build)
    compile_fake(build, **change)
    assert build.count == 2 and len(entries(folder)) == 2


def test_the_order_of_macros_is_not_in_the_key(folder):
    build = Builds()
    compile_fake(build, options=("-DA=1", "-DB=2"))
    compile_fake(build, options=("-DB=2", "-DA=1"))
    assert build.count == 1


def test_the_package_version_is_in_the_key(folder, monkeypatch):
    import rodinia_bfs

    build = Builds()
    compile_fake(build)
    monkeypatch.setattr(rodinia_bfs, "__version__", rodinia_bfs.__version__ + ".post1")
    compile_fake(build)
    assert build.count == 2


def _damage_truncate(path, other):
    path.write_bytes(path.read_bytes()[:-3])


def _damage_flip_a_byte(path, other):
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def _damage_magic(path, other):
    path.write_bytes(b"XXXXXXXX" + path.read_bytes()[8:])


def _damage_empty(path, other):
    path.write_bytes(b"")


def _damage_foreign(path, other):
    path.write_bytes(other.read_bytes())  # a sound entry, of another key


def _damage_longer(path, other):
    path.write_bytes(path.read_bytes() + b"more")


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_flip_a_byte, _damage_magic,
                                    _damage_empty, _damage_foreign, _damage_longer])
def test_a_damaged_or_foreign_entry_is_rebuilt(folder, damage):
    build, other = Builds(), Builds(code=b"other code", log="")
    compile_fake(other, source="another kernel")
    (other_path,) = entries(folder)
    compile_fake(build)
    (path,) = set(entries(folder)) - {other_path}
    damage(path, other_path)
    assert compile_fake(build) == (b"\x7fELF code", "a warning")
    assert build.count == 2  # ignored and compiled again...
    assert compile_fake(build) == (b"\x7fELF code", "a warning")
    assert build.count == 2  # ...and the entry written whole again


def test_switched_off_by_the_environment_or_the_argument(folder, monkeypatch):
    build = Builds()
    compile_fake(build, cache=False)
    assert build.count == 1 and not entries(folder)
    monkeypatch.setenv("RODINIA_BFS_KERNEL_CACHE", "0")
    compile_fake(build)
    compile_fake(build)
    assert build.count == 3 and not entries(folder)
    compile_fake(build, cache=True)  # the argument wins over the environment
    assert len(entries(folder)) == 1


def test_a_cache_that_cannot_be_written_only_costs_compiles(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    build = Builds()
    with kernel_cache.using(blocker / "kernels"):
        assert compile_fake(build) == (b"\x7fELF code", "a warning")
        assert compile_fake(build) == (b"\x7fELF code", "a warning")
    assert build.count == 2


def test_a_compile_error_keeps_nothing(folder):
    def broken():
        raise CompileError("no", "the log")

    with pytest.raises(CompileError):
        compile_fake(broken)
    assert not entries(folder)


def _write_and_read(folder, key, code, rounds, queue):
    """One of several processes: store the same key over and over, and read it back."""
    with kernel_cache.using(folder):
        bad = 0
        for _ in range(rounds):
            kernel_cache.store(key, code, "log")
            found = kernel_cache.load(key)
            bad += found != (code, "log")
    queue.put(bad)


def test_processes_writing_one_entry_at_once(folder):
    """Each writer renames a whole file into place: a reader sees one whole entry, never
    a part, and no temporary file is left behind."""
    key = kernel_cache.cache_key("fake", "1.0", "kernel", "k.hip", [], {})
    code = bytes(range(256)) * 4096  # 1 MiB: long enough for writes to overlap
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    writers = [context.Process(target=_write_and_read, args=(folder, key, code, 20, queue))
               for _ in range(4)]
    for process in writers:
        process.start()
    bad = [queue.get(timeout=120) for _ in writers]
    for process in writers:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert bad == [0, 0, 0, 0]
    assert kernel_cache.load(key) == (code, "log")
    assert [p.name for p in folder.iterdir()] == [f"{key}.bin"]


# -- NVRTC ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nvrtc():
    return nvrtc_or_skip()


def _no_compiler(*args, **kwargs):
    raise AssertionError("compiled although the cache holds the code")


def test_nvrtc_hit_and_miss(nvrtc, folder, monkeypatch):
    code, _ = nvrtc.compile_program(SOURCE, "sm_90", "rodinia.hip", TUNABLES, HEADERS, cache=True)
    assert len(entries(folder)) == 1
    real = nvrtc._nvrtc_compile
    monkeypatch.setattr(nvrtc, "_nvrtc_compile", _no_compiler)
    assert nvrtc.compile_program(SOURCE, "sm_90", "rodinia.hip", TUNABLES, HEADERS,
                                 cache=True)[0] == code
    monkeypatch.setattr(nvrtc, "_nvrtc_compile", real)
    # another target, another macro, another source, another compiler: each compiles
    ptx, _ = nvrtc.compile_program(SOURCE, "compute_90", "rodinia.hip", TUNABLES, HEADERS, cache=True)
    assert b".entry Kernel1" in ptx
    nvrtc.compile_program(SOURCE, "sm_90", "rodinia.hip", {"BLOCK_SIZE": 128}, HEADERS, cache=True)
    nvrtc.compile_program(SOURCE + "\n// changed\n", "sm_90", "rodinia.hip", TUNABLES, HEADERS,
                          cache=True)
    monkeypatch.setattr(nvrtc, "compiler_identity", lambda: "nvrtc 99.9")
    nvrtc.compile_program(SOURCE, "sm_90", "rodinia.hip", TUNABLES, HEADERS, cache=True)
    assert len(entries(folder)) == 5


def test_nvrtc_damaged_entry_is_rebuilt(nvrtc, folder):
    code, _ = nvrtc.compile_program(SOURCE, "sm_80", "rodinia.hip", TUNABLES, HEADERS, cache=True)
    (path,) = entries(folder)
    path.write_bytes(path.read_bytes()[: len(code) // 2])
    assert nvrtc.compile_program(SOURCE, "sm_80", "rodinia.hip", TUNABLES, HEADERS,
                                 cache=True)[0] == code
    assert kernel_cache.load(path.stem)[0] == code


def test_nvrtc_compile_checks_do_not_use_the_cache(nvrtc, folder):
    """compile_for_arch (the tests' compile checks) always runs the compiler."""
    nvrtc.compile_for_arch(SOURCE, "sm_90", "rodinia.hip", TUNABLES, HEADERS)
    assert not entries(folder)


def test_the_cuda_device_compiles_through_the_cache(nvrtc, folder, monkeypatch):
    """What CudaDevice.compile calls (its _compile) keeps the code, unless switched off."""
    device = SimpleNamespace(_target="sm_90", compute_capability=(9, 0))
    first = nvrtc.CudaDevice._compile(device, SOURCE, "rodinia.hip", TUNABLES, HEADERS)
    assert len(entries(folder)) == 1
    monkeypatch.setattr(nvrtc, "_nvrtc_compile", _no_compiler)
    assert nvrtc.CudaDevice._compile(device, SOURCE, "rodinia.hip", TUNABLES, HEADERS) == first
    monkeypatch.setenv("RODINIA_BFS_KERNEL_CACHE", "0")
    with pytest.raises(AssertionError, match="compiled although"):
        nvrtc.CudaDevice._compile(device, SOURCE, "rodinia.hip", TUNABLES, HEADERS)


# -- hiprtc ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hiprtc():
    return hiprtc_or_skip()


def test_hiprtc_hit_and_miss(hiprtc, folder, monkeypatch):
    code, _ = hiprtc.compile_program(SOURCE, "gfx90a", "rodinia.hip", TUNABLES, HEADERS, cache=True)
    assert code[:4] == b"\x7fELF" and len(entries(folder)) == 1
    monkeypatch.setattr(hiprtc, "_hiprtc_compile", _no_compiler)
    assert hiprtc.compile_program(SOURCE, "gfx90a", "rodinia.hip", TUNABLES, HEADERS,
                                  cache=True)[0] == code
    # gcnArchName's feature flags do not change the code: the same entry
    assert hiprtc.compile_program(SOURCE, "gfx90a:sramecc+:xnack-", "rodinia.hip", TUNABLES,
                                  HEADERS, cache=True)[0] == code
    monkeypatch.undo()
    other, _ = hiprtc.compile_program(SOURCE, "gfx1030", "rodinia.hip", TUNABLES, HEADERS, cache=True)
    assert other != code and len(entries(folder)) == 2


def test_the_hip_device_compiles_through_the_cache(hiprtc, folder, monkeypatch):
    device = SimpleNamespace(arch="gfx1030")
    first = hiprtc.HipDevice._compile(device, SOURCE, "rodinia.hip", TUNABLES, HEADERS)
    (path,) = entries(folder)
    path.write_bytes(b"RBFSKC01" + bytes(100))  # the right magic, nothing else right
    assert hiprtc.HipDevice._compile(device, SOURCE, "rodinia.hip", TUNABLES, HEADERS) == first
    monkeypatch.setattr(hiprtc, "_hiprtc_compile", _no_compiler)
    assert hiprtc.HipDevice._compile(device, SOURCE, "rodinia.hip", TUNABLES, HEADERS) == first
