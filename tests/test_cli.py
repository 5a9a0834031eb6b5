"""The command line contract: formats, result files, exit codes, one-line errors."""

import re

import numpy as np
import pytest

from rodinia_bfs.cli import main
from rodinia_bfs.graphs.formats import load_graph, save_graph
from rodinia_bfs.graphs.generators import rodinia_graphgen
from rodinia_bfs.resultfile import read_result_file

from helpers import DATA, awkward_graph, scipy_levels

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


# -- what the command says ---------------------------------------------------------------


def test_version(capsys):
    import rodinia_bfs

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"rodinia-bfs {rodinia_bfs.__version__}"


def _subcommands():
    import argparse

    from rodinia_bfs.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices


@pytest.mark.parametrize("command", ["run", "generate", "info", "bench"])
def test_every_option_has_help_with_its_default(command):
    parser = _subcommands()[command]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.dest == "help":
            continue
        text = formatter._get_help_string(action) or ""
        assert text.strip(), f"{command} {action.option_strings or action.dest}: no help"
        if action.option_strings and "(required)" not in text:
            assert "default" in text, f"{command} {action.option_strings}: default not shown"
    assert parser.description


def test_generate_help_lists_kinds_and_formats(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    out = capsys.readouterr().out
    for kind in ("rodinia", "kronecker", "grid", "hubs"):
        assert re.search(rf"^  {kind} +\S", out, re.M), kind
    for extension in (".txt", ".rodinia", ".mtx", ".gr", ".el", ".edges", ".tsv", ".npz", ".gz", ".xz"):
        assert extension in out, extension
    assert "Generate a seeded, reproducible graph" in out


def test_counts_of_a_generated_grid(tmp_path, capsys):
    """A 300 x 300 grid: the command says what its own .gr header says."""
    path = tmp_path / "grid.gr"
    assert main(["generate", "grid", "--rows", "300", "-o", str(path)]) == 0
    out = capsys.readouterr().out
    assert "90,000 vertices, 358,800 arcs = 179,400 undirected edges" in out
    assert "p tw 90000 179400" in path.read_text()[:100]


@pytest.mark.parametrize("extension", [".txt", ".el", ".mtx", ".gr", ".npz"])
def test_generated_graph_reads_back_undirected(tmp_path, capsys, extension):
    path = tmp_path / f"g{extension}"
    assert main(["generate", "rodinia", "--nodes", "3000", "-o", str(path)]) == 0
    written = capsys.readouterr().out.split(": ", 1)[1].strip()
    assert "undirected edges" in written
    assert main(["run", str(path), "--variant", "reference"]) == 0
    assert f"{path}: {written}" in capsys.readouterr().out


def test_road_ny_counts(capsys):
    path = DATA / "road" / "NY.gr.xz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    assert main(["run", str(path), "--variant", "reference"]) == 0
    assert "264,346 vertices, 730,100 arcs = 365,050 undirected edges" in capsys.readouterr().out


def test_symmetrize_keeps_duplicates_and_loops(tmp_path, capsys):
    """The same counts with and without --symmetrize for a graph already undirected."""
    path = tmp_path / "k.mtx"
    assert main(["generate", "kronecker", "--scale", "13", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["run", str(path), "--variant", "reference"]) == 0
    plain = capsys.readouterr().out.splitlines()[0].split(": ", 1)[1]
    assert main(["run", str(path), "--variant", "reference", "--symmetrize"]) == 0
    symmetrized = capsys.readouterr().out.splitlines()[0].split(": ", 1)[1]
    assert plain == symmetrized and "262,144 arcs" in plain


def test_info_checks_hip_python_against_rocm(tmp_path, monkeypatch, capsys):
    from rodinia_bfs import rocm

    (tmp_path / ".info").mkdir()
    (tmp_path / ".info" / "version").write_text("6.2.0-66\n")
    monkeypatch.setenv("ROCM_PATH", str(tmp_path))
    monkeypatch.setattr(rocm, "hip_python_version", lambda: "10.0.0.0.1.2")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "ROCm: 6.2.0" in out
    assert 'hip-python 10.0.0.0.1.2 does not match ROCm 6.2.0' in out
    assert 'fix: pip install "hip-python~=6.2.0"' in out
    assert "default GPU step: adaptive" in out


@pytest.mark.parametrize("release, hip_python, expected", [
    ("6.2.0-66", "6.2.0.499.16", "hip-python 6.2.0.499.16: matches ROCm 6.2.0"),
    ("6.4.1", "6.4.4.555.40", "the same minor release as 6.4.1: fine for Python use"),
    ("6.4.1", "7.0.0.555.40", 'fix: pip install "hip-python~=6.4.0"'),
    ("5.7.1", "6.2.0.499.16", "PyPI has no hip-python for it"),
    ("6.3.0", None, 'hip-python: not installed; for this ROCm: pip install "hip-python~=6.3.0"'),
])
def test_hip_python_check(tmp_path, monkeypatch, release, hip_python, expected):
    from rodinia_bfs import rocm

    (tmp_path / ".info").mkdir()
    (tmp_path / ".info" / "version").write_text(release)
    monkeypatch.setattr(rocm, "_rocm_roots", lambda: [tmp_path])
    monkeypatch.setattr(rocm, "hip_python_version", lambda: hip_python)
    lines = rocm.check_hip_python()
    assert lines[0].startswith(f"ROCm: {'.'.join(release.split('-')[0].split('.')[:3])} (from ")
    assert expected in lines[1]


def test_rocm_release_from_the_library_name(tmp_path, monkeypatch):
    """Without .info/version (Debian's packages) the HIP library's name gives major.minor."""
    from rodinia_bfs import rocm

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libamdhip64.so.5.2.21153").write_bytes(b"")
    monkeypatch.setattr(rocm, "_rocm_roots", lambda: [tmp_path])
    assert rocm.rocm_version() == ((5, 2), str(tmp_path / "lib" / "libamdhip64.so.5.2.21153"))
    monkeypatch.setattr(rocm, "hip_python_version", lambda: "5.2.0.1.2")
    assert "matches ROCm 5.2" in rocm.check_hip_python()[1]
