"""Where the HIP kernel sources live, and how a step loads them.

The sources are in ``hip_kernels/`` at the top of the project; the wheel ships them as
``rodinia_bfs/hip_kernels``. ``kernel_source("rodinia.hip")`` finds either.
"""

from __future__ import annotations

from pathlib import Path

#: The header every kernel includes; it hides the differences between HIP, CUDA and the emulator.
COMMON_HEADER = "bfs_common.h"


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
    also the kernel files, which a later step may include to reuse their kernels."""
    files = [*kernel_dir().glob("*.h"), *kernel_dir().glob("*.hip")]
    return {p.name: p.read_text() for p in sorted(files)}
