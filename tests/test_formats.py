"""Graph files: every format read, written back, and refused cleanly when malformed."""

import gzip
import io
import lzma
import os
import re
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

from rodinia_bfs.errors import GraphFormatError
from rodinia_bfs.graphs import formats
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.formats import (
    cache_dir,
    detect_format,
    load_graph,
    load_rodinia,
    rodinia_source,
    save_graph,
)

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "data"
COMPRESSIONS = ["", ".gz", ".xz"]


def write(path: Path, content) -> Path:
    """Write text or bytes to ``path``, gzip- or xz-compressed when its name says so."""
    data = content.encode("latin-1") if isinstance(content, str) else content
    if path.suffix == ".gz":
        data = gzip.compress(data)
    elif path.suffix == ".xz":
        data = lzma.compress(data)
    path.write_bytes(data)
    return path


def arcs(graph: CSRGraph) -> list:
    """The graph's arcs as a sorted list: equal for graphs with the same edge multiset."""
    sources, targets = graph.edges()
    return sorted(zip(sources.tolist(), targets.tolist()))


# ---------------------------------------------------------------------------------------
# Good files: one example graph in every format
# ---------------------------------------------------------------------------------------

# Directed: a duplicate arc 0->1, a self loop at 3, vertex 4 isolated, arcs in file order.
DIRECTED = CSRGraph.from_edges([0, 0, 0, 1, 2, 3, 5], [1, 2, 1, 3, 3, 3, 0], 6)

DIRECTED_FILES = {
    "g.txt": "6\n0 3\n3 1\n4 1\n5 1\n6 0\n6 1\n\n5\n\n7\n1 1\n2 1\n1 1\n3 1\n3 1\n3 1\n0 1\n",
    "g.rodinia": "6 0 3 3 1 4 1 5 1 6 0 6 1 5 7 1 1 2 1 1 1 3 1 3 1 3 1 0 1",
    "g.gr": (
        "c a DIMACS file\n\np sp 6 7\nc comments may come anywhere\n"
        "a 1 2 1\na 1 3 5\na 1 2 1\na 2 4 1\n\na 3 4 2\na 4 4 1\r\na 6 1 1"
    ),
    "g.mtx": (
        "%%MatrixMarket matrix coordinate integer general\n% a comment\n%\n6 6 7\n"
        "1 2 1\n1 3 1\n1 2 -4\n2 4 1\n3 4 1\n4 4 1\n6 1 7\n"
    ),
    "g.el": "# SNAP-style\n% either comment character\n0 1\n0 2 extra fields\n\n0 1\n1 3\n2 3\n3 3\n5\t0\n",
    "g.edges": "0 1\n0 2\n0 1\n1 3\n2 3\n3 3\n5 0",
    "g.tsv": "#from\tto\n0\t1\n0\t2\n0\t1\n1\t3\n2\t3\n3\t3\n5\t0\n",
}

# Undirected: 0-1 twice, 1-2, a self loop at 2; vertices 3 and 4 isolated.
UNDIRECTED = CSRGraph.from_edges([0, 1, 0, 1, 2, 1, 2], [1, 0, 1, 0, 1, 2, 2], 5).as_undirected()

UNDIRECTED_FILES = {
    "u.gr": "c PACE road format\np tw 5 4\n1 2\n2 1\n2 3\nc\n3 3\n",
    "u.mtx": "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n2 1\n3 2\n3 3\n",
    "u_real.mtx": "%%MatrixMarket matrix coordinate real symmetric\n5 5 4\n2 1 0.5\n2 1 1e-3\n3 2 -2.\n3 3 7\n",
}


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("name", sorted(DIRECTED_FILES))
def test_directed_example_every_format(tmp_path, name, compression):
    path = write(tmp_path / (name + compression), DIRECTED_FILES[name])
    graph = load_graph(path)
    assert graph.directed and graph.num_vertices == 6
    # arcs keep their file order within each vertex, so the CSR arrays match exactly
    np.testing.assert_array_equal(graph.offsets, DIRECTED.offsets)
    np.testing.assert_array_equal(graph.targets, DIRECTED.targets)
    assert graph.name == name.split(".")[0]


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("name", sorted(UNDIRECTED_FILES))
def test_undirected_example(tmp_path, name, compression):
    graph = load_graph(write(tmp_path / (name + compression), UNDIRECTED_FILES[name]))
    assert not graph.directed and graph.num_vertices == 5
    assert arcs(graph) == arcs(UNDIRECTED)  # both ways, the self loop once


