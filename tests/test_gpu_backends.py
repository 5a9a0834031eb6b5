"""The GPU backends (hip, cuda) against a real GPU, plus their shared host-side helpers.

Tests marked ``gpu`` run through each of hip and cuda whose ``probe()`` finds a GPU and
skip with its reason otherwise; the helper tests at the top need no GPU.
"""

import ctypes
import gc
import importlib

import numpy as np
import pytest

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.runtime import _checks
from rodinia_bfs.runtime.base import DeviceBuffer, PinnedArray, ceil_div, pack_args

from helpers import python_bfs


# -- helpers shared by the GPU backends (no GPU needed) -------------------------------

def _slot_values(packer, count):
    params = (ctypes.c_void_p * count).from_address(packer.params_address)
    return [ctypes.c_uint64.from_address(params[i]).value for i in range(count)]


def test_arg_packer_matches_pack_args():
    """The fast packer puts the same bytes behind each pointer as base.pack_args."""
    buf = DeviceBuffer(0xDEAD_BEEF_0000, 64, None)
    args = [buf, np.int32(-2), np.int64(-(1 << 40)), np.uint32(7), np.uint8(200),
            np.int8(-3), np.uint64(1 << 63), np.float32(1.5), np.float64(-2.25), buf.view(16)]
    packer = _checks.ArgPacker(capacity=4)  # also exercises growing
    packer.pack(args)
    slots = _slot_values(packer, len(args))
    params, holders = pack_args(args)
    for i, arg in enumerate(args):
        size = 8 if isinstance(arg, DeviceBuffer) else arg.dtype.itemsize
        expected = ctypes.string_at(params[i], size)
        assert slots[i].to_bytes(8, "little")[:size] == expected, f"argument {i}"


def test_arg_packer_reuses_its_buffer():
    packer = _checks.ArgPacker()
    first = packer.pack([np.int32(1)])
    assert packer.pack([np.int32(2), np.int64(3)]) == first
    assert _slot_values(packer, 2)[:1] == [2]


def test_arg_packer_writes_only_what_changed():
    """A launch whose arguments are the last launch's objects but a few packs those few:
    the slots end up as a full pack would leave them, a slot of an unchanged argument is
    not written again, and a changed buffer is checked for a free."""
    a, b = DeviceBuffer(4096, 8, None), DeviceBuffer(8192, 8, None)
    first = [a, np.int32(3), np.uint64(5), np.float32(0.5)]
    packer = _checks.ArgPacker()
    packer.pack(first)
    packer._slots[0] = 99  # the unchanged buffer's slot: left alone below
    second = [a, np.int32(-4), np.uint64(5), np.float32(0.5)]
    second[2] = first[2]  # the very object: not written
    packer.pack(second)
    fresh = _checks.ArgPacker()
    fresh.pack(second)
    assert _slot_values(packer, 4)[1:] == _slot_values(fresh, 4)[1:]
    assert _slot_values(packer, 4)[0] == 99
    packer.pack([b, second[1], second[2], second[3]])
    assert _slot_values(packer, 4)[0] == 8192
    b.freed = True
    with pytest.raises(DeviceError, match="freed"):
        packer.pack([b.view(4), second[1], second[2], second[3]])
    # Another type in a slot takes the full path.
    packer.pack([a, np.int64(-4), second[2], second[3]])
    assert _slot_values(packer, 4)[1] == (-4) % (1 << 64)


def test_arg_packer_refuses_untyped_and_freed_arguments():
    packer = _checks.ArgPacker()
    with pytest.raises(TypeError, match="np.int32"):
        packer.pack([np.int32(1), 5])
    buf = DeviceBuffer(4096, 8, None)
    args = (buf, np.int32(3))
    packer.pack(args, generation=0)
    buf.freed = True  # what Device.free does, before it counts one more free
    with pytest.raises(DeviceError, match="freed"):
        packer.pack(args, generation=1)  # the same tuple, but a free since: checked again
    with pytest.raises(DeviceError, match="freed"):
        packer.pack([buf.view(4)])


def test_arg_packer_skips_an_unchanged_tuple():
    packer = _checks.ArgPacker()
    args = (DeviceBuffer(4096, 8, None), np.int32(3))
    packer.pack(args)
    packer._slots[1] = 99  # were the values written again, this would be overwritten
    packer.pack(args)
    assert packer._slots[1] == 99
    changed = list(args)  # a list may have changed since: its changed items are written
    changed[1] = np.int32(4)
    packer.pack(changed)
    assert packer._slots[1] == 4


