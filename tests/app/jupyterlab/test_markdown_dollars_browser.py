"""Dollar amounts in lesson and lab text read as money in real JupyterLab, not as LaTeX.

JupyterLab's markdown renderer takes math out before markdown (@jupyterlab/rendermime `removeMath`,
which skips `\\$`), lets markdown turn `\\$` into a bare `$`, and then MathJax typesets the cell with
`$...$` as inline delimiters: two escaped dollars in one paragraph became one formula ("0.002perthousand
tokens..."). The website renders the same cells differently, so only JupyterLab itself can tell. This
test renders every markdown cell of course/, solutions/ and labs/ that mentions a dollar in JupyterLab
in Chromium and fails when an amount written as money does not show as `$amount` outside math.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from jupyterlab_ui import open_notebook
from paths import ROOT
from waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FOLDERS = ("course", "solutions", "labs")
# A dollar written as money: escaped for markdown (`\$`) or as the HTML entity the course uses (lone or
# in its own <span>, which MathJax never pairs with another dollar).
MONEY = re.compile(r"(?:\\\$|<span>&#36;</span>|&#36;)(\d[\d,.]*)")
# What is left of a dollar once the money forms are taken out: a pair of them is intended math.
INTENDED_MATH = re.compile(r"\$[^$]+\$")

RENDERED_JS = """() => [...document.querySelectorAll('.jp-Notebook .jp-MarkdownCell')].map(cell => {
  const body = cell.querySelector('.jp-RenderedMarkdown');
  if (!body) return null;
  const copy = body.cloneNode(true);
  copy.querySelectorAll('mjx-container').forEach(m => m.remove());
  return {text: copy.textContent, math: body.querySelectorAll('mjx-container').length};
})"""


def markdown_cells_with_dollars(root: Path = ROOT) -> list[tuple[str, str]]:
    """(where, source) of every markdown cell under FOLDERS that has a dollar in any form."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.ipynb")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
                if cell.cell_type == "markdown" and ("$" in cell.source or "&#36;" in cell.source):
                    found.append((f"{path.relative_to(root)} cell {index}", cell.source))
    return found


def expected_amounts(source: str) -> list[str]:
    return [f"${amount.rstrip('.,')}" for amount in MONEY.findall(source)]


def has_intended_math(source: str) -> bool:
    return bool(INTENDED_MATH.search(MONEY.sub("", source)))


def test_money_forms_are_found():
    # the test's own reading of a source, on the forms it claims to know
    assert expected_amounts(r"at \$0.002 per 1,000 tokens, \$50-100 million") == ["$0.002", "$50"]
    assert expected_amounts("a <span>&#36;</span>30M run and &#36;3 an hour") == ["$30", "$3"]
    assert has_intended_math(r"costs $6ND$ FLOPs, \$3 an hour") and not has_intended_math(r"\$3 and \$4")


def test_dollar_amounts_render_as_money_in_jupyterlab(lab_server, page, artifacts_dir):
    cells = markdown_cells_with_dollars()
    assert cells, "no markdown cell mentions a dollar: the test would check nothing"
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell("# every markdown cell of the course that mentions a dollar")]
    notebook.cells += [nbformat.v4.new_markdown_cell(source) for _, source in cells]
    folder = lab_server.root / "markdown-dollars"
    folder.mkdir(exist_ok=True)
    nbformat.write(notebook, folder / "all.ipynb")

    open_notebook(page, lab_server, "markdown-dollars/all.ipynb")
    last_math = max(i for i, (_, source) in enumerate(cells) if has_intended_math(source))

    def rendered():
        # every cell rendered, and the last one with intended math typeset (MathJax goes in order)
        got = page.evaluate(RENDERED_JS)
        if len(got) == len(cells) and all(got) and got[last_math]["math"]:
            return got
        page.locator(".jp-Notebook .jp-MarkdownCell").last.scroll_into_view_if_needed()
        return None

    got = wait_for(rendered, timeout=90, what="every markdown cell rendered and typeset")
    page.screenshot(path=str(artifacts_dir / "markdown-dollars.png"))
    problems = []
    for (where, source), cell in zip(cells, got):
        text = " ".join(cell["text"].split())
        missing = [amount for amount in expected_amounts(source) if amount not in text]
        if missing:
            problems.append(f"{where}: {missing} typeset as math, not money; rendered text: {text[:160]!r}")
        if not has_intended_math(source) and cell["math"]:
            problems.append(f"{where}: {cell['math']} formula(s) in a cell with no intended math: {text[:160]!r}")
    assert not problems, "\n".join(problems)
