"""Which ROCm release is installed, and whether the installed hip-python matches it.

hip-python is built for one ROCm release: its version starts with that release's
three numbers (hip-python ``6.2.0.499.16`` is for ROCm 6.2.0). A hip-python of another
release may fail to load, or call a HIP function by the wrong name, so
``rodinia-bfs info`` compares the two and prints the command that installs a match.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import sysconfig
from pathlib import Path

#: The oldest ROCm release with a hip-python on PyPI.
OLDEST_ON_PYPI = (6, 2)


def _rocm_roots() -> list[Path]:
    roots = [Path(os.environ["ROCM_PATH"])] if os.environ.get("ROCM_PATH") else []
    return roots + [Path("/opt/rocm")]


def _numbers(text: str) -> tuple[int, ...]:
    """``"6.2.0-66"`` -> ``(6, 2, 0)``: the leading dotted numbers."""
    match = re.match(r"\d+(\.\d+)*", text.strip())
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def rocm_version() -> tuple[tuple[int, ...], str] | None:
    """The installed ROCm release and where it was read, or ``None`` if none is found.

    ROCm writes its release into ``<root>/.info/version`` (``$ROCM_PATH``, then
    ``/opt/rocm``). Without that file (Debian's packages), the HIP runtime library's
    name gives the major and minor release: ``libamdhip64.so.5.2.21153`` is ROCm 5.2
    (its third number is HIP's build, not ROCm's patch release).
    """
    for root in _rocm_roots():
        info = root / ".info" / "version"
        try:
            numbers = _numbers(info.read_text())
        except OSError:
            continue
        if len(numbers) >= 2:
            return numbers[:3], str(info)
    multiarch = sysconfig.get_config_var("MULTIARCH") or f"{platform.machine()}-linux-gnu"
    for folder in [*(root / "lib" for root in _rocm_roots()), Path("/usr/lib") / multiarch]:
        for library in sorted(folder.glob("libamdhip64.so.*.*")):
            numbers = _numbers(library.name.split(".so.", 1)[1])
            if len(numbers) >= 2:
                return numbers[:2], str(library)
    return None


def hip_python_version() -> str | None:
    """The installed hip-python's version, ``None`` if it is not installed."""
    try:
        return importlib.metadata.version("hip-python")
    except importlib.metadata.PackageNotFoundError:
        return None


def install_command(rocm: tuple[int, ...]) -> str:
    """The pip command that installs the hip-python of ROCm release ``rocm``: the newest
    of its minor release (``~=6.2.0``), since not every patch release has its own."""
    return f'pip install "hip-python~={rocm[0]}.{rocm[1]}.0"'


def check_hip_python() -> list[str]:
    """Lines for ``rodinia-bfs info``: the ROCm release, hip-python's, and whether they
    match; a mismatch names the command that fixes it."""
    found, hip_python = rocm_version(), hip_python_version()
    if found is None:
        return ["ROCm: not found (the hip backend needs it; the others do not)"]
    rocm, where = found
    release = ".".join(map(str, rocm))
    lines = [f"ROCm: {release} (from {where})"]
    if hip_python is None:
        if rocm[:2] >= OLDEST_ON_PYPI:
            lines.append(f"hip-python: not installed; for this ROCm: {install_command(rocm)}")
        else:
            lines.append("hip-python: not installed")
        return lines
    built_for = _numbers(hip_python)[:3]
    if built_for[: len(rocm)] == rocm:
        lines.append(f"hip-python {hip_python}: matches ROCm {release}")
    elif built_for[:2] == rocm[:2]:
        lines.append(f"hip-python {hip_python}: for ROCm {'.'.join(map(str, built_for))}, the "
                     f"same minor release as {release}: fine for Python use")
    elif rocm[:2] < OLDEST_ON_PYPI:
        lines.append(f"hip-python {hip_python} does not match ROCm {release}, and PyPI has no "
                     f"hip-python for it (the oldest is for ROCm "
                     f"{'.'.join(map(str, OLDEST_ON_PYPI))}): upgrade ROCm, or build "
                     f"hip-python from its release/rocm-rel-{rocm[0]}.{rocm[1]} branch")
    else:
        lines.append(f"hip-python {hip_python} does not match ROCm {release} (its version "
                     f"names release {'.'.join(map(str, built_for))}); fix: "
                     f"{install_command(rocm)}")
    return lines