def test_pinned_array_frees_with_its_last_view():
    memory = ctypes.create_string_buffer(64)
    freed = []
    array = _checks.pinned_array(ctypes.addressof(memory), 64, (4, 2), np.int64, freed.append)
    assert isinstance(array, PinnedArray) and array.shape == (4, 2)
    assert array.ptr == ctypes.addressof(memory)
    array[:] = 7
    row = array[1]
    del array
    gc.collect()
    assert freed == [] and row.sum() == 14  # a view keeps the memory
    del row
    gc.collect()
    assert freed == [ctypes.addressof(memory)]


def test_define_options():
    assert _checks.define_options({"BLOCK_SIZE": 256, "DEBUG": None, "ON": True}) == [
        "-DBLOCK_SIZE=256", "-DDEBUG", "-DON=1"]
    with pytest.raises(ValueError):
        _checks.define_options({"1BAD": 1})


# -- on a GPU -------------------------------------------------------------------------

TEST_KERNELS = r"""
#include "bfs_common.h"

extern "C" __global__ void affine(bfs_i64* out, bfs_i32 n, bfs_i64 base, bfs_i32 step)
{
    const bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (bfs_u32)n) out[i] = base + (bfs_i64)i * step;
}

// One argument of each scalar type, each written back as a 64-bit integer.
extern "C" __global__ void scalars(bfs_i64* out, bfs_i8 a, bfs_u8 b, bfs_i32 c, bfs_u32 d,
                                   bfs_i64 e, bfs_u64 f, float g, double h)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = a; out[1] = b; out[2] = c; out[3] = (bfs_i64)d;
        out[4] = e; out[5] = (bfs_i64)f; out[6] = (bfs_i64)(g * 4.0f); out[7] = (bfs_i64)(h * 8.0);
    }
}

extern "C" __global__ void grid2d(bfs_i32* out)
{
    const bfs_u32 block = blockIdx.y * gridDim.x + blockIdx.x;
    out[block * blockDim.x + threadIdx.x] = blockIdx.y * 1000 + blockIdx.x;
}

// Reverses each block's slice through dynamic shared memory.
extern "C" __global__ void reverse_blocks(bfs_i32* data)
{
    extern __shared__ bfs_i32 tile[];
    const bfs_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = data[i];
    __syncthreads();
    data[i] = tile[blockDim.x - 1 - threadIdx.x];
}

// Static and dynamic shared memory together past the 48 KB a block gets by default
// (40 KB static, the rest dynamic): the launch must opt in to more, although its dynamic
// part alone is under the default.
extern "C" __global__ void big_static(bfs_i32* data)
{
    __shared__ bfs_i32 fixed[10 * 1024];
    extern __shared__ bfs_i32 more[];
    fixed[threadIdx.x] = data[threadIdx.x];
    more[threadIdx.x] = 2 * data[threadIdx.x];
    __syncthreads();
    data[threadIdx.x] = fixed[blockDim.x - 1 - threadIdx.x] + more[threadIdx.x];
}

// Busy work, so that events have something to time.
extern "C" __global__ void spin(bfs_u32* out, bfs_i32 rounds)
{
    bfs_u32 x = threadIdx.x;
    for (bfs_i32 r = 0; r < rounds; r++) x = x * 1664525u + 1013904223u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// HIP's warp intrinsics: native on AMD, from cuda_hip_compat.h on NVIDIA.
extern "C" __global__ void warp_ops(bfs_u64* ballots, bfs_i32* lanes, bfs_i32* xors)
{
    const bfs_u32 t = threadIdx.x;
    const unsigned long long mask = __ballot(t & 1);
    if (t % WARP_SIZE == 0) ballots[t / WARP_SIZE] = mask;
    lanes[t] = __lane_id();
    xors[t] = __shfl_xor((int)t, 1);
}
"""


@pytest.fixture(scope="module", params=["hip", "cuda"])
def device(request):
    backend = importlib.import_module(f"rodinia_bfs.runtime.{request.param}_backend")
    usable, reason = backend.probe()
    if not usable:
        pytest.skip(f"{request.param} backend: {reason}")
    return backend.create()


@pytest.fixture(scope="module")
def kernels(device):
    return device.compile(TEST_KERNELS, "test_kernels.hip", headers=kernel_headers())



@pytest.mark.gpu
def test_device_properties(device):
    assert device.backend in ("hip", "cuda")
    assert device.name
    assert device.warp_size in (32, 64)
    assert device.total_memory > 1 << 30
    assert device.multiprocessor_count > 0
    assert device.max_threads_per_block >= 256
    assert device.arch.startswith("gfx" if device.backend == "hip" else ("sm_", "compute_"))
    assert device.backend in device.describe()


