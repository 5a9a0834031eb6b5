"""Output files: checked before any work, never an input, written whole or not at all.

Every file the package writes for a user (a result file, a generated graph, the bench's
JSON, tables and plots) goes through :func:`replaced`: the bytes go to a temporary file
beside the target, which is renamed onto it only once it is complete. A run that stops
half-way (an error, Ctrl-C, a full disk) leaves the old file as it was.

The command line calls :func:`check_output` (or :func:`check_output_dir`) before it
reads a graph or starts a search, so a typo in an output path costs nothing, and an
output that is the same file as an input (same device and inode, through symbolic and
hard links alike) is refused instead of overwriting the input.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from rodinia_bfs.errors import RodiniaBFSError


def same_file(a, b) -> bool:
    """Whether ``a`` and ``b`` name one file (links followed); ``False`` if either is missing."""
    try:
        first, second = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be created in ``folder``, or ``None`` if they can."""
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return None


def _check_not_input(path: Path, inputs: Iterable, what: str) -> None:
    for source in inputs:
        if source is not None and same_file(path, source):
            shown = "" if str(source) == str(path) else f" ({source})"
            raise RodiniaBFSError(
                f"cannot write {what}{path}: it is the input file{shown}; choose another name")


def check_output(path, *, inputs: Iterable = (), what: str = "") -> Path:
    """Check that the file ``path`` can be written, now, before any work: its folder
    exists and is writable, it is not a folder, and it is not the same file as any of
    ``inputs``. ``what`` ("result file ") goes into the one-line error."""
    path = Path(path)
    problem = _folder_problem(path.parent if str(path.parent) else Path("."))
    if problem is None and path.is_dir():
        problem = "it is a folder"
    if problem is not None:
        raise RodiniaBFSError(f"cannot write {what}{path}: {problem}")
    _check_not_input(path, inputs, what)
    return path


def check_output_dir(path, *, inputs: Iterable = (), names: Iterable[str] = (),
                     what: str = "") -> Path:
    """Check a folder that will receive files: it exists and is writable, or it does not
    exist yet and its parent does (it is created then; a typo in the parent is caught
    now). None of ``names`` inside it may be one of ``inputs``."""
    path = Path(path)
    if path.exists():
        problem = _folder_problem(path)
    else:
        problem = _folder_problem(path.parent if str(path.parent) else Path("."))
    if problem is not None:
        raise RodiniaBFSError(f"cannot write {what}{path}: {problem}")
    inputs = list(inputs)
    for name in names:
        _check_not_input(path / name, inputs, what)
    return path


# [safe-output-begin]
@contextmanager
def replaced(path, what: str = "") -> Iterator[Path]:
    """A temporary path beside ``path`` to write; when the block ends without an error it
    is renamed onto ``path`` (one atomic step), otherwise removed. A failure to write
    becomes one :class:`~rodinia_bfs.errors.RodiniaBFSError` line naming ``path``."""
    path = Path(path)
    # A name of our own beside the file, on the same file system so the rename is atomic
    # (not mkstemp's: its file is private to the user, the renamed file would stay so).
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        problem = _folder_problem(path.parent if str(path.parent) else Path("."))
        if isinstance(exc, FileNotFoundError) and problem is not None:
            reason = problem
        raise RodiniaBFSError(f"cannot write {what}{path}: {reason}") from None
    finally:
        if temporary.exists():
            temporary.unlink()
# [safe-output-end]


def write_bytes(path, data, what: str = "") -> None:
    """Write ``data`` to ``path`` whole or not at all (:func:`replaced`)."""
    with replaced(path, what) as temporary:
        with open(temporary, "wb") as out:
            out.write(data)


def write_text(path, text: str, what: str = "") -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (:func:`replaced`)."""
    write_bytes(path, text.encode("utf-8"), what)
