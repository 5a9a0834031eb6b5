"""The cpu backend: an emulator of the HIP execution model.

Every kernel here is HIP C++ that would compile unchanged with hiprtc: it includes
bfs_common.h, uses threadIdx.x and friends, and no standard header.
"""

import faulthandler
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime import PinnedArray, ceil_div, cpu_backend, get_device

from helpers import python_bfs

ROOT = Path(__file__).resolve().parents[1]

usable, why = cpu_backend.probe()
pytestmark = pytest.mark.skipif(not usable, reason=f"cpu backend unusable: {why}")


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    # Two workers even on a one-CPU machine, so that blocks really run concurrently.
    return cpu_backend.create(warp_size=request.param, workers=2)


@pytest.fixture(scope="module")
def device32():
    return cpu_backend.create(warp_size=32, workers=2)


#: The headers of hip_kernels/, which a compile must be given (the runtime knows no folder).
HEADERS = kernel_headers()


def compile_kernel(dev, source, name="test.hip", **kw):
    kw.setdefault("headers", HEADERS)
    return dev.compile(textwrap.dedent(source), name, **kw)


def run_in_subprocess(script, env=None, timeout=300):
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else []))
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def watchdog():
    """A hang is a failure: dump the stacks and exit instead of waiting forever."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


# -- the device and its memory ---------------------------------------------------------------

def test_probe_and_device_description(device):
    assert usable and "emulator with" in why
    assert device.backend == "cpu"
    assert device.arch == f"cpu-w{device.warp_size}"
    assert device.name.startswith("CPU emulator (") and "2 workers" in device.name
    assert device.total_memory > 1 << 28


def test_get_device_and_warp_size_from_environment(monkeypatch):
    monkeypatch.setenv("RODINIA_BFS_EMU_WARP_SIZE", "64")
    assert get_device("cpu").warp_size == 64
    assert cpu_backend.create(warp_size=32).warp_size == 32
    with pytest.raises(DeviceError, match="32 or 64"):
        cpu_backend.create(warp_size=48)
    with pytest.raises(DeviceError, match="no option"):
        cpu_backend.create(colour="blue")


def test_memory_round_trip_memset_views_and_bounds(device32):
    dev = device32
    data = np.arange(100, dtype=np.int32)
    buf = dev.to_device(data)
    assert buf.ptr % 256 == 0 and buf.nbytes == 400
    np.testing.assert_array_equal(dev.from_device(buf, 100, np.int32), data)

    dev.memset(buf, 0xFF, 40)  # the first 10 ints only
    out = dev.from_device(buf, 100, np.int32)
    assert (out[:10] == -1).all() and (out[10:] == data[10:]).all()
    dev.memset(buf.view(4 * 50, 8), 0)  # ints 50 and 51, through a view
    out = dev.from_device(buf, 100, np.int32)
    assert (out[50:52] == 0).all() and out[49] == 49 and out[52] == 52
    dev.memset(buf, 0)
    assert not dev.from_device(buf, 100, np.int32).any()

    with pytest.raises(DeviceError, match="404 bytes do not fit in a device buffer of 400"):
        dev.memcpy_htod(buf, np.zeros(101, np.int32))
    with pytest.raises(DeviceError, match="do not fit"):
        dev.memcpy_dtoh(np.zeros(101, np.int32), buf)
    with pytest.raises(DeviceError, match="do not fit"):
        dev.memcpy_htod(buf.view(396), np.zeros(2, np.int32))
    with pytest.raises(DeviceError, match="memset"):
        dev.memset(buf, 0, 401)
    with pytest.raises(DeviceError, match="C-contiguous"):
        dev.memcpy_dtoh(np.zeros(20, np.int32)[::2], buf)

    pinned = dev.host_malloc(100, np.int32)
    assert isinstance(pinned, PinnedArray) and pinned.ptr == pinned.ctypes.data
    stream = dev.stream()
    dev.memcpy_dtoh_async(pinned, buf, stream)
    dev.memcpy_htod_async(buf, pinned + 1, stream)
    stream.synchronize()
    assert (dev.from_device(buf, 100, np.int32) == 1).all()

    with pytest.raises(DeviceError, match="view"):
        dev.free(buf.view(8))
    view = buf.view(8)
    dev.free(buf)
    with pytest.raises(DeviceError, match="freed"):
        dev.free(buf)
    with pytest.raises(DeviceError, match="freed"):
        dev.memcpy_htod(buf, data)
    with pytest.raises(DeviceError, match="freed"):
        dev.from_device(view, 1, np.int32)


def test_events_time_the_work_between_them(device32):
    start, end = device32.event(), device32.event()
    start.record()
    time.sleep(0.02)
    end.record()
    end.synchronize()
    assert 15 <= start.elapsed_ms(end) < 2000
    with pytest.raises(DeviceError):
        device32.event().elapsed_ms(end)


# -- grids, blocks and threads ------------------------------------------------------------------

VECTOR_ADD = """
    #include "bfs_common.h"
    extern "C" __global__ void vector_add(const bfs_i32* a, const bfs_i32* b, bfs_i32* c, bfs_i32 n)
    {
        const bfs_i32 i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
    }
