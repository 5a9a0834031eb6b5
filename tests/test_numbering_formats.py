"""Vertex numbering and formats: --format, SNAP text by content, sparse ids renumbered,
--source-base, and result files that say how they number their vertices."""

import numpy as np
import pytest

from rodinia_bfs.cli import main
from rodinia_bfs.errors import GraphFormatError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.formats import (DENSE_IDS, FILE_BASE, detect_format, load_graph,
                                        save_graph)
from rodinia_bfs.resultfile import read_result_file, result_header, write_result_file

from helpers import awkward_graph, scipy_levels

SNAP = "# Directed graph (each unordered pair of nodes is saved once): x.txt\n" \
       "# Nodes: 4 Edges: 4\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t3\n3\t0\n"
SPARSE = "# sparse ids\n10 1000000000\n1000000000 2000000000\n2000000000 10\n7 10\n"


def run(capsys, *argv):
    status = main(["run", *map(str, argv), "--variant", "reference"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- SNAP text recognised by content ------------------------------------------------------


@pytest.mark.parametrize("name", ["soc.txt", "soc.txt.gz", "soc.txt.xz"])
def test_snap_txt_is_an_edge_list(tmp_path, name):
    import gzip
    import lzma

    data = SNAP.encode()
    data = gzip.compress(data) if name.endswith(".gz") else lzma.compress(data) \
        if name.endswith(".xz") else data
    path = tmp_path / name
    path.write_bytes(data)
    assert detect_format(path) == "edgelist"
    graph = load_graph(path)
    assert graph.num_vertices == 4 and graph.num_edges == 4
    assert graph.neighbors(3).tolist() == [0]


def test_rodinia_txt_still_rodinia(tmp_path):
    path = tmp_path / "g.txt"
    save_graph(awkward_graph(), path, source=7)
    assert detect_format(path) == "rodinia"
    assert load_graph(path) == load_graph(path, fmt="rodinia")


def test_snap_txt_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "soc.txt"
    path.write_text(SNAP)
    status, out, err = run(capsys, path, "--source", "2")
    assert status == 0, err
    assert "source 2, 4 vertices reached in 4 levels" in out


# -- --format -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt, ext", [("mtx", ".mtx"), ("gr", ".gr"), ("dimacs", ".gr"),
                                      ("edgelist", ".el"), ("npz", ".npz"),
                                      ("rodinia", ".txt")])
def test_format_flag_reads_a_file_without_extension(tmp_path, capsys, fmt, ext):
    graph = awkward_graph()
    named = tmp_path / f"g{ext}"
    save_graph(graph, named, fmt=fmt if fmt == "dimacs" else None)
    plain = tmp_path / "graph.data"
    plain.write_bytes(named.read_bytes())
    out_file = tmp_path / "r.txt"
    status, out, err = run(capsys, plain, "--format", fmt, "--source", "5",
                           "--result-file", out_file)
    assert status == 0, err
    np.testing.assert_array_equal(read_result_file(out_file), scipy_levels(load_graph(named), 5))


def test_format_flag_without_it_fails(tmp_path, capsys):
    plain = tmp_path / "graph.data"
    plain.write_text("0 1\n")
    status, out, err = run(capsys, plain)
    assert status == 1 and "unknown graph format" in err


def test_unknown_format_name_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["run", str(tmp_path / "g.el"), "--format", "csv"])
    assert caught.value.code == 2
    assert "invalid choice: 'csv'" in capsys.readouterr().err


def test_bench_format_flag(tmp_path, capsys):
    plain = tmp_path / "graph.data"
    save_graph(awkward_graph(), tmp_path / "g.mtx")
    plain.write_bytes((tmp_path / "g.mtx").read_bytes())
    status = main(["bench", str(plain), "--format", "mtx", "--variants", "reference",
                   "--sources", "1", "--json", str(tmp_path / "r.json")])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    import json

    results = json.loads((tmp_path / "r.json").read_text())
    assert results["graphs"][0]["vertices"] == awkward_graph().num_vertices


