"""The tutorial builds with ``-W`` and contains no pasted code.

Code on the pages comes from the sources, through ``literalinclude`` with marker comments
or ``:pyobject:``; nothing points at line numbers. These tests hold the pages to that:
the Sphinx build turns a lost marker into an error, and the scans below catch pasted
code blocks, line-number includes and includes whose region is empty or missing, with
a message that names the page, even where Sphinx is not installed.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.rst"))

# Blocks in these languages show commands and their output; anything else is code.
SHELL_LANGUAGES = {"console", "shell", "shell-session", "sh", "bash", "text", "none", "output"}
# A block of code may be this long before it counts as pasted (a one-line call is fine).
MAX_CODE_LINES = 3

_CODE_LINE = re.compile(
    r"""^\s*(
        (def|class|async\s+def)\s+\w+ |          # Python definitions
        (import\s+\w|from\s+[\w.]+\s+import\s) |  # Python imports
        (return|yield|raise)\b |
        (for|while|if|elif|with)\b.*:\s*$ |       # Python compound statements
        else\s*:\s*$ | try\s*:\s*$ |
        @\w+ |                                   # decorators
        \w[\w.\[\], ]*\s*[-+*/]?=\s*\S |          # assignments
        \#\s*(include|define|pragma|if|endif)\b | # preprocessor
        .*;\s*(//.*)?$ |                         # C statements
        .*\{\s*$ | \}.*$ |                       # C braces
        .*\b(__global__|__device__|__shared__|extern\s+"C")\b
    )""",
    re.VERBOSE,
)


@dataclass
class Block:
    page: Path
    line: int
    kind: str  # "code-block LANG" or "literal"
    language: str
    options: dict = field(default_factory=dict)
    body: list = field(default_factory=list)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _collect_body(lines: list[str], start: int, base_indent: int) -> tuple[dict, list, int]:
    """Options (``:name: value``) and body lines of the block whose header is at ``start - 1``."""
    options, body = {}, []
    i = start
    in_options = True
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) <= base_indent:
            break
        stripped = line.strip()
        match = re.match(r":([\w-]+):\s*(.*)$", stripped)
        if in_options and match:
            options[match.group(1)] = match.group(2).strip()
        elif stripped:
            in_options = False
            body.append(line)
        elif body:
            body.append(line)
        else:
            in_options = False if options else in_options
        i += 1
    while body and not body[-1].strip():
        body.pop()
    return options, body, i


def scan_blocks(page: Path, text: str | None = None) -> tuple[list[Block], list[Block]]:
    """The code/literal blocks and the ``literalinclude`` directives of one page."""
    lines = (page.read_text() if text is None else text).splitlines()
    blocks, includes = [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = re.match(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*)$", line)
        if directive:
            indent, name, argument = len(directive.group(1)), directive.group(2), directive.group(3)
            options, body, after = _collect_body(lines, i + 1, indent)
            if name in ("code-block", "code", "sourcecode"):
                language = (argument or "default").strip().lower()
                blocks.append(Block(page, i + 1, f"{name} {language}", language, options, body))
            elif name == "literalinclude":
                includes.append(Block(page, i + 1, name, argument.strip(), options, body))
            i = after if name in ("code-block", "code", "sourcecode", "literalinclude") else i + 1
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            options, body, after = _collect_body(lines, i + 1, _indent(line))
            if body:
                blocks.append(Block(page, i + 2, "literal", "none", {}, body))
            i = after
            continue
        i += 1
    return blocks, includes


def pasted_code(block: Block) -> str | None:
    """Why ``block`` looks like pasted code, or None."""
    lines = [line for line in block.body if line.strip()]
    if len(lines) <= MAX_CODE_LINES:
        return None
    if block.kind != "literal" and block.language not in SHELL_LANGUAGES:
        return f"a {block.language} code block of {len(lines)} lines"
    code_like = [line.strip() for line in lines if _CODE_LINE.match(line)]
    # Shell prompts and commands are allowed; so are data files shown as text.
    if len(code_like) >= 2:
        return f"{len(lines)} lines that read as code, e.g. {code_like[0]!r}"
    return None


def test_pages_found():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    for required in ("index.rst", "getting_started.rst", "runtime.rst",
                     "chapters/00_graphs_and_reference.rst", "chapters/01_rodinia_two_kernel.rst"):
        assert required in names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_line_number_includes(page):
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        assert not re.match(r"^\s*:(lines|emphasize-lines|lineno-start):", line), (
            f"{page.relative_to(ROOT)}:{number}: includes by line number drift when the code "
            "changes; use :start-after:/:end-before: markers or :pyobject:"
        )


def _problems(blocks, check) -> list[str]:
    """``page:line: problem`` for each block that ``check`` finds a problem in."""
    return [f"{b.page.relative_to(ROOT)}:{b.line}: {why}" for b in blocks if (why := check(b))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_pasted_code(page):
    problems = _problems(scan_blocks(page)[0], pasted_code)
    assert not problems, (
        "code pasted into the docs drifts from the code that runs; pull it in with "
        "literalinclude and markers instead:\n" + "\n".join(problems)
    )


def _pyobject_exists(source: str, dotted: str) -> bool:
    scope = ast.parse(source).body
    for part in dotted.split("."):
        found = [
            node for node in scope
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name == part
        ]
        if not found:
            return False
        scope = found[0].body
    return True


def _whole_file_allowed(target: Path) -> bool:
    """An example script, or a small data file the tests read, may be shown whole."""
    relative = target.relative_to(ROOT).as_posix()
    return relative.startswith(("examples/", "tests/data/"))


def _include_problem(block: Block) -> str | None:
    """What is wrong with one ``literalinclude``, or None."""
    target = (block.page.parent / block.language).resolve()
    if not target.is_file():
        return f"includes {block.language}, which does not exist"
    try:
        target.relative_to(ROOT)
    except ValueError:
        return f"includes {block.language}, outside the project"
    options = block.options
    for needed in ("language", "caption"):
        if needed not in options:
            return f"literalinclude of {block.language} has no :{needed}:"
    text = target.read_text()
    if "pyobject" in options:
        if not _pyobject_exists(text, options["pyobject"]):
            return f":pyobject: {options['pyobject']} is not defined in {block.language}"
        return None
    if "start-after" not in options:
        if _whole_file_allowed(target):
            return None
        return (f"literalinclude of {block.language} takes the whole file; "
                "select a region with markers or :pyobject:")
    start = text.find(options["start-after"])
    if start < 0:
        return f"marker {options['start-after']!r} not found in {block.language}"
    start = text.find("\n", start) + 1
    end = len(text)
    if "end-before" in options:
        end = text.find(options["end-before"], start)
        if end < 0:
            return f"marker {options['end-before']!r} not found after the start marker in {block.language}"
    elif not _whole_file_allowed(target):
        return f"literalinclude of {block.language} has :start-after: but no :end-before:"
    if not text[start:end].strip():
        return f"the region between the markers in {block.language} is empty"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_includes_point_at_code(page):
    problems = _problems(scan_blocks(page)[1], _include_problem)
    assert not problems, "\n".join(problems)


def test_scanner_catches_pasted_code():
    """The scan must flag code, and must let commands and data files through."""
    page = DOCS / "example.rst"
    text = """
Title
=====

.. code-block:: python

   def bfs(graph, source):
       levels = [-1] * graph.num_vertices
       levels[source] = 0
       return levels

Run it::

    python3 -m venv .venv
    .venv/bin/pip install -e '.[hip,test,docs]'
    .venv/bin/rodinia-bfs info
    .venv/bin/rodinia-bfs run --variant all --validate

A Rodinia file::

    4
    0 2
    2 1
    3 1

Pasted C++::

    __global__ void k(int* a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] = 0;
    }