"""


def test_vector_add_size_not_a_multiple_of_the_block(device):
    kernel = compile_kernel(device, VECTOR_ADD).get_function("vector_add")
    n, block = 100_003, 256
    a = np.arange(n, dtype=np.int32)
    b = 3 * a
    da, db = device.to_device(a), device.to_device(b)
    dc = device.to_device(np.full(n + 1, -7, np.int32))  # one guard element past n
    device.launch(kernel, ceil_div(n, block), block, [da, db, dc, np.int32(n)])
    c = device.from_device(dc, n + 1, np.int32)
    np.testing.assert_array_equal(c[:n], a + b)
    assert c[n] == -7


def test_grid_and_block_indices_in_three_dimensions(device):
    src = """
    #include "bfs_common.h"
    // Every thread writes its coordinates into its own slot of a 6-D array.
    extern "C" __global__ void where(bfs_i32* out)
    {
        const bfs_u32 bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
        const bfs_u32 tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
        const bfs_u32 block_id = bx + gridDim.x * (by + gridDim.y * bz);
        const bfs_u32 threads = blockDim.x * blockDim.y * blockDim.z;
        const bfs_u32 thread_id = tx + blockDim.x * (ty + blockDim.y * tz);
        bfs_i32* slot = out + 8 * (block_id * threads + thread_id);
        slot[0] = bx; slot[1] = by; slot[2] = bz;
        slot[3] = tx; slot[4] = ty; slot[5] = tz;
        slot[6] = warpSize;
        slot[7] += 1;  // each slot written by exactly one thread
    }
    """
    kernel = compile_kernel(device, src).get_function("where")
    grid, block = (3, 2, 4), (5, 3, 2)
    total = np.prod(grid) * np.prod(block)
    out = device.to_device(np.zeros(total * 8, np.int32))
    device.launch(kernel, grid, block, [out])
    got = device.from_device(out, total * 8, np.int32).reshape(total, 8)
    expected = [
        (bx, by, bz, tx, ty, tz, device.warp_size, 1)
        for bz in range(grid[2]) for by in range(grid[1]) for bx in range(grid[0])
        for tz in range(block[2]) for ty in range(block[1]) for tx in range(block[0])
    ]
    np.testing.assert_array_equal(got, np.array(expected, np.int32))

    # A 1-D launch is a (n, 1, 1) launch.
    out1 = device.to_device(np.zeros(7 * 8, np.int32))
    device.launch(kernel, 7, 1, [out1])
    got1 = device.from_device(out1, 7 * 8, np.int32).reshape(7, 8)
    np.testing.assert_array_equal(got1[:, 0], np.arange(7))
    assert (got1[:, 1:6] == 0).all()


# -- shared memory and barriers -----------------------------------------------------------------

REDUCE = """
    #include "bfs_common.h"
    #ifndef BLOCK
    #define BLOCK 256
    #endif
    // A tree reduction in shared memory: the textbook use of __syncthreads.
    extern "C" __global__ void block_sum(const bfs_i64* in, bfs_i64* sums, bfs_i32* errors, bfs_i32 n)
    {
        __shared__ bfs_i64 partial[BLOCK];
        __shared__ bfs_u32 owner;
        const bfs_u32 t = threadIdx.x;
        const bfs_i64 i = (bfs_i64)blockIdx.x * BLOCK + t;
        if (t == 0) owner = blockIdx.x;
        partial[t] = i < n ? in[i] : 0;
        __syncthreads();
        for (bfs_u32 stride = BLOCK / 2; stride > 0; stride /= 2) {
            if (t < stride) partial[t] += partial[t + stride];
            __syncthreads();
        }
        // Another block writing its own `owner` must not be seen here.
        if (owner != blockIdx.x) atomicAdd(errors, 1);
        if (t == 0) sums[blockIdx.x] = partial[0];
    }
"""


@pytest.mark.parametrize("block", [64, 256, 1024])
def test_shared_memory_reduction_per_block(device, block):
    kernel = compile_kernel(device, REDUCE, defines={"BLOCK": block}).get_function("block_sum")
    n = 1000 * block - 17
    rng = np.random.default_rng(block)
    data = rng.integers(-1 << 40, 1 << 40, size=n, dtype=np.int64)
    nblocks = ceil_div(n, block)
    sums, errors = device.malloc(8 * nblocks), device.to_device(np.zeros(1, np.int32))
    device.launch(kernel, nblocks, block,
                  [device.to_device(data), sums, errors, np.int32(n)])
    padded = np.concatenate([data, np.zeros(nblocks * block - n, np.int64)])
    np.testing.assert_array_equal(device.from_device(sums, nblocks, np.int64),
                                  padded.reshape(nblocks, block).sum(axis=1))
    assert device.from_device(errors, 1, np.int32)[0] == 0


def test_barrier_counts_and_threads_that_return_early(device):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void counts(bfs_i32* out, bfs_i32 active)
    {
        // Threads past `active` return before the barriers: the barriers then wait
        // only for the threads that are still running.
        if ((bfs_i32)threadIdx.x >= active) return;
        const int odd = threadIdx.x & 1;
        const int c = __syncthreads_count(odd);
        const int all = __syncthreads_and(threadIdx.x < 1000);
        const int any = __syncthreads_or(threadIdx.x == 3);
        const int none = __syncthreads_or(0);
        if (threadIdx.x == 0) { out[0] = c; out[1] = all; out[2] = any; out[3] = none; }
    }
    """
    kernel = compile_kernel(device, src).get_function("counts")
    out = device.malloc(16)
    device.launch(kernel, 3, 200, [out, np.int32(150)])
    np.testing.assert_array_equal(device.from_device(out, 4, np.int32), [75, 1, 1, 0])


