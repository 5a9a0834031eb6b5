"""Damaged graph files: a reader returns a valid graph or raises GraphFormatError, nothing else.

Each example serialises a small random graph, damages the bytes (cuts, junk tokens, flipped
bytes, negative and huge numbers, lost or repeated lines) and loads the result. An alarm turns
a hang into a failure; hypothesis' deadline catches the merely slow.
"""

import gzip
import lzma
import os
import signal
from contextlib import contextmanager
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rodinia_bfs.errors import GraphFormatError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.graphs.formats import load_graph, load_rodinia, save_graph

# RODINIA_BFS_FUZZ_EXAMPLES=5000 for a longer hunt than the test suite's
FUZZ = settings(
    max_examples=int(os.environ.get("RODINIA_BFS_FUZZ_EXAMPLES", 150)),
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow],
)

# name -> extension and whether the graph written should be undirected
FORMATS = {
    "rodinia": (".txt", False),
    "mtx-general": (".mtx", False),
    "mtx-symmetric": (".mtx", True),
    "dimacs": (".gr", False),
    "pace": (".gr", True),
    "edgelist": (".el", False),
    "npz": (".npz", False),
}

JUNK = [b"x", b"-1", b"-0", b"1e5", b"3.5", b"+3", b"0x10", b"nan", b"\xff\xfe", b"\x00", b"p", b"a",
        b"%", b"#", b"c", b"2147483647", b"2147483648", b"4294967296", b"1048577",
        b"99999999999999999999", b"9" * 60, b"1" * 19, b"-9223372036854775809"]


@contextmanager
def alarm(seconds: int):
    """Fail instead of hanging: SIGALRM interrupts a reader stuck in a loop."""

    def expire(signum, frame):
        raise TimeoutError(f"reader still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@st.composite
def graphs(draw, undirected: bool):
    n = draw(st.integers(1, 9))
    m = draw(st.integers(0, 14))
    ends = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    graph = CSRGraph.from_edges(draw(ends), draw(ends), n, name="g")
    return graph.symmetrize() if undirected else graph


def mutate(data: bytes, draw) -> bytes:
    """One random kind of damage."""
    kind = draw(st.sampled_from(["cut", "token", "flip", "negative", "huge", "delete", "repeat", "insert"]))
    if kind == "cut":
        return data[: draw(st.integers(0, len(data)))]
    if kind == "flip":
        if not data:
            return data
        i = draw(st.integers(0, len(data) - 1))
        return data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1 :]
    if kind in ("delete", "repeat"):
        lines = data.split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        lines[i : i + 1] = [] if kind == "delete" else [lines[i]] * draw(st.integers(2, 4))
        return b"\n".join(lines)
    if kind == "insert":
        i = draw(st.integers(0, len(data)))
        return data[:i] + draw(st.binary(min_size=1, max_size=12)) + data[i:]
    # replace one token: with junk, a negative number or a huge one
    tokens = data.split(b" ")
    i = draw(st.integers(0, len(tokens) - 1))
    if kind == "negative":
        new = b"-" + str(draw(st.integers(0, 10**6))).encode()
    elif kind == "huge":
        new = str(draw(st.sampled_from([2**31 - 1, 2**31, 2**32, 2**40, 10**12, 2**63, 10**30]))).encode()
    else:
        new = draw(st.sampled_from(JUNK))
    head, sep, tail = tokens[i].partition(b"\n")  # keep the line structure around the token
    tokens[i] = new + sep + tail if draw(st.booleans()) else head + sep + new
    return b" ".join(tokens)


def check_loads_or_refuses(path, rodinia: bool):
    """The one property: a valid CSRGraph (and source) or a GraphFormatError naming the file."""
    try:
        with alarm(10):
            if rodinia:
                graph, source = load_rodinia(path)
            else:
                graph, source = load_graph(path), None
    except GraphFormatError as error:
        assert path.name in str(error)
        assert error.line is None or error.line >= 1
        return
    assert isinstance(graph, CSRGraph)
    offsets, targets, n = graph.offsets, graph.targets, graph.num_vertices
    assert offsets.dtype == np.int64 and targets.dtype == np.int32
    assert offsets[0] == 0 and offsets[-1] == targets.size
    assert np.all(np.diff(offsets) >= 0)
    assert targets.size == 0 or (targets.min() >= 0 and targets.max() < n)
    if rodinia:
        assert 0 <= source < max(n, 1)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@FUZZ
