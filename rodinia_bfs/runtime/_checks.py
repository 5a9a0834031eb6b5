"""Helpers shared by the GPU backends (hip and cuda).

Nothing here calls a vendor library: these are the pieces that are the same whether
the call underneath is ``hipModuleLaunchKernel`` or ``cuLaunchKernel``: compiler
options from ``-D`` macros, the in-memory headers, checks of copy sizes, pinned host
memory seen as a NumPy array, and the packing of kernel arguments.
"""

from __future__ import annotations

import ctypes
import re
import struct
import weakref
from typing import Callable, Sequence

import numpy as np

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.runtime.base import (DeviceBuffer, PinnedArray, SCALAR_TYPES, dim3, pack_args,
                                      record_address)

_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def define_options(defines: dict | None) -> list[str]:
    """``{"BLOCK_SIZE": 256, "DEBUG": None}`` -> ``["-DBLOCK_SIZE=256", "-DDEBUG"]``.

    ``True``/``False`` become 1/0 so that ``#if NAME`` reads them as C would.
    """
    options = []
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or not _MACRO_NAME.match(name):
            raise ValueError(f"not a valid macro name: {name!r}")
        if value is None:
            options.append(f"-D{name}")
        else:
            if isinstance(value, (bool, np.bool_)):
                value = int(value)
            options.append(f"-D{name}={value}")
    return options


def all_headers(headers: dict[str, str] | None = None) -> dict[str, str]:
    """The headers a compile gets, by include name. The runtime knows no kernel folder:
    whoever compiles passes every header its source includes (a step passes those of
    ``hip_kernels/``)."""
    return dict(headers or {})


def format_bytes(n: int) -> str:
    """``1536`` -> ``"1536 bytes (1.5 KiB)"``, for error messages about memory."""
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            break
        size /= 1024
    return f"{n} bytes" if unit == "bytes" else f"{n} bytes ({size:.1f} {unit})"


def launch_dims(value) -> tuple[int, int, int]:
    """:func:`~rodinia_bfs.runtime.base.dim3`, with a shortcut for the usual plain int."""
    if type(value) is int and value > 0:
        return value, 1, 1
    return dim3(value)


def check_nbytes(nbytes) -> int:
    """An allocation size must be a non-negative integer."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 0:
        raise DeviceError(f"allocation size must be a non-negative integer, got {nbytes!r}")
    return int(nbytes)


def check_memset(buf: DeviceBuffer, byte: int, nbytes: int | None) -> int:
    """The byte count of a memset of ``buf`` (all of it when ``nbytes`` is None), checked."""
    nbytes = buf.nbytes if nbytes is None else check_nbytes(nbytes)
    if not 0 <= int(byte) <= 255:
        raise DeviceError(f"memset: byte must be 0..255, got {byte}")
    check_copy(nbytes, buf, "memset")
    return nbytes


def host_buffer(array: np.ndarray, what: str, writable: bool = False) -> np.ndarray:
    """``array`` itself, checked for use as the host side of a copy.

    HIP Python and cuda-python take the array through the buffer protocol, which is
    much quicker than asking NumPy for its address. A strided view would copy the
    wrong bytes, and making it contiguous here would copy into a temporary that an
    asynchronous copy outlives; so both are errors.
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{what} must be a NumPy array, got {type(array).__name__}")
    flags = array.flags
    if not flags.c_contiguous:
        raise DeviceError(f"{what} must be C-contiguous (use np.ascontiguousarray)")
    if writable and not flags.writeable:
        raise DeviceError(f"{what} is read-only")
    return array


def is_freed(buf: DeviceBuffer) -> bool:
    """Was ``buf``, or the allocation it is a view of, freed?"""
    return buf.freed or (buf.owner is not None and buf.owner.freed)


def check_free(buf: DeviceBuffer, call: str) -> None:
    """Only a live allocation can be freed: not twice, and not through a view of it."""
    if buf.owner is not None:
        raise DeviceError(f"{call}: this buffer is a view; free the allocation it is part of")
    if buf.freed:
        raise DeviceError(f"{call}: this device buffer was freed already")


