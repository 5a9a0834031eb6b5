"""Graph files: read and write every format the tutorial uses.

===========================  =========================================  ===============================
format                       extensions                                 edges
===========================  =========================================  ===============================
Rodinia text                 ``.txt``, ``.rodinia``                     adjacency lists, as arcs (*)
MatrixMarket coordinate      ``.mtx``                                   ``general``: row -> column;
                                                                        ``symmetric``: undirected
DIMACS shortest path         ``.gr`` starting ``p sp n m``              ``a u v w`` arcs
PACE road graph              ``.gr`` starting ``p tw n m``              ``u v`` undirected edges
SNAP edge list               ``.el .edges .edgelist .tsv .snap``        ``u v`` arcs, 0-based (*)
binary cache                 ``.npz``                                   the CSR arrays as saved
===========================  =========================================  ===============================

Any of them may be compressed: ``.gz`` or ``.xz`` after the extension. (*) These two
formats cannot say whether a graph is directed: a file whose arcs pair up (each ``u v``
matched by a ``v u``) is read as undirected. Duplicate edges and self loops are kept as
the file lists them (:meth:`~rodinia_bfs.graphs.csr.CSRGraph.edge_counts` states the policy).

Every text reader follows one plan. Read the (decompressed) bytes; find all tokens with
numpy, which is fast because there is no Python step per line; compare the header's counts
with what the body really holds; check every id against its range. Only then is anything
built, and nothing is ever sized from a header alone. A bad file raises one
:class:`~rodinia_bfs.errors.GraphFormatError` that names the file and the line.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import lzma
import os
import re
import tempfile
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np

from rodinia_bfs.errors import GraphFormatError, RodiniaBFSError
from rodinia_bfs.graphs.csr import MAX_VERTICES, CSRGraph
from rodinia_bfs.progress import Progress

#: Reader for each file extension (after ``.gz`` / ``.xz`` is taken off).
EXTENSIONS = {
    ".txt": "rodinia",
    ".rodinia": "rodinia",
    ".mtx": "mtx",
    ".gr": "gr",
    ".el": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".tsv": "edgelist",
    ".snap": "edgelist",
    ".npz": "npz",
}

#: Names ``fmt=`` accepts. ``dimacs`` and ``pace`` both read any ``.gr`` file (its header
#: says which it is); for writing they choose ``p sp`` or ``p tw``.
FORMATS = ("rodinia", "mtx", "gr", "dimacs", "pace", "edgelist", "npz")

_COMPRESSED = {".gz": gzip.open, ".xz": lzma.open}

# The largest count a header may state. Eighteen digits always fit an int64; a real
# file is nowhere near 10**18 lines.
_MAX_COUNT = 10**18 - 1
_MAX_DIGITS = 18
_HUGE = 2**62  # stands for "an integer too large to matter": it fails every range check
_LONGEST_TOKEN = 40  # no cost or weight we accept is longer

# A header may declare vertices that no edge mentions (isolated vertices), but a count far
# beyond the file's size is a corrupt header. Refusing it keeps a damaged kilobyte file from
# allocating gigabytes of offsets.
_FREE_VERTICES = 1 << 20
_VERTICES_PER_BYTE = 16

_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\r\v\f")] = True
# Costs, weights and matrix values are ignored, so they are checked loosely: made of these.
_NUMBER_CHAR = np.zeros(256, dtype=bool)
_NUMBER_CHAR[list(b"0123456789+-.eE")] = True


# ---------------------------------------------------------------------------------------
# Public interface
# ---------------------------------------------------------------------------------------


def load_graph(
    path, *, fmt: str | None = None, symmetrize: bool = False, cache: bool = False
) -> CSRGraph:
    """Read a graph file; the format comes from the extension unless ``fmt`` names it.

    ``symmetrize=True`` returns the undirected version (:meth:`CSRGraph.symmetrize`).
    ``cache=True`` keeps a binary copy in :func:`cache_dir`, used while the file is unchanged.
    """
    path = Path(path)
    reader, compression = _format_of(path, fmt)
    cached = _cache_file(path, reader, symmetrize) if cache and reader != "npz" else None
    if cached is not None and cached.exists():
        try:
            return _read_npz(cached, cached)
        except (GraphFormatError, OSError):
            pass  # a damaged cache entry is rewritten below
    graph, _ = _load(path, reader, compression)
    if symmetrize:
        graph = graph.symmetrize()
    if cached is not None:
        _write_cache(cached, graph)
    return graph


def load_rodinia(path, *, symmetrize: bool = False) -> tuple[CSRGraph, int]:
    """Read a Rodinia text file: the graph, and the source vertex the file names."""
    path = Path(path)
    _, compression = _format_of(path, "rodinia")
    graph, source = _load(path, "rodinia", compression)
    return (graph.symmetrize() if symmetrize else graph), source


def rodinia_source(path, *, fmt: str | None = None) -> int | None:
    """The source vertex a Rodinia file names; ``None`` for every other format."""
    path = Path(path)
    reader, compression = _format_of(path, fmt)
    if reader != "rodinia":
        return None
    return _load(path, reader, compression)[1]


def detect_format(path, fmt: str | None = None) -> str:
    """The reader :func:`load_graph` would use: ``rodinia``, ``mtx``, ``gr``, ``edgelist`` or ``npz``."""
    return _format_of(Path(path), fmt)[0]


def cache_dir() -> Path:
    """Where ``load_graph(..., cache=True)`` keeps its copies.

    ``$RODINIA_BFS_CACHE``, else ``$XDG_CACHE_HOME/rodinia-bfs``, else ``~/.cache/rodinia-bfs``.
    """
    if os.environ.get("RODINIA_BFS_CACHE"):
        return Path(os.environ["RODINIA_BFS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rodinia-bfs"


def save_graph(graph: CSRGraph, path, *, fmt: str | None = None, source: int = 0) -> None:
    """Write ``graph`` in the format of ``path``'s extension (or ``fmt``); ``.gz``/``.xz`` compress.

    ``source`` goes into Rodinia files, which carry one. A ``.gr`` file is written as PACE
    (``p tw``, each edge once) for an undirected graph and as DIMACS (``p sp``) otherwise;
    ``fmt="dimacs"`` or ``fmt="pace"`` chooses. MatrixMarket is ``symmetric`` (each edge once,
    row >= column) for an undirected graph, ``general`` otherwise. Rodinia text and edge
    lists list every arc; they read back undirected because the arcs pair up (see
    :meth:`~rodinia_bfs.graphs.csr.CSRGraph.edge_counts`). An edge list cannot record
    isolated vertices after the largest id: they are lost.

    The file appears whole or not at all: it is written under a temporary name and
    renamed. A graph the format cannot hold raises :class:`GraphFormatError` (also a
    ``ValueError``); a folder that does not exist or cannot be written, a one-line
    :class:`~rodinia_bfs.errors.RodiniaBFSError`.
    """
    path = Path(path)
    if fmt is not None and fmt not in FORMATS:
        raise GraphFormatError(path, f"unknown graph format {fmt!r}; expected one of {', '.join(FORMATS)}")
    kind = fmt or _format_of(path, None)[0]
    if kind == "gr":
        kind = "dimacs" if graph.directed else "pace"
    if kind == "rodinia" and not 0 <= source < max(graph.num_vertices, 1):
        raise GraphFormatError(path, f"source {source} is outside the graph (0..{graph.num_vertices - 1})")
    compressor = _COMPRESSED.get(path.suffix.lower())
    # A name of our own beside the file (not mkstemp's: its file is private to the user).
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if kind == "npz" and compressor is not None:
            # zipfile seeks back while writing, which a compressed stream cannot do
            buffer = io.BytesIO()
            _write_npz(buffer, graph)
            with compressor(temporary, "wb") as out:
                out.write(buffer.getbuffer())
        else:
            with (compressor or open)(temporary, "wb") as out:
                if kind == "npz":
                    _write_npz(out, graph)
                else:
                    _WRITERS[kind](out, graph, source)
        os.replace(temporary, path)
    except ValueError as exc:  # a graph this format cannot hold
        raise GraphFormatError(path, str(exc)) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, FileNotFoundError) and not path.parent.is_dir():
            reason = f"the folder {path.parent} does not exist"
        raise RodiniaBFSError(f"cannot write {path}: {reason}") from None
    finally:
        if temporary.exists():
            temporary.unlink()


# ---------------------------------------------------------------------------------------
# Finding the reader and the bytes
# ---------------------------------------------------------------------------------------


def _format_of(path: Path, fmt: str | None) -> tuple[str, str | None]:
    """The reader for ``path`` (or for ``fmt``) and its compression suffix, if any."""
    if path.is_dir():
        raise GraphFormatError(path, "is a directory, not a graph file")
    name = path.name.lower()
    compression = next((c for c in _COMPRESSED if name.endswith(c)), None)
    if compression:
        name = name[: -len(compression)]
    if fmt is not None:
        if fmt not in FORMATS:
            raise GraphFormatError(path, f"unknown graph format {fmt!r}; expected one of {', '.join(FORMATS)}")
        return ("gr" if fmt in ("dimacs", "pace") else fmt), compression
    extension = os.path.splitext(name)[1]
    if extension not in EXTENSIONS:
        known = " ".join(EXTENSIONS)
        raise GraphFormatError(
            path,
            f"unknown graph format {extension or '(no extension)'!r}; "
            f"supported extensions: {known} (each optionally .gz or .xz)",
        )
    return EXTENSIONS[extension], compression


def graph_name(path: Path) -> str:
    """``BAY`` for ``BAY.gr.xz``: the file name without compression and format suffixes."""
    name = path.name
    for suffix in (*_COMPRESSED, *EXTENSIONS):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _read_bytes(path: Path, compression: str | None, bar=None) -> bytes:
    """The file's bytes, decompressed; any failure becomes a GraphFormatError. ``bar``
    (a :class:`~rodinia_bfs.progress.Progress`) counts the bytes read from the file."""
    bar = bar or Progress("", enabled=False)
    try:
        if compression is None:
            data = path.read_bytes()  # one fast read: nothing to show on the way
            bar.update(len(data))
            return data
        return _decompress(path, compression, bar)
    except FileNotFoundError:
        raise GraphFormatError(path, "no such file") from None
    except IsADirectoryError:
        raise GraphFormatError(path, "is a directory, not a graph file") from None
    except PermissionError:
        raise GraphFormatError(path, "permission denied") from None
    except MemoryError:
        raise GraphFormatError(path, "too large to read into memory") from None
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        raise GraphFormatError(path, f"cannot decompress ({compression}): {exc}") from None


#: Files from this size up (as stored, compressed or not) show their progress while
#: they are read and parsed.
PROGRESS_BYTES = 16 << 20
_CHUNK = 4 << 20


class _CountingReader(io.RawIOBase):
    """A file read through by a decompressor, counting the compressed bytes into ``bar``."""

    def __init__(self, raw, bar):
        self.raw, self.bar = raw, bar

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        self.bar.update(n or 0)
        return n


def _decompress(path: Path, compression: str, bar) -> bytes:
    """The decompressed bytes, counting the compressed bytes read into ``bar``."""
    with open(path, "rb") as raw:
        counted = io.BufferedReader(_CountingReader(raw, bar), _CHUNK)
        with _COMPRESSED[compression](counted, "rb") as stream:
            return stream.read()


def _load(path: Path, reader: str, compression: str | None) -> tuple[CSRGraph, int | None]:
    """Run one reader; returns the graph and, for Rodinia files, the source."""
    if not path.exists():
        raise GraphFormatError(path, "no such file")
    name = graph_name(path)
    if reader == "npz":
        # zipfile reads a plain file in place; a compressed one is decompressed into memory
        source = path if compression is None else io.BytesIO(_read_bytes(path, compression))
        return _read_npz(path, source), None
    size = path.stat().st_size
    # A big file shows its progress: the bytes read, then the time its parse took.
    with Progress(f"loading {path.name}", total=size, unit="B", unit_scale=True,
                  enabled=size >= PROGRESS_BYTES) as bar:
        data = _read_bytes(path, compression, bar)
        if size >= PROGRESS_BYTES:
            bar.status("parsing")
        if reader == "rodinia":
            return _read_rodinia(path, data, name)
        return _READERS[reader](path, data, name), None


# ---------------------------------------------------------------------------------------
# Tokens: the shared first step of every text reader
# ---------------------------------------------------------------------------------------


class _Tokens:
    """The whitespace-separated tokens of a file, found with numpy rather than a loop per line.

    Token ``i`` is ``data[start[i]:end[i]]``; ``first[i]`` says it opens its line. Lines whose
    first token starts with a byte of ``comment`` are dropped.
    """

    def __init__(self, path, data: bytes, comment: bytes = b""):
        self.path, self.data = path, data
        buf = self.buf = np.frombuffer(data, dtype=np.uint8)
        # Whitespace is the bytes <= 32 but for the control characters, which only junk contains.
        space = buf <= 32
        if np.count_nonzero(buf < 9) or np.count_nonzero(buf - np.uint8(14) < 18):
            space = _SPACE[buf]
        # With a space added at each end, a token starts where space turns to non-space
        # (a step of -1) and ends where it turns back (+1).
        padded = np.ones(buf.size + 2, dtype=np.int8)
        padded[1:-1] = space
        del space
        step = np.diff(padded)
        del padded
        start, end = np.flatnonzero(step == -1), np.flatnonzero(step == 1)
        del step
        # The first token after each newline opens a line.
        newlines = np.flatnonzero(buf == ord("\n"))
        first = np.zeros(start.size + 1, dtype=bool)
        first[0] = True
        first[np.searchsorted(start, newlines)] = True
        first = first[:-1]
        if comment:
            is_comment = np.isin(buf[start[first]], np.frombuffer(comment, dtype=np.uint8))
            if is_comment.any():
                # every token looks up whether its line (counted among non-empty lines) is a comment
                keep = ~is_comment[np.cumsum(first) - 1]
                start, end, first = start[keep], end[keep], first[keep]
        self.start, self.end, self.first = start, end, first
        # the line the file ends on (a final newline does not open another line)
        self.last_line = max(1, newlines.size + (0 if data.endswith(b"\n") else 1))

    def __len__(self) -> int:
        return self.start.size

    def line(self, i) -> int:
        """The 1-based line of token ``i``: counted only when an error needs it."""
        return self.data.count(b"\n", 0, int(self.start[i])) + 1

    def raw(self, i) -> bytes:
        return self.data[self.start[i] : self.end[i]]

    def text(self, i) -> str:
        """Token ``i``, shortened and made printable for an error message."""
        raw = self.raw(i)
        return raw[:24].decode("ascii", "replace") + ("..." if len(raw) > 24 else "")

    def error(self, i, message: str) -> GraphFormatError:
        return GraphFormatError(self.path, message, line=self.line(i))

    def end_error(self, message: str) -> GraphFormatError:
        return GraphFormatError(self.path, message, line=self.last_line)

    def is_letter(self, index, letter: bytes) -> np.ndarray:
        """Whether each chosen token is exactly the one byte ``letter``."""
        start = self.start[index]
        return (self.end[index] - start == 1) & (self.buf[start] == letter[0])

    def lines(self) -> tuple[np.ndarray, np.ndarray]:
        """The index of each line's first token, and how many tokens each line has."""
        heads = np.flatnonzero(self.first)
        return heads, np.diff(heads, append=len(self))

    def _by_length(self, index, longest: int):
        """Group the chosen tokens by length (up to ``longest``), so that each group is read
        one byte position at a time: ``(positions in the selection, first bytes, length)``."""
        start = self.start[index]
        length = self.end[index] - start
        for size in range(1, min(int(length.max(initial=0)), longest) + 1):
            which = np.flatnonzero(length == size)
            if which.size:
                yield which, start[which], size

    def uints(self, index) -> np.ndarray:
        """The chosen tokens as unsigned decimal integers.

        -1 marks a token that is not one; ``_HUGE`` one of more than 18 digits (never valid).
        """
        length = self.end[index] - self.start[index]
        values = np.where(length > _MAX_DIGITS, _HUGE, -1)
        for which, first, size in self._by_length(index, _MAX_DIGITS):
            value = np.zeros(which.size, dtype=np.int64)
            is_int = np.ones(which.size, dtype=bool)
            for k in range(size):
                digit = self.buf[first + k] - np.uint8(ord("0"))  # wraps past 9 for a non-digit
                is_int &= digit <= 9
                value = value * 10 + digit
            values[which] = np.where(is_int, value, -1)
        return values

    def ints(self, index, lo: int, hi: int, what: str) -> np.ndarray:
        """The chosen tokens as int64; each must be an integer in ``lo..hi``."""
        values = self.uints(index)
        bad = np.flatnonzero((values < lo) | (values > hi))
        if bad.size:
            raise self._value_error(np.arange(len(self))[index][bad[0]], lo, hi, what)
        return values

    def int_at(self, i: int, lo: int, hi: int, what: str) -> int:
        return int(self.ints(slice(i, i + 1), lo, hi, what)[0])

    def check_numbers(self, index, what: str) -> None:
        """The chosen tokens hold values we ignore (costs, weights); they must still look like numbers."""
        bad = self.end[index] - self.start[index] > _LONGEST_TOKEN
        for which, first, size in self._by_length(index, _LONGEST_TOKEN):
            ok = np.ones(which.size, dtype=bool)
            for k in range(size):
                ok &= _NUMBER_CHAR[self.buf[first + k]]
            bad[which] = ~ok
        if bad.any():
            i = np.arange(len(self))[index][np.argmax(bad)]
            raise self.error(i, f"expected a number for the {what}, found {self.text(i)!r}")

    def _value_error(self, i, lo: int, hi: int, what: str) -> GraphFormatError:
        raw = self.raw(i)
        if not re.fullmatch(rb"-?[0-9]+", raw) or re.fullmatch(rb"-0+", raw):
            return self.error(i, f"expected {what} (a non-negative integer), found {self.text(i)!r}")
        shown = raw.decode() if len(raw) <= _LONGEST_TOKEN else self.text(i)
        if raw.startswith(b"-"):
            problem = f"negative {what} {shown}"
        elif len(raw.lstrip(b"0")) <= _MAX_DIGITS < len(raw):
            problem = f"{what} {shown} has more than {_MAX_DIGITS} digits"
        else:
            problem = f"{what} {shown} is " + ("too large" if hi >= _MAX_COUNT else "out of range")
        if hi < _MAX_COUNT:  # an id: say which ones are valid
            problem += f" (valid: {lo}..{hi})" if hi >= lo else " (the graph has no vertices)"
        return self.error(i, problem)