@given(data=st.data())
def test_damaged_file(workdir, fmt, data):
    extension, undirected = FORMATS[fmt]
    graph = data.draw(graphs(undirected))
    compression = data.draw(st.sampled_from(["", "", ".gz", ".xz"]))
    path = workdir / f"{fmt}{extension}"
    save_graph(graph, path, fmt="dimacs" if fmt == "dimacs" else None,
               source=data.draw(st.integers(0, graph.num_vertices - 1)))
    content = path.read_bytes()
    for _ in range(data.draw(st.integers(1, 3))):
        content = mutate(content, data.draw)
    target = workdir / f"{fmt}{extension}{compression}"
    if compression == ".gz":
        content = gzip.compress(content)
    elif compression == ".xz":
        content = lzma.compress(content)
    target.write_bytes(content)
    check_loads_or_refuses(target, rodinia=fmt == "rodinia")


@pytest.mark.parametrize("name", ["g.txt", "g.mtx", "g.gr", "g.el", "g.npz", "g.gr.gz", "g.mtx.xz", "g.npz.xz"])
@FUZZ
@given(content=st.binary(max_size=200))
def test_random_bytes(workdir, name, content):
    path = workdir / name
    path.write_bytes(content)
    check_loads_or_refuses(path, rodinia=False)


@pytest.mark.parametrize("name", ["g.gr.gz", "g.txt.xz", "g.npz.gz"])
@FUZZ
@given(data=st.data())
def test_damaged_compressed_stream(workdir, name, data):
    """Damage after compression: the decompressor's own errors must come out as GraphFormatError."""
    graph = data.draw(graphs(undirected=True))
    path = workdir / name
    save_graph(graph, path)
    content = mutate(path.read_bytes(), data.draw)
    path.write_bytes(content)
    check_loads_or_refuses(path, rodinia=False)


# -- compressed and oversized input: a clear error or the right answer, bounded memory ----

TEXT_FORMATS = {name: spec for name, spec in FORMATS.items() if name != "npz"}


@pytest.mark.parametrize("fmt", sorted(TEXT_FORMATS))
@settings(FUZZ, max_examples=int(os.environ.get("RODINIA_BFS_FUZZ_EXAMPLES", 25)))
@given(data=st.data())
def test_oversized_input(workdir, fmt, data):
    """A valid file padded with whitespace (a "bomb" when compressed), read under a limit:
    past the limit one GraphFormatError that says so, with memory near the limit; under it
    the same graph as without the padding."""
    import tracemalloc

    extension, undirected = FORMATS[fmt]
    graph = data.draw(graphs(undirected))
    compression = data.draw(st.sampled_from(["", ".gz", ".xz"]))
    plain = workdir / f"plain-{fmt}{extension}"
    save_graph(graph, plain, fmt="dimacs" if fmt == "dimacs" else None)
    content = plain.read_bytes() + b" " * data.draw(st.integers(0, 1 << 18))
    limit = data.draw(st.integers(1, 1 << 19))
    target = workdir / f"big-{fmt}{extension}{compression}"
    packed = {"": content, ".gz": gzip.compress(content, 1), ".xz": lzma.compress(content, preset=0)}
    target.write_bytes(packed[compression])
    tracemalloc.start()
    try:
        with alarm(10):
            loaded = load_graph(target, max_input_size=limit)
    except GraphFormatError as error:
        assert len(content) > limit and "input limit" in str(error), str(error)
        assert target.name in str(error)
    else:
        assert len(content) <= limit
        assert loaded == load_graph(plain)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    # the bytes under the limit, a few buffers (the compressed file's 4 MiB read buffer),
    # and the parse of a small graph: never the whole padded stream past the limit
    assert peak < min(len(content), limit) * 12 + (8 << 20), peak


@FUZZ
@given(content=st.binary(max_size=300).map(lambda b: b.replace(b"\x0b", b" ")),
       block=st.integers(1, 40), pieces=st.integers(1, 9))
def test_tokens_the_same_in_blocks(content, block, pieces):
    """The tokens of a file do not depend on the blocks it is scanned in, nor on the pieces
    its numbers are read in (a token is never cut at a block's edge)."""
    from rodinia_bfs.graphs import formats

    whole = formats._Tokens("g", content, comment=b"#%")
    previous = formats._TOKEN_BLOCK, formats._TOKENS_AT_ONCE
    formats._TOKEN_BLOCK, formats._TOKENS_AT_ONCE = block, pieces
    try:
        cut = formats._Tokens("g", content, comment=b"#%")
        assert np.array_equal(whole.start, cut.start) and np.array_equal(whole.end, cut.end)
        assert np.array_equal(whole.first, cut.first) and whole.last_line == cut.last_line
        assert np.array_equal(whole.uints(slice(None)), cut.uints(slice(None)))
        heads = cut.lines()[0]
        assert np.array_equal(whole.uints(heads), cut.uints(heads))
    finally:
        formats._TOKEN_BLOCK, formats._TOKENS_AT_ONCE = previous