def check_copy(nbytes: int, buf: DeviceBuffer, what: str) -> None:
    """A copy or memset must fit in the device buffer, which must still be allocated."""
    if is_freed(buf):
        raise DeviceError(f"{what}: the device buffer was freed")
    if nbytes > buf.nbytes:
        raise DeviceError(
            f"{what}: {format_bytes(nbytes)} do not fit in a device buffer of "
            f"{format_bytes(buf.nbytes)}"
        )


class _HostAllocation:
    """Owns page-locked host memory; NumPy arrays over it keep it alive as their base."""

    def __init__(self, ptr: int, nbytes: int, free: Callable[[int], None]):
        self.__array_interface__ = {
            "shape": (nbytes,),
            "typestr": "|u1",
            "data": (ptr, False),
            "version": 3,
        }
        # Freed when the last array over it is garbage collected. Not at interpreter
        # exit: the process is ending anyway and the runtime may be gone already.
        self._finalizer = weakref.finalize(self, free, ptr)
        self._finalizer.atexit = False


def pinned_array(ptr: int, nbytes: int, shape, dtype, free: Callable[[int], None]) -> PinnedArray:
    """A :class:`PinnedArray` over ``nbytes`` of pinned memory at ``ptr``.

    ``free(ptr)`` (``hipHostFree`` / ``cuMemFreeHost``) runs once no array over the
    memory is left.
    """
    owner = _HostAllocation(ptr, nbytes, free)
    raw = np.asarray(owner)  # its .base is owner, so owner lives as long as any view
    count = int(np.prod(shape, dtype=np.int64))
    dtype = np.dtype(dtype)
    return raw[: count * dtype.itemsize].view(dtype).reshape(shape).view(PinnedArray)


def pinned_nbytes(shape, dtype) -> int:
    count = int(np.prod(shape, dtype=np.int64))
    if count < 0:
        raise DeviceError(f"bad shape {shape!r}")
    return count * np.dtype(dtype).itemsize


# The struct format of each scalar kernel-argument type, padded to an 8-byte slot.
# Little-endian: a 4-byte int sits in the first 4 bytes of its slot, which is where
# the pointer to the slot says it is.
_SLOT = 8
_SCALAR_FORMATS = {
    np.dtype(np.int8): "b7x",
    np.dtype(np.uint8): "B7x",
    np.dtype(np.int32): "i4x",
    np.dtype(np.uint32): "I4x",
    np.dtype(np.int64): "q",
    np.dtype(np.uint64): "Q",
    np.dtype(np.float32): "f4x",
    np.dtype(np.float64): "d",
}
assert set(_SCALAR_FORMATS) == set(SCALAR_TYPES)


_POINTER_SLOT = struct.Struct("<Q")
_SCALAR_SLOTS: dict[type, struct.Struct] = {}


def _scalar_slot(kind: type) -> struct.Struct:
    """The struct that writes one scalar of type ``kind`` into its 8-byte slot."""
    slot = _SCALAR_SLOTS.get(kind)
    if slot is None:
        slot = _SCALAR_SLOTS[kind] = struct.Struct("<" + _SCALAR_FORMATS[np.dtype(kind)])
    return slot


