"""Progress of long work (generating, reading big files, benchmarking) on stderr.

On a terminal, :class:`Progress` is one line that updates in place, drawn by tqdm. In
a log (stderr is a file or a pipe) a bar rewritten every tenth of a second would fill
the file, so there it writes a few whole lines instead: one when the work starts, one
when it ends, and in between a status line only after :data:`QUIET_S` seconds without
any, so that slow work still shows signs of life::

    with Progress("kronecker scale 20", total=20, unit="bit") as bar:
        for bit in range(20):
            ...
            bar.update()

prints, in a log, ``kronecker scale 20 ...`` and ``kronecker scale 20: 20/20 bits, done
in 4.2 s``, and nothing at all with ``enabled=False``.
"""

from __future__ import annotations

import sys
import time

#: In a log, the least time between two status lines.
QUIET_S = 10.0


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _make_bar(desc: str, total, unit: str, stream, unit_scale: bool):
    """A tqdm bar on ``stream``, or None where tqdm is missing (a partial install:
    tqdm is a dependency of the package)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit_scale, file=stream,
                dynamic_ncols=True, leave=True)


class Progress:
    """Progress of one piece of long work: ``update`` it, give it a ``status``, write
    ``note`` lines that stay, ``close`` it (or use it as a context manager).

    ``total`` is the number of units of work (``None``: unknown); ``unit`` names one
    (``bit``, ``graph``, ``B``; with ``unit_scale`` large counts show as ``12.3MB``).
    """

    def __init__(self, desc: str, total: int | None = None, unit: str = "it", *,
                 enabled: bool = True, stream=None, unit_scale: bool = False,
                 quiet_s: float = QUIET_S):
        self.desc, self.total, self.unit = desc, total, unit
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.quiet_s = quiet_s
        self.count = 0
        self._started = time.monotonic()
        self._last_line = self._started
        self._closed = False
        self._bar = None
        if enabled and _is_terminal(self.stream):
            self._bar = _make_bar(desc, total, unit, self.stream, unit_scale)
        if enabled and self._bar is None:
            self._line(f"{desc} ...")

    # -- what the work reports -----------------------------------------------------

    def update(self, n: int = 1) -> None:
        """``n`` more units done."""
        self.count += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled and self._quiet_for_long():
            self._line(f"{self.desc}: {self._done_text()}, {self._elapsed():.0f} s")

    def status(self, text: str) -> None:
        """What is being done now: shown beside the bar on a terminal; in a log, a line
        only after :attr:`quiet_s` seconds without one."""
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=True)
        elif self.enabled and self._quiet_for_long():
            self._line(f"{self.desc}: {text}")

    def note(self, text: str) -> None:
        """A line that stays (above the bar on a terminal)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            self._line(text)

    def close(self, *, failed: bool = False) -> None:
        """End the work: the bar stays at its last state on a terminal; a log gets the
        closing line with the count and the time taken (``stopped`` when ``failed``)."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            end = "stopped after" if failed else "done in"
            self._line(f"{self.desc}: {self._done_text()}, {end} {self._elapsed():.1f} s")

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        self.close(failed=exc_type is not None)

    # -- the log's lines -------------------------------------------------------------

    def _done_text(self) -> str:
        if self.unit == "B":
            return f"{self.count / 2**20:,.1f} MiB"
        plural = self.unit if self.unit.endswith("s") or self.count == 1 else self.unit + "s"
        total = f"/{self.total:,}" if self.total is not None else ""
        return f"{self.count:,}{total} {plural}"

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    def _quiet_for_long(self) -> bool:
        return time.monotonic() - self._last_line >= self.quiet_s

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
        self._last_line = time.monotonic()
