"""The cooperative launch and the grid barrier of bfs_common.h, on every backend.

The emulator runs every block of a cooperative launch on a thread of its own; the GPU
tests run where a GPU is visible. Both check the same kernel (benchmarks/grid_barrier.hip):
thousands of crossings, each followed by a check that every block's write is visible.
"""

import json

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import cuda_backend, get_device, hip_backend
from rodinia_bfs.runtime.base import GRID_BARRIER_BYTES

from helpers import ROOT, gpu_device_or_skip
from test_cuda_nvrtc import nvrtc  # noqa: F401  (fixtures: skip or fail as those files say)
from test_hiprtc import hiprtc  # noqa: F401

SOURCE = (ROOT / "benchmarks" / "grid_barrier.hip").read_text()
NO_QUIT = np.uint32(1 << 30)


def _setup(device):
    kernel = device.compile(SOURCE, "grid_barrier.hip", headers=kernel_headers()).get_function(
        "barrier_check")
    buffers = [device.malloc(GRID_BARRIER_BYTES), device.malloc(4), device.malloc(4)]
    return kernel, buffers


def _cross(device, kernel, buffers, blocks, threads, rounds, quit_block=NO_QUIT):
    for buf in buffers:
        device.memset(buf, 0)
    device.launch_cooperative(kernel, blocks, threads, (*buffers, np.uint32(rounds), quit_block))
    device.synchronize()
    device.check_grid_barrier(buffers[0], kernel.name)
    counter = int(device.from_device(buffers[1], 1, np.uint32)[0])
    errors = int(device.from_device(buffers[2], 1, np.uint32)[0])
    return counter, errors


@pytest.fixture(params=[32, 64], ids=["warp32", "warp64"])
def emulator(request):
    return get_device("cpu", warp_size=request.param, workers=2)


@pytest.mark.parametrize("blocks, threads", [(1, 64), (3, 96), (8, 64)])
def test_emulator_crossings_see_every_block(emulator, blocks, threads):
    kernel, buffers = _setup(emulator)
    rounds = 2000
    counter, errors = _cross(emulator, kernel, buffers, blocks, threads, rounds)
    assert counter == rounds * blocks
    assert errors == 0


def test_emulator_uses_the_whole_cooperative_grid(emulator):
    kernel, buffers = _setup(emulator)
    blocks = emulator.cooperative_grid(kernel, 128)
    assert blocks == 2 * 8  # two workers, each a multiprocessor of 1,024 threads (64 registers each)
    counter, errors = _cross(emulator, kernel, buffers, blocks, 128, 50)
    assert (counter, errors) == (50 * blocks, 0)


def test_emulator_reports_a_block_that_skips_the_barrier(emulator):
    kernel, buffers = _setup(emulator)
    with pytest.raises(DeviceError, match=r"deadlocked at the grid barrier: 2 of its 3 blocks"):
        _cross(emulator, kernel, buffers, 3, 64, 5, quit_block=np.uint32(1))
    # The device is usable afterwards.
    assert _cross(emulator, kernel, buffers, 2, 64, 10) == (20, 0)


def test_emulator_refuses_grid_sync_outside_a_cooperative_launch(emulator):
    kernel, buffers = _setup(emulator)
    with pytest.raises(DeviceError, match="not cooperative"):
        emulator.launch(kernel, 2, 64, (*buffers, np.uint32(3), NO_QUIT))


