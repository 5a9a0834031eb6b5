"""Rodinia's result file: one line ``i) cost:c`` per vertex, -1 for unreachable."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from rodinia_bfs.errors import GraphFormatError, RodiniaBFSError


def write_result_file(path, levels: np.ndarray) -> None:
    """Write ``levels`` as Rodinia's ``result.txt`` does (``fprintf(fpo, "%d) cost:%d\\n", i, h_cost[i])``)."""
    text = "".join(f"{i}) cost:{c}\n" for i, c in enumerate(np.asarray(levels).tolist()))
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise RodiniaBFSError(f"cannot write result file {path}: {exc.strerror or exc}") from None


_LINE = re.compile(r"^(\d+)\) cost:(-?\d+)$")


def read_result_file(path) -> np.ndarray:
    """Read a result file back into a levels array (the tests compare files this way)."""
    levels = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        match = _LINE.match(line.strip())
        if not match or int(match.group(1)) != len(levels):
            raise GraphFormatError(path, f"expected '{len(levels)}) cost:<level>'", line=number)
        levels.append(int(match.group(2)))
    return np.array(levels, dtype=np.int32)