def _check_vertex_count(tokens: _Tokens, i: int, n: int) -> None:
    """A vertex count must fit 32-bit ids, and be plausible for the file's size."""
    if n > MAX_VERTICES:
        raise tokens.error(i, f"{n} vertices: more than the {MAX_VERTICES} that 32-bit vertex ids allow")
    size = len(tokens.data)
    limit = max(_FREE_VERTICES, _VERTICES_PER_BYTE * size)
    if n > limit:
        raise tokens.error(i, f"{n} vertices in a {size}-byte file: corrupt header? (at most {limit} accepted)")


def _check_entry_count(tokens: _Tokens, header: int, declared: int, heads, what: str, min_bytes: int):
    """The body (one line per entry, first tokens ``heads``) must hold what the header says."""
    where = f"line {tokens.line(header)}"
    size = len(tokens.data)
    if heads.size > declared:
        raise tokens.error(heads[declared], f"more {what} than the {declared} that {where} announces")
    if heads.size < declared:
        if declared > size // min_bytes:
            message = f"the header announces {declared} {what}, more than a {size}-byte file can hold"
            raise tokens.error(header, message)
        raise tokens.end_error(f"file ends after {heads.size} of the {declared} {what} that {where} announces")


def _check_fields(tokens: _Tokens, heads, fields, width: int, layout: str):
    """Every body line must have ``width`` fields."""
    bad = np.flatnonzero(fields != width)
    if bad.size:
        raise tokens.error(heads[bad[0]], f"expected '{layout}' ({width} fields), found {fields[bad[0]]}")