def test_dynamic_shared_memory(device):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void reverse(const bfs_i32* in, bfs_i32* out)
    {
        DYNAMIC_SHARED(bfs_i32, tile);
        const bfs_u32 t = threadIdx.x, base = blockIdx.x * blockDim.x;
        tile[t] = in[base + t];
        __syncthreads();
        out[base + t] = tile[blockDim.x - 1 - t];
    }
    """
    kernel = compile_kernel(device, src).get_function("reverse")
    block, nblocks = 192, 50
    data = np.arange(block * nblocks, dtype=np.int32)
    out = device.malloc(data.nbytes)
    device.launch(kernel, nblocks, block, [device.to_device(data), out], shared_mem=block * 4)
    np.testing.assert_array_equal(device.from_device(out, data.size, np.int32),
                                  data.reshape(nblocks, block)[:, ::-1].ravel())
    with pytest.raises(DeviceError, match="dynamic shared memory"):
        device.launch(kernel, 1, 32, [device.to_device(data), out],
                      shared_mem=device.max_shared_memory_per_block + 1)


# -- atomics ------------------------------------------------------------------------------------

ATOMICS = """
    #include "bfs_common.h"
    extern "C" __global__ void atomics(bfs_i32* i32, bfs_u32* u32, bfs_i64* i64, bfs_u64* u64,
                                       bfs_i32* claims, bfs_i32* winners, bfs_i32 slots)
    {
        const bfs_u32 gid = blockIdx.x * blockDim.x + threadIdx.x;
        atomicAdd(&i32[0], 1);
        atomicSub(&i32[1], 2);
        atomicMax(&i32[2], (bfs_i32)gid);
        atomicMin(&i32[3], -(bfs_i32)gid);
        atomicAdd(&u32[0], 3u);
        atomicOr(&u32[1], 1u << (gid % 32));
        atomicAnd(&u32[2], ~(1u << (gid % 31)));
        atomicMax(&u32[3], gid);
        // Past 32 bits: every thread adds 2^32 + 1.
        atomicAdd(&i64[0], (bfs_i64)0x100000001ll);
        atomicMin(&i64[1], (bfs_i64)gid - 5000000000ll);
        atomicMax(&u64[0], (bfs_u64)gid << 33);
        atomicAdd(&u64[1], 1ull);
        atomicExch(&u64[2], 42ull);
        // atomicCAS: exactly one thread claims each slot.
        const bfs_i32 slot = gid % slots;
        if (atomicCAS(&claims[slot], -1, (bfs_i32)gid) == -1) atomicAdd(winners, 1);
    }
"""


def test_atomics_from_many_blocks_are_exact(device):
    kernel = compile_kernel(device, ATOMICS).get_function("atomics")
    nblocks, block, slots = 500, 128, 1000
    n = nblocks * block
    i32 = device.to_device(np.array([0, 0, -1, 0], np.int32))
    u32 = device.to_device(np.array([0, 0, 0xFFFFFFFF, 0], np.uint32))
    i64 = device.to_device(np.array([0, 0], np.int64))
    u64 = device.to_device(np.array([0, 0, 0], np.uint64))
    claims = device.to_device(np.full(slots, -1, np.int32))
    winners = device.to_device(np.zeros(1, np.int32))
    device.launch(kernel, nblocks, block, [i32, u32, i64, u64, claims, winners, np.int32(slots)])

    np.testing.assert_array_equal(device.from_device(i32, 4, np.int32), [n, -2 * n, n - 1, -(n - 1)])
    np.testing.assert_array_equal(device.from_device(u32, 4, np.uint32),
                                  [3 * n, 0xFFFFFFFF, 0x80000000, n - 1])
    np.testing.assert_array_equal(device.from_device(i64, 2, np.int64),
                                  [n * 0x100000001, -5_000_000_000])
    np.testing.assert_array_equal(device.from_device(u64, 3, np.uint64),
                                  np.array([(n - 1) << 33, n, 42], np.uint64))
    assert device.from_device(winners, 1, np.int32)[0] == slots
    got = device.from_device(claims, slots, np.int32)
    assert ((got % slots) == np.arange(slots)).all()


# -- warps --------------------------------------------------------------------------------------

WARPS = """
    #include "bfs_common.h"
    extern "C" __global__ void warps(bfs_u64* ballot, bfs_i32* broadcast, bfs_i32* rotate,
                                     bfs_i64* wide, bfs_i32* votes, bfs_i32* neighbour)
    {
        __shared__ bfs_i32 slots[1024];
        const bfs_u32 t = threadIdx.x;
        const bfs_u32 gid = blockIdx.x * blockDim.x + t;
        const bfs_u32 lane = lane_id();
        ballot[gid] = warp_ballot(lane % 2 == 0);
        broadcast[gid] = warp_shfl((bfs_i32)(gid * 10), 0);
        rotate[gid] = warp_shfl((bfs_i32)gid, (int)((lane + 1) % WARP_SIZE));
        wide[gid] = warp_shfl((bfs_i64)gid << 40, WARP_SIZE - 1);
        votes[gid] = warp_any(lane == 5) + 2 * warp_all(lane < WARP_SIZE) + 4 * warp_all(lane != 7);
        // warp_sync orders shared memory within the warp: the write of the lane
        // after this one is seen after it.
        slots[t] = (bfs_i32)gid;
        warp_sync();
        const bfs_u32 next = warp_id() * WARP_SIZE + (lane + 1) % WARP_SIZE;
        neighbour[gid] = next < blockDim.x ? slots[next] : -1;
    }
