"""Argument records: a C struct passed to a kernel by value, described in Python by a
ctypes.Structure or by one element of a NumPy structured type (runtime/base.py's
record_address). Steps 5 to 9 pass their kernels' arguments this way."""

import ctypes
import textwrap

import numpy as np
import pytest

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.kernels import kernel_headers
from rodinia_bfs.runtime import cpu_backend, pack_args
from rodinia_bfs.runtime._checks import ArgPacker

usable, why = cpu_backend.probe()
needs_emulator = pytest.mark.skipif(not usable, reason=f"cpu backend unusable: {why}")

SOURCE = textwrap.dedent("""
    #include "bfs_common.h"
    struct Pair {
        bfs_u32* out;   // where the kernel writes
        bfs_u32 first;
        bfs_u32 second;
        bfs_u64 wide;
    };
    extern "C" __global__ void sum_pair(const Pair p, bfs_u32 extra)
    {
        if (blockIdx.x == 0 && threadIdx.x == 0)
            p.out[0] = p.first + p.second + (bfs_u32)(p.wide >> 32) + extra;
    }
""")

PAIR = np.dtype([("out", "<u8"), ("first", "<u4"), ("second", "<u4"), ("wide", "<u8")],
                align=True)


class Pair(ctypes.Structure):
    _fields_ = [("out", ctypes.c_uint64), ("first", ctypes.c_uint32),
                ("second", ctypes.c_uint32), ("wide", ctypes.c_uint64)]


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    if not usable:
        pytest.skip(why)
    return cpu_backend.create(warp_size=request.param, workers=2)


def _sum(dev, kernel, record, extra=0):
    dev.launch(kernel, 1, 32, [record, np.uint32(extra)])
    dev.synchronize()


@needs_emulator
def test_a_record_by_value_from_numpy_and_from_ctypes(device):
    kernel = device.compile(SOURCE, "records.hip", headers=kernel_headers()).get_function("sum_pair")
    out = device.malloc(4)
    record = np.zeros(1, PAIR)
    record["out"], record["first"], record["second"] = out.ptr, 3, 4
    record["wide"] = 5 << 32
    _sum(device, kernel, record, 1)
    assert device.from_device(out, 1, np.uint32)[0] == 13
    # The launch reads the record as it is when the launch is queued.
    record["first"] = 100
    _sum(device, kernel, record)
    assert device.from_device(out, 1, np.uint32)[0] == 109
    as_ctypes = Pair(out=out.ptr, first=1, second=2, wide=0)
    _sum(device, kernel, as_ctypes)
    assert device.from_device(out, 1, np.uint32)[0] == 3


@needs_emulator
def test_a_prepared_launch_sees_the_record_change(device):
    kernel = device.compile(SOURCE, "records.hip", headers=kernel_headers()).get_function("sum_pair")
    out = device.malloc(4)
    records = np.zeros(2, PAIR)
    records["out"], records["first"] = out.ptr, (10, 20)
    launch = device.prepare_launch(kernel, 1, 32, [records[:1], np.uint32(0)])
    for first in (10, 11):
        records["first"][0] = first
        launch()
        device.synchronize()
        assert device.from_device(out, 1, np.uint32)[0] == first
    launch[0] = records[1:]  # another record in the same place
    launch()
    device.synchronize()
    assert device.from_device(out, 1, np.uint32)[0] == 20


@needs_emulator
def test_a_prepared_launch_sees_writes_through_field_views(device):
    """Steps 6 and 7 write a search's fields through views made once (field_views): the
    launch reads them, and only the first record's."""
    from rodinia_bfs.variants.base import field_views

    kernel = device.compile(SOURCE, "records.hip", headers=kernel_headers()).get_function("sum_pair")
    out = device.malloc(4)
    records = np.zeros(2, PAIR)
    records["out"] = out.ptr
    views = field_views(records, ("first", "second"))
    launch = device.prepare_launch(kernel, 1, 32, [records[:1], np.uint32(0)])
    for first, second in ((1, 2), (30, 4)):
        views["first"][0], views["second"][0] = first, second
        launch()
        device.synchronize()
        assert device.from_device(out, 1, np.uint32)[0] == first + second
    assert records["first"].tolist() == [30, 0]  # the second record is untouched


@needs_emulator
def test_a_record_of_the_wrong_size_is_refused(device):
    kernel = device.compile(SOURCE, "records.hip", headers=kernel_headers()).get_function("sum_pair")
    short = np.zeros(1, np.dtype([("out", "<u8"), ("first", "<u4")], align=True))
    with pytest.raises(DeviceError, match="argument 0 must be a 24-byte record"):
        device.launch(kernel, 1, 32, [short, np.uint32(0)])


def test_a_record_is_pointed_at_not_copied():
    record = np.zeros(1, PAIR)
    params, holders = pack_args([record, np.uint32(7)])
    assert params[0] == record.ctypes.data
    structure = Pair()
    params, holders = pack_args([structure])
    assert params[0] == ctypes.addressof(structure)


def test_more_than_one_element_is_not_a_record():
    with pytest.raises(TypeError, match="one contiguous element"):
        pack_args([np.zeros(2, PAIR)])
    with pytest.raises(TypeError, match="unsupported type"):
        pack_args([np.zeros(1, np.uint32)])


def test_the_packer_points_at_the_record_and_back_at_its_slot():
    packer = ArgPacker(2)
    slot_0 = packer._params[0]
    record = np.zeros(1, PAIR)
    packer.pack([record, np.uint32(1)])
    assert packer._params[0] == record.ctypes.data
    other = np.zeros(1, PAIR)
    packer.write(0, other)
    assert packer._params[0] == other.ctypes.data
    packer.pack([np.uint64(5), np.uint32(1)])  # a scalar again: its own slot
    assert packer._params[0] == slot_0
    assert ctypes.c_uint64.from_address(slot_0).value == 5