def _directed_unless_paired(graph: CSRGraph) -> CSRGraph:
    """For the formats that cannot say (Rodinia text, edge lists): undirected exactly when
    every arc ``u -> v`` has a partner ``v -> u`` (:meth:`CSRGraph.is_symmetric`)."""
    return graph.as_undirected() if graph.is_symmetric() else graph


def _undirected(sources, targets, n: int, name: str) -> CSRGraph:
    """Each edge stored both ways; a self loop once (what ``directed=False`` does)."""
    return CSRGraph.from_edges(sources, targets, n, directed=False, name=name)


# ---------------------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------------------


# [reader-rodinia-begin]
def _read_rodinia(path, data: bytes, name: str) -> tuple[CSRGraph, int]:
    """Rodinia's text format, read as Rodinia's ``fscanf`` loop reads it: a stream of numbers.

    ``N``; ``N`` pairs ``start count`` (where each node's edges begin in the edge list, and
    how many); the source node; the edge count ``M``; ``M`` pairs ``dest cost``.
    """
    tokens = _Tokens(path, data)
    if len(tokens) == 0:
        raise tokens.end_error("empty file: expected the node count")
    n = tokens.int_at(0, 0, _MAX_COUNT, "node count")
    _check_vertex_count(tokens, 0, n)
    # Before the edges come 1 + 2n + 2 numbers; check they are there before using n.
    if len(tokens) < 2 * n + 3:
        if n > len(data) // 4:  # each "start count" line takes at least 4 bytes
            raise tokens.error(0, f"node count {n} is more than a {len(data)}-byte file can hold")
        if len(tokens) < 2 * n + 1:
            pairs = (len(tokens) - 1) // 2
            raise tokens.end_error(f"file ends after {pairs} of the {n} 'start count' lines")
        missing = "source" if len(tokens) == 2 * n + 1 else "edge count"
        raise tokens.end_error(f"file ends before the {missing}")
    source = tokens.int_at(2 * n + 1, 0, max(n - 1, 0), "source node")
    m = tokens.int_at(2 * n + 2, 0, _MAX_COUNT, "edge count")
    first_edge = 2 * n + 3
    edge_tokens = len(tokens) - first_edge
    if edge_tokens > 2 * m:
        raise tokens.error(first_edge + 2 * m, f"more than the {m} 'dest cost' lines of the edge count")
    if edge_tokens < 2 * m:
        if m > len(data) // 4:
            raise tokens.error(2 * n + 2, f"edge count {m} is more than a {len(data)}-byte file can hold")
        raise tokens.end_error(f"file ends after {edge_tokens // 2} of the {m} 'dest cost' lines")

    start = tokens.ints(slice(1, 2 * n + 1, 2), 0, _MAX_COUNT, "edge start")
    count = tokens.ints(slice(2, 2 * n + 2, 2), 0, m, "out-degree")
    targets = tokens.ints(slice(first_edge, None, 2), 0, n - 1, "destination node")
    tokens.check_numbers(slice(first_edge + 1, None, 2), "edge cost")

    # The counts alone give the CSR offsets. Each count is at most m, so the running sum
    # passes m (and is caught) long before it could overflow.
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(count, out=offsets[1:])
    over = np.flatnonzero(offsets[1:] > m)
    if over.size:
        v = int(over[0])
        raise tokens.error(2 * v + 2, f"the out-degrees of nodes 0..{v} add up to {offsets[v + 1]}, "
                                      f"more than the {m} edges")
    if offsets[-1] != m:
        raise tokens.error(2 * n + 2, f"the out-degrees add up to {offsets[-1]}, but the edge count is {m}")
    # Rodinia's generator lists each node's edges right after the previous node's, so the
    # starts equal the offsets. Any other layout must still use every edge exactly once.
    if not np.array_equal(start, offsets[:-1]):
        targets = targets[_gather_index(tokens, start, count, m)]
    # The format cannot say whether the graph is directed: the arcs decide.
    return _directed_unless_paired(CSRGraph(offsets, targets, name=name)), source