# -- sparse ids --------------------------------------------------------------------------


def test_sparse_ids_renumbered_with_the_map(tmp_path):
    path = tmp_path / "g.el"
    path.write_text(SPARSE)
    graph = load_graph(path)
    assert graph.vertex_ids.tolist() == [7, 10, 1000000000, 2000000000]
    # arcs as in the file, in dense numbers: 10->1e9, 1e9->2e9, 2e9->10, 7->10
    assert graph.neighbors(1).tolist() == [2]
    assert graph.neighbors(3).tolist() == [1]
    assert graph.neighbors(0).tolist() == [1]
    assert graph.num_vertices == 4 and graph.directed


def test_dense_ids_keep_their_numbers(tmp_path):
    """Isolated vertices below the largest id stay: ids are vertex numbers while dense."""
    path = tmp_path / "g.el"
    path.write_text("0 5\n5 9\n")
    graph = load_graph(path)
    assert graph.vertex_ids is None and graph.num_vertices == 10


def test_renumbering_rule_boundary(tmp_path):
    """Largest id below DENSE_IDS: kept however sparse; from DENSE_IDS on, renumbered when
    more than 16 numbers per distinct id."""
    path = tmp_path / "g.el"
    path.write_text(f"0 {DENSE_IDS - 1}\n")
    assert load_graph(path).vertex_ids is None
    path.write_text(f"0 {DENSE_IDS}\n")
    assert load_graph(path).vertex_ids.tolist() == [0, DENSE_IDS]


def test_sparse_ids_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "g.el"
    path.write_text(SPARSE)
    result = tmp_path / "r.txt"
    status, out, err = run(capsys, path, "--source", "1000000000", "--result-file", result)
    assert status == 0, err
    assert "source 1000000000," in out
    assert "the file's own" in out
    assert result.read_text().splitlines()[0] == result_header(ids=[0])
    levels, ids = read_result_file(result, with_ids=True)
    assert ids.tolist() == [7, 10, 1000000000, 2000000000]
    assert levels.tolist() == [-1, 2, 0, 1]


def test_sparse_ids_source_not_in_file(tmp_path, capsys):
    path = tmp_path / "g.el"
    path.write_text(SPARSE)
    status, out, err = run(capsys, path, "--source", "11")
    assert status == 1
    assert err.strip() == "rodinia-bfs: error: source 11 is not a vertex id of the file"


def test_sparse_ids_with_source_base_refused(tmp_path, capsys):
    path = tmp_path / "g.el"
    path.write_text(SPARSE)
    status, out, err = run(capsys, path, "--source-base", "1", "--source", "10")
    assert status == 1 and "renumbered" in err and len(err.strip().splitlines()) == 1


def test_sparse_ids_survive_symmetrize_and_npz(tmp_path):
    path = tmp_path / "g.el"
    path.write_text(SPARSE)
    graph = load_graph(path, symmetrize=True)
    assert graph.vertex_ids.tolist() == [7, 10, 1000000000, 2000000000]
    saved = tmp_path / "g.npz"
    save_graph(graph, saved)
    assert load_graph(saved).vertex_ids.tolist() == graph.vertex_ids.tolist()
    again = tmp_path / "again.el"
    save_graph(load_graph(path), again)  # an edge list written back keeps the file's ids
    assert "2000000000" in again.read_text()
    assert load_graph(again).vertex_ids.tolist() == graph.vertex_ids.tolist()


def test_sparse_ids_with_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RODINIA_BFS_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "g.el"
    path.write_text(SPARSE)
    first = load_graph(path, cache=True)
    second = load_graph(path, cache=True)  # from the cache
    assert second.vertex_ids.tolist() == first.vertex_ids.tolist()


# -- --source-base and the bases of the formats ----------------------------------------------


def test_file_bases():
    assert FILE_BASE == {"rodinia": 0, "mtx": 1, "gr": 1, "edgelist": 0, "npz": 0}


