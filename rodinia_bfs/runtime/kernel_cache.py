"""Compiled kernels kept on disk, for hiprtc and NVRTC alike.

Compiling a step's kernels at run time costs tens of milliseconds per file, every time a
step is set up. The code a compile makes depends only on what goes into it, so the code
is kept on disk under a key made of all of that: the compiler and its version, the
options (target architecture and ``-D`` macros among them), the source, its name, every
header handed to the compiler, and this package's version. CuPy and Triton keep their
compiled kernels the same way.

The entries live in ``kernels/`` under the cache root that graphs and the emulator use
(``$RODINIA_BFS_CACHE``, else ``$XDG_CACHE_HOME/rodinia-bfs``, else
``~/.cache/rodinia-bfs``). ``RODINIA_BFS_KERNEL_CACHE=0`` turns the cache off, and so
does ``cache=False`` where a compile takes it.

An entry is one file: a magic word, the key it was written for, the lengths and a
SHA-256 of what follows, then the code and the compiler's log. A file that is
truncated, damaged, of another format or written for another key is ignored and
rebuilt; a cache that cannot be read or written only means compiling again. Entries
are written under a temporary name and renamed into place, so that processes compiling
the same kernels at the same time never read half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import struct
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

#: The first bytes of every entry; bumped when the layout or the key changes.
MAGIC = b"RBFSKC01"
#: magic, the key (SHA-256), code length, log length, SHA-256 of code and log.
_HEADER = struct.Struct("<8s32sQQ32s")

#: Set to ``0`` (or ``off``, ``no``, ``false``) to compile every time.
ENV_SWITCH = "RODINIA_BFS_KERNEL_CACHE"

#: The folder :func:`using` names, while it does (for every thread: a step may compile
#: on several).
_override: Path | None = None


def cache_dir() -> Path:
    """``$RODINIA_BFS_CACHE/kernels``, else ``$XDG_CACHE_HOME/rodinia-bfs/kernels``,
    else ``~/.cache/rodinia-bfs/kernels`` (or the folder :func:`using` names)."""
    if _override is not None:
        return _override
    if os.environ.get("RODINIA_BFS_CACHE"):
        return Path(os.environ["RODINIA_BFS_CACHE"]) / "kernels"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rodinia-bfs" / "kernels"


@contextlib.contextmanager
def using(folder):
    """Keep compiled kernels in ``folder`` inside the ``with`` block.

    The bench points the cache at an empty folder to time a set-up that compiles
    everything (``setup_cold_ms``); the tests use it to start from nothing."""
    global _override
    previous, _override = _override, Path(folder)
    try:
        yield _override
    finally:
        _override = previous


def enabled(cache: bool | None = None) -> bool:
    """Whether a compile uses the cache: ``cache`` if given, else the environment."""
    if cache is not None:
        return bool(cache)
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "no", "false")


def cache_key(compiler: str, version: str, source: str, name: str, options: list[str],
              headers: dict[str, str]) -> str:
    """The key of a compile: a SHA-256 (hex) of everything that goes into the code.

    ``compiler`` names it (``hiprtc``, ``nvrtc``), ``version`` says which build of it,
    ``options`` are its command-line options (the target and the macros are in them).
    The macros' order does not change the code, so the options are sorted. Remembered
    for the process: a set-up asks again and again."""
    from rodinia_bfs import __version__

    return _key_of(__version__, compiler, version, source, name, tuple(sorted(options)),
                   tuple(sorted(headers.items())))


@lru_cache(maxsize=256)
def _key_of(package: str, compiler: str, version: str, source: str, name: str, options: tuple,
            headers: tuple) -> str:
    parts = {
        "format": MAGIC.decode(),
        "package": package,
        "compiler": compiler,
        "version": version,
        "name": name,
        "options": list(options),
        "headers": list(headers),
        "source": source,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def entry_path(key: str) -> Path:
    return cache_dir() / f"{key}.bin"


def load(key: str) -> tuple[bytes, str] | None:
    """The code and log kept for ``key``; ``None`` if there is no sound entry for it."""
    try:
        data = entry_path(key).read_bytes()
    except OSError:  # absent, or a cache we cannot read
        return None
    if len(data) < _HEADER.size:
        return None
    magic, stored_key, code_size, log_size, digest = _HEADER.unpack_from(data)
    body = data[_HEADER.size:]
    if (magic != MAGIC or stored_key != bytes.fromhex(key)
            or len(body) != code_size + log_size or hashlib.sha256(body).digest() != digest):
        log.info("kernel cache: ignoring a damaged or foreign entry %s", entry_path(key))
        return None
    code, text = body[:code_size], body[code_size:]
    try:
        return code, text.decode()
    except UnicodeDecodeError:
        return None


def store(key: str, code: bytes, compile_log: str) -> Path | None:
    """Keep ``code`` and its log under ``key``; ``None`` where the cache cannot be written.

    The entry is written to a temporary file in the same folder and renamed over the old
    one: a reader sees the old entry or the new one, never a part of either."""
    text = compile_log.encode()
    body = bytes(code) + text
    header = _HEADER.pack(MAGIC, bytes.fromhex(key), len(code), len(text),
                          hashlib.sha256(body).digest())
    target = entry_path(key)
    partial = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{key[:16]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(header)
            out.write(body)
        os.replace(partial, target)
        return target
    except OSError as exc:  # a full disk or a read-only cache: compile next time too
        log.info("kernel cache: could not write %s: %s", target, exc)
        if partial is not None:
            with contextlib.suppress(OSError):
                os.unlink(partial)
        return None


def compiled(compiler: str, version: str, source: str, name: str, options: list[str],
             headers: dict[str, str], build: Callable[[], tuple[bytes, str]], *,
             cache: bool | None = None) -> tuple[bytes, str]:
    """``build()`` (which compiles and returns ``(code, log)``), or what it returned
    before for the same key. A compile error raises from ``build`` and keeps nothing."""
    if not enabled(cache):
        return build()
    key = cache_key(compiler, version, source, name, options, headers)
    found = load(key)
    if found is not None:
        return found
    code, compile_log = build()
    store(key, code, compile_log)
    return code, compile_log