# [reader-rodinia-end]


def _gather_index(tokens: _Tokens, start: np.ndarray, count: np.ndarray, m: int) -> np.ndarray:
    """For Rodinia files whose edge ranges are not in node order: where each CSR edge is."""
    beyond = np.flatnonzero(start + count > m)
    if beyond.size:
        v = int(beyond[0])
        last = start[v] + count[v] - 1
        raise tokens.error(2 * v + 1, f"node {v}: edges {start[v]}..{last} are past the {m} edges")
    used = np.flatnonzero(count)
    order = used[np.argsort(start[used], kind="stable")]
    overlap = np.flatnonzero(start[order][1:] < (start + count)[order][:-1])
    if overlap.size:
        u, v = int(order[overlap[0]]), int(order[overlap[0] + 1])
        raise tokens.error(2 * v + 1, f"node {v}: its edges overlap those of node {u}")
    offsets = np.cumsum(count) - count
    return np.repeat(start - offsets, count) + np.arange(m)


# [reader-dimacs-begin]
def _read_gr(path, data: bytes, name: str) -> CSRGraph:
    """DIMACS (``p sp n m``, then ``a u v w`` arcs) or PACE (``p tw n m``, then ``u v`` edges).

    Both are 1-based and ``c`` starts a comment line. DIMACS arcs are directed (the weight
    is ignored); PACE edges are undirected, so each is stored both ways.
    """
    tokens = _Tokens(path, data, comment=b"c")
    heads, fields = tokens.lines()
    header = "'p sp <vertices> <arcs>' (DIMACS) or 'p tw <vertices> <edges>' (PACE)"
    if heads.size == 0:
        raise tokens.end_error(f"no header line {header}")
    h = heads[0]
    kind = tokens.text(h + 1) if fields[0] > 1 else ""
    if tokens.raw(h) != b"p" or fields[0] != 4 or kind not in ("sp", "tw"):
        raise tokens.error(h, f"expected the header {header}")
    n = tokens.int_at(h + 2, 0, _MAX_COUNT, "vertex count")
    _check_vertex_count(tokens, h + 2, n)
    m = tokens.int_at(h + 3, 0, _MAX_COUNT, "edge count")
    directed = kind == "sp"
    heads, fields = heads[1:], fields[1:]
    if directed:
        _check_fields(tokens, heads, fields, 4, "a u v w")
        _check_entry_count(tokens, h + 3, m, heads, "arcs", min_bytes=8)
        not_arc = np.flatnonzero(~tokens.is_letter(heads, b"a"))
        if not_arc.size:
            i = heads[not_arc[0]]
            raise tokens.error(i, f"expected an arc 'a u v w', found a line starting {tokens.text(i)!r}")
        heads = heads + 1  # step over the "a"
    else:
        _check_fields(tokens, heads, fields, 2, "u v")
        _check_entry_count(tokens, h + 3, m, heads, "edges", min_bytes=4)
    sources = tokens.ints(heads, 1, n, "vertex id") - 1
    targets = tokens.ints(heads + 1, 1, n, "vertex id") - 1
    if directed:
        tokens.check_numbers(heads + 2, "arc weight")
        return CSRGraph.from_edges(sources, targets, n, directed=True, name=name)
    return _undirected(sources, targets, n, name)