"""


def test_warp_vote_shuffle_and_sync(device):
    w = device.warp_size
    kernel = compile_kernel(device, WARPS).get_function("warps")
    block, nblocks = 256, 3
    n = block * nblocks
    outs = [device.malloc(8 * n), device.malloc(4 * n), device.malloc(4 * n),
            device.malloc(8 * n), device.malloc(4 * n), device.malloc(4 * n)]
    device.launch(kernel, nblocks, block, outs)
    ballot = device.from_device(outs[0], n, np.uint64)
    broadcast = device.from_device(outs[1], n, np.int32)
    rotate = device.from_device(outs[2], n, np.int32)
    wide = device.from_device(outs[3], n, np.int64)
    votes = device.from_device(outs[4], n, np.int32)
    neighbour = device.from_device(outs[5], n, np.int32)

    gid = np.arange(n)
    lane, warp_first = gid % w, gid - gid % w
    assert (ballot == (0x5555555555555555 if w == 64 else 0x55555555)).all()
    np.testing.assert_array_equal(broadcast, warp_first * 10)
    np.testing.assert_array_equal(rotate, warp_first + (lane + 1) % w)
    np.testing.assert_array_equal(wide, (warp_first + w - 1) << 40)
    assert (votes == 1 + 2 + 0).all()
    np.testing.assert_array_equal(neighbour, warp_first + (lane + 1) % w)


def test_partial_last_warp(device):
    """A block of 40 threads: at width 32 the second warp has 8 lanes, at 64 the only
    warp has 40. Votes see only the lanes that exist; a shuffle from a missing lane
    reads 0 here (undefined on a GPU)."""
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void partial(bfs_u64* ballot, bfs_i32* from_last)
    {
        const bfs_u32 t = threadIdx.x;
        ballot[t] = warp_ballot(1);
        from_last[t] = warp_shfl((bfs_i32)t + 1, WARP_SIZE - 1);
    }
    """
    kernel = compile_kernel(device, src).get_function("partial")
    ballot, from_last = device.malloc(8 * 40), device.malloc(4 * 40)
    device.launch(kernel, 1, 40, [ballot, from_last])
    got = device.from_device(ballot, 40, np.uint64)
    last = device.from_device(from_last, 40, np.int32)
    if device.warp_size == 32:
        assert (got[:32] == 0xFFFFFFFF).all() and (got[32:] == 0xFF).all()
        assert (last[:32] == 32).all() and (last[32:] == 0).all()
    else:
        assert (got == (1 << 40) - 1).all()
        assert (last == 0).all()


# -- errors that must not hang or crash -----------------------------------------------------------

def test_divergent_warp_operation_deadlocks_cleanly(device, watchdog):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void stuck(bfs_i32* out)
    {
        // Half of each warp votes while the other half already waits at the barrier:
        // the vote waits for the lanes at the barrier and the barrier for the voters.
        if (lane_id() < WARP_SIZE / 2) out[threadIdx.x] = (bfs_i32)warp_ballot(1);
        __syncthreads();
    }
    extern "C" __global__ void fine(bfs_i32* out)
    {
        __syncthreads();
        out[threadIdx.x] = (bfs_i32)warp_ballot(1) != 0;
        __syncthreads();
    }
    """
    module = compile_kernel(device, src)
    out = device.malloc(4 * 128)
    for _ in range(2):
        with pytest.raises(DeviceError) as info:
            device.launch(module.get_function("stuck"), 4, 128, [out])
        message = str(info.value)
        assert "kernel stuck deadlocked" in message
        assert "64 threads waiting at __syncthreads, 64 waiting at a warp operation, 0 exited" in message
    # The device recovers: the next launch runs normally.
    device.launch(module.get_function("fine"), 4, 128, [out])
    assert (device.from_device(out, 128, np.int32) == 1).all()


def test_lanes_at_different_warp_operations(device, watchdog):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void mixed(bfs_i32* out)
    {
        if (threadIdx.x % 2) out[threadIdx.x] = (bfs_i32)warp_ballot(1);
        else out[threadIdx.x] = warp_shfl(1, 0);
    }
    """
    kernel = compile_kernel(device, src).get_function("mixed")
    with pytest.raises(DeviceError, match=r"different warp operations \(a shuffle .* and a vote"):
        device.launch(kernel, 2, 64, [device.malloc(4 * 64)])