def test_fixture_files_agree():
    """tests/data holds the chapter-0 example in each format: all four are the same graph."""
    graphs = [load_graph(FIXTURES / f"example.{ext}") for ext in ("txt", "gr", "mtx", "el")]
    for graph in graphs[1:]:
        assert graph == graphs[0]
    assert arcs(graphs[0]) == [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert rodinia_source(FIXTURES / "example.txt") == 0


def test_rodinia_source_and_symmetrize(tmp_path):
    path = write(tmp_path / "g.txt", DIRECTED_FILES["g.txt"])
    graph, source = load_rodinia(path)
    assert source == 5 and graph == DIRECTED
    assert rodinia_source(path) == 5
    assert rodinia_source(write(tmp_path / "g.gr", DIRECTED_FILES["g.gr"])) is None
    undirected = load_graph(path, symmetrize=True)
    assert not undirected.directed and undirected == DIRECTED.symmetrize()


def test_rodinia_edges_in_another_order(tmp_path):
    """Starts need not follow node order, as long as each edge belongs to exactly one node."""
    # node 0's edges are listed last; node 1 has none and says "0 0"
    path = write(tmp_path / "g.txt", "3\n2 2\n0 0\n0 2\n0\n4\n0 1\n1 1\n1 1\n2 1\n")
    graph = load_graph(path)
    assert graph.neighbors(0).tolist() == [1, 2] and graph.neighbors(2).tolist() == [0, 1]


def test_empty_graphs(tmp_path):
    assert load_graph(write(tmp_path / "e.el", "# nothing\n")).num_vertices == 0
    assert load_graph(write(tmp_path / "e.gr", "p tw 3 0\n")).num_vertices == 3
    graph, source = load_rodinia(write(tmp_path / "e.txt", "0\n0\n0\n"))
    assert graph.num_vertices == 0 and source == 0


def test_fmt_overrides_extension(tmp_path):
    path = write(tmp_path / "graph.data.gz", DIRECTED_FILES["g.el"])
    assert load_graph(path, fmt="edgelist") == DIRECTED
    assert detect_format(tmp_path / "x.snap.xz") == "edgelist"
    assert detect_format(tmp_path / "x.gr") == "gr"
    with pytest.raises(ValueError, match="unknown graph format"):
        load_graph(path, fmt="csv")


# ---------------------------------------------------------------------------------------
# Bad files: one error, naming the file and the line
# ---------------------------------------------------------------------------------------

RODINIA_OK = "2\n0 1\n1 1\n\n0\n\n2\n1 1\n0 1\n"

# name -> (content, line, part of the message)
BAD_FILES = {
    # Rodinia text
    "empty.txt": ("", 1, "empty file"),
    "nodes_cut.txt": ("3\n0 1000\n1000 1000\n", 3, "after 2 of the 3 'start count' lines"),
    "no_source.txt": ("2\n0 1\n1 1\n", 3, "before the source"),
    "edges_cut.txt": ("2\n0 1\n1 1\n\n0\n\n2\n1 1\n", 8, "after 1 of the 2 'dest cost' lines"),
    "edges_extra.txt": (RODINIA_OK + "1 1\n", 10, "more than the 2 'dest cost' lines of the edge count"),
    "junk.txt": ("2\n0 1\n1 x\n\n0\n\n2\n1 1\n0 1\n", 3, "found 'x'"),
    "negative.txt": ("2\n0 -1\n1 1\n\n0\n\n2\n1 1\n0 1\n", 2, "negative out-degree -1 (valid: 0..2)"),
    "dest.txt": ("2\n0 1\n1 1\n\n0\n\n2\n1 1\n7 1\n", 9, "destination node 7 is out of range (valid: 0..1)"),
    "source.txt": ("2\n0 1\n1 1\n\n2\n\n2\n1 1\n0 1\n", 5, "source node 2 is out of range (valid: 0..1)"),
    "cost.txt": ("2\n0 1\n1 1\n\n0\n\n2\n1 1\n0 one\n", 9, "expected a number for the edge cost"),
    "sum.txt": ("2\n0 1\n1 0\n\n0\n\n2\n1 1\n0 1\n", 7, "the out-degrees add up to 1, but the edge count is 2"),
    "sum_over.txt": ("3\n0 1\n1 2\n3 1\n\n0\n\n2\n1 1\n0 1\n", 3, "out-degrees of nodes 0..1 add up to 3, more than the 2"),
    "overlap.txt": ("3\n0 2\n1 1\n3 0\n0\n3\n1 1\n2 1\n0 1\n", 3, "node 1: its edges overlap those of node 0"),
    "small_nodes.txt": ("3\n0 1\n1 1\n", 1, "node count 3 is more than a 10-byte file can hold"),
    "past.txt": ("2\n5 1\n0 1\n\n0\n\n2\n1 1\n0 1\n", 2, "node 0: edges 5..5 are past the 2 edges"),
    "huge_nodes.txt": ("1000000000000\n0 1\n", 1, "more than the 2147483647 that 32-bit vertex ids allow"),
    "big_nodes.txt": ("2000000000\n0 1\n", 1, "corrupt header?"),
    "big_edges.txt": ("2\n0 1\n1 1\n\n0\n\n1000000000000\n1 1\n", 7, "edge count 1000000000000 is more than a"),
    "binary.txt": ("\x00\x01\x02garbage\xff", 1, "expected node count"),
    "plus.rodinia": ("+2 0 1 1 1 0 2 1 1 0 1", 1, "found '+2'"),
    "float.rodinia": ("2.0 0 1 1 1 0 2 1 1 0 1", 1, "found '2.0'"),
    # DIMACS
    "cut.gr": ("p sp 4 3\na 1 2 1\na 2 3 1\n", 3, "file ends after 2 of the 3 arcs that line 1 announces"),
    "extra.gr": ("p sp 4 1\na 1 2 1\nc\na 2 3 1\n", 4, "more arcs than the 1 that line 1 announces"),
    "range.gr": ("c\np sp 4 2\na 1 2 1\na 2 5 1\n", 4, "vertex id 5 is out of range (valid: 1..4)"),
    "zero.gr": ("p sp 4 1\na 0 2 1\n", 2, "vertex id 0 is out of range (valid: 1..4)"),
    "weight.gr": ("p sp 4 1\na 1 2 w\n", 2, "expected a number for the arc weight"),
    "notarc.gr": ("p sp 4 2\na 1 2 1\nb 2 3 1\n", 3, "expected an arc 'a u v w'"),
    "fields.gr": ("p sp 4 2\na 1 2 1\na 2 3\n", 3, "expected 'a u v w' (4 fields), found 3"),
    "noheader.gr": ("c only comments\n", 1, "no header line"),
    "header.gr": ("c\np xx 4 2\n1 2\n", 2, "expected the header"),
    "header2.gr": ("1 2\np tw 4 2\n", 1, "expected the header"),
    "big_arcs.gr": ("p sp 4 1000000000000\na 1 2 1\n", 1, "the header announces 1000000000000 arcs, more than a 29-byte"),
    "vertices.gr": ("p tw 3000000000 1\n1 2\n", 1, "3000000000 vertices: more than the 2147483647"),
    "binary.gr": ("\x00\x01\x02garbage\xff", 1, "expected the header"),
    # PACE
    "cut_line.gr": ("p tw 3 2\n1 2\n2\n", 3, "expected 'u v' (2 fields), found 1"),
    "negative.gr": ("p tw 3 2\n1 2\n2 -3\n", 3, "negative vertex id -3 (valid: 1..3)"),
    "huge_id.gr": ("p tw 3 1\n1 99999999999999999999999\n", 2, "vertex id 99999999999999999999999 is out of range"),
    "zeros.gr": ("p tw 3 1\n1 00000000000000000000000003\n", 2, "vertex id 00000000000000000000000003 has more than 18 digits"),
    "long_zeros.gr": ("p tw 3 1\n1 000000000000000000000000000000000000000002\n", 2, "vertex id 000000000000000000000000... has more than 18 digits"),
    "negative_n.gr": ("p tw -3 1\n1 2\n", 1, "negative vertex count -3"),
    "huge_m.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 99999999999999999999\n", 2, "entry count 99999999999999999999 is too large"),
    "pace_cut.gr": ("p tw 3 3\n1 2\n2 3\n\n", 4, "file ends after 2 of the 3 edges"),
    # MatrixMarket
    "banner.mtx": ("3 3 1\n1 2\n", 1, "expected the banner"),
    "array.mtx": ("%%MatrixMarket matrix array real general\n3 3\n1\n", 1, "only sparse matrices"),
    "symmetry.mtx": ("%%MatrixMarket matrix coordinate pattern sideways\n3 3 1\n1 2\n", 1, "unknown field"),
    "square.mtx": ("%%MatrixMarket matrix coordinate pattern general\n%\n3 4 1\n1 2\n", 3, "a 3 x 4 matrix"),
    "junk.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 x\n", 4, "found 'x'"),
    "value.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n", 3, "expected a number for the value"),
    "fields.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n", 3, "(3 fields), found 2"),
    "nnz_short.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n", 3, "after 1 of the 3 entries"),
    "nnz_long.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n", 4, "more entries than the 1"),
    "col.mtx": ("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 4\n", 3, "column index 4 is out of range"),
    "nosize.mtx": ("%%MatrixMarket matrix coordinate pattern general\n% c\n", 2, "before the size line"),
    "big_nnz.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 10000000000\n1 2\n", 2, "more than a"),
    # edge lists
    "negative.el": ("0 1\n1 -5\n", 2, "negative vertex id -5"),
    "one_field.el": ("# c\n0 1\n\n7\n", 4, "expected 'source target', found one field"),
    "junk.el": ("# c\n% c\n0 1\nfrom to\n", 4, "found 'from'"),
    "huge.el": ("0 1000000000000000000\n", 1, "vertex id 1000000000000000000 is too large"),
    "binary.el": ("0 1\n\x00\xff\xfe 2\n", 2, "found '\\x00"),
}


