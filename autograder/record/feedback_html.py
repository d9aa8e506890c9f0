"""Make nbgrader's feedback pages meet WCAG 2.1 AA (axe-core found, on every page: no `lang`, link
colour below 4.5:1 and told from text by colour only, and scrolling output boxes a keyboard cannot
reach), wrap the judge's long verdict lines instead of cutting them at the box's edge, and refuse a
page with anything executable in its body (page_check.py). Applied to each page `autograder
feedback` writes; applying it twice changes nothing."""
from __future__ import annotations

import re
from pathlib import Path

from autograder.record.page_check import unsafe_parts

MARK = "<!-- course: accessible feedback -->"
# Links dark blue (8.6:1 on white) and underlined; the score table's anchors included.
STYLE = (f"{MARK}\n<style>a, a:visited {{ color: #0b4f9c !important; text-decoration: underline !important; }}"
         " .panel-heading a, .panel-heading a:visited { color: inherit !important; }"   # white on the heading's blue
         " .highlight .ow { color: #7b1fa2 !important; }"   # pygments' #AA22FF keywords were 4.0:1
         # a verdict is prose in a <pre>: wrap it (a long word too) rather than hide its end
         " div.output_area pre { white-space: pre-wrap !important; overflow-wrap: anywhere !important; }"
         "</style>\n")


def make_accessible(html: str) -> str:
    if MARK in html:
        return html
    html = re.sub(r"<html(?![^>]*\blang=)", '<html lang="en"', html, count=1)
    html = html.replace("</head>", STYLE + "</head>", 1)
    # An output box that scrolls must take keyboard focus, or its hidden part is out of a keyboard's reach.
    html = re.sub(r"<pre(?![^>]*\btabindex=)", '<pre tabindex="0"', html)
    return html


def fix_folder(folder: Path, lab: str) -> tuple[int, list[str]]:
    """Every feedback page of `lab` under `folder` (feedback/<student>/<lab>/*.html). Returns how many
    pages are left and one line per page removed because its body could run code (never handed out)."""
    pages, refused = sorted(folder.glob(f"*/{lab}/*.html")), []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        found = unsafe_parts(text)
        if found:
            page.unlink()
            refused.append(f"{page}: removed, its body could run code ({', '.join(sorted(set(found))[:5])})")
            continue
        fixed = make_accessible(text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")
    return len(pages) - len(refused), refused
