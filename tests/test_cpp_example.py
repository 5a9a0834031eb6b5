"""Step 1 from a plain HIP C++ host program (examples/cpp): it builds and validates.

The program is built with its Makefile three ways: with the system C++ compiler against
the project's CPU emulator (always: it runs here, validates, and must fail when an error
is injected), with nvcc through the CUDA compatibility header, and with hipcc (each a
compile check, skipped with the reason where the compiler is not installed; the program
runs on a GPU machine).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rodinia_bfs.graphs.formats import save_graph
from rodinia_bfs.graphs.generators import rodinia_graphgen

from helpers import awkward_graph

ROOT = Path(__file__).resolve().parents[1]
CPP = ROOT / "examples" / "cpp"


def make(target: str, out: Path, *variables: str) -> subprocess.CompletedProcess:
    if shutil.which("make") is None:
        pytest.skip("make not found")
    return subprocess.run(["make", "-s", "-C", str(CPP), target, f"BUILD={out}", *variables],
                          capture_output=True, text=True, timeout=600)


def built(proc: subprocess.CompletedProcess, program: Path) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert program.is_file() and program.read_bytes()[:4] == b"\x7fELF"


@pytest.fixture(scope="module")
def emulated(tmp_path_factory) -> Path:
    """The program built with the system C++ compiler against the CPU emulator."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    out = tmp_path_factory.mktemp("cpp-emulator")
    built(make("emulator", out), out / "rodinia_bfs_step1")
    return out / "rodinia_bfs_step1"


def run(program: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(program), *args], capture_output=True, text=True, timeout=300)


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1] if text.strip() else ""


def test_generated_graph_validates(emulated):
    proc = run(emulated, "--generate", "20001", "--seed", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert last_line(proc.stdout) == "validation passed"
    assert "rounds of Kernel1 + Kernel2" in proc.stdout


def test_rodinia_file_with_awkward_corners_validates(emulated, tmp_path):
    """Isolated vertices, self loops, duplicate and one-way arcs, several components,
    read from a Rodinia text file; the file's source and others."""
    path = tmp_path / "awkward.txt"
    save_graph(awkward_graph(), path, source=5)
    for extra in ([], ["--source", "900"], ["--source", "1236"]):
        proc = run(emulated, str(path), *extra)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert last_line(proc.stdout) == "validation passed"
    assert "source 5" in run(emulated, str(path)).stdout


def test_injected_error_fails(emulated):
    proc = run(emulated, "--generate", "3000", "--inject-error")
    assert proc.returncode == 1
    assert last_line(proc.stdout) == "validation failed (1 errors)"


def test_a_broken_kernel_fails_validation(tmp_path):
    """The check compares every level: a Kernel1 that skips the last edge of every list
    must be caught (a test of the validation, not of the kernel)."""
    kernels = tmp_path / "hip_kernels"
    shutil.copytree(ROOT / "hip_kernels", kernels)
    source = (kernels / "rodinia.hip").read_text()
    loop = "i < offsets[tid + 1]; i++"
    assert loop in source
    (kernels / "rodinia.hip").write_text(source.replace(loop, "i + 1 < offsets[tid + 1]; i++"))
    built(make("emulator", tmp_path, f"KERNELS={kernels}"), tmp_path / "rodinia_bfs_step1")
    graph = tmp_path / "g.txt"
    save_graph(rodinia_graphgen(2000, seed=1), graph, source=0)
    proc = run(tmp_path / "rodinia_bfs_step1", str(graph))
    assert proc.returncode == 1 and last_line(proc.stdout).startswith("validation failed (")


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/g.txt"], "No such file"),
    (["--generate", "0"], "node count"),
    ([], "give a graph file or --generate"),
    (["--generate", "100", "--source", "100"], "--source is not a vertex"),
])
def test_bad_input_is_one_line(emulated, args, message):
    proc = run(emulated, *args)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr


def test_truncated_file_is_one_line(emulated, tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("3\n0 1\n1 1\n")
    proc = run(emulated, str(path))
    assert proc.returncode == 2 and "expected a node's first edge" in proc.stderr


def test_nvcc_builds(tmp_path):
    """The CUDA build: kernels through cuda_hip_compat.h, host calls on CUDA's runtime."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found")
    built(make("nvcc", tmp_path), tmp_path / "rodinia_bfs_step1")
    assert b"Kernel1" in (tmp_path / "rodinia_bfs_step1").read_bytes()


def test_hipcc_builds(tmp_path):
    if shutil.which("hipcc") is None:
        pytest.skip("hipcc not found (ROCm's HIP compiler; CI has hiprtc only)")
    built(make("hipcc", tmp_path, "HIP_ARCH=gfx90a"), tmp_path / "rodinia_bfs_step1")