@pytest.mark.gpu
def test_memcpy_roundtrip(device):
    data = np.arange(1001, dtype=np.int32) * 7 - 3  # not a multiple of anything nice
    buf = device.to_device(data)
    assert buf.nbytes == data.nbytes
    np.testing.assert_array_equal(device.from_device(buf, data.size, np.int32), data)
    strided = np.arange(20, dtype=np.int64)[::2]  # a synchronous copy may take a view
    device.memcpy_htod(buf, strided)
    np.testing.assert_array_equal(device.from_device(buf, 10, np.int64), strided)
    device.free(buf)


@pytest.mark.gpu
def test_copy_errors(device):
    buf = device.malloc(16)
    with pytest.raises(DeviceError, match="do not fit"):
        device.memcpy_htod(buf, np.zeros(5, np.int32))
    with pytest.raises(DeviceError, match="C-contiguous"):
        device.memcpy_dtoh(np.zeros(8, np.int32)[::2], buf)
    with pytest.raises(DeviceError, match="view"):
        device.free(buf.view(8))
    device.free(buf)
    with pytest.raises(DeviceError, match="freed"):
        device.free(buf)
    with pytest.raises(DeviceError, match="freed"):
        device.memcpy_htod(buf, np.zeros(1, np.int32))


@pytest.mark.gpu
def test_pinned_async_copy_and_stream_sync(device):
    stream = device.stream()
    host = device.host_malloc((3, 333), np.int64)
    assert isinstance(host, PinnedArray) and host.shape == (3, 333)
    host[:] = np.arange(host.size).reshape(host.shape) - 500
    back = device.host_malloc(host.shape, np.int64)
    back[:] = 0
    buf = device.malloc(host.nbytes)
    device.memcpy_htod_async(buf, host, stream)
    device.memcpy_dtoh_async(back, buf, stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, host)
    device.free(buf)


@pytest.mark.gpu
def test_memset(device):
    buf = device.to_device(np.zeros(100, np.uint8))
    device.memset(buf, 0xAB, 37)
    device.memset(buf.view(90), 7, stream=device.stream())
    device.synchronize()
    got = device.from_device(buf, 100, np.uint8)
    assert (got[:37] == 0xAB).all() and (got[37:90] == 0).all() and (got[90:] == 7).all()
    device.memset(buf, 0xFF)
    device.synchronize()
    assert (device.from_device(buf, 25, np.int32) == -1).all()  # how cost is set to -1
    device.free(buf)


@pytest.mark.gpu
def test_launch_with_typed_arguments(device, kernels):
    n = 1000  # not a multiple of the block size
    out = device.malloc(8 * (n + 24))
    device.memset(out, 0)
    block = 128
    device.launch(kernels.get_function("affine"), ceil_div(n, block), block,
                  (out, np.int32(n), np.int64(1 << 40), np.int32(-3)))
    device.synchronize()
    got = device.from_device(out, n + 24, np.int64)
    np.testing.assert_array_equal(got[:n], (1 << 40) - 3 * np.arange(n, dtype=np.int64))
    assert (got[n:] == 0).all()  # the last block's extra threads wrote nothing

    device.launch(kernels.get_function("scalars"), 1, 32,
                  (out, np.int8(-5), np.uint8(250), np.int32(-70000), np.uint32(4_000_000_000),
                   np.int64(-(1 << 50)), np.uint64(1 << 62), np.float32(2.25), np.float64(-1.5)))
    device.synchronize()
    got = device.from_device(out, 8, np.int64)
    assert got.tolist() == [-5, 250, -70000, 4_000_000_000, -(1 << 50), 1 << 62, 9, -12]

    with pytest.raises(TypeError, match="np.int32"):
        device.launch(kernels.get_function("affine"), 1, 32, (out, n, np.int64(0), np.int32(1)))
    device.free(out)