# [reader-dimacs-end]


_MTX_VALUES = {b"pattern": 0, b"integer": 1, b"real": 1, b"double": 1, b"complex": 2}
_MTX_SYMMETRY = (b"general", b"symmetric", b"skew-symmetric", b"hermitian")


def _read_mtx(path, data: bytes, name: str) -> CSRGraph:
    """MatrixMarket ``coordinate``: banner, ``%`` comments, ``rows cols entries``, then entries.

    Each entry ``row col [value...]`` is 1-based; values are ignored. ``general`` entries are
    arcs row -> column; ``symmetric`` (and skew-symmetric, hermitian) entries are undirected
    edges, stored both ways, a diagonal entry once.
    """
    banner_form = "'%%MatrixMarket matrix coordinate <field> <symmetry>'"
    words = data.split(b"\n", 1)[0].lower().split()
    if len(words) != 5 or words[0] != b"%%matrixmarket":
        raise GraphFormatError(path, f"expected the banner {banner_form}", line=1)
    if words[1:3] != [b"matrix", b"coordinate"]:
        raise GraphFormatError(path, f"only sparse matrices are graphs: expected {banner_form}", line=1)
    if words[3] not in _MTX_VALUES or words[4] not in _MTX_SYMMETRY:
        shown = b" ".join(words[3:]).decode("ascii", "replace")
        raise GraphFormatError(path, f"unknown field or symmetry {shown!r} in the banner", line=1)
    width = 2 + _MTX_VALUES[words[3]]
    directed = words[4] == b"general"

    tokens = _Tokens(path, data, comment=b"%")
    heads, fields = tokens.lines()
    if heads.size == 0:
        raise tokens.end_error("file ends before the size line 'rows columns entries'")
    h = heads[0]
    if fields[0] != 3:
        raise tokens.error(h, f"expected the size line 'rows columns entries', found {fields[0]} fields")
    rows = tokens.int_at(h, 0, _MAX_COUNT, "row count")
    columns = tokens.int_at(h + 1, 0, _MAX_COUNT, "column count")
    entries = tokens.int_at(h + 2, 0, _MAX_COUNT, "entry count")
    if rows != columns:
        raise tokens.error(h, f"a {rows} x {columns} matrix: a graph's adjacency matrix is square")
    n = rows
    _check_vertex_count(tokens, h, n)
    heads, fields = heads[1:], fields[1:]
    _check_fields(tokens, heads, fields, width, "row column" + " value" * (width - 2))
    _check_entry_count(tokens, h + 2, entries, heads, "entries", min_bytes=2 * width)
    sources = tokens.ints(heads, 1, n, "row index") - 1
    targets = tokens.ints(heads + 1, 1, n, "column index") - 1
    for column in range(2, width):
        tokens.check_numbers(heads + column, "value")
    if directed:
        return CSRGraph.from_edges(sources, targets, n, directed=True, name=name)
    return _undirected(sources, targets, n, name)