def test_a_grid_that_cannot_be_resident_is_refused(emulator):
    kernel, buffers = _setup(emulator)
    limit = emulator.cooperative_grid(kernel, 1024)
    assert limit == 2 * 1  # a block of 1,024 threads of 64 registers fills a multiprocessor
    with pytest.raises(DeviceError, match=r"cannot all be resident at once.*at most 2"):
        emulator.launch_cooperative(kernel, limit + 1, 1024, (*buffers, np.uint32(1), NO_QUIT))
    # Threads at 64 registers each: 1,024 a multiprocessor; blocks: at most 32.
    assert [emulator.max_active_blocks(kernel, t) for t in (512, 256, 32, 8)] == [2, 4, 32, 32]
    # Shared memory limits residency too: 100 KiB a block leaves room for two per multiprocessor.
    assert emulator.max_active_blocks(kernel, 64, 100 * 1024) == 2
    assert emulator.max_active_blocks(kernel, 64, emulator.max_shared_memory_per_block + 1) == 0


def test_emulator_reports_its_limits(emulator):
    assert emulator.multiprocessor_count == 2
    assert emulator.max_threads_per_block == 1024
    assert emulator.shared_memory_per_block == 48 * 1024
    assert emulator.max_shared_memory_per_block >= emulator.shared_memory_per_block


def _stores(device, name, blocks, threads, rounds, source=SOURCE) -> int:
    """Launch ``barrier_stores`` (or ``barrier_stores_fenced``): the words that threads
    read after a crossing and found old."""
    kernel = device.compile(source, "grid_barrier.hip", headers=kernel_headers()).get_function(name)
    buffers = [device.malloc(GRID_BARRIER_BYTES), device.malloc(8 * blocks * threads),
               device.malloc(4)]
    try:
        for buf in buffers:
            device.memset(buf, 0)
        device.launch_cooperative(kernel, blocks, threads, (*buffers, np.uint32(rounds)))
        device.synchronize()
        device.check_grid_barrier(buffers[0], kernel.name)
        return int(device.from_device(buffers[2], 1, np.uint32)[0])
    finally:
        for buf in buffers:
            device.free(buf)


@pytest.mark.parametrize("name", ["barrier_stores", "barrier_stores_fenced"])
@pytest.mark.parametrize("blocks, threads", [(1, 64), (3, 96), (8, 64)])
def test_emulator_stores_before_a_crossing_are_seen_after_it(emulator, name, blocks, threads):
    assert _stores(emulator, name, blocks, threads, 500) == 0


def test_an_old_word_after_a_crossing_is_counted(emulator):
    """The check can fail: thread 0 writes a wrong word in round 3, and the one thread
    that reads it counts it."""
    line = "buffer[me] = round * 2654435761u + me;"
    assert line in SOURCE
    broken = SOURCE.replace(line, "buffer[me] = round * 2654435761u + me + (round == 3 && me == 0);")
    assert _stores(emulator, "barrier_stores", 3, 64, 10, source=broken) == 1


