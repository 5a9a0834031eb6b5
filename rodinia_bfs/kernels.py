"""Where the HIP kernel sources live, and how a step loads them.

The sources are in ``hip_kernels/`` at the top of the project; the wheel ships them as
``rodinia_bfs/hip_kernels``. ``kernel_source("rodinia.hip")`` finds either.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

#: The header every kernel includes; it hides the differences between HIP, CUDA and the emulator.
COMMON_HEADER = "bfs_common.h"


@lru_cache(maxsize=1)
def kernel_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "hip_kernels", here.parent / "hip_kernels"):
        if (candidate / COMMON_HEADER).is_file():
            return candidate
    raise FileNotFoundError(
        "hip_kernels/ not found next to the rodinia_bfs package; the installation is incomplete"
    )


def kernel_source(name: str) -> str:
    """The text of ``hip_kernels/<name>``."""
    return (kernel_dir() / name).read_text()


def kernel_headers() -> dict[str, str]:
    """Every header in ``hip_kernels/``, by include name, for the run-time compilers;
    also the kernel files. Read once per process while no file's size or time changes
    (a set-up asks for them every time it compiles)."""
    files = sorted([*kernel_dir().glob("*.h"), *kernel_dir().glob("*.hip")])
    stamps = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    return dict(_read_headers(stamps))


@lru_cache(maxsize=4)
def _read_headers(stamps: tuple) -> tuple:
    return tuple((Path(path).name, Path(path).read_text()) for path, _, _ in stamps)