def _read_edgelist(path, data: bytes, name: str) -> CSRGraph:
    """SNAP-style edge list: ``u v`` per line (more fields are ignored), 0-based, ``#``/``%`` comments.

    Nothing declares the vertex count: the graph has max id + 1 vertices.
    """
    tokens = _Tokens(path, data, comment=b"#%")
    heads, fields = tokens.lines()
    short = np.flatnonzero(fields < 2)
    if short.size:
        raise tokens.error(heads[short[0]], "expected 'source target', found one field")
    sources = tokens.ints(heads, 0, MAX_VERTICES - 1, "vertex id")
    targets = tokens.ints(heads + 1, 0, MAX_VERTICES - 1, "vertex id")
    n = 0
    if heads.size:
        largest = np.maximum(sources, targets)
        line = int(np.argmax(largest))
        n = int(largest[line]) + 1
        _check_vertex_count(tokens, heads[line] + int(targets[line] > sources[line]), n)
    return _directed_unless_paired(CSRGraph.from_edges(sources, targets, n, name=name))


def _read_npz(path, source) -> CSRGraph:
    """Our binary format: ``offsets``, ``targets``, ``directed`` and ``name``, as ``np.savez`` wrote them.

    ``np.load`` would allocate whatever shape an array's header claims, so each header is
    checked against the size of its zip member before the data is read.
    """
    try:
        with zipfile.ZipFile(source) as archive:
            offsets = _npz_array(path, archive, "offsets", "i", 8, 1)
            targets = _npz_array(path, archive, "targets", "i", 4, 1)
            directed = _npz_array(path, archive, "directed", "b", 1, 0)
            name = _npz_array(path, archive, "name", "U", None, 0)
    except GraphFormatError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, KeyError,
            NotImplementedError, RuntimeError, zlib.error, lzma.LZMAError) as exc:
        # everything zipfile and numpy's header parser raise on damaged input
        raise GraphFormatError(path, f"not a readable .npz graph ({type(exc).__name__}: {exc})") from None
    try:
        return CSRGraph(offsets, targets, directed=bool(directed[()]), name=str(name[()]))
    except ValueError as exc:
        raise GraphFormatError(path, f"inconsistent graph arrays: {exc}") from None


