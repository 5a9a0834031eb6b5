"""Bounded input: a graph file is read only if it is a regular file, and only up to a limit.

A small ``.gz`` that inflates to gigabytes stops with one line as soon as it passes the
limit, without the memory; a FIFO, a device or a link to ``/dev/zero`` is refused before
it is opened, never a hang.
"""

import gzip
import lzma
import os
import subprocess
import sys
import tracemalloc

import pytest

from rodinia_bfs.cli import main
from rodinia_bfs.errors import GraphFormatError
from rodinia_bfs.graphs import formats
from rodinia_bfs.graphs.formats import (default_max_input_size, detect_format, load_graph,
                                        load_rodinia, save_graph)

from helpers import ROOT, awkward_graph

MIB = 1 << 20


def gzip_bomb(path, inflated: int):
    """A valid edge list ``0 1`` followed by ``inflated`` bytes of spaces, gzip'd: a few
    kilobytes on disk. Spaces, not zeros: the file stays a well-formed graph, so only the
    limit can stop it."""
    path.write_bytes(gzip.compress(b"0 1\n" + b" " * inflated, compresslevel=1))
    return path


def test_gzip_bomb_stopped_with_bounded_memory(tmp_path):
    path = gzip_bomb(tmp_path / "bomb.el.gz", 64 * MIB)
    assert path.stat().st_size < 1 * MIB
    tracemalloc.start()
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path, max_input_size=4 * MIB)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "decompresses to more than the input limit of 4.0 MiB" in str(caught.value)
    assert "\n" not in str(caught.value)
    # the limit, the 4 MiB read buffer of the compressed file and a 1 MiB chunk in
    # flight: nowhere near the 64 MiB it inflates to
    assert peak < 4 * MIB + 8 * MIB, f"peak {peak / MIB:.1f} MiB"


def test_gzip_bomb_on_the_command_line(tmp_path, capsys):
    path = gzip_bomb(tmp_path / "bomb.el.gz", 16 * MIB)
    assert main(["run", str(path), "--variant", "reference", "--max-input-size", "4MiB"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "input limit of 4.0 MiB" in err[0], err


def test_under_the_limit_reads(tmp_path):
    path = gzip_bomb(tmp_path / "fine.el.gz", 2 * MIB)
    graph = load_graph(path, max_input_size=3 * MIB)
    assert graph.num_vertices == 2 and graph.num_edges == 1


@pytest.mark.parametrize("name", ["g.txt", "g.mtx.xz", "g.gr", "g.npz", "g.npz.gz"])
def test_limit_applies_to_every_format(tmp_path, name):
    path = tmp_path / name
    save_graph(awkward_graph(), path)
    assert load_graph(path, max_input_size=64 * MIB) == load_graph(path)
    with pytest.raises(GraphFormatError, match="input limit of 100 bytes"):
        load_graph(path, max_input_size=100)


def test_plain_file_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.el"
    path.write_bytes(b"0 1\n" * 1000)
    monkeypatch.setattr(formats, "_read_into", lambda *a: pytest.fail("read it"))
    with pytest.raises(GraphFormatError, match="is 3.9 KiB: more than the input limit"):
        load_graph(path, max_input_size=1000)


def test_rodinia_reader_limited(tmp_path):
    path = tmp_path / "g.txt.xz"
    save_graph(awkward_graph(), path, source=2)
    with pytest.raises(GraphFormatError, match="input limit"):
        load_rodinia(path, max_input_size=50)
    assert load_rodinia(path)[1] == 2


def test_default_limit_from_available_memory():
    with open("/proc/meminfo") as meminfo:
        available = next(int(line.split()[1]) * 1024 for line in meminfo
                         if line.startswith("MemAvailable:"))
    # a quarter of what was available, give or take what changed in between
    assert abs(default_max_input_size() - available * formats.INPUT_MEMORY_SHARE) < 0.05 * available


def test_bench_reads_under_the_limit(tmp_path, capsys):
    path = gzip_bomb(tmp_path / "bomb.el.gz", 16 * MIB)
    status = main(["bench", str(path), "--variants", "reference", "--sources", "1",
                   "--max-input-size", "1MiB"])
    captured = capsys.readouterr()
    assert status != 0
    assert "input limit of 1.0 MiB" in captured.out + captured.err


# -- not a regular file: refused before it is opened ------------------------------------


def _cli(*argv, timeout=30):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "rodinia_bfs", *map(str, argv)], env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_fifo_refused_without_hanging(tmp_path):
    fifo = tmp_path / "graph.txt"
    os.mkfifo(fifo)
    # A reader that opened it would wait for a writer forever: the timeout fails the test.
    proc = _cli("run", fifo, "--variant", "reference", timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "is a FIFO (named pipe), not a regular file" in lines[0]


@pytest.mark.parametrize("name", ["zero.txt", "zero.el", "zero.gr.gz", "zero.npz"])
def test_link_to_dev_zero_refused(tmp_path, name):
    link = tmp_path / name
    link.symlink_to("/dev/zero")
    with pytest.raises(GraphFormatError, match="is a character device, not a regular file"):
        load_graph(link)
    assert detect_format(link) in ("rodinia", "edgelist", "gr", "npz")  # judged by name only


def test_fifo_refused_by_every_entry_point(tmp_path):
    fifo = tmp_path / "graph.el"
    os.mkfifo(fifo)
    for call in (lambda: load_graph(fifo), lambda: load_rodinia(fifo),
                 lambda: load_graph(fifo, cache=True), lambda: formats.rodinia_source(fifo)):
        with pytest.raises(GraphFormatError, match="FIFO"):
            call()


def test_directory_refused(tmp_path):
    with pytest.raises(GraphFormatError, match="is a directory, not a graph file"):
        load_graph(tmp_path, fmt="edgelist")


def test_xz_bomb_stopped(tmp_path):
    path = tmp_path / "bomb.mtx.xz"
    body = b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n" + b" " * (8 * MIB)
    path.write_bytes(lzma.compress(body, preset=0))
    assert path.stat().st_size < MIB
    with pytest.raises(GraphFormatError, match="decompresses to more than the input limit"):
        load_graph(path, max_input_size=MIB)