def test_barrier_cost_times_both_barriers(tmp_path):
    """benchmarks/barrier_cost.py on the emulator: every shape, both barriers, alone and
    after stores (checked), in its table and its JSON."""
    from helpers import load_benchmark

    script = load_benchmark("barrier_cost")
    assert script.main(["--backend", "cpu", "--rounds", "2", "--repeats", "1",
                        "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "barrier.json").read_text())["rows"]
    assert len(rows) == 5
    for row in rows:
        for barrier in script.BARRIERS:
            assert isinstance(row[f"{barrier} µs"], float)
            assert isinstance(row[f"{barrier} after stores µs"], float)
    table = (tmp_path / "barrier_table.rst").read_text().splitlines()
    assert table[3].split()[:2] == ["blocks", "threads"]
    assert len([line for line in table if line[:1].isdigit()]) == 5


def _clock_rounds(device, blocks, rounds):
    kernel = device.compile(SOURCE, "grid_barrier.hip", headers=kernel_headers()).get_function(
        "barrier_clock")
    barrier, stamps = device.malloc(GRID_BARRIER_BYTES), device.malloc(8 * blocks * rounds)
    device.memset(barrier, 0)
    device.launch_cooperative(kernel, blocks, 64, (barrier, stamps, np.uint32(rounds)))
    device.synchronize()
    return device.from_device(stamps, blocks * rounds, np.uint64).reshape(rounds, blocks)


def _check_clock(stamps):
    # Every stamp of a crossing comes after every stamp of the crossing before it.
    assert np.all(stamps[1:].min(axis=1) >= stamps[:-1].max(axis=1))
    assert stamps[-1].max() > stamps[0].min()


def test_emulator_device_clock_orders_the_crossings(emulator):
    _check_clock(_clock_rounds(emulator, 4, 50))


@pytest.mark.gpu
def test_gpu_device_clock_orders_the_crossings():
    device = gpu_device_or_skip()
    _check_clock(_clock_rounds(device, device.multiprocessor_count, 200))


@pytest.mark.gpu
def test_gpu_crossings_see_every_block():
    device = gpu_device_or_skip()
    kernel, buffers = _setup(device)
    for threads in (256, 1024):
        blocks = device.cooperative_grid(kernel, threads)
        assert blocks >= device.multiprocessor_count
        counter, errors = _cross(device, kernel, buffers, blocks, threads, 5000)
        assert (counter, errors) == (5000 * blocks, 0)
    with pytest.raises(DeviceError, match="cannot all be resident"):
        device.launch_cooperative(kernel, device.cooperative_grid(kernel, 1024) + 1, 1024,
                                  (*buffers, np.uint32(1), NO_QUIT))


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["barrier_stores", "barrier_stores_fenced"])
def test_gpu_stores_before_a_crossing_are_seen_after_it(name):
    device = gpu_device_or_skip()
    kernel, _ = _setup(device)
    for threads in (256, 1024):
        assert _stores(device, name, device.cooperative_grid(kernel, threads), threads, 5000) == 0


# -- the barrier compiles for every target -------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_barrier_compiles_with_nvrtc(arch, nvrtc):
    assert cuda_backend.compile_for_arch(SOURCE, arch, "grid_barrier.hip", headers=kernel_headers())


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_barrier_compiles_with_hiprtc(arch, hiprtc):
    assert hip_backend.compile_for_arch(SOURCE, arch, "grid_barrier.hip", headers=kernel_headers())


@pytest.mark.parametrize("defines", [{"BFS_DEVICE_WARP_SIZE": 64}])
def test_a_kernel_built_for_another_warp_width_does_not_compile(defines, nvrtc):
    from rodinia_bfs.errors import CompileError

    with pytest.raises(CompileError) as info:
        cuda_backend.compile_for_arch(SOURCE, "sm_90", "grid_barrier.hip", defines=defines,
                                      headers=kernel_headers())
    assert "differs from the device" in info.value.log


def _mappings() -> int:
    with open("/proc/self/maps") as maps:
        return sum(1 for _ in maps)


def test_emulator_helpers_give_back_their_stacks_after_a_cooperative_launch(emulator, monkeypatch):
    """A process may have only so many memory mappings, and a cooperative launch runs each
    block on a helper thread with fiber stacks of its own: the helpers give theirs back
    when it ends, into a pool that keeps at most 256 mappings of them for the next
    cooperative launch. Here 16 workers' grid of blocks of 1024 threads: 15 helpers, whose
    new stacks have guard pages made by mprotect (two mappings each), as on a kernel
    without guard regions (with them, the kernel merges the chunks of stacks into a few
    mappings)."""
    monkeypatch.setenv("RODINIA_BFS_EMU_GUARD", "mprotect")
    device = get_device("cpu", warp_size=emulator.warp_size, workers=16)
    kernel, buffers = _setup(device)
    _cross(device, kernel, buffers, 1, 1024, 3)  # the launching thread's own stacks
    before = _mappings()
    blocks = device.cooperative_grid(kernel, 1024)
    assert blocks == 16
    assert _cross(device, kernel, buffers, blocks, 1024, 3) == (3 * blocks, 0)
    # Kept, the helpers' new stacks would be two mappings each: up to 30,720.
    assert _mappings() < before + 512