@pytest.mark.parametrize("compression", ["", ".xz"])
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_names_file_and_line(tmp_path, name, compression):
    content, line, message = BAD_FILES[name]
    path = write(tmp_path / (name + compression), content)
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path)
    error = caught.value
    assert str(error).startswith(f"{path}:{line}: "), str(error)
    assert error.line == line and message in str(error), str(error)


def test_missing_file_directory_and_unknown_extension(tmp_path):
    with pytest.raises(GraphFormatError, match="no such file") as caught:
        load_graph(tmp_path / "nope.gr")
    assert "nope.gr" in str(caught.value)
    (tmp_path / "dir.mtx").mkdir()
    with pytest.raises(GraphFormatError, match="is a directory"):
        load_graph(tmp_path / "dir.mtx")
    with pytest.raises(GraphFormatError, match=r"unknown graph format '\.csv'.*\.mtx.*\.gr"):
        load_graph(write(tmp_path / "g.csv", "0 1\n"))


@pytest.mark.parametrize("name", ["g.gr.gz", "g.gr.xz", "g.npz.gz"])
def test_corrupt_compression(tmp_path, name):
    path = write(tmp_path / name, "p tw 3 1\n1 2\n")
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(data[: len(data) // 2]))  # cut in the middle of the stream
    with pytest.raises(GraphFormatError, match=name):
        load_graph(path)
    data[len(data) // 2] ^= 0x55
    path.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match=name):
        load_graph(path)


def _npz_bytes(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


GOOD_NPZ = dict(offsets=np.array([0, 1, 1], np.int64), targets=np.array([1], np.int32),
                directed=np.array(True), name=np.array("g"))


@pytest.mark.parametrize("change, message", [
    ({"targets": None}, "no array 'targets'"),
    ({"targets": np.array([1], np.int64)}, "array 'targets' has dtype int64"),
    ({"offsets": np.array([[0, 1]], np.int64)}, r"has dtype int64 and shape \(1, 2\)"),
    ({"offsets": np.array([0, 2, 1], np.int64)}, "inconsistent graph arrays"),
    ({"targets": np.array([5], np.int32)}, "inconsistent graph arrays"),
])
def test_bad_npz(tmp_path, change, message):
    arrays = {k: v for k, v in {**GOOD_NPZ, **change}.items() if v is not None}
    path = write(tmp_path / "g.npz", _npz_bytes(**arrays))
    with pytest.raises(GraphFormatError, match=message):
        load_graph(path)
    write(tmp_path / "junk.npz", b"PK\x03\x04 not really a zip")
    with pytest.raises(GraphFormatError, match="junk.npz"):
        load_graph(tmp_path / "junk.npz")


def test_npz_header_claiming_huge_array(tmp_path):
    """A .npy header may claim any shape; the reader compares it with the member's size first."""
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        member, {"descr": "<i8", "fortran_order": False, "shape": (10**12,)}
    )
    member.write(b"\0" * 16)
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("offsets.npy", member.getvalue())
    tracemalloc.start()
    with pytest.raises(GraphFormatError, match="claims 8000000000000 bytes"):
        load_graph(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20


HUGE_HEADERS = {
    "arcs.gr": "p sp 10 1000000000000\na 1 2 1\n",
    "edges.gr": "p tw 10 1000000000000\n1 2\n",
    "vertices.gr": "p tw 2000000000 1\n1 2\n",
    "entries.mtx": "%%MatrixMarket matrix coordinate pattern general\n10 10 1000000000000\n1 2\n",
    "rows.mtx": "%%MatrixMarket matrix coordinate pattern general\n2000000000 2000000000 1\n1 2\n",
    "nodes.txt": "1000000000\n0 1\n1 1\n",
    "edges.txt": "2\n0 1\n1 1\n0\n1000000000000\n1 1\n",
}


@pytest.mark.parametrize("name", sorted(HUGE_HEADERS))
def test_huge_header_fails_fast_without_allocating(tmp_path, name):
    path = write(tmp_path / name, HUGE_HEADERS[name])
    tracemalloc.start()
    began = time.perf_counter()
    with pytest.raises(GraphFormatError, match=name):
        load_graph(path)
    elapsed = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20, f"peak {peak} bytes"
    assert elapsed < 1.0


# ---------------------------------------------------------------------------------------
# Writing: every format reads back as the same graph
# ---------------------------------------------------------------------------------------


def awkward(directed: bool) -> CSRGraph:
    """Self loops, duplicates, isolated vertices (also the last ones), several components."""
    rng = np.random.default_rng(3)
    sources = np.concatenate([rng.integers(0, 40, 120), [7, 7, 9, 9, 41]])
    targets = np.concatenate([rng.integers(0, 40, 120), [7, 8, 8, 8, 42]])
    graph = CSRGraph.from_edges(sources, targets, 47, name="awkward")
    return graph if directed else graph.symmetrize()


def check_round_trip(original: CSRGraph, path: Path, fmt=None, source=0):
    save_graph(original, path, fmt=fmt, source=source)
    loaded = load_graph(path, fmt=fmt)
    kind = fmt or detect_format(path)
    # MatrixMarket, .gr (PACE when undirected) and npz record whether the graph is directed;
    # Rodinia text and edge lists cannot, and are undirected exactly when the arcs pair up:
    # an undirected graph survives the round trip in every format
    if kind in ("mtx", "gr", "npz"):
        assert loaded.directed == original.directed
    else:
        assert loaded.directed == (not original.is_symmetric())
    if not original.directed:
        assert not loaded.directed
        assert loaded.edge_counts() == original.edge_counts()
    sources, targets = original.edges()
    if kind == "edgelist":
        # isolated vertices after the largest id are not in the file
        assert loaded.num_vertices == max(sources.max(initial=-1), targets.max(initial=-1)) + 1
    else:
        assert loaded.num_vertices == original.num_vertices
    assert arcs(loaded) == arcs(original)
    if original.directed or kind not in ("mtx", "gr"):
        # every arc was written in CSR order, so the arrays come back exactly
        np.testing.assert_array_equal(loaded.targets, original.targets)
    if kind == "npz":
        assert loaded.name == original.name
    if kind == "rodinia":
        assert rodinia_source(path) == source


WRITE_NAMES = ["g.txt", "g.rodinia", "g.mtx", "g.gr", "g.el", "g.tsv", "g.npz"]


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("name", WRITE_NAMES)
@pytest.mark.parametrize("directed", [True, False])
def test_round_trip(tmp_path, name, compression, directed):
    check_round_trip(awkward(directed), tmp_path / (name + compression), source=7)


@pytest.mark.parametrize("fmt", ["dimacs", "pace"])
def test_round_trip_forced_gr_kind(tmp_path, fmt):
    graph = awkward(False)
    save_graph(graph, tmp_path / "g.gr", fmt=fmt)
    header = (tmp_path / "g.gr").read_text().splitlines()[1]
    assert header.startswith("p sp" if fmt == "dimacs" else "p tw")
    loaded = load_graph(tmp_path / "g.gr")
    assert arcs(loaded) == arcs(graph) and loaded.directed == (fmt == "dimacs")


def test_written_layouts(tmp_path):
    graph = CSRGraph.from_edges([0, 1, 1], [1, 0, 1], 2, name="two words").as_undirected()
    save_graph(graph, tmp_path / "g.mtx")
    assert (tmp_path / "g.mtx").read_text() == (
        "%%MatrixMarket matrix coordinate pattern symmetric\n% two words\n2 2 2\n2 1\n2 2\n"
    )
    save_graph(graph, tmp_path / "g.gr")
    assert (tmp_path / "g.gr").read_text() == "c two words\np tw 2 2\n2 1\n2 2\n"
    save_graph(graph, tmp_path / "g.txt", source=1)
    assert (tmp_path / "g.txt").read_text() == "2\n0 1\n1 2\n\n1\n\n3\n1 1\n0 1\n1 1\n"
    scipy_matrix = scipy.io.mmread(tmp_path / "g.mtx")
    assert scipy_matrix.shape == (2, 2) and scipy_matrix.nnz == 3


def test_writer_rejects_what_it_cannot_write(tmp_path):
    directed = awkward(True)
    with pytest.raises(ValueError, match="PACE"):
        save_graph(directed, tmp_path / "g.gr", fmt="pace")
    lopsided = CSRGraph(directed.offsets, directed.targets, directed=False)
    with pytest.raises(ValueError, match="not symmetric|no v -> u"):
        save_graph(lopsided, tmp_path / "g.mtx")
    with pytest.raises(ValueError, match="source 47"):
        save_graph(directed, tmp_path / "g.txt", source=47)


@st.composite
def graphs(draw):
    n = draw(st.integers(0, 12))
    m = draw(st.integers(0, 30)) if n else 0
    ends = st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m)
    graph = CSRGraph.from_edges(draw(ends), draw(ends), n, name=draw(st.sampled_from(["", "g", "a b"])))
    return graph if draw(st.booleans()) else graph.symmetrize()


@settings(max_examples=60, deadline=None)
@given(graph=graphs(), name=st.sampled_from(WRITE_NAMES), compression=st.sampled_from(COMPRESSIONS))
def test_round_trip_random_graphs(tmp_path_factory, graph, name, compression):
    path = tmp_path_factory.mktemp("rt") / (name + compression)
    check_round_trip(graph, path, source=graph.num_vertices - 1 if graph.num_vertices else 0)


# ---------------------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------------------


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("RODINIA_BFS_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "rodinia-bfs"
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("RODINIA_BFS_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "rodinia-bfs"


def test_cache_is_used_and_refreshed(monkeypatch, tmp_path):
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path / "cache"))
    path = write(tmp_path / "u.gr.gz", UNDIRECTED_FILES["u.gr"])
    first = load_graph(path, cache=True)
    entries = list((tmp_path / "cache").glob("*.npz"))
    assert len(entries) == 1

    # while the file is unchanged, the text reader is not needed
    def refuse(*args):
        raise AssertionError("the cache should have answered")

    monkeypatch.setitem(formats._READERS, "gr", refuse)
    again = load_graph(path, cache=True)
    assert again == first and again.name == "u"
    monkeypatch.undo()
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path / "cache"))

    # a damaged entry is ignored and rewritten
    entries[0].write_bytes(b"not an npz")
    assert load_graph(path, cache=True) == first
    assert load_graph(entries[0]) == first

    # symmetrize, or a changed file, gets its own entry
    load_graph(path, cache=True, symmetrize=True)
    write(path, "p tw 2 1\n1 2\n")
    os.utime(path, ns=(0, 12345))
    assert load_graph(path, cache=True).num_vertices == 2
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 3
    assert not list((tmp_path / "cache").glob("*.tmp"))