.. code-block:: console

   $ rodinia-bfs info
   $ rodinia-bfs run --validate
   $ rodinia-bfs generate kronecker --scale 16 -o k16.mtx
   $ echo done
"""
    blocks, _ = scan_blocks(page, text)
    verdicts = [(b.kind, pasted_code(b) is not None) for b in blocks]
    assert verdicts == [
        ("code-block python", True),
        ("literal", False),
        ("literal", False),
        ("literal", True),
        ("code-block console", False),
    ]


def test_docs_build_with_warnings_as_errors(tmp_path):
    try:
        import sphinx  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("Sphinx is not installed, and CI must build the docs: pip install -e '.[docs]'")
        pytest.skip("Sphinx is not installed (pip install -e '.[docs]')")
    # -j auto: the pages are read and written by a process per CPU (11 s -> 7.5 s on 2).
    command = [
        sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-j", "auto", "-b", "html",
        "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html"),
    ]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (
        f"{' '.join(command)} exited with {proc.returncode}\n{proc.stderr[-8000:]}\n{proc.stdout[-2000:]}"
    )
    chapter1 = (tmp_path / "html" / "chapters" / "01_rodinia_two_kernel.html").read_text()
    # The kernels really were pulled in from the source (not an empty region).
    assert "Kernel1" in chapter1 and "updating_graph_mask" in chapter1
    # The theme's pieces are on the page: the stylesheet that wraps code, the copy button.
    assert "wide-code.css" in chapter1 and "copybutton.js" in chapter1
    # The API page documents the functions it names (autodoc imported them).
    api = (tmp_path / "html" / "api.html").read_text()
    unindexed = set(re.findall(r"^\.\. auto\w+::\s+([\w.]+)\s*\n\s+:no-index:", API.read_text(), re.M))
    for name in _api_names():
        if name in unindexed:  # indexed on the runtime page; here its signature shows
            assert f'<span class="pre">{name.rsplit(".", 1)[1]}</span>' in api, name
        else:
            assert f'id="{name}"' in api, f"api.html does not document {name}"


# -- the theme: code shown whole, a page never wider than the window ---------------------

CONF = DOCS / "conf.py"
CSS = DOCS / "_static" / "wide-code.css"


def _conf_value(name: str):
    """The value conf.py assigns to ``name`` (a literal), read without running it."""
    for node in ast.parse(CONF.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"docs/conf.py does not set {name}")


def _css_rules(text: str) -> list[tuple[list[str], dict]]:
    """(selectors, declarations) of each rule of a flat stylesheet, comments removed."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        declarations = dict(
            (key.strip(), value.strip())
            for key, _, value in (d.partition(":") for d in body.split(";") if ":" in d)
        )
        rules.append(([s.strip() for s in selectors.split(",")], declarations))
    return rules