@pytest.mark.parametrize("name", ["g.mtx", "g.gr"])
def test_one_based_formats_say_so(tmp_path, capsys, name):
    path = tmp_path / name
    save_graph(awkward_graph(), path)
    status, out, err = run(capsys, path)
    assert status == 0, err
    assert "source 0 = vertex 1 of the file" in out
    status, out, err = run(capsys, path, "--source-base", "1", "--source", "1")
    assert status == 0, err
    assert "vertices numbered from 1, as in the" in out
    assert "source 1," in out


def test_source_base_one_result_file(tmp_path, capsys):
    path = tmp_path / "g.mtx"
    graph = awkward_graph()
    save_graph(graph, path)
    one, zero = tmp_path / "one.txt", tmp_path / "zero.txt"
    assert run(capsys, path, "--source-base", "1", "--source", "6", "--result-file", one)[0] == 0
    assert run(capsys, path, "--source", "5", "--result-file", zero)[0] == 0
    expected = scipy_levels(load_graph(path), 5)
    np.testing.assert_array_equal(read_result_file(one), expected)
    np.testing.assert_array_equal(read_result_file(zero), expected)
    lines = one.read_text().splitlines()
    assert lines[0] == "# rodinia-bfs levels; vertices numbered from 1"
    assert lines[1].startswith("1) cost:") and lines[6] == "6) cost:0"


def test_source_base_one_range(tmp_path, capsys):
    path = tmp_path / "g.mtx"
    save_graph(CSRGraph.from_edges([0, 1], [1, 2], 3), path)
    status, out, err = run(capsys, path, "--source-base", "1", "--source", "0")
    assert status == 1 and "source 0 is outside the graph (1..3)" in err
    status, out, err = run(capsys, path, "--source-base", "1", "--source", "3")
    assert status == 0 and "source 3, 1 vertices reached" in out


def test_rodinia_file_source_with_base_one(tmp_path, capsys):
    path = tmp_path / "g.txt"
    save_graph(awkward_graph(), path, source=4)
    status, out, err = run(capsys, path, "--source-base", "1")
    assert status == 0 and "source 5," in out  # the file's source 4, said from 1


# -- result files: the header, round trips, old files ------------------------------------------


@pytest.mark.parametrize("base", [0, 1])
def test_result_file_round_trip(tmp_path, base):
    levels = np.array([0, 1, -1, 2], dtype=np.int32)
    path = tmp_path / "r.txt"
    write_result_file(path, levels, base=base)
    assert path.read_text().splitlines()[0] == f"# rodinia-bfs levels; vertices numbered from {base}"
    back, ids = read_result_file(path, with_ids=True)
    np.testing.assert_array_equal(back, levels)
    assert ids.tolist() == list(range(base, base + 4))


def test_result_file_without_header_is_rodinias(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("0) cost:0\n1) cost:1\n2) cost:-1\n")
    assert read_result_file(path).tolist() == [0, 1, -1]
    path.write_text("1) cost:0\n")  # from 1 without saying so
    with pytest.raises(GraphFormatError, match="expected '0\\) cost:<level>'"):
        read_result_file(path)


def test_result_file_base_mismatch(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("# rodinia-bfs levels; vertices numbered from 1\n0) cost:0\n")
    with pytest.raises(GraphFormatError, match=":2: expected '1\\) cost:<level>'"):
        read_result_file(path)
    path.write_text("# something else\n0) cost:0\n")
    with pytest.raises(GraphFormatError, match="unknown header"):
        read_result_file(path)


def test_result_file_file_ids_must_increase(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text(result_header(ids=[1]) + "\n10) cost:0\n5) cost:1\n")
    with pytest.raises(GraphFormatError, match="ids increasing"):
        read_result_file(path)


def test_output_names_the_files_vertex_of_the_source(tmp_path, capsys):
    path = tmp_path / "g.gr"
    save_graph(awkward_graph(), path)
    status, out, err = run(capsys, path, "--source", "5")
    assert status == 0, err
    assert "source 5 = vertex 6 of the file" in out
