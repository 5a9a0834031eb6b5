"""Fixtures shared by the test modules (a module may define its own of the same name)."""

import pytest

from rodinia_bfs.runtime import get_device


@pytest.fixture(scope="module", params=[32, 64], ids=["warp32", "warp64"])
def device(request):
    """The cpu emulator at warp size 32 (NVIDIA, RDNA) and 64 (AMD Instinct)."""
    return get_device("cpu", warp_size=request.param)


@pytest.fixture(scope="module")
def gpu():
    """A device of the first usable GPU backend (hip, then cuda); skipped where none is."""
    from helpers import gpu_device_or_skip

    return gpu_device_or_skip()