def test_theme_is_offline_and_copies_code():
    assert _conf_value("html_theme") == "furo"
    assert "sphinx_copybutton" in _conf_value("extensions")
    # Nothing is fetched at build time.
    assert not any("intersphinx" in name for name in _conf_value("extensions"))
    extra = re.search(r"^docs\s*=\s*\[(.*)\]", (ROOT / "pyproject.toml").read_text(), re.M)
    assert extra, "pyproject.toml has no docs extra"
    for package in ("sphinx", "furo", "sphinx-copybutton"):
        assert f'"{package}' in extra.group(1), f"the docs extra must install {package}"


def test_long_code_lines_wrap():
    """Code blocks wrap their long lines instead of hiding them behind a scrollbar.

    Whether a page fits a 1200 px window is checked in a browser by
    scripts/check_docs_width.py; here, that the rule doing it is in place."""
    assert "_static" in _conf_value("html_static_path")
    assert CSS.name in _conf_value("html_css_files")
    wrapped = set()
    for selectors, declarations in _css_rules(CSS.read_text()):
        if declarations.get("white-space") == "pre-wrap" and declarations.get("overflow-wrap") in (
                "anywhere", "break-word"):
            wrapped.update(selectors)
    # Literal blocks and every highlighted block (literalinclude, code-block) are
    # rendered as a <pre> inside a div.highlight.
    assert ".highlight pre" in wrapped, f"{CSS.relative_to(ROOT)} must wrap .highlight pre"


def test_css_scanner():
    rules = _css_rules("/* x { } */ .a pre, .b { white-space: pre-wrap; color: red }")
    assert rules == [([".a pre", ".b"], {"white-space": "pre-wrap", "color": "red"})]