def check_prepared_launch(device, kernels):
    """A prepared launch runs with its arguments, then with those changed by
    ``prepared[i] = value``; the wrong type, an index out of range, a freed buffer and a
    cooperative grid that cannot be resident fail with their reasons."""
    n, block = 300, 64
    out, other = device.malloc(8 * n), device.malloc(8 * n)
    affine = kernels.get_function("affine")
    prepared = device.prepare_launch(affine, ceil_div(n, block), block,
                                     [out, np.int32(n), np.int64(10), np.int32(2)])
    prepared()
    device.synchronize()
    expected = 10 + 2 * np.arange(n, dtype=np.int64)
    np.testing.assert_array_equal(device.from_device(out, n, np.int64), expected)
    prepared[-1] = np.int32(-7)  # the last argument, counted from the end
    prepared[0] = other
    stream = device.stream()
    prepared(stream)
    stream.synchronize()
    np.testing.assert_array_equal(device.from_device(other, n, np.int64),
                                  10 - 7 * np.arange(n, dtype=np.int64))
    np.testing.assert_array_equal(device.from_device(out, n, np.int64), expected)  # untouched
    with pytest.raises(TypeError, match="argument 2 of affine is a int64, not a int32"):
        prepared[2] = np.int32(1)
    with pytest.raises(IndexError, match="4 arguments"):
        prepared[4] = np.int32(1)
    with pytest.raises(TypeError, match="np.int32"):
        device.prepare_launch(affine, 1, 32, [out, n, np.int64(0), np.int32(1)])
    too_many = device.cooperative_grid(affine, block) + 1
    with pytest.raises(DeviceError, match="cannot all be resident"):
        device.prepare_launch(affine, too_many, block, [out, np.int32(n), np.int64(0),
                                                        np.int32(1)], cooperative=True)
    device.free(other)
    with pytest.raises(DeviceError, match="freed"):
        prepared()
    device.free(out)


@pytest.mark.gpu
def test_prepared_launch(device, kernels):
    check_prepared_launch(device, kernels)


def test_prepared_launch_on_the_emulator():
    from rodinia_bfs.runtime import get_device

    device = get_device("cpu", warp_size=32)
    affine_only = TEST_KERNELS.split("// One argument of each scalar type")[0]  # HIP's warp
    # intrinsics, further down, are not the emulator's
    check_prepared_launch(device, device.compile(affine_only, "affine.hip",
                                                 headers=kernel_headers()))


