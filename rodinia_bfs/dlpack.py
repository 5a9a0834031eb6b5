"""Results that stay on the device: DLPack (and ``__cuda_array_interface__`` on NVIDIA).

A :class:`DeviceArray` is an ``int32`` vector in the device memory of a prepared graph
(:func:`rodinia_bfs.prepare`): the levels or the parents of its last search. CuPy,
PyTorch, JAX and NumPy (for the cpu emulator, whose "device" memory is host memory)
take it without a copy::

    levels = cupy.from_dlpack(prepared.device_levels())
    levels = torch.from_dlpack(prepared.device_levels())

DLPack's C structs are declared here with ctypes, as ``dlpack.h`` (v0.8, the unversioned
``"dltensor"`` capsule every consumer takes) lays them out. The capsule's
``DLManagedTensor`` holds a reference to the :class:`DeviceArray`, and so to the
prepared graph, until the consumer calls its deleter: garbage collection cannot take the
graph from under a tensor that views it. The memory itself is the prepared graph's:
the next search overwrites it and ``close()`` frees it.
"""

from __future__ import annotations

import ctypes

import numpy as np

from rodinia_bfs.errors import ArgumentError

#: DLPack's ``DLDeviceType`` of each backend.
DEVICE_TYPES = {"cpu": 1, "cuda": 2, "hip": 10}  # kDLCPU, kDLCUDA, kDLROCM

#: ``DLDataTypeCode`` of a signed integer.
DL_INT = 0

#: The name of a capsule nobody has consumed yet; a consumer renames it "used_dltensor".
CAPSULE_NAME = b"dltensor"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),  # NULL: compact, row-major
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _DELETER),
]

# Every exported tensor by the address of its DLManagedTensor: the struct, its shape and
# the DeviceArray it views, kept alive until the deleter runs.
_exported: dict[int, tuple] = {}


@_DELETER
def _delete_managed(managed) -> None:
    """DLManagedTensor.deleter: the consumer is done; let the struct and the array go."""
    _exported.pop(ctypes.addressof(managed.contents), None)


def _python_api(name: str, restype, *argtypes):
    """A function of the Python C API with its own prototype (``ctypes.pythonapi.X`` is
    one shared object whose argtypes any module may change)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_capsule_new = _python_api("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                           ctypes.c_void_p)
_capsule_is_valid = _python_api("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p,
                                ctypes.c_char_p)
_capsule_pointer = _python_api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_char_p)

_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CAPSULE_DESTRUCTOR
def _destroy_capsule(capsule) -> None:
    """The capsule is collected: if no consumer took it (it still has its first name),
    nobody else will call the deleter, so call it here, as the DLPack spec asks."""
    if _capsule_is_valid(capsule, CAPSULE_NAME):
        address = _capsule_pointer(capsule, CAPSULE_NAME)
        _delete_managed(ctypes.cast(address, ctypes.POINTER(DLManagedTensor)))


class DeviceArray:
    """An ``int32`` vector of ``size`` elements at device address ``ptr`` on ``device``,
    owned by ``owner`` (a prepared graph), offered through ``__dlpack__`` and, on the
    cuda backend, ``__cuda_array_interface__``. The data is complete when handed out:
    the search waited for its last level, so no stream needs to wait for it."""

    dtype = np.dtype(np.int32)

    def __init__(self, buffer, size: int, device, owner):
        self.ptr = int(buffer.ptr) if size else 0
        self.size = int(size)
        self.shape = (self.size,)
        self.device = device
        self.owner = owner  # keeps the prepared graph alive as long as this array
        self._device = (DEVICE_TYPES[device.backend], int(getattr(device, "device_id", 0)))

    def __repr__(self) -> str:
        return (f"<DeviceArray int32[{self.size}] on {self.device.backend}:{self._device[1]} "
                f"at {self.ptr:#x}>")

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(device_type, device_id)``: kDLCUDA (2), kDLROCM (10) or kDLCPU (1)."""
        return self._device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A ``"dltensor"`` capsule viewing the array (never a copy). ``stream`` is
        accepted and needs no wait (see the class docstring); ``copy=True`` or another
        ``dl_device`` cannot be served here and raise ``BufferError``."""
        if copy:
            raise BufferError("a DeviceArray is exported without a copy; copy=True is not served")
        if dl_device is not None and tuple(dl_device) != self._device:
            raise BufferError(f"the array is on DLPack device {self._device}, "
                              f"not {tuple(dl_device)}")
        managed = DLManagedTensor()
        shape = (ctypes.c_int64 * 1)(self.size)
        tensor = managed.dl_tensor
        tensor.data = self.ptr or None
        tensor.device = DLDevice(*self._device)
        tensor.ndim = 1
        tensor.dtype = DLDataType(DL_INT, 32, 1)
        tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        tensor.strides = None
        tensor.byte_offset = 0
        managed.manager_ctx = None
        managed.deleter = _delete_managed
        address = ctypes.addressof(managed)
        _exported[address] = (managed, shape, self)
        return _capsule_new(address, CAPSULE_NAME, ctypes.cast(_destroy_capsule, ctypes.c_void_p))

    @property
    def __cuda_array_interface__(self) -> dict:
        """Numba's CUDA Array Interface (version 3), on the cuda backend only."""
        if self.device.backend != "cuda":
            raise AttributeError("__cuda_array_interface__ is only offered on the cuda backend")
        return {"shape": self.shape, "typestr": "<i4", "data": (self.ptr, False),
                "version": 3, "strides": None, "stream": None}


def check_backend(device) -> None:
    """Refuse, in one line, a device DLPack has no type for."""
    if device.backend not in DEVICE_TYPES:
        raise ArgumentError(f"no DLPack device type for the {device.backend} backend")