# -- chapters that are mentioned exist ----------------------------------------------------

INDEX = DOCS / "index.rst"


def toctree_chapters() -> dict[int, str]:
    """Chapter number -> page, for the chapter pages in index.rst's toctree."""
    chapters = {}
    in_toctree = False
    for line in INDEX.read_text().splitlines():
        if line.startswith(".. toctree::"):
            in_toctree = True
            continue
        if in_toctree and line.strip() and not line.startswith(" "):
            in_toctree = False
        entry = re.match(r"^\s+(chapters/(\d+)_\w+)\s*$", line) if in_toctree else None
        if entry and (DOCS / f"{entry.group(1)}.rst").is_file():
            chapters[int(entry.group(2))] = entry.group(1)
    return chapters


# "chapter 5", "Chapters 2 and 3", "step 4", "steps 2, 3 and 4": each number is a chapter.
_MENTION = re.compile(
    r"\b(chapters?|steps?)\s+(\d+(?:\s*(?:,|and|or|to)\s*\d+(?![\d.,]*\s*(?:ms|µs)))*)\b",
    re.IGNORECASE)


def chapter_mentions(text: str) -> list[tuple[int, int, str]]:
    """(line, chapter number, the words) of each mention of a chapter or step in ``text``."""
    found = []
    for match in _MENTION.finditer(text):
        words = match.group(0)
        numbers = [int(n) for n in re.findall(r"\d+", match.group(2))]
        if not match.group(1).lower().endswith("s"):  # "step 1 and 40.5 ms": one step
            numbers = numbers[:1]
        line = text.count("\n", 0, match.start()) + 1
        found += [(line, n, words) for n in numbers]
    return found


MENTION_FILES = sorted(
    [*DOCS.rglob("*.rst"), *(ROOT / "examples").glob("*.py"), ROOT / "README.md"]
)


@pytest.mark.parametrize("path", MENTION_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_mentioned_chapters_exist(path):
    chapters = toctree_chapters()
    assert 0 in chapters and 1 in chapters, "index.rst's toctree lists no chapters"
    text = path.read_text()
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {words!r} names chapter {number}, "
        f"which is not in the toctree ({sorted(chapters)})"
        for line, number, words in chapter_mentions(text)
        if number not in chapters
    ]
    assert not missing, "\n".join(missing)


def test_mention_scanner():
    text = "see chapter 5\nSteps 2 and 3 differ; step 1 and 40.5 ms in step 3\nchapters 2, 3 or 4"
    assert chapter_mentions(text) == [
        (1, 5, "chapter 5"), (2, 2, "Steps 2 and 3"), (2, 3, "Steps 2 and 3"),
        (2, 1, "step 1"), (2, 3, "step 3"), (3, 2, "chapters 2, 3 or 4"),
        (3, 3, "chapters 2, 3 or 4"), (3, 4, "chapters 2, 3 or 4"),
    ]


# -- figures in prose come from committed results ---------------------------------------

GENERATED = DOCS / "_generated"
_RESULTS_FOLDER = re.compile(r"benchmarks/results/([\w.-]+(?:/[\w.-]+)*)")
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
# "0.496 ms", "0.554 against 0.558 ms", "2.48 to 2.72 ms", "17.8 µs", "52.1 GTEPS": each
# number of the list carries the unit.
# A number right after "step", "chapter" or "level" names one ("step 1 and 2.65 ms").
_NOT_A_FIGURE = r"(?<![\w.,])(?<!step )(?<!steps )(?<!chapter )(?<!level )(?<!levels )"
_TIMES = re.compile(
    rf"{_NOT_A_FIGURE}({_NUMBER}(?:\s*(?:,|and|or|to|against|vs\.?)\s*{_NUMBER})*)\s*(ms|µs|GTEPS)\b")
# "337x", "337 times faster": a speed-up, which the tables write as "337x".
_RATIOS = re.compile(rf"{_NOT_A_FIGURE}({_NUMBER})(?:x\b|\s+times\s+(?:faster|slower)\b)")