def _npz_array(path, archive: zipfile.ZipFile, key: str, kind: str, itemsize: int | None, ndim: int):
    """One array of a ``.npz``, its header checked before its data is read."""
    try:
        info = archive.getinfo(key + ".npy")
    except KeyError:
        raise GraphFormatError(path, f"no array {key!r}: not a graph saved by rodinia-bfs") from None
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise GraphFormatError(path, f"array {key!r}: unsupported .npy version {version}")
        if dtype.kind != kind or (itemsize and dtype.itemsize != itemsize) or len(shape) != ndim:
            raise GraphFormatError(path, f"array {key!r} has dtype {dtype} and shape {shape}")
        nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if nbytes > info.file_size:
            message = f"array {key!r} claims {nbytes} bytes; its file holds {info.file_size}"
            raise GraphFormatError(path, message)
        raw = member.read(nbytes)
    if len(raw) != nbytes:
        raise GraphFormatError(path, f"array {key!r} is truncated")
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


_READERS = {"mtx": _read_mtx, "gr": _read_gr, "edgelist": _read_edgelist}


# ---------------------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------------------


def _write_rows(out, template: str, *columns) -> None:
    """Write one ``template % row`` line per row, a block at a time (much faster than per row)."""
    rows = np.column_stack([np.asarray(c, dtype=np.int64) for c in columns])
    block = 1 << 16
    for i in range(0, len(rows), block):
        chunk = rows[i : i + block]
        out.write(((template * len(chunk)) % tuple(chunk.ravel().tolist())).encode("ascii"))


