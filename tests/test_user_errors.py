"""No traceback for a user mistake or missing hardware, anywhere.

Every case runs as the user would run it, in a fresh process: the ``rodinia-bfs``
command, the bench, the examples. Each must end with a non-zero exit status and exactly
one line on stderr, the reason, and never a traceback. Missing hardware is a GPU backend
asked for on a machine without that GPU (skipped where the GPU is there).
"""

import os
import subprocess
import sys

import pytest

from rodinia_bfs.runtime import probe_backends

from helpers import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("0[1-4]_*.py"))


def _run(argv, cwd=ROOT):
    env = dict(os.environ)
    # The checkout's package, whether or not it is installed, from any folder.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _run_cli(*args):
    return _run(["-m", "rodinia_bfs", *args])


def check_one_line(proc, *fragments, status=None):
    """A non-zero exit (or ``status``), one line on stderr holding every fragment, no traceback."""
    shown = f"exit status {proc.returncode}\nstdout:\n{proc.stdout[-2000:]}\nstderr:\n{proc.stderr[-3000:]}"
    assert proc.returncode != 0, shown
    if status is not None:
        assert proc.returncode == status, shown
    assert "Traceback" not in proc.stderr + proc.stdout, shown
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, shown
    for fragment in fragments:
        assert fragment in lines[0], shown


def gpu_present(backend: str) -> bool:
    return probe_backends()[backend][0]


# -- the command line ---------------------------------------------------------------------


def _cases(tmp):
    """(id, argv, fragments the one line must hold, exit status or None)."""
    tmp.joinpath("g.el").write_text("0 1\n1 2\n")
    tmp.joinpath("folder").mkdir()
    graph = tmp / "g.el"
    return [
        ("generate-missing-folder",
         ["generate", "rodinia", "--nodes", "1000", "-o", "/nonexistent/dir/x.txt"],
         ["cannot write /nonexistent/dir/x.txt", "/nonexistent/dir does not exist"], 1),
        ("generate-negative-nodes", ["generate", "rodinia", "--nodes", "-5", "-o", tmp / "x.txt"],
         ["--nodes must be positive, got -5"], 1),
        ("generate-zero-rows", ["generate", "grid", "--rows", "0", "-o", tmp / "g.mtx"],
         ["--rows must be positive"], 1),
        ("generate-huge-scale", ["generate", "kronecker", "--scale", "40", "-o", tmp / "k.mtx"],
         ["--scale 40: it must be between 1 and 30"], 1),
        ("generate-unknown-extension", ["generate", "grid", "--rows", "4", "-o", tmp / "g.xyz"],
         ["unknown graph format '.xyz'"], 1),
        ("generate-unknown-kind", ["generate", "tree", "-o", tmp / "g.mtx"],
         ["invalid choice: 'tree'"], 2),
        ("run-directory", ["run", tmp / "folder"], ["is a directory, not a graph file"], 1),
        ("run-no-extension", ["run", tmp / "graph"], ["unknown graph format '(no extension)'"], 1),
        ("run-unknown-variant", ["run", graph, "--variant", "warp-drive"],
         ["invalid choice: 'warp-drive'", "--help"], 2),
        ("run-negative-source", ["run", graph, "--source", "-1"],
         ["source -1 is outside the graph"], 1),
        ("run-warp-size-on-gpu", ["run", graph, "--backend", "hip", "--warp-size", "32"],
         ["warp size can only be chosen for the cpu emulator"], 1),
        ("bench-missing-data", ["bench", "--data", "/nonexistent", "--graphs", "as-22july06"],
         ["--data /nonexistent: no such folder"], 1),
        ("bench-missing-file", ["bench", tmp / "nope.gr"], ["nope.gr: no such file"], 1),
        ("bench-directory", ["bench", tmp / "folder"], ["is a directory"], 1),
        ("bench-graphs-without-suite", ["bench", graph, "--graphs", "road-NY"],
         ["--graphs picks graphs of a suite"], 1),
        ("bench-zero-sources", ["bench", "--sources", "0"], ["--sources must be at least 1"], 1),
        ("bench-unknown-graph", ["bench", "--graphs", "no-such-graph"],
         ["has no graph 'no-such-graph'"], 1),
    ]


CASE_IDS = [
    "generate-missing-folder", "generate-negative-nodes", "generate-zero-rows",
    "generate-huge-scale", "generate-unknown-extension", "generate-unknown-kind",
    "run-directory", "run-no-extension", "run-unknown-variant", "run-negative-source",
    "run-warp-size-on-gpu", "bench-missing-data", "bench-missing-file", "bench-directory",
    "bench-graphs-without-suite", "bench-zero-sources", "bench-unknown-graph",
]


@pytest.mark.parametrize("case", CASE_IDS)
def test_command_line_mistake(tmp_path, case):
    cases = {name: rest for name, *rest in _cases(tmp_path)}
    assert set(cases) == set(CASE_IDS)
    argv, fragments, status = cases[case]
    check_one_line(_run_cli(*argv), *fragments, status=status)


@pytest.mark.parametrize("backend", ["hip", "cuda"])
@pytest.mark.parametrize("command", ["run", "bench"])
def test_command_without_that_gpu(tmp_path, backend, command):
    if gpu_present(backend):
        pytest.skip(f"a {backend} GPU is present")
    graph = tmp_path / "g.el"
    graph.write_text("0 1\n1 2\n")
    args = ["run", graph] if command == "run" else ["bench", graph, "--variants", "rodinia"]
    check_one_line(_run_cli(*args, "--backend", backend), status=1)


# -- the cases that lived in test_cli.py (assertions unchanged) ------------------------

BAD_FILES = {
    "truncated.gr": "p sp 4 3\na 1 2 1\na 2 3 1\n",
    "junk.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 x\n",
    "range.el": "0 1\n1 -5\n",
    "huge.txt": "1000000000000\n0 1\n",
    "binary.gr": "\x00\x01\x02garbage\xff",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_malformed_file_one_line_error(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(BAD_FILES[name].encode("latin-1"))
    proc = _run_cli("run", str(path))
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_file_and_bad_source(tmp_path):
    proc = _run_cli("run", str(tmp_path / "nope.gr"))
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    path = tmp_path / "g.el"
    path.write_text("0 1\n1 2\n")
    proc = _run_cli("run", str(path), "--source", "3")
    assert proc.returncode == 1
    assert "source 3 is outside the graph" in proc.stderr and "Traceback" not in proc.stderr
    check_one_line(proc, "source 3 is outside the graph", status=1)


def test_unwritable_result_file(tmp_path):
    proc = _run_cli("run", "--variant", "reference",
                    "--result-file", str(tmp_path / "no" / "such" / "dir" / "r.txt"))
    assert proc.returncode == 1 and "cannot write result file" in proc.stderr
    assert "Traceback" not in proc.stderr
    check_one_line(proc, "cannot write result file", status=1)


# -- the examples -------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["hip", "cuda"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_without_that_gpu(tmp_path, path, backend):
    if gpu_present(backend):
        pytest.skip(f"a {backend} GPU is present")
    proc = _run([path, "--backend", backend], cwd=tmp_path)
    check_one_line(proc, f"{path.name}: error:", status=1)
