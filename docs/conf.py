"""Sphinx configuration of the rodinia-bfs tutorial.

The build is offline: no intersphinx, no theme or extension that fetches anything.
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

extensions = ["sphinx.ext.autodoc"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"

templates_path = []
exclude_patterns = ["_build"]

# Literal blocks written with "::" are commands and output, never code.
highlight_language = "none"
pygments_style = "sphinx"

html_theme = "alabaster"
html_title = f"rodinia-bfs {release}"
html_theme_options = {
    "description": "Multi-kernel GPU programming with HIP, taught through breadth-first search",
    "page_width": "1100px",
    "sidebar_width": "240px",
    "code_font_size": "0.85em",
}
html_sidebars = {"**": ["about.html", "navigation.html", "relations.html", "searchbox.html"]}
html_show_sourcelink = False