def _comment(graph: CSRGraph) -> str:
    """The graph's name, safe to put on one comment line."""
    return " ".join(graph.name.split()) or "graph"


def _each_edge_once(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """Edges ``u -> v`` with ``u >= v`` of an undirected graph: every undirected edge once."""
    if not graph.is_symmetric():
        raise ValueError(f"{graph!r} is marked undirected, but some edge u -> v has no v -> u")
    sources, targets = graph.edges()
    sources, targets = sources.astype(np.int64), targets.astype(np.int64)
    keep = sources >= targets
    return sources[keep], targets[keep]


def _write_rodinia(out, graph: CSRGraph, source: int) -> None:
    out.write(f"{graph.num_vertices}\n".encode())
    _write_rows(out, "%d %d\n", graph.offsets[:-1], graph.degrees())
    out.write(f"\n{source}\n\n{graph.num_edges}\n".encode())
    _write_rows(out, "%d 1\n", graph.targets)


def _write_mtx(out, graph: CSRGraph, source: int) -> None:
    if graph.directed:
        rows, columns = graph.edges()
    else:
        rows, columns = _each_edge_once(graph)
    symmetry = "general" if graph.directed else "symmetric"
    n = graph.num_vertices
    out.write(f"%%MatrixMarket matrix coordinate pattern {symmetry}\n% {_comment(graph)}\n".encode())
    out.write(f"{n} {n} {len(rows)}\n".encode())
    _write_rows(out, "%d %d\n", rows + 1, columns + 1)


def _write_dimacs(out, graph: CSRGraph, source: int) -> None:
    sources, targets = graph.edges()
    out.write(f"c {_comment(graph)}\np sp {graph.num_vertices} {graph.num_edges}\n".encode())
    _write_rows(out, "a %d %d 1\n", sources + 1, targets + 1)


def _write_pace(out, graph: CSRGraph, source: int) -> None:
    if graph.directed:
        raise ValueError("PACE 'p tw' files are undirected: symmetrize the graph, or write DIMACS 'p sp'")
    sources, targets = _each_edge_once(graph)
    out.write(f"c {_comment(graph)}\np tw {graph.num_vertices} {len(sources)}\n".encode())
    _write_rows(out, "%d %d\n", sources + 1, targets + 1)


def _write_edgelist(out, graph: CSRGraph, source: int) -> None:
    sources, targets = graph.edges()
    out.write(f"# {_comment(graph)}: one arc 'source target' per line, 0-based\n".encode())
    _write_rows(out, "%d %d\n", sources, targets)


def _write_npz(out, graph: CSRGraph) -> None:
    np.savez(
        out,
        offsets=graph.offsets,
        targets=graph.targets,
        directed=np.array(graph.directed),
        name=np.array(graph.name),
    )


_WRITERS = {
    "rodinia": _write_rodinia,
    "mtx": _write_mtx,
    "dimacs": _write_dimacs,
    "pace": _write_pace,
    "edgelist": _write_edgelist,
}


# ---------------------------------------------------------------------------------------
# The binary cache
# ---------------------------------------------------------------------------------------

_CACHE_VERSION = 2  # bump when a reader changes what it returns


def _cache_file(path: Path, reader: str, symmetrize: bool) -> Path:
    """A name that changes whenever the file (path, size, modification time) or the request does."""
    try:
        stat = path.resolve().stat()
    except FileNotFoundError:
        raise GraphFormatError(path, "no such file") from None
    except OSError as exc:
        raise GraphFormatError(path, f"cannot read: {exc.strerror}") from None
    key = (_CACHE_VERSION, str(path.resolve()), stat.st_size, stat.st_mtime_ns, reader, bool(symmetrize))
    return cache_dir() / f"{hashlib.sha256(repr(key).encode()).hexdigest()}.npz"


def _write_cache(file: Path, graph: CSRGraph) -> None:
    """Store a cache entry; write to a temporary file and rename, so no reader sees half of one."""
    temporary = None
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=file.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            _write_npz(out, graph)
        os.replace(temporary, file)
    except OSError as exc:
        # The cache only saves time; failing to write it must not fail the load.
        warnings.warn(f"cannot write graph cache {file}: {exc}", RuntimeWarning, stacklevel=3)
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