def test_cache_missing_file(monkeypatch, tmp_path):
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(GraphFormatError, match="no such file"):
        load_graph(tmp_path / "nope.mtx", cache=True)


# ---------------------------------------------------------------------------------------
# The real graphs of ../shared/data
# ---------------------------------------------------------------------------------------

# vertices and undirected edges, as ../shared/data/README.md states them
REAL_GRAPHS = {
    "road/NY.gr.xz": (264_346, 365_050),
    "road/BAY.gr.xz": (321_270, 397_415),
    "social/email-Enron.mtx": (36_692, 183_831),
    "social/as-22july06.mtx": (22_963, 48_436),
}


def real(name: str) -> Path:
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graph_counts(name):
    graph = load_graph(real(name))
    vertices, edges = REAL_GRAPHS[name]
    assert graph.num_vertices == vertices
    assert graph.num_edges == 2 * edges  # undirected: stored both ways
    assert not graph.directed
    assert graph.edge_counts().undirected_edges == edges
    assert graph.describe() == f"{vertices:,} vertices, {2 * edges:,} arcs = {edges:,} undirected edges"


def test_real_mtx_matches_scipy():
    path = real("social/as-22july06.mtx")
    graph = load_graph(path)
    matrix = scipy.io.mmread(path).tocsr()
    matrix.sort_indices()
    ours = scipy.sparse.csr_matrix(
        (np.ones(graph.num_edges), graph.targets, graph.offsets), shape=matrix.shape
    )
    ours.sort_indices()
    np.testing.assert_array_equal(ours.indptr, matrix.indptr)
    np.testing.assert_array_equal(ours.indices, matrix.indices)