@pytest.mark.gpu
def test_launch_2d_grid_and_dynamic_shared_memory(device, kernels):
    out = device.malloc(4 * 3 * 2 * 64)
    device.launch(kernels.get_function("grid2d"), (3, 2), 64, (out,))
    got = device.from_device(out, 3 * 2 * 64, np.int32).reshape(2, 3, 64)
    assert (got == np.array([[0, 1, 2], [1000, 1001, 1002]])[:, :, None]).all()

    data = np.arange(4 * 96, dtype=np.int32)
    buf = device.to_device(data)
    stream = device.stream()
    device.launch(kernels.get_function("reverse_blocks"), 4, 96, (buf,), shared_mem=96 * 4,
                  stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(device.from_device(buf, data.size, np.int32),
                                  data.reshape(4, 96)[:, ::-1].ravel())
    device.free(out)
    device.free(buf)


@pytest.mark.gpu
def test_static_and_dynamic_shared_memory_past_the_default(device, kernels):
    """40 KB of static shared memory and 16 KB of dynamic: together past the 48 KB a block
    gets by default (on NVIDIA), so the launch opts in; without that it fails."""
    data = np.arange(256, dtype=np.int32)
    buf = device.to_device(data)
    device.launch(kernels.get_function("big_static"), 1, 256, (buf,), shared_mem=16 * 1024)
    device.synchronize()
    np.testing.assert_array_equal(device.from_device(buf, data.size, np.int32),
                                  data[::-1] + 2 * data)
    device.free(buf)


@pytest.mark.gpu
def test_warp_intrinsics(device, kernels):
    threads = 128
    warps = threads // device.warp_size
    ballots, lanes, xors = device.malloc(8 * warps), device.malloc(4 * threads), device.malloc(4 * threads)
    device.launch(kernels.get_function("warp_ops"), 1, threads, (ballots, lanes, xors))
    odd_lanes = sum(1 << lane for lane in range(1, device.warp_size, 2))
    assert device.from_device(ballots, warps, np.uint64).tolist() == [odd_lanes] * warps
    t = np.arange(threads)
    np.testing.assert_array_equal(device.from_device(lanes, threads, np.int32), t % device.warp_size)
    np.testing.assert_array_equal(device.from_device(xors, threads, np.int32), t ^ 1)
    for buf in (ballots, lanes, xors):
        device.free(buf)


@pytest.mark.gpu
def test_events_time_a_kernel(device, kernels):
    out = device.malloc(4 * 256 * 64)
    stream = device.stream()
    start, end = device.event(), device.event()
    start.record(stream)
    device.launch(kernels.get_function("spin"), 64, 256, (out, np.int32(20000)), stream=stream)
    end.record(stream)
    end.synchronize()
    assert start.elapsed_ms(end) > 0
    device.free(out)


@pytest.mark.gpu
def test_bad_launch_names_the_error(device, kernels):
    out = device.malloc(8)
    with pytest.raises(DeviceError, match=r"(hipModuleLaunchKernel|cuLaunchKernel)\(affine"):
        device.launch(kernels.get_function("affine"), 1, 4096,  # more threads than a block can have
                      (out, np.int32(1), np.int64(0), np.int32(1)))
    device.free(out)
    # The device still works afterwards.
    buf = device.to_device(np.arange(4, dtype=np.int32))
    assert device.from_device(buf, 4, np.int32).tolist() == [0, 1, 2, 3]
    device.free(buf)


@pytest.mark.gpu
def test_compile_error_is_readable(device):
    with pytest.raises(CompileError) as caught:
        device.compile('extern "C" __global__ void k(int* a) {\n  a[0] = ;\n}\n', "oops.hip", headers=kernel_headers())
    assert "oops.hip" in caught.value.log and "error" in caught.value.log
    with pytest.raises(DeviceError, match="no_such_kernel"):
        device.compile('extern "C" __global__ void k() {}\n', "k.hip", headers=kernel_headers()).get_function("no_such_kernel")


@pytest.mark.gpu
def test_out_of_memory_is_a_clean_error(device):
    too_much = 2 * device.total_memory
    with pytest.raises(DeviceError) as caught:
        device.malloc(too_much)
    message = str(caught.value)
    assert str(too_much) in message and str(device.total_memory) in message
    assert "OutOfMemory" in message or "OUT_OF_MEMORY" in message
    buf = device.malloc(1024)  # and the device is still usable
    device.free(buf)


# -- the Rodinia kernels on a small graph ------------------------------------------------

def _awkward_graph() -> CSRGraph:
    """Components, a long path, isolated vertices, self loops, duplicates; 1,237 vertices."""
    rng = np.random.default_rng(11)
    src = [rng.integers(0, 600, 2400)]
    dst = [rng.integers(0, 600, 2400)]
    path = np.arange(600, 900)
    src += [path[:-1], path[1:], [5, 17, 3, 3, 3, 640], np.full(299, 900)]
    dst += [path[1:], path[:-1], [750, 751, 3, 4, 4, 640], np.arange(901, 1200)]
    return CSRGraph.from_edges(np.concatenate(src), np.concatenate(dst), 1237)


def _rodinia_on_device(device, graph: CSRGraph, source: int, block_size: int) -> np.ndarray:
    """Rodinia's host loop: reset g_over, Kernel1, Kernel2, copy g_over back, repeat."""
    module = device.compile(kernel_source("rodinia.hip"), "rodinia.hip", {"BLOCK_SIZE": block_size}, headers=kernel_headers())
    kernel1, kernel2 = module.get_function("Kernel1"), module.get_function("Kernel2")
    n = graph.num_vertices
    mask = np.zeros(n, np.bool_)
    mask[source] = True
    cost = np.full(n, -1, np.int32)
    cost[source] = 0
    offsets, edges = device.to_device(graph.offsets), device.to_device(graph.targets)
    graph_mask, visited = device.to_device(mask), device.to_device(mask)
    updating = device.to_device(np.zeros(n, np.bool_))
    d_cost, g_over = device.to_device(cost), device.malloc(1)
    h_over = device.host_malloc(1, np.bool_)
    stream = device.stream()
    grid, count = ceil_div(n, block_size), np.int32(n)
    while True:
        device.memset(g_over, 0, stream=stream)
        device.launch(kernel1, grid, block_size,
                      (offsets, edges, graph_mask, updating, visited, d_cost, count), stream=stream)
        device.launch(kernel2, grid, block_size,
                      (graph_mask, updating, visited, g_over, count), stream=stream)
        device.memcpy_dtoh_async(h_over, g_over, stream)
        stream.synchronize()
        if not h_over[0]:
            break
    levels = device.from_device(d_cost, n, np.int32)
    for buf in (offsets, edges, graph_mask, visited, updating, d_cost, g_over):
        device.free(buf)
    return levels


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", [64, 256])
def test_rodinia_kernels_matchpython_bfs(device, block_size):
    graph = _awkward_graph()
    for source in (0, 650, 1236):
        np.testing.assert_array_equal(_rodinia_on_device(device, graph, source, block_size),
                                      python_bfs(graph, source))