def test_barrier_of_a_thread_waiting_at_a_warp_operation(device, watchdog):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void stuck(bfs_i32* out)
    {
        if (threadIdx.x == 0) __syncthreads();
        else out[threadIdx.x] = (bfs_i32)warp_ballot(1);
    }
    """
    kernel = compile_kernel(device, src).get_function("stuck")
    with pytest.raises(DeviceError, match="deadlocked.* 1 threads waiting at __syncthreads"):
        device.launch(kernel, 1, 64, [device.malloc(4 * 64)])


def test_argument_and_configuration_checks(device32):
    dev = device32
    kernel = compile_kernel(dev, VECTOR_ADD).get_function("vector_add")
    a = dev.malloc(64)
    with pytest.raises(TypeError, match="Python int"):
        dev.launch(kernel, 1, 16, [a, a, a, 16])
    with pytest.raises(DeviceError, match="argument 3 must be a 4-byte integer .* but a 8-byte integer"):
        dev.launch(kernel, 1, 16, [a, a, a, np.int64(16)])
    with pytest.raises(DeviceError, match="argument 1 must be a pointer"):
        dev.launch(kernel, 1, 16, [a, np.int64(0), a, np.int32(16)])
    with pytest.raises(DeviceError, match="takes 4 arguments, but 3 were given"):
        dev.launch(kernel, 1, 16, [a, a, a])
    with pytest.raises(DeviceError, match="exceeds the limit of 1024 threads"):
        dev.launch(kernel, 1, (64, 32), [a, a, a, np.int32(16)])
    with pytest.raises(DeviceError, match="grid"):
        dev.launch(kernel, (1, 70000), 16, [a, a, a, np.int32(16)])
    with pytest.raises(DeviceError, match="no kernel named 'vector_sub'.*vector_add"):
        kernel.module.get_function("vector_sub")
    freed = dev.malloc(64)
    part = freed.view(16)
    dev.free(freed)
    with pytest.raises(DeviceError, match="freed"):
        dev.launch(kernel, 1, 16, [a, a, freed, np.int32(16)])
    with pytest.raises(DeviceError, match="freed"):
        dev.launch(kernel, 1, 16, [a, a, part, np.int32(16)])
    # A view is a pointer into its allocation, like d_ptr + offset in HIP.
    out = dev.to_device(np.zeros(16, np.int32))
    src = dev.to_device(np.arange(16, dtype=np.int32))
    dev.launch(kernel, 1, 16, [src.view(8), src.view(8), out.view(4), np.int32(14)])
    np.testing.assert_array_equal(dev.from_device(out, 16, np.int32),
                                  [0] + [2 * i for i in range(2, 16)] + [0])


# -- compilation ------------------------------------------------------------------------------

def test_compile_error_names_the_file_and_line(device32):
    src = '#include "bfs_common.h"\n\nextern "C" __global__ void k(bfs_i32* p)\n{\n    p[0] = undefined_name;\n}\n'
    with pytest.raises(CompileError) as info:
        device32.compile(src, "broken.hip", headers=HEADERS)
    assert "broken.hip" in str(info.value)
    assert "broken.hip:5:12: error" in info.value.log and "undefined_name" in info.value.log


def test_kernel_names_are_found_in_the_source():
    src = """
    // extern "C" __global__ void commented_out(int* p) {}
    /* extern "C" __global__ void also_commented(int* p) {} */
    extern "C" __global__ void plain(int* p) {}
    extern "C" __global__ __launch_bounds__(256) void bounded(int* p) {}
    extern "C" __global__ void __launch_bounds__(128, 2) bounded_after(int* p) {}
    extern "C" __device__ void not_a_kernel(int* p) {}
    __global__ void not_extern_c(int* p) {}
    """
    assert cpu_backend.kernel_names(src) == ["plain", "bounded", "bounded_after"]


def test_step1_kernels_compile_at_both_warp_sizes(device):
    module = device.compile(kernel_source("rodinia.hip"), "rodinia.hip",
                            defines={"BLOCK_SIZE": 256}, headers=kernel_headers())
    assert module.kernels == ["Kernel1", "Kernel2"]
    assert module.warp_size == device.warp_size


def test_compile_cache_skips_the_compiler(device32, tmp_path, monkeypatch):
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path))
    source = VECTOR_ADD + "\n// cache test\n"
    cpu_backend._clear_memo()
    before = cpu_backend.compiler_runs
    first = compile_kernel(device32, source)
    assert cpu_backend.compiler_runs == before + 1
    assert first.path.parent == tmp_path / "emu"
    cpu_backend._clear_memo()  # forget the loaded module: the next compile must use the disk
    second = compile_kernel(device32, source)
    assert cpu_backend.compiler_runs == before + 1 and second.path == first.path
    # Other defines or another warp size are other libraries.
    compile_kernel(device32, source, defines={"UNUSED": 1})
    assert cpu_backend.compiler_runs == before + 2
    # So are other header texts, though the source is the same: a header's every
    # character is part of the key (a header handed over again is not compiled again).
    for text in ("// one\n", "// two\n", "// one\n"):
        compile_kernel(device32, source, headers={**HEADERS, "unused.h": text})
    assert cpu_backend.compiler_runs == before + 4


def test_compile_cache_across_processes(tmp_path):
    """A fresh process with the same inputs loads the cached library: a wrapper around
    the compiler logs every call, and the second process makes none that builds."""
    compiler = cpu_backend._find_compiler().command
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "cxx-wrapper"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec {" ".join(compiler)} "$@"\n')
    wrapper.chmod(0o755)
    script = f"""
        import numpy as np
        from rodinia_bfs.runtime import cpu_backend
        from rodinia_bfs.kernels import kernel_headers
        HEADERS = kernel_headers()
        dev = cpu_backend.create(workers=1)
        kernel = dev.compile({VECTOR_ADD!r}, "vadd.hip", headers=HEADERS).get_function("vector_add")
        a = dev.to_device(np.arange(10, dtype=np.int32))
        c = dev.malloc(40)
        dev.launch(kernel, 1, 32, [a, a, c, np.int32(10)])
        assert (dev.from_device(c, 10, np.int32) == 2 * np.arange(10)).all()
        print("ok")
    """
    env = {"CXX": str(wrapper), "RODINIA_BFS_CACHE": str(tmp_path / "cache")}

    def builds():
        return [line for line in log.read_text().splitlines() if "-shared" in line]

    # Two processes at once on an empty cache: both succeed (atomic renames), and each
    # library is built once: the second process waits on the key's lock for the first.
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)],
                              env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and "ok" in out, err
    assert len(builds()) == 2  # the runtime and the module, once each
    count = len(builds())
    again = run_in_subprocess(script, env)
    assert again.returncode == 0 and "ok" in again.stdout, again.stderr
    assert len(builds()) == count


# -- AddressSanitizer -------------------------------------------------------------------------

def test_sanitize_needs_preloaded_asan():
    if cpu_backend.asan_preloaded():
        pytest.skip("AddressSanitizer is preloaded in this process")
    with pytest.raises(DeviceError, match="LD_PRELOAD=.*ASAN_OPTIONS=detect_leaks=0"):
        cpu_backend.create(sanitize=True)


def test_sanitize_reports_an_out_of_bounds_write():
    compiler = cpu_backend._find_compiler()
    libasan = cpu_backend._asan_library(compiler)
    if not os.path.isabs(libasan):
        pytest.skip(f"no AddressSanitizer runtime for {compiler.display}")
    script = f"""
        import numpy as np
        from rodinia_bfs.runtime import cpu_backend
        from rodinia_bfs.kernels import kernel_headers
        HEADERS = kernel_headers()
        dev = cpu_backend.create(sanitize=True, workers=2)
        # First a correct kernel with barriers and warp operations: fiber switches
        # must not cause false reports.
        module = dev.compile({REDUCE!r} + {WARPS!r}, "clean.hip", headers=HEADERS)
        n = 256 * 20
        sums, errors = dev.malloc(8 * 20), dev.to_device(np.zeros(1, np.int32))
        data = dev.to_device(np.ones(n, np.int64))
        dev.launch(module.get_function("block_sum"), 20, 256, [data, sums, errors, np.int32(n)])
        assert (dev.from_device(sums, 20, np.int64) == 256).all()
        outs = [dev.malloc(8 * 512) for _ in range(6)]
        dev.launch(module.get_function("warps"), 2, 256, outs)
        print("clean run ok", flush=True)
        # Then one that writes one element past the end of its buffer.
        bad = dev.compile('''
            #include "bfs_common.h"
            extern "C" __global__ void past_the_end(bfs_i32* a, bfs_i32 n)
            {{
                const bfs_i32 i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i <= n) a[i] = i;   // the bug: <= instead of <
            }}
        ''', "past_the_end.hip", headers=HEADERS)
        a = dev.malloc(4 * 100)
        dev.launch(bad.get_function("past_the_end"), 1, 128, [a, np.int32(100)])
        print("not reported", flush=True)
    """
    result = run_in_subprocess(script, {"LD_PRELOAD": libasan, "ASAN_OPTIONS": "detect_leaks=0"})
    assert "clean run ok" in result.stdout, result.stderr[-3000:]
    assert result.returncode != 0 and "not reported" not in result.stdout
    assert "AddressSanitizer: heap-buffer-overflow" in result.stderr, result.stderr[-3000:]
    assert "past_the_end.hip:6" in result.stderr


# -- step 1 on the emulator -----------------------------------------------------------------------

def rodinia_graph(n: int, seed: int) -> CSRGraph:
    """Rodinia graphgen's rule: each node draws 2 to 4 random neighbours, stored both ways."""
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(n), rng.integers(2, 5, size=n))
    dst = rng.integers(0, n, size=src.size)
    return CSRGraph.from_edges(np.concatenate([src, dst]), np.concatenate([dst, src]),
                               n).as_undirected()


