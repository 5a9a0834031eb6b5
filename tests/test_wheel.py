"""The wheel ships hip_kernels/: build it, install it in a fresh virtual environment,
and find a kernel file inside the installed package."""

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _has_module(name):
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.mark.skipif(not _has_module("hatchling"), reason="hatchling (build backend) not installed")
def test_wheel_contains_kernels(tmp_path):
    wheel_dir = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-w", str(wheel_dir), str(ROOT)],
        check=True, capture_output=True, text=True,
    )
    (wheel,) = wheel_dir.glob("rodinia_bfs-*.whl")

    env_dir = tmp_path / "venv"
    # A bare environment; this interpreter's pip installs into it (--python), which saves
    # setting up a pip of its own there.
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True, capture_output=True, text=True,
    )
    # find_spec locates the installed package without importing it (no numpy needed here).
    probe = (
        "import importlib.util, pathlib; "
        "spec = importlib.util.find_spec('rodinia_bfs'); "
        "print(pathlib.Path(spec.submodule_search_locations[0]))"
    )
    # Without PYTHONPATH, which may point at the checkout (and would be found first).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([str(python), "-c", probe], cwd=tmp_path, check=True, env=env,
                         capture_output=True, text=True).stdout.strip()
    package = Path(out)
    assert env_dir in package.parents, f"package found outside the new environment: {package}"
    assert (package / "hip_kernels" / "bfs_common.h").is_file()
    assert (package / "hip_kernels" / "rodinia.hip").is_file()
    assert (package / "runtime" / "include").is_dir()