def test_bay_loads_quickly():
    """A guard against a per-line Python parser creeping back, not a benchmark."""
    path = real("road/BAY.gr.xz")
    began = time.perf_counter()
    load_graph(path)
    assert time.perf_counter() - began < 3.0


# ---------------------------------------------------------------------------------------
# Counts that match the files; one policy for duplicates and self loops
# ---------------------------------------------------------------------------------------


def test_edge_counts_match_the_headers():
    """UNDIRECTED is 0-1 twice, 1-2 and a self loop at 2: the files above say 4 edges."""
    counts = UNDIRECTED.edge_counts()
    assert (counts.arcs, counts.self_loops, counts.undirected_edges) == (7, 1, 4)
    assert str(counts) == "7 arcs = 4 undirected edges"
    assert str(DIRECTED.edge_counts()) == "7 arcs (directed)"
    assert DIRECTED.edge_counts().undirected_edges is None
    for name, text in UNDIRECTED_FILES.items():
        header = [line for line in text.splitlines() if line[:1].isdigit() or line.startswith("p ")][0]
        assert int(header.split()[-1]) == counts.undirected_edges, name


@pytest.mark.parametrize("name", ["u.gr", "u.mtx"])
def test_symmetrize_keeps_what_a_plain_load_keeps(tmp_path, name):
    """Duplicates and self loops are kept with and without symmetrize: an undirected
    file symmetrizes to itself."""
    path = write(tmp_path / name, UNDIRECTED_FILES[name])
    plain, symmetrized = load_graph(path), load_graph(path, symmetrize=True)
    assert arcs(symmetrized) == arcs(plain) == arcs(UNDIRECTED)
    assert symmetrized.edge_counts() == plain.edge_counts()


