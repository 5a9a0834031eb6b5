"""One device interface, three backends: ``hip``, ``cuda`` and ``cpu``.

``get_device("auto")`` picks hip if an AMD GPU is visible, else cuda if an NVIDIA GPU
is, else the cpu emulator, and :func:`probe_backends` says why each was or was not
usable. Each backend module has ``probe() -> (usable, reason)`` and
``create(**options) -> Device``.
"""

from __future__ import annotations

import importlib

from rodinia_bfs.errors import DeviceError
from rodinia_bfs.runtime.base import (
    Device,
    DeviceBuffer,
    Event,
    Kernel,
    Module,
    PinnedArray,
    Stream,
    ceil_div,
    dim3,
    pack_args,
)

BACKENDS = ("hip", "cuda", "cpu")

_MODULES = {
    "hip": "rodinia_bfs.runtime.hip_backend",
    "cuda": "rodinia_bfs.runtime.cuda_backend",
    "cpu": "rodinia_bfs.runtime.cpu_backend",
}


def _backend_module(name: str):
    return importlib.import_module(_MODULES[name])


def probe_backends() -> dict[str, tuple[bool, str]]:
    """``{backend: (usable, reason)}`` for every backend, in auto's order of preference."""
    found = {}
    for name in BACKENDS:
        try:
            found[name] = _backend_module(name).probe()
        except Exception as exc:  # a broken install must not hide the other backends
            found[name] = (False, f"probe failed: {exc}")
    return found


def choose_backend(requested: str = "auto") -> tuple[str, str]:
    """Resolve ``requested`` to a backend name and say why it was chosen."""
    if requested != "auto":
        if requested not in BACKENDS:
            raise DeviceError(f"unknown backend {requested!r}; choose auto, {', '.join(BACKENDS)}")
        return requested, "requested"
    reasons = []
    for name, (usable, reason) in probe_backends().items():
        if usable:
            why = f"auto chose {name}: {reason}"
            if reasons:
                why += " (" + "; ".join(reasons) + ")"
            return name, why
        reasons.append(f"{name}: {reason}")
    raise DeviceError("no backend is usable: " + "; ".join(reasons))


def get_device(backend: str = "auto", **options) -> Device:
    """Create a :class:`Device` of ``backend`` (``auto``, ``hip``, ``cuda``, ``cpu``).

    Options go to the backend: the cpu backend takes ``warp_size`` (32 or 64),
    ``workers`` and ``sanitize``; the GPU backends take ``device_id``.
    """
    name, _ = choose_backend(backend)
    return _backend_module(name).create(**options)


__all__ = [
    "BACKENDS",
    "Device",
    "DeviceBuffer",
    "Event",
    "Kernel",
    "Module",
    "PinnedArray",
    "Stream",
    "ceil_div",
    "choose_backend",
    "dim3",
    "get_device",
    "pack_args",
    "probe_backends",
]
