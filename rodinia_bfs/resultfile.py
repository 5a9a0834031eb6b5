"""Rodinia's result file: one line ``i) cost:c`` per vertex, -1 for unreachable.

Our files open with one comment line that says how the vertices are numbered, e.g.
``# rodinia-bfs levels; vertices numbered from 1`` (the ids ``i`` count from 1, as in a
``.mtx`` or ``.gr`` file) or ``...; vertex ids of the graph file`` (an edge list whose
sparse ids were renumbered: each line names the file's own id). Rodinia's own files, and
ours from before, have no such line: they count from 0, and the reader takes them so.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from rodinia_bfs.errors import GraphFormatError
from rodinia_bfs.safe_output import write_bytes

_HEADER = "# rodinia-bfs levels; "
_FROM = re.compile(r"^# rodinia-bfs levels; vertices numbered from ([01])$")
_FILE_IDS = "vertex ids of the graph file"


def result_header(base: int = 0, ids=None) -> str:
    """The comment line that opens a result file (without its newline)."""
    if ids is not None:
        return _HEADER + _FILE_IDS
    return _HEADER + f"vertices numbered from {base}"


def write_result_file(path, levels: np.ndarray, *, base: int = 0, ids=None) -> None:
    """Write ``levels`` as Rodinia's ``result.txt`` does (``fprintf(fpo, "%d) cost:%d\\n", i, h_cost[i])``),
    after the comment line that states the numbering: vertex ``v`` is written as
    ``v + base``, or as ``ids[v]`` when the graph keeps its file's ids
    (:attr:`~rodinia_bfs.graphs.csr.CSRGraph.vertex_ids`). The file appears whole or not
    at all (:func:`~rodinia_bfs.safe_output.replaced`)."""
    levels = np.asarray(levels).tolist()
    names = (range(base, base + len(levels)) if ids is None
             else np.asarray(ids, dtype=np.int64).tolist())
    lines = [result_header(base, ids)] + [f"{i}) cost:{c}" for i, c in zip(names, levels)]
    write_bytes(path, ("\n".join(lines) + "\n").encode("ascii"), what="result file ")


_LINE = re.compile(r"^(\d+)\) cost:(-?\d+)$")


def read_result_file(path, *, with_ids: bool = False):
    """Read a result file back into a levels array, one entry per line in file order
    (the tests compare files this way). The numbering comes from the header line; without
    one, the ids count from 0 (Rodinia's own files). ``with_ids=True`` returns
    ``(levels, ids)``, ``ids`` being the vertex names the file uses."""
    text = Path(path).read_text()
    lines = text.splitlines()
    base, file_ids, first = 0, False, 1
    if lines and lines[0].startswith("#"):
        header = lines[0].strip()
        match = _FROM.match(header)
        if match:
            base = int(match.group(1))
        elif header == _HEADER + _FILE_IDS:
            file_ids = True
        else:
            raise GraphFormatError(path, f"unknown header {header[:60]!r}", line=1)
        lines, first = lines[1:], 2
    levels, ids = [], []
    for number, line in enumerate(lines, start=first):
        match = _LINE.match(line.strip())
        vertex = int(match.group(1)) if match else None
        if file_ids:
            good = match is not None and (not ids or vertex > ids[-1])
            expected = "'<id>) cost:<level>' with ids increasing"
        else:
            good = match is not None and vertex == len(levels) + base
            expected = f"'{len(levels) + base}) cost:<level>'"
        if not good:
            raise GraphFormatError(path, f"expected {expected}", line=number)
        levels.append(int(match.group(2)))
        ids.append(vertex)
    levels = np.array(levels, dtype=np.int32)
    return (levels, np.array(ids, dtype=np.int64)) if with_ids else levels