def test_symmetrize_counts_copies():
    # 0 -> 1 twice and 1 -> 0 once; 2 -> 3 once; a self loop at 4 twice
    graph = CSRGraph.from_edges([0, 0, 1, 2, 4, 4], [1, 1, 0, 3, 4, 4], 5)
    both = graph.symmetrize()
    assert arcs(both) == [(0, 1), (0, 1), (1, 0), (1, 0), (2, 3), (3, 2), (4, 4), (4, 4)]
    assert not both.directed and both.is_symmetric()
    assert both.edge_counts().undirected_edges == 2 + 1 + 2
    assert arcs(both.symmetrize()) == arcs(both)  # idempotent
    assert not graph.is_symmetric()


def test_kronecker_symmetrize_drops_nothing(tmp_path):
    """The case of the issue: a generated Kronecker graph (with duplicates and self
    loops) has as many arcs after --symmetrize as before."""
    from rodinia_bfs.graphs.generators import kronecker

    graph = kronecker(10, progress=False)
    keys = graph.edges()[0].astype(np.int64) * graph.num_vertices + graph.targets
    assert np.unique(keys).size < keys.size  # it has duplicates to lose
    path = tmp_path / "k.mtx"
    save_graph(graph, path)
    assert load_graph(path).num_arcs == load_graph(path, symmetrize=True).num_arcs == graph.num_arcs