def rodinia_bfs(dev, graph: CSRGraph, source: int, block: int = 256):
    """A minimal step-1 host loop: Kernel1, Kernel2, read g_over back, repeat."""
    module = dev.compile(kernel_source("rodinia.hip"), "rodinia.hip",
                         defines={"BLOCK_SIZE": block}, headers=kernel_headers())
    k1, k2 = module.get_function("Kernel1"), module.get_function("Kernel2")
    n = graph.num_vertices
    frontier = np.zeros(n, bool)
    frontier[source] = True
    cost = np.full(n, -1, np.int32)
    cost[source] = 0
    offsets, targets = dev.to_device(graph.offsets), dev.to_device(graph.targets)
    mask, visited = dev.to_device(frontier), dev.to_device(frontier)
    updating, d_cost = dev.to_device(np.zeros(n, bool)), dev.to_device(cost)
    over, d_over = dev.host_malloc(1, np.bool_), dev.malloc(1)
    grid = ceil_div(n, block)
    start = time.perf_counter()
    levels = 0
    while True:
        over[0] = False
        dev.memcpy_htod(d_over, over)
        dev.launch(k1, grid, block, [offsets, targets, mask, updating, visited, d_cost, np.int32(n)])
        dev.launch(k2, grid, block, [mask, updating, visited, d_over, np.int32(n)])
        dev.memcpy_dtoh(over, d_over)
        levels += 1
        if not over[0]:
            break
    seconds = time.perf_counter() - start
    return dev.from_device(d_cost, n, np.int32), seconds, levels