# Directives whose bodies are prose (the body of any other directive is code, data or a
# generated table, and comments are not shown).
_PROSE_DIRECTIVES = {"note", "warning", "tip", "hint", "important", "caution", "attention",
                     "danger", "error", "admonition", "seealso", "topic", "sidebar", "list-table"}


def prose(text: str) -> list[tuple[list[tuple[int, int]], str]]:
    """Each paragraph of a page's prose as (where each line starts: (offset, line number),
    its lines joined by one space): no directives and their bodies, no literal blocks, no
    comments, and inline literals blanked out (same length, so offsets still hold)."""
    paragraphs, current, starts = [], "", []
    skip_indent = None  # inside a directive, comment or literal block deeper than this

    def end_paragraph():
        nonlocal current, starts
        if current:
            blank = lambda m: "``" + "_" * (len(m.group(0)) - 4) + "``"  # noqa: E731
            paragraphs.append((starts, re.sub(r"``.*?``", blank, current)))
        current, starts = "", []

    for number, line in enumerate(text.splitlines(), start=1):
        indent = _indent(line)
        if skip_indent is not None:
            if not line.strip() or indent > skip_indent:
                continue
            skip_indent = None
        if not line.strip() or re.match(r"^\s*\.\.(\s|$)", line):
            end_paragraph()
            directive = re.match(r"^\s*\.\.\s+([\w-]+)::", line)
            if line.strip() and not (directive and directive.group(1) in _PROSE_DIRECTIVES):
                skip_indent = indent
            continue
        if current:
            current += " "
        starts.append((len(current), number))
        current += line.strip()
        if line.rstrip().endswith("::"):
            end_paragraph()
            skip_indent = indent
    end_paragraph()
    return paragraphs


def quoted_figures(text: str) -> list[tuple[int, str]]:
    """(line, figure as a table writes it) of each figure with a unit in the prose."""
    figures = []
    for starts, paragraph in prose(text):
        found = [(m.start(1) + n.start(), n.group(0)) for m in _TIMES.finditer(paragraph)
                 for n in re.finditer(_NUMBER, m.group(1))]
        found += [(m.start(), m.group(1) + "x") for m in _RATIOS.finditer(paragraph)]
        for offset, figure in sorted(found):
            line = max(number for start, number in starts if start <= offset)
            figures.append((line, figure))
    return figures


def results_folder(path: str) -> str:
    """The results folder of a path under ``benchmarks/results/``: the deepest prefix that
    holds a ``table.md`` (a run may keep several suites in subfolders), or the first part
    of the path where none does."""
    parts = path.split("/")
    for end in range(len(parts), 0, -1):
        folder = "/".join(parts[:end])
        if (ROOT / "benchmarks" / "results" / folder / "table.md").is_file():
            return folder
    return parts[0]


def test_results_folder():
    assert results_folder("h100-2026-11-22/plots/level_time_road-NY.png") == "h100-2026-11-22"
    assert results_folder("h100-2026-11-22-large/kronecker-24") == "h100-2026-11-22-large/kronecker-24"
    assert results_folder("no-such-run/x") == "no-such-run"


def named_results(page: Path) -> set[str]:
    """The results folders a page names: in its text, or by including a generated file."""
    text = page.read_text()
    folders = {results_folder(path) for path in _RESULTS_FOLDER.findall(text)}
    from rodinia_bfs.bench.includes import generated_folder

    for include in re.findall(r"^\.\. include:: (\S+)$", text, re.M):
        path = (page.parent / include).resolve()
        if path.parent == GENERATED.resolve() and path.is_file() and (folder := generated_folder(path)):
            folders.update(results_folder(path) for path in _RESULTS_FOLDER.findall(folder))
    return folders