@pytest.mark.parametrize("name", WRITE_NAMES)
def test_generated_graphs_read_back_undirected(tmp_path, name):
    from rodinia_bfs.graphs.generators import grid2d, rodinia_graphgen

    for graph in (rodinia_graphgen(500, seed=3), grid2d(7, 9)):
        save_graph(graph, tmp_path / name)
        back = load_graph(tmp_path / name)
        assert not back.directed, (name, graph.name)
        assert back.edge_counts() == graph.edge_counts()


def test_grid_counts_as_its_gr_header(tmp_path):
    from rodinia_bfs.graphs.generators import grid2d

    graph = grid2d(300, 300)
    assert str(graph.edge_counts()) == "358,800 arcs = 179,400 undirected edges"
    save_graph(graph, tmp_path / "g.gr")
    with open(tmp_path / "g.gr") as lines:
        header = [line for line in lines if line.startswith("p ")][0]
    assert header.split() == ["p", "tw", "90000", "179400"]


def test_directory_and_writer_errors(tmp_path):
    with pytest.raises(GraphFormatError, match="is a directory, not a graph file"):
        load_graph(tmp_path)
    with pytest.raises(GraphFormatError, match="is a directory"):
        detect_format(tmp_path)
    from rodinia_bfs.errors import RodiniaBFSError

    with pytest.raises(RodiniaBFSError, match="the folder .* does not exist"):
        save_graph(DIRECTED, tmp_path / "no" / "g.mtx")
    # a graph the format cannot hold: a library error, and no file (nor half of one) left
    lopsided = CSRGraph(DIRECTED.offsets, DIRECTED.targets, directed=False)
    with pytest.raises(GraphFormatError, match="no v -> u"):
        save_graph(lopsided, tmp_path / "g.mtx")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["u.gr.xz", "u.gr"])
