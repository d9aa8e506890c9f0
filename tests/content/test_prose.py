"""Prices in displayed prose stay text: in the HTML a notebook gets, in nbconvert's HTML export, and
under JupyterLab's MathJax (where plain Markdown output typesets "$0.002 ... $730" as LaTeX)."""
from __future__ import annotations

import html
import uuid

import nbformat
import pytest
from nbconvert import HTMLExporter

from coursekit.display import prose
from jupyterlab_ui import open_notebook, run_all_cells
from notebook_runner import execute_notebook

ERRATA = (r"> **Errata.** 1 billion tokens a day at \$0.002 per thousand tokens is **\$730,000 a year**, "
          r"not \$730 million; `price = $0.002`")
SHOWN = "1 billion tokens a day at $0.002 per thousand tokens is $730,000 a year, not $730 million"


def test_prose_html_has_no_bare_dollar_and_opts_out_of_mathjax():
    html = prose(ERRATA)._repr_html_()
    assert "$" not in html and html.count("&#36;") == 4
    assert "mathjax_ignore" in html and "tex2jax_ignore" in html
    assert "<strong>&#36;730,000 a year</strong>" in html and "<blockquote>" in html
    assert repr(prose(ERRATA)).startswith("> **Errata.** 1 billion tokens a day at $0.002")


def prose_notebook(path, with_control: bool = False):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(f"from coursekit.display import prose\nprose({ERRATA!r})")]
    if with_control:  # the same prose as plain Markdown: MathJax typesets it, proving MathJax is live here
        plain = ERRATA.replace("\\$", "$")
        nb.cells.append(nbformat.v4.new_code_cell(f"from IPython.display import Markdown\nMarkdown({plain!r})"))
    nbformat.write(nb, path)
    return path


@pytest.mark.slow
def test_nbconvert_html_keeps_prices_as_text(tmp_path):
    nb, _ = execute_notebook(prose_notebook(tmp_path / "prose.ipynb"), env={"COURSE_PROGRESS_DIR": str(tmp_path)})
    body, _ = HTMLExporter().from_notebook_node(nb)
    start = body.index('class="course-prose mathjax_ignore tex2jax_ignore"')
    text = html.unescape(body[start:body.index("</div>", start)])
    assert "$0.002 per thousand tokens" in text and "$730 million" in text
    # nbconvert's page loads MathJax 2, which skips every element of class tex2jax_ignore
    assert "MathJax" in body


@pytest.mark.browser
@pytest.mark.slow
def test_jupyterlab_shows_prices_as_text(lab_server, page):
    folder = lab_server.root / f"prose-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    prose_notebook(folder / "prose.ipynb", with_control=True)
    open_notebook(page, lab_server, f"{folder.name}/prose.ipynb")
    control_maths = page.locator(".jp-RenderedMarkdown mjx-container").first
    run_all_cells(page, until=control_maths)       # MathJax has typeset the plain Markdown() output
    shown = page.locator(".course-prose").first
    assert SHOWN in " ".join(shown.inner_text().split())
    assert shown.locator("mjx-container").count() == 0
