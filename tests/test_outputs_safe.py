"""Outputs: checked before any work, never an input, written whole or not at all.

Every command that writes (``run --result-file``, ``generate -o``, ``bench --json/--plot/
--out``) refuses an output that is the same file as an input, through symbolic and hard
links, and a folder that does not exist, before it reads a graph; and after every command
the input file is byte for byte what it was.
"""

import functools
import hashlib
import os

import numpy as np
import pytest

from rodinia_bfs import cli
from rodinia_bfs.cli import main
from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs import formats
from rodinia_bfs.graphs.formats import load_graph, save_graph
from rodinia_bfs.graphs.generators import grid2d
from rodinia_bfs.resultfile import read_result_file, write_result_file
from rodinia_bfs.safe_output import check_output, check_output_dir, replaced, same_file

from helpers import awkward_graph, scipy_levels


def digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def one_line_error(capsys, *fragments):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    for fragment in fragments:
        assert fragment in err[0], err
    return err[0]


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "g.txt"
    save_graph(awkward_graph(), path, source=3)
    return path


@pytest.fixture
def no_load(monkeypatch):
    """Fail the test if a graph is read: the check must come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("the graph was read before the output was checked")

    for name in ("load_graph", "load_rodinia", "_load"):
        monkeypatch.setattr(formats, name, refuse)


# -- the same file as the input ---------------------------------------------------------


def _aliases(tmp_path, graph_file):
    """The input itself, a symbolic link to it, a hard link to it, a path through '..'."""
    symlink, hardlink = tmp_path / "link.txt", tmp_path / "hard.txt"
    symlink.symlink_to(graph_file)
    os.link(graph_file, hardlink)
    other = tmp_path / "sub"
    other.mkdir()
    return {"itself": graph_file, "symlink": symlink, "hardlink": hardlink,
            "dotdot": other / ".." / graph_file.name}


@pytest.mark.parametrize("alias", ["itself", "symlink", "hardlink", "dotdot"])
def test_result_file_never_the_input(tmp_path, graph_file, capsys, alias):
    before = digest(graph_file)
    out = _aliases(tmp_path, graph_file)[alias]
    assert main(["run", str(graph_file), "--variant", "reference", "--result-file", str(out)]) == 1
    one_line_error(capsys, "cannot write result file", "it is the input file")
    assert digest(graph_file) == before


def test_same_file_follows_links(tmp_path, graph_file):
    aliases = _aliases(tmp_path, graph_file)
    assert all(same_file(path, graph_file) for path in aliases.values())
    copy = tmp_path / "copy.txt"
    copy.write_bytes(graph_file.read_bytes())
    assert not same_file(copy, graph_file)
    assert not same_file(tmp_path / "missing.txt", graph_file)


def test_input_through_link_output_plain(tmp_path, graph_file, capsys):
    """GRAPH given as a link, the result file as the real name: still the same file."""
    link = tmp_path / "link.txt"
    link.symlink_to(graph_file)
    assert main(["run", str(link), "--variant", "reference", "--result-file",
                 str(graph_file)]) == 1
    one_line_error(capsys, "it is the input file")


@pytest.mark.parametrize("option", ["--json", "--out", "--plot"])
def test_bench_outputs_never_an_input(tmp_path, graph_file, capsys, no_load, option):
    before = digest(graph_file)
    if option == "--json":
        target = graph_file
    else:  # a folder that holds the input under a name the bench writes
        target = tmp_path / "results"
        target.mkdir()
        name = "results.json" if option == "--out" else "gteps.png"
        os.link(graph_file, target / name)
    assert main(["bench", str(graph_file), "--variants", "reference", option, str(target)]) == 1
    one_line_error(capsys, f"cannot write {option} ", "it is the input file")
    assert digest(graph_file) == before


# -- the folder, checked before any work ------------------------------------------------


def test_missing_result_folder_fails_before_loading(tmp_path, graph_file, capsys, no_load):
    out = tmp_path / "no" / "such" / "r.txt"
    assert main(["run", str(graph_file), "--result-file", str(out)]) == 1
    one_line_error(capsys, f"cannot write result file {out}",
                   f"the folder {out.parent} does not exist")


def test_result_folder_is_a_file(tmp_path, graph_file, capsys, no_load):
    out = graph_file / "r.txt"  # the "folder" is the graph file
    assert main(["run", str(graph_file), "--result-file", str(out)]) == 1
    one_line_error(capsys, "is not a folder")


def test_result_file_is_a_folder(tmp_path, graph_file, capsys, no_load):
    assert main(["run", str(graph_file), "--result-file", str(tmp_path)]) == 1
    one_line_error(capsys, "it is a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_unwritable_folder(tmp_path, graph_file, capsys, no_load):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main(["run", str(graph_file), "--result-file", str(locked / "r.txt")]) == 1
        one_line_error(capsys, "is not writable")
    finally:
        locked.chmod(0o700)


def test_generate_missing_folder_before_generating(tmp_path, capsys, monkeypatch):
    from rodinia_bfs.graphs import generators

    original = generators.GENERATORS["kronecker"]

    @functools.wraps(original)  # keeps the summary and parameters the help shows
    def refuse(**kwargs):
        raise AssertionError("the graph was generated before the output was checked")

    monkeypatch.setitem(generators.GENERATORS, "kronecker", refuse)
    out = tmp_path / "missing" / "k.el"
    assert main(["generate", "kronecker", "--scale", "20", "-o", str(out)]) == 1
    one_line_error(capsys, f"cannot write {out}", "does not exist")


@pytest.mark.parametrize("option", ["--json", "--out", "--plot"])
def test_bench_missing_folder_fails_first(tmp_path, graph_file, capsys, no_load, option,
                                          monkeypatch):
    import rodinia_bfs.bench as bench

    monkeypatch.setattr(bench, "run_bench", lambda config: pytest.fail("measured first"))
    target = tmp_path / "typo" / ("r.json" if option == "--json" else "results")
    assert main(["bench", str(graph_file), option, str(target)]) == 1
    one_line_error(capsys, f"cannot write {option} ", "does not exist")


def test_bench_out_folder_may_be_new(tmp_path):
    """A results folder that does not exist yet is made (its parent must exist)."""
    assert check_output_dir(tmp_path / "new") == tmp_path / "new"
    with pytest.raises(RodiniaBFSError, match="does not exist"):
        check_output_dir(tmp_path / "new" / "deeper")


# -- whole or not at all ----------------------------------------------------------------


def test_interrupted_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        with replaced(path) as temporary:
            temporary.write_text("half of the new")
            raise KeyboardInterrupt
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.txt"]  # no temporary left


def test_interrupted_generate_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "g.el"
    save_graph(grid2d(3, 3), path)
    before = digest(path)

    def broken(out, graph, source):
        out.write(b"0 1\n")
        raise KeyboardInterrupt

    monkeypatch.setitem(formats._WRITERS, "edgelist", broken)
    with pytest.raises(KeyboardInterrupt):
        save_graph(grid2d(5, 5), path)
    assert digest(path) == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.el"]


def test_result_file_replaced_whole(tmp_path, graph_file):
    out = tmp_path / "r.txt"
    out.write_text("something else entirely\n" * 1000)
    assert main(["run", str(graph_file), "--variant", "reference", "--source", "5",
                 "--result-file", str(out)]) == 0
    np.testing.assert_array_equal(read_result_file(out),
                                  scipy_levels(load_graph(graph_file), 5))


# -- every command leaves its input byte for byte -----------------------------------------


@pytest.mark.parametrize("name", ["g.txt", "g.mtx", "g.gr.gz", "g.el.xz", "g.npz"])
def test_inputs_unchanged_after_every_command(tmp_path, name, capsys):
    path = tmp_path / name
    save_graph(awkward_graph(), path)
    before = digest(path)
    out = tmp_path / "out"
    out.mkdir()
    commands = [
        ["run", str(path), "--variant", "reference", "--validate",
         "--result-file", str(out / "r.txt")],
        ["run", str(path), "--variant", "reference", "--symmetrize", "--source-base", "1",
         "--source", "1", "--result-file", str(out / "r1.txt")],
        ["run", str(path), "--variant", "reference", "--result-file", str(path)],  # refused
        ["bench", str(path), "--variants", "reference", "--json", str(path)],  # refused
    ]
    for argv in commands:
        main(argv)
        assert digest(path) == before, argv
    capsys.readouterr()


def test_check_output_direct(tmp_path, graph_file):
    assert check_output(tmp_path / "new.txt", inputs=[graph_file]) == tmp_path / "new.txt"
    with pytest.raises(RodiniaBFSError, match="it is the input file"):
        check_output(graph_file, inputs=[None, graph_file])


def test_write_result_file_errors_are_one_line(tmp_path):
    with pytest.raises(RodiniaBFSError, match="cannot write result file .*does not exist"):
        write_result_file(tmp_path / "missing" / "r.txt", np.zeros(3, dtype=np.int32))


def test_check_happens_before_the_device(tmp_path, graph_file, capsys, monkeypatch):
    """A bad output path is found before the backend is even chosen."""
    import rodinia_bfs.api as api

    monkeypatch.setattr(api, "plan", lambda *a, **k: pytest.fail("planned first"))
    assert main(["run", str(graph_file), "--backend", "cpu",
                 "--result-file", str(tmp_path / "x" / "r.txt")]) == 1
    one_line_error(capsys, "does not exist")
    assert cli.EXIT_ERROR == 1
