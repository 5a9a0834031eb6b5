"""Every example runs, validates, and says so in its last line and its exit status.

The examples are the tutorial's runnable pages (``examples/NN_*.py``, one per chapter).
Each takes ``--backend auto|hip|cuda|cpu``; here they run with ``--backend cpu``, the
emulator, which needs no GPU. Each must end with exactly one line, ``validation passed``
(exit status 0) or ``validation failed (N errors)`` (exit status 1), and
``--inject-error`` (one level changed on purpose before the check) must produce the
second: an example that validates but exits 0 anyway would hide every bug. Each example
runs once, with ``--inject-error``: every error its verdict lists must be about the
changed vertex, so every other check of the run passed.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("[0-9][0-9]_*.py"))
FAILED = re.compile(r"^validation failed \((\d+) errors?\)$")
INJECTED = re.compile(r"\(injected error: [^)\n]*?\bvertex (\d+)\b")
#: Examples that write a table a chapter shows (``--levels-csv``): the run here must write
#: exactly the committed table (the choices do not depend on the device, nor on
#: ``--inject-error``, which changes a level only after the table is made).
CHAPTER_TABLES = {"06_push_pull": "docs/tables/push_pull_levels.csv",
                  "07_adaptive": "docs/tables/adaptive_levels.csv"}


def run_example(path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # The checkout's package, whether or not it is installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, str(path), "--backend", "cpu", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
    )


def last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit status {proc.returncode}\nstdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"


def test_examples_found():
    names = [p.name for p in EXAMPLES]
    assert "00_graphs_and_reference.py" in names
    assert "01_rodinia_two_kernel.py" in names
    # One example per chapter, numbered without gaps.
    assert [int(n[:2]) for n in names] == list(range(len(names)))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_validates_and_catches_a_wrong_result(path, tmp_path):
    """One run of each example, with ``--inject-error``: the verdict is the failure, with
    exit status 1, and every error it lists is about the vertex whose level was changed,
    so that every other check of the run passed (the example validates a correct result
    as correct); and a chapter's table is what the example writes."""
    table = CHAPTER_TABLES.get(path.stem)
    extra = ["--levels-csv", str(tmp_path / "levels.csv")] if table else []
    proc = run_example(path, "--inject-error", *extra, cwd=tmp_path)
    assert proc.returncode == 1, describe(proc)
    match = FAILED.match(last_line(proc.stdout))
    assert match and int(match.group(1)) >= 1, describe(proc)
    # The verdict follows its N problems, one a line: each must be about a changed vertex.
    injected = INJECTED.findall(proc.stdout)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    problems = lines[-1 - int(match.group(1)):-1]
    assert injected and all(any(re.search(rf"\bvertex {v}\b", p) for v in injected)
                            for p in problems), describe(proc)
    assert "validation passed" not in proc.stdout, describe(proc)
    assert proc.stdout.count("validation failed") == 1, describe(proc)
    if table:
        assert (tmp_path / "levels.csv").read_text() == (ROOT / table).read_text()


def test_chapter_tables_are_examples():
    assert all((ROOT / "examples" / f"{stem}.py").is_file() and (ROOT / table).is_file()
               for stem, table in CHAPTER_TABLES.items())


def test_example_passes(tmp_path):
    """The verdict of a run with nothing wrong, end to end, on the example that needs no
    device (the others end with the same ``rodinia_bfs.validate.report``)."""
    path = EXAMPLES[0]
    proc = run_example(path, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert last_line(proc.stdout) == "validation passed", describe(proc)
    assert proc.stdout.count("validation passed") == 1, describe(proc)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_shape(path):
    """A title in the docstring, the docs' marker, and the shared validation helpers."""
    source = path.read_text()
    tree = ast.parse(source)
    doc = ast.get_docstring(tree)
    assert doc and doc.splitlines()[0].strip(), f"{path.name}: the docstring is the page's title"
    assert "What you will learn" in doc, f"{path.name}: say what the example teaches"
    assert "# [example-begin]" in source, f"{path.name}: the chapter includes the code after this marker"
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "rodinia_bfs.validate"
        for alias in node.names
    }
    assert imported, f"{path.name}: validate with rodinia_bfs.validate, not a copy of it"
    assert "--inject-error" in source and "--backend" in source
