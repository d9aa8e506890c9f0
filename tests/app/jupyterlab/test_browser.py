"""A real JupyterLab in headless Chromium: the start page opens, a code cell runs, output appears."""
from __future__ import annotations

import urllib.request

import pytest
from jupyterlab_ui import open_notebook, run_all_cells

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_lab_answers(lab_server):
    with urllib.request.urlopen(lab_server.url("lab"), timeout=30) as response:
        assert response.status == 200
        assert "JupyterLab" in response.read().decode()


def test_start_page_runs_a_cell_in_chromium(lab_server, page, artifacts_dir):
    open_notebook(page, lab_server, "course/index.ipynb")
    assert page.locator(".jp-MarkdownCell h1").first.inner_text().startswith("Training vs inference")
    output = page.locator(".jp-OutputArea-output", has_text="Labs will run on")
    # Run All, again if the request reached a kernel still starting (a fresh .venv compiles on first import).
    run_all_cells(page, until=output.first)
    # the DOM's text, not the rendered text: Run All scrolls to the last cell, and JupyterLab may stop
    # rendering cells scrolled out of view (innerText is then empty)
    said = output.first.text_content()
    assert "cpu" in said or "cuda" in said, said
    page.screenshot(path=str(artifacts_dir / "start-page.png"), full_page=False)
