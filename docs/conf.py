"""Sphinx configuration of the rodinia-bfs tutorial.

The build is offline: no intersphinx, and a theme (furo) and extension (sphinx-copybutton)
that ship everything they need; nothing is fetched when the pages are built or read.
Code on the pages comes from the sources by ``literalinclude`` (marker comments or
``:pyobject:``), so build with ``-W``: a lost marker fails the build.
"""

import sys
from pathlib import Path

# The project root, so that autodoc imports the package from this checkout.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

project = "rodinia-bfs"
author = "the rodinia-bfs authors"
copyright = "the rodinia-bfs authors"

try:
    from rodinia_bfs import __version__ as release
except Exception:  # the docs still build (without autodoc pages) if numpy is missing
    release = "0.1.0"
version = release

extensions = ["sphinx.ext.autodoc", "sphinx_copybutton"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"
# The API pages import the package; HIP Python and cuda-python are loaded only when a
# device is created, and are mocked here so that the docs build without them.
autodoc_mock_imports = ["hip", "cuda"]

templates_path = []
exclude_patterns = ["_build"]

# Literal blocks written with "::" are commands and output, never code.
highlight_language = "none"

# Furo: a responsive theme that ships its fonts and scripts, so the pages work offline.
html_theme = "furo"
html_title = f"rodinia-bfs {release}"
html_theme_options = {
    "sidebar_hide_name": False,
    "navigation_with_keys": True,
}
html_show_sourcelink = False

# wide-code.css wraps long lines of code instead of hiding them behind a scrollbar,
# and lets wide tables scroll inside their own box, never the whole page.
html_static_path = ["_static"]
html_css_files = ["wide-code.css"]

# The copy button copies the command, not the prompt or the output that follows it.
copybutton_prompt_text = r"\$ |>>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = False
