"""Check that built pages of the docs fit a window: no sideways scroll, no cut-off code.

Usage (after ``python -m sphinx -W -b html docs BUILD``)::

    python scripts/check_docs_width.py BUILD [--width 1200] [--height 900] [--screenshots DIR] [PAGE ...]

PAGE is a page of the build (``chapters/04_load_balanced.html``); without any, every
chapter is checked. Each page is loaded in headless Chromium at the given window size,
with a script added that, once the page has loaded, measures

* ``document.documentElement.scrollWidth`` against its ``clientWidth``: larger means the
  page scrolls sideways;
* every code block (``pre``): a ``scrollWidth`` larger than its ``clientWidth`` means
  part of the code is hidden behind a scrollbar.

It prints one line per page and exits 1 if any page fails. ``--screenshots DIR`` also
saves a PNG of the top of each page as the window shows it. Needs a ``chromium`` (or
``chromium-browser``, ``google-chrome``) on the PATH; the tests do not run it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs in the page: the measures, written into the DOM that --dump-dom prints.
PROBE = """
<script>
window.addEventListener("load", () => {
  const root = document.documentElement;
  const cut = [];
  for (const pre of document.querySelectorAll("pre")) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      cut.push({text: pre.textContent.slice(0, 60), scroll: pre.scrollWidth, client: pre.clientWidth});
    }
  }
  const wide = [];
  for (const box of document.querySelectorAll(".table-wrapper")) {
    if (box.scrollWidth > box.clientWidth + 1) wide.push({scroll: box.scrollWidth, client: box.clientWidth});
  }
  const out = document.createElement("script");
  out.type = "application/json";
  out.id = "width-probe";
  out.textContent = JSON.stringify({
    scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
    innerWidth: window.innerWidth, codeBlocks: document.querySelectorAll("pre").length, cut: cut, wideTables: wide,
  });
  document.body.appendChild(out);
});
</script>
"""
RESULT = re.compile(r'<script type="application/json" id="width-probe">(.*?)</script>', re.S)


def find_browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    raise SystemExit("no chromium on the PATH (e.g. apt-get install chromium)")


def browser_args(browser: str, width: int, height: int) -> list[str]:
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={width},{height}", "--virtual-time-budget=5000"]


def measure(browser: str, page: Path, width: int, height: int) -> dict:
    """The probe's measures of ``page``, loaded from a copy next to it (same assets)."""
    html = page.read_text()
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=page.parent, delete=False) as tmp:
        tmp.write(html.replace("</body>", PROBE + "</body>", 1))
    probe_page = Path(tmp.name)
    try:
        proc = subprocess.run(browser_args(browser, width, height)
                              + ["--dump-dom", probe_page.as_uri()],
                              capture_output=True, text=True, timeout=120)
    finally:
        probe_page.unlink()
    match = RESULT.search(proc.stdout)
    if not match:
        raise SystemExit(f"{page}: the probe did not run\n{proc.stderr[-2000:]}")
    return json.loads(match.group(1))


def screenshot(browser: str, page: Path, width: int, height: int, out: Path) -> None:
    subprocess.run(browser_args(browser, width, height) + [f"--screenshot={out}", page.as_uri()],
                   capture_output=True, text=True, timeout=120, check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("build", type=Path, help="the HTML build folder")
    parser.add_argument("pages", nargs="*", help="pages to check (default: every chapter)")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--screenshots", type=Path, help="save a PNG of each page here")
    args = parser.parse_intermixed_args(argv)

    browser = find_browser()
    pages = [args.build / p for p in args.pages] or sorted((args.build / "chapters").glob("*.html"))
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    failed = 0
    for page in pages:
        m = measure(browser, page.resolve(), args.width, args.height)
        sideways = m["scrollWidth"] > m["clientWidth"]
        verdict = "FAIL" if sideways or m["cut"] else "ok"
        failed += verdict == "FAIL"
        print(f"{verdict}: {page.relative_to(args.build)} at {args.width}x{args.height}: "
              f"scrollWidth {m['scrollWidth']} <= clientWidth {m['clientWidth']}: {not sideways}; "
              f"{len(m['cut'])} of {m['codeBlocks']} code blocks cut off")
        for table in m["wideTables"]:
            print(f"    a table scrolls inside its box: {table['scroll']} > {table['client']} px")
        for block in m["cut"]:
            print(f"    cut: {block['scroll']} > {block['client']} px: {block['text']!r}")
        if args.screenshots:
            screenshot(browser, page.resolve(), args.width, args.height,
                       (args.screenshots / page.name).with_suffix(".png").resolve())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
