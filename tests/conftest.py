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


#: Test files whose tests go to one worker, as one unit, under pytest-xdist: their
#: module-scoped fixtures make work that the file's tests share (the bench's quick-suite
#: runs), which another worker would otherwise wait for on a lock, idle, or make again.
ONE_WORKER_FILES = {"tests/test_bench.py"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist load`` (what ``-n`` gives), but with each file of ONE_WORKER_FILES one
    unit of work, handed out first (the largest unit first, as ``--dist loadscope`` does);
    every other test is a unit of its own, as with ``load``. (``--dist loadgroup`` with
    an ``xdist_group`` mark would say this, but it does not group under pytest 9.2.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneWorkerFiles(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path in ONE_WORKER_FILES else nodeid

    return OneWorkerFiles(config, log)
