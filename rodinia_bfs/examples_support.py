"""What every example in ``examples/`` shares: its options, its device, its checks.

The examples import it as ``from rodinia_bfs import examples_support as example``.

Each example is one chapter's runnable page. They all take ``--backend`` and
``--inject-error``, print the device they ran on, check each result against the CPU
reference and end with the verdict line of :func:`rodinia_bfs.validate.report`. Those
parts live here, once, so that an example shows only what its own step adds.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from rodinia_bfs import api
from rodinia_bfs.cli import run_main
from rodinia_bfs.errors import ValidationError
from rodinia_bfs.validate import validate_result

#: What the examples print when a result passes :func:`check_result`.
LEVELS_AND_TREE_OK = "levels == CPU reference, parents pass Graph500's rules"


def parser(doc: str, *, injects: str = "one level",
                   backend_help: str | None = None) -> argparse.ArgumentParser:
    """The command line every example takes: ``--backend`` and ``--inject-error``.

    ``doc`` is the example's docstring (its first line describes the command);
    ``injects`` says what ``--inject-error`` changes. An example adds its own options
    to the parser it gets back before it parses them.
    """
    options = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    options.add_argument("--backend", default="auto", choices=["auto", "hip", "cuda", "cpu"],
                        help=backend_help)
    options.add_argument("--inject-error", action="store_true",
                        help=f"change {injects} before validation, to see a failure")
    return options


def open_device(backend: str):
    """Open the device the example asked for and print which one and why (``auto``
    picks hip, then cuda, then the cpu emulator)."""
    device, why = api.open_device(backend)
    print(f"device: {device.describe()} [{why}]")
    return device


def inject_level_error(levels: np.ndarray, vertex: int | None = None, indent: str = "  ") -> int:
    """Change the level of one vertex (by default the last one reached) so that the
    check that follows must fail; print which, and return it."""
    wrong = int(np.flatnonzero(levels >= 0)[-1]) if vertex is None else vertex
    levels[wrong] += 1
    print(f"{indent}(injected error: level of vertex {wrong} changed)")
    return wrong


def check_result(problems: list[str], label: str, graph, source: int, result,
                 reference=None, *, indent: str = "  ", ok: str = LEVELS_AND_TREE_OK) -> bool:
    """Validate ``result`` (levels exactly against the CPU reference, parents, if any,
    by Graph500's rules); print ``ok: ...`` or add ``label: error`` to ``problems``.
    Returns whether it passed."""
    try:
        validate_result(graph, source, result.levels, result.parents, reference)
    except ValidationError as exc:
        problems.append(f"{label}: {exc}" if label else str(exc))
        return False
    print(f"{indent}ok: {ok}")
    return True


def run(main) -> None:
    """Run an example's ``main()`` and exit with its status: a missing GPU or a bad
    option ends in one line on stderr and status 1, never a traceback."""
    sys.exit(run_main(main))
