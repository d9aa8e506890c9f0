"""A real JupyterLab in headless Chromium: the start page opens, a code cell runs, output appears."""
from __future__ import annotations

import urllib.request

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_lab_answers(lab_server):
    with urllib.request.urlopen(lab_server.url("lab"), timeout=30) as response:
        assert response.status == 200
        assert "JupyterLab" in response.read().decode()


def test_start_page_runs_a_cell_in_chromium(lab_server, page, artifacts_dir):
    page.goto(lab_server.url("lab/tree/course/index.ipynb"))
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=90_000)
    assert page.locator(".jp-MarkdownCell h1").first.inner_text().startswith("Training vs inference")
    page.locator(".jp-CodeCell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")
    output = page.locator(".jp-OutputArea-output", has_text="Labs will run on")
    output.first.wait_for(timeout=120_000)
    assert "cpu" in output.first.inner_text() or "cuda" in output.first.inner_text()
    page.screenshot(path=str(artifacts_dir / "start-page.png"), full_page=False)