def test_rodinia_kernels_on_a_graph_with_several_components(device):
    # Component A: random graph on 0..299; B: a path 300..399; C: a star 400..449;
    # 450..479 isolated; 480..499 a second random graph.
    rng = np.random.default_rng(5)
    a = rng.integers(0, 300, size=(2, 700))
    path = np.arange(300, 400)
    e = rng.integers(480, 500, size=(2, 40))
    src = np.concatenate([a[0], path[:-1], np.full(49, 400), e[0]])
    dst = np.concatenate([a[1], path[1:], np.arange(401, 450), e[1]])
    graph = CSRGraph.from_edges(np.concatenate([src, dst]), np.concatenate([dst, src]),
                                500).as_undirected()
    for source in (0, 300, 350, 401, 460, 499):
        for block in (64, 128):
            levels, _, _ = rodinia_bfs(device, graph, source, block)
            np.testing.assert_array_equal(levels, python_bfs(graph, source))


def test_rodinia_64k_nodes_is_fast(device):
    graph = rodinia_graph(65536, seed=1)
    rodinia_bfs(device, graph, 0)  # warm: compile or load from the cache
    levels, seconds, iterations = rodinia_bfs(device, graph, 0)
    np.testing.assert_array_equal(levels, python_bfs(graph, 0))
    print(f"\nRodinia BFS, 64K nodes, warp {device.warp_size}, {device.workers} workers: "
          f"{seconds * 1000:.1f} ms for {iterations} iterations")
    assert seconds < 5.0


def test_threads_that_never_wait_are_cheap(device32):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void touch(bfs_i32* out, bfs_i32 n)
    {
        const bfs_i32 i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = i;
    }
    extern "C" __global__ void barriers(bfs_i32* out, bfs_i32 n)
    {
        __shared__ bfs_i32 tile[256];
        const bfs_i32 i = blockIdx.x * blockDim.x + threadIdx.x;
        tile[threadIdx.x] = i;
        __syncthreads();
        if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
    }
    """
    module = compile_kernel(device32, src)
    n = 1 << 22
    out = device32.malloc(4 * n)
    timings = {}
    for name in ("touch", "barriers"):
        kernel = module.get_function(name)
        device32.launch(kernel, n // 256, 256, [out, np.int32(n)])
        start = time.perf_counter()
        device32.launch(kernel, n // 256, 256, [out, np.int32(n)])
        timings[name] = (time.perf_counter() - start) / n * 1e9
    print(f"\nper thread: {timings['touch']:.1f} ns without barriers, "
          f"{timings['barriers']:.1f} ns with one __syncthreads")
    assert timings["touch"] < 200 and timings["barriers"] < 2000


# -- more of the execution model ------------------------------------------------------------------

def test_integer_intrinsics_min_max_and_more_atomics(device):
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void intrinsics(bfs_i64* out, bfs_u32* counter, float* total)
    {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            const bfs_i32 a = -3, b = 5;
            const bfs_u32 u = 7u;
            const bfs_i64 big = 1ll << 40;
            out[0] = min(a, b);
            out[1] = max(a, b);
            out[2] = min(big, (bfs_i64)b);
            out[3] = max(u, 9u);
            out[4] = __popc(0xF0F0u) + 100 * __popcll(0xFFull << 40);
            out[5] = __ffs(0) + 100 * __ffs(0x80) + 10000 * __ffsll(1ll << 40);
            out[6] = __clz(1) + 100 * __clz(0) + 10000 * __clzll(1ll);
            out[7] = __brev(1u);
        }
        atomicInc(counter, 9u);          // wraps to 0 after 9
        atomicAdd(total, 0.5f);
    }
    """
    kernel = compile_kernel(device, src).get_function("intrinsics")
    out = device.malloc(8 * 8)
    counter = device.to_device(np.zeros(1, np.uint32))
    total = device.to_device(np.zeros(1, np.float32))
    device.launch(kernel, 8, 128, [out, counter, total])
    np.testing.assert_array_equal(
        device.from_device(out, 8, np.int64),
        [-3, 5, 5, 9, 8 + 800, 0 + 800 + 410000, 31 + 3200 + 630000, 0x80000000])
    assert device.from_device(counter, 1, np.uint32)[0] == 1024 % 10
    assert device.from_device(total, 1, np.float32)[0] == 512.0


