"""The command line contract: formats, result files, exit codes, one-line errors."""

import subprocess
import sys

import numpy as np
import pytest

from rodinia_bfs.cli import main
from rodinia_bfs.graphs.formats import load_graph, save_graph
from rodinia_bfs.graphs.generators import rodinia_graphgen
from rodinia_bfs.resultfile import read_result_file

from helpers import DATA, ROOT, awkward_graph, scipy_levels

FORMATS = ["g.txt", "g.mtx", "g.gr", "g.el", "g.npz", "g.txt.gz", "g.mtx.xz", "g.gr.gz", "g.el.xz"]


@pytest.mark.parametrize("filename", FORMATS)
def test_reference_result_file_every_format(tmp_path, filename):
    graph = awkward_graph()
    path = tmp_path / filename
    save_graph(graph, path, source=0)
    out = tmp_path / "result.txt"
    assert main(["run", str(path), "--source", "650", "--result-file", str(out), "--validate"]) == 0
    loaded = load_graph(path)
    np.testing.assert_array_equal(read_result_file(out), scipy_levels(loaded, 650))


@pytest.mark.parametrize("name", ["road/NY.gr.xz", "social/as-22july06.mtx"])
def test_reference_on_real_graphs(tmp_path, name):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    out = tmp_path / "result.txt"
    assert main(["run", str(path), "--source", "3", "--result-file", str(out)]) == 0
    np.testing.assert_array_equal(read_result_file(out), scipy_levels(load_graph(path), 3))


@pytest.mark.parametrize("warp_size", ["32", "64"])
def test_rodinia_on_cpu_backend(tmp_path, capsys, warp_size):
    path = tmp_path / "g.txt"
    save_graph(rodinia_graphgen(5000, seed=11), path, source=42)
    out = tmp_path / "result.txt"
    code = main(["run", str(path), "--variant", "rodinia", "--backend", "cpu",
                 "--warp-size", warp_size, "--validate", "--result-file", str(out)])
    assert code == 0
    assert "validation passed" in capsys.readouterr().out
    # the Rodinia file's own source (42) is the default
    np.testing.assert_array_equal(read_result_file(out), scipy_levels(load_graph(path), 42))


def test_all_variants_default_graph(capsys):
    assert main(["run", "--variant", "all", "--backend", "cpu", "--validate"]) == 0
    out = capsys.readouterr().out
    assert out.count("validation passed") >= 2


def _run_cli(*args):
    return subprocess.run([sys.executable, "-m", "rodinia_bfs", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


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


def test_unwritable_result_file(tmp_path):
    proc = _run_cli("run", "--result-file", str(tmp_path / "no" / "such" / "dir" / "r.txt"))
    assert proc.returncode == 1 and "cannot write result file" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("kind,options", [
    ("rodinia", ["--nodes", "1000"]),
    ("kronecker", ["--scale", "8"]),
    ("grid", ["--rows", "10", "--cols", "7"]),
    ("hubs", ["--rows", "40"]),
])
def test_generate_then_run(tmp_path, kind, options):
    out = tmp_path / f"{kind}.mtx"
    assert main(["generate", kind, *options, "-o", str(out)]) == 0
    graph = load_graph(out)
    assert graph.num_vertices > 0 and graph.num_edges > 0
    assert main(["run", str(out), "--validate"]) == 0


def test_generate_rejects_bad_sizes(tmp_path, capsys):
    assert main(["generate", "grid", "--rows", "0", "-o", str(tmp_path / "g.mtx")]) == 1
    assert "must be positive" in capsys.readouterr().err


def test_info(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for backend in ("hip", "cuda", "cpu"):
        assert backend in out