def results_cells(folder: str) -> set[str]:
    """Every figure of a committed results folder, as its tables write it: the cells of
    its table.md and of the tables docs/_generated shows of it."""
    from rodinia_bfs.bench.includes import tables

    table_md = ROOT / "benchmarks" / "results" / folder / "table.md"
    # A folder of other results (partition costs) has no table.md and gives no cells.
    markdown = table_md.read_text() if table_md.is_file() else ""
    cells = {cell.strip() for line in markdown.splitlines() if line.startswith("|")
             for cell in line.strip("|").split("|")}
    results = ROOT / "benchmarks" / "results" / folder / "results.json"
    data = json.loads(results.read_text()) if results.is_file() else {}
    graphs = data.get("graphs")
    # not a bench run (multi-GPU scaling, a ladder): its table.md alone
    if not graphs or not all(isinstance(g, dict) and "variants" in g for g in graphs):
        return cells
    for table in tables(f"benchmarks/results/{folder}"):
        cells |= table.cells()
    return cells


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_quoted_figures_are_in_the_results(page):
    figures = quoted_figures(page.read_text())
    if not figures:
        return
    folders = named_results(page)
    assert folders, (f"{page.relative_to(ROOT)} quotes {figures[0][1]} (line {figures[0][0]}) "
                     "but names no results folder: include one of docs/_generated/")
    cells = set().union(*(results_cells(folder) for folder in folders))
    missing = [f"{page.relative_to(ROOT)}:{line}: {figure}" for line, figure in figures
               if figure not in cells]
    assert not missing, (
        f"figures that are not in the results of {', '.join(sorted(folders))} "
        "(table.md, or the tables of docs/_generated), as those write them:\n" + "\n".join(missing))


# Chapters 1 to 4 quote steps 1 to 4 from the run that chapters 5 and 6 quote them from:
# one run of every step on one H100, so that each chapter speaks of one kind of GPU.
STEPS_1_TO_4_RUN = "h100-2026-11-22h"
STEPS_1_TO_4_PAGES = sorted((DOCS / "chapters").glob("0[1-4]_*.rst"))


def test_steps_1_to_4_quote_one_h100_run():
    from rodinia_bfs.bench.includes import INCLUDES

    for name in ("gpu_table.inc", "gpu_results.inc", "gpu_levels.inc"):
        assert INCLUDES[name][0] == f"benchmarks/results/{STEPS_1_TO_4_RUN}", (
            f"docs/_generated/{name} must show {STEPS_1_TO_4_RUN}, the run chapters 1 to 4 quote")
    assert len(STEPS_1_TO_4_PAGES) == 4, STEPS_1_TO_4_PAGES
    cells = results_cells(STEPS_1_TO_4_RUN)
    for page in STEPS_1_TO_4_PAGES:
        where = page.relative_to(ROOT)
        assert named_results(page) == {STEPS_1_TO_4_RUN}, (
            f"{where} names {sorted(named_results(page))}; it quotes {STEPS_1_TO_4_RUN} alone")
        figures = quoted_figures(page.read_text())
        assert figures, f"{where} quotes no figure of {STEPS_1_TO_4_RUN}"
        missing = [f"{where}:{line}: {figure}" for line, figure in figures if figure not in cells]
        assert not missing, f"not in {STEPS_1_TO_4_RUN}:\n" + "\n".join(missing)
        other = [line for starts, paragraph in prose(page.read_text()) if "H200" in paragraph
                 for _, line in starts[:1]]
        assert not other, f"{where}: a paragraph at line(s) {other} speaks of an H200"


def test_figure_scanner():
    text = """
Step 1 takes 0.496 ms per BFS, 12.1 GTEPS, 215x faster; 0.554 against 0.558 ms,
2.48 to 2.72 ms and 17.8 µs per level, 43 times faster on a 1000 x 1000 grid.

.. csv-table:: 9.99 ms in a caption is the table's
   :header-rows: 1

   a,1.23 ms

Run::

    took 5.55 ms

Step 3 with ``-DX=7 ms`` (a literal) and 36.5
against 36.4 ms over two lines, 1.04 ms for step 1 and 2.65 ms for step 3.

.. note::

   A note is prose: 3.14 ms.

.. A comment is not: 2.72 ms.
"""
    assert quoted_figures(text) == [
        (2, "0.496"), (2, "12.1"), (2, "215x"), (2, "0.554"), (2, "0.558"), (3, "2.48"),
        (3, "2.72"), (3, "17.8"), (3, "43x"), (14, "36.5"), (15, "36.4"), (15, "1.04"),
        (15, "2.65"), (19, "3.14"),
    ]