def test_emulator_shuffle_variants(device):
    """The emulator's up/down/xor shuffles, for helpers bfs_common.h may add."""
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void shuffles(bfs_i64* up, bfs_i64* down, bfs_i64* xor_)
    {
    #if defined(BFS_EMULATOR)
        const bfs_i64 v = 1000 + threadIdx.x;
        up[threadIdx.x] = bfs_emu_shfl_up(v, 3);
        down[threadIdx.x] = bfs_emu_shfl_down(v, 5);
        xor_[threadIdx.x] = bfs_emu_shfl_xor(v, 1);
    #endif
    }
    """
    kernel = compile_kernel(device, src).get_function("shuffles")
    w, n = device.warp_size, 128
    outs = [device.malloc(8 * n) for _ in range(3)]
    device.launch(kernel, 1, n, outs)
    up, down, xor_ = (device.from_device(o, n, np.int64) for o in outs)
    t = np.arange(n)
    lane = t % w
    np.testing.assert_array_equal(up, 1000 + np.where(lane >= 3, t - 3, t))
    np.testing.assert_array_equal(down, 1000 + np.where(lane + 5 < w, t + 5, t))
    np.testing.assert_array_equal(xor_, 1000 + (t ^ 1))


def test_warps_of_a_two_dimensional_block(device):
    """Warps are consecutive linear thread ids (x fastest), as on the hardware."""
    src = """
    #include "bfs_common.h"
    extern "C" __global__ void warps2d(bfs_u64* ballot)
    {
        const bfs_u32 linear = threadIdx.x + blockDim.x * threadIdx.y;
        ballot[linear] = warp_ballot(threadIdx.y == 1);
    }
    """
    kernel = compile_kernel(device, src).get_function("warps2d")
    out = device.malloc(8 * 128)
    device.launch(kernel, 1, (16, 8), [out])
    got = device.from_device(out, 128, np.uint64)
    if device.warp_size == 32:  # rows 0-1 form warp 0: row 1 is lanes 16..31
        assert (got[:32] == 0xFFFF0000).all() and (got[32:] == 0).all()
    else:
        assert (got[:64] == 0xFFFF0000).all() and (got[64:] == 0).all()


def test_launches_from_several_python_threads(device32):
    import threading

    kernel = compile_kernel(device32, REDUCE).get_function("block_sum")
    n, block = 256 * 64, 256
    data = device32.to_device(np.arange(n, dtype=np.int64))
    failures = []

    def work():
        try:
            for _ in range(20):
                sums, errors = device32.malloc(8 * 64), device32.to_device(np.zeros(1, np.int32))
                device32.launch(kernel, 64, block, [data, sums, errors, np.int32(n)])
                got = device32.from_device(sums, 64, np.int64)
                if not (got == np.arange(n).reshape(64, block).sum(axis=1)).all():
                    failures.append("wrong sums")
        except Exception as exc:  # reported below
            failures.append(repr(exc))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures and not any(t.is_alive() for t in threads)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_launch_in_a_forked_child(device32):
    """A forked child has none of the parent's helper threads; its launches still run."""
    kernel = compile_kernel(device32, VECTOR_ADD).get_function("vector_add")
    a = device32.to_device(np.arange(5000, dtype=np.int32))
    c = device32.malloc(4 * 5000)
    device32.launch(kernel, 20, 256, [a, a, c, np.int32(5000)])  # helpers now exist
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            device32.memset(c, 0)
            device32.launch(kernel, 20, 256, [a, a, c, np.int32(5000)])
            ok = (device32.from_device(c, 5000, np.int32) == 2 * np.arange(5000)).all()
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("guard", ["regions", "mprotect"])
def test_stack_overflow_is_reported(guard):
    """The guard page below each stack faults, and the fault is told in words: a guard
    region where the kernel has them (Linux 6.13 and later), else (and with
    RODINIA_BFS_EMU_GUARD=mprotect) a page made inaccessible by mprotect."""
    script = """
        import numpy as np
        from rodinia_bfs.runtime import cpu_backend
        from rodinia_bfs.kernels import kernel_headers
        HEADERS = kernel_headers()
        dev = cpu_backend.create(workers=1)
        module = dev.compile('''
            #include "bfs_common.h"
            extern "C" __global__ void greedy(bfs_i32* out)
            {
                volatile bfs_i32 local[40000];   // 160 KB of locals per thread
                for (int i = 0; i < 40000; i++) local[i] = i;
                out[threadIdx.x] = local[threadIdx.x * 7];
            }
        ''', "greedy.hip", headers=HEADERS)
        dev.launch(module.get_function("greedy"), 1, 32, [dev.malloc(128)])
        print("not reported")
    """
    result = run_in_subprocess(script, env={"RODINIA_BFS_EMU_GUARD": guard})
    assert result.returncode != 0 and "not reported" not in result.stdout
    assert "kernel greedy overflowed the stack of thread (0,0,0) in block (0,0,0)" in result.stderr