class ArgPacker:
    """Builds the ``kernelParams`` array of a kernel's launches with little Python work.

    It is :func:`rodinia_bfs.runtime.base.pack_args` made fast for a host loop that
    launches the same kernel over and over (step 1 launches two per BFS level). Each
    kernel has its own packer: every argument has an 8-byte slot in one buffer that is
    reused, ``kernelParams[i]`` points at slot ``i`` once and for all, and a launch only
    writes the values, with one ``struct.pack_into``. The format is learned once per
    combination of argument types, and a launch with the very same tuple of arguments
    as the last one (and no ``free`` since) writes nothing at all. Reusing the buffer is
    safe because ``hipModuleLaunchKernel`` and ``cuLaunchKernel`` copy the argument
    values before they return. Not meant for several threads launching one kernel at once.
    """

    def __init__(self, capacity: int = 8):
        self._formats: dict[tuple, struct.Struct] = {}
        self._last_args = None
        self._last_seen = None  # the arguments of the last launch, as a tuple
        self._last_generation = -1
        self._grow(capacity)

    def _grow(self, capacity: int) -> None:
        self.capacity = capacity
        self._records: dict[int, int] = {}  # argument index -> address of its record
        self._slots = (ctypes.c_uint64 * capacity)()
        self._params = (ctypes.c_void_p * capacity)()
        base = ctypes.addressof(self._slots)
        for i in range(capacity):
            self._params[i] = base + _SLOT * i
        #: The address to pass as ``kernelParams``.
        self.params_address = ctypes.addressof(self._params)

    def _learn(self, key: tuple, args: Sequence) -> struct.Struct:
        pack_args(args)  # raises the TypeError that explains a badly typed argument
        # A record's slot stays unused: its kernelParams entry points at the record.
        fmt = "<" + "".join(
            "Q" if issubclass(t, (DeviceBuffer, ctypes.Structure, np.ndarray))
            else _SCALAR_FORMATS[np.dtype(t)] for t in key
        )
        packer = self._formats[key] = struct.Struct(fmt)
        return packer

    def _point(self, index: int, address: int | None) -> None:
        """``kernelParams[index]``: at the record at ``address``, or (None) at its slot."""
        if address is None:
            if self._records.pop(index, None) is not None:
                self._params[index] = ctypes.addressof(self._slots) + _SLOT * index
        elif self._records.get(index) != address:
            self._records[index] = self._params[index] = address

    def pack(self, args: Sequence, generation: int = 0) -> int:
        """Write ``args`` into the slots; returns the ``kernelParams`` address.

        ``generation`` counts the device's ``free`` calls: a buffer freed since the last
        launch must be caught even when the arguments are the same tuple.
        """
        if args is self._last_args and generation == self._last_generation:
            return self.params_address  # a tuple and its NumPy scalars cannot change
        if self._update(args, generation):
            return self.params_address
        key = tuple(map(type, args))
        packer = self._formats.get(key)
        if packer is None:
            packer = self._learn(key, args)
        if len(args) > self.capacity:
            self._grow(max(len(args), 2 * self.capacity))
        values = []
        for i, arg in enumerate(args):
            if isinstance(arg, DeviceBuffer):
                if arg.freed or (arg.owner is not None and arg.owner.freed):
                    raise DeviceError(f"kernel argument {i} is a freed device buffer")
                arg = arg.ptr
            elif isinstance(arg, (ctypes.Structure, np.ndarray)):
                self._point(i, record_address(arg))
                values.append(0)
                continue
            if i in self._records:  # a record was passed here before
                self._point(i, None)
            values.append(arg)
        packer.pack_into(self._slots, 0, *values)
        if type(args) is tuple:
            self._last_args, self._last_generation = args, generation
        else:  # a list can change between launches
            self._last_args = None
        self._last_seen, self._last_generation = tuple(args), generation
        return self.params_address

    def write(self, index: int, arg) -> None:
        """Write argument ``index`` alone into its slot (its type already checked)."""
        if isinstance(arg, DeviceBuffer):
            if arg.freed or (arg.owner is not None and arg.owner.freed):
                raise DeviceError(f"kernel argument {index} is a freed device buffer")
            _POINTER_SLOT.pack_into(self._slots, _SLOT * index, arg.ptr)
        elif isinstance(arg, (ctypes.Structure, np.ndarray)):
            self._point(index, record_address(arg))
        else:
            _scalar_slot(type(arg)).pack_into(self._slots, _SLOT * index, arg)

    def packed_for(self, generation: int) -> bool:
        """Whether the slots were written whole since the ``generation``-th ``free``."""
        return self._last_generation == generation

    def _update(self, args: Sequence, generation: int) -> bool:
        """Write only the arguments that are not the very objects of the last launch, when
        the rest are: a host loop that changes a few scalars between launches of a long
        argument list (step 6's one launch per search) packs those few. False when the
        arguments differ in number or type, or a buffer was freed since (the full path)."""
        last = self._last_seen
        if last is None or generation != self._last_generation or len(args) != len(last):
            return False
        changed = [i for i, (arg, old) in enumerate(zip(args, last)) if arg is not old]
        if any(type(args[i]) is not type(last[i]) for i in changed):
            return False
        for i in changed:
            self.write(i, args[i])
        self._last_seen = tuple(args)
        self._last_args = args if type(args) is tuple else None
        return True