def test_big_file_shows_progress_in_a_log(tmp_path, monkeypatch, capsys, name):
    path = write(tmp_path / name, UNDIRECTED_FILES["u.gr"])
    monkeypatch.setattr(formats, "PROGRESS_BYTES", 1)
    assert arcs(load_graph(path)) == arcs(UNDIRECTED)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"loading {name} ..." and len(lines) == 2
    assert re.fullmatch(rf"loading {re.escape(name)}: 0\.0 MiB, done in \d+\.\d s", lines[1])
    monkeypatch.setattr(formats, "PROGRESS_BYTES", 1 << 30)
    load_graph(path)
    assert capsys.readouterr().err == ""


def test_big_file_progress_on_a_terminal(tmp_path, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(formats, "PROGRESS_BYTES", 1)
    load_graph(write(tmp_path / "u.gr.gz", UNDIRECTED_FILES["u.gr"]))
    shown = terminal.getvalue()
    assert "loading u.gr.gz" in shown and "\r" in shown and shown.count("\n") <= 1


def test_a_big_file_that_fails_is_not_done(tmp_path, monkeypatch, capsys):
    path = write(tmp_path / "bad.gr", "p sp 4 3\na 1 2 1\n")
    monkeypatch.setattr(formats, "PROGRESS_BYTES", 1)
    with pytest.raises(GraphFormatError):
        load_graph(path)
    lines = capsys.readouterr().err.splitlines()
    assert "stopped after" in lines[-1] and not any("done" in line for line in lines)