def test_generated_includes_are_up_to_date():
    """docs/_generated holds what rodinia_bfs.bench.includes writes from the results, and
    nothing else."""
    from rodinia_bfs.bench.includes import INCLUDES, render

    stale = [name for name, (folder, kind) in INCLUDES.items()
             if not (GENERATED / name).is_file() or (GENERATED / name).read_text() != render(folder, kind)]
    assert not stale, f"out of date: {stale}; run python -m rodinia_bfs.bench.includes"
    unknown = {p.name for p in GENERATED.iterdir()} - set(INCLUDES)
    assert not unknown, f"files in docs/_generated that no code writes: {sorted(unknown)}"


def test_chapter3_shared_memory_arithmetic():
    """Chapter 3's shared-memory figures are the ones the default tunables give."""
    from rodinia_bfs.variants import privatized

    text = " ".join(p for _, p in prose((DOCS / "chapters" / "03_privatized_queue.rst").read_text()))
    capacity, block = privatized.LOCAL_CAPACITY, privatized.BLOCK_SIZE
    per_block = 4 * capacity + 8  # the local queue and two 4-byte counters
    resident = 2048 // block  # blocks of a compute unit (or SM) that runs 2,048 threads
    total = resident * per_block
    expected = [f"{capacity:,} for a block of {block}", f"4 · {capacity:,} + 8 = {per_block:,} bytes",
                f"{total:,} bytes"]
    over = total - 48 * 1024
    expected.append(f"{over} bytes more than 48 KiB" if over > 0 else "within 48 KiB")
    assert total <= 64 * 1024, "the default no longer fits a CDNA compute unit's 64 KiB"
    missing = [phrase for phrase in expected if phrase not in text]
    assert not missing, f"chapter 3 does not say {missing}, which the default tunables give"


# -- the API page -------------------------------------------------------------------------

API = DOCS / "api.rst"


def _api_names() -> list[str]:
    """The objects docs/api.rst documents with autodoc."""
    return re.findall(r"^\.\. auto(?:function|class|exception)::\s+([\w.]+)\s*$",
                      API.read_text(), re.M)


def test_api_page_imports_without_gpu_libraries():
    """Everything the API page documents imports with HIP Python and cuda-python absent,
    as on a machine without a GPU stack (the docs build mocks them too)."""
    names = _api_names()
    assert "rodinia_bfs.CSRGraph" in names and "rodinia_bfs.graphs.formats.load_graph" in names
    code = (
        "import importlib, sys\n"
        "class Absent:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('hip', 'cuda'):\n"
        "            raise ImportError(name + ' is not installed')\n"
        "sys.meta_path.insert(0, Absent())\n"
        "for dotted in sys.argv[1:]:\n"
        "    module, attr = dotted.rsplit('.', 1)\n"
        "    getattr(importlib.import_module(module), attr)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('hip', 'cuda'))\n"
        "assert not loaded, loaded\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-c", code, *names], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_markdown_includes_show_the_tables_of_table_md(tmp_path, monkeypatch):
    """An include of kind ``markdown`` shows every table of its folder's table.md, cell for
    cell, each captioned with the line before it; a folder's first line names the run. A
    rule row with alignment colons is a rule, not a row."""
    from rodinia_bfs.bench import includes

    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "table.md").write_text(
        "Device: somewhere.\n\n| a | b |\n|---|---|\n| 1.5 | x, y |\n\n"
        "The second table:\n\n| c |\n|---:|\n| 2 |\n| 3 |\n\n- a list line\n")
    monkeypatch.setattr(includes, "ROOT", tmp_path)
    first, found = includes.markdown_tables("run")
    assert first == "Device: somewhere."
    assert [(t.caption, t.header, t.rows) for t in found] == [
        ("Each way, a search", ["a", "b"], [["1.5", "x, y"]]),
        ("The second table", ["c"], [["2"], ["3"]])]
    text = includes.render("run", "markdown")
    assert text.startswith(".. Generated from run/table.md by")
    assert '1.5,"x, y"' in text and ".. csv-table:: The second table" in text
