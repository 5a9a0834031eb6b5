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
