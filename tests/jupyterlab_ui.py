"""Driving a real JupyterLab page from Playwright, shared by the browser tests."""
from __future__ import annotations

import json
import time
import uuid

import nbformat

from waiting import wait_for


def open_notebook(page, server, path: str) -> None:
    """Open `path` as the only tab: `?reset` drops the tabs earlier tests left in the server's shared
    workspace, whose hidden cells would otherwise confuse what is running.

    Returns once the file's cells are on the page. A tab shows one empty code cell while its file is
    still loading (a busy machine took seconds), and that tab is marked changed: a test that looked then
    saw a "dirty" lesson that was only not loaded yet, and Run All ran the empty cell."""
    page.goto(server.url(f"lab/tree/{path}?reset"))
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=90_000)
    cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
    expected = cell_count(server.root / path)
    if expected:
        wait_for(lambda: cells.count() == expected, 90, f"{path}'s {expected} cells on the page")


def cell_count(path) -> int | None:
    """How many cells the notebook file holds (None if it cannot be read as one)."""
    saved = read_saved(path)
    return len(saved["cells"]) if saved and isinstance(saved.get("cells"), list) else None


def read_saved(path) -> dict | None:
    """The notebook file as JSON, or None while it cannot be read: Jupyter's "atomic" save keeps a
    backup but writes the file in place, so a test polling it can read it half written."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def run_all_cells(page, until, timeout: float = 150) -> None:
    """Run > Run All Cells until `until` shows: accepts JupyterLab's kernel chooser if it asks, and
    runs again if the first request went to a kernel that was not ready (nothing executing, no output)."""
    accept = page.locator(".jp-Dialog button.jp-mod-accept")
    busy = page.locator(".jp-CodeCell .jp-InputPrompt:visible", has_text="*")   # this tab's cells only
    deadline, last_run = time.monotonic() + timeout, -1e9
    while time.monotonic() < deadline:
        if until.is_visible():
            return
        if accept.count() and accept.first.is_visible():
            accept.first.click()
            last_run = time.monotonic() - 15  # re-run soon: the request before the chooser is dropped
        elif not busy.count() and time.monotonic() - last_run > 20:
            click_run_all(page)
            last_run = time.monotonic()
        time.sleep(0.5)
    until.wait_for(timeout=1_000)  # raises with Playwright's own message


def click_run_all(page) -> None:
    """Run > Run All Cells, from the menu bar, on the current tab."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def set_theme(page, name: str, light: bool) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    page.wait_for_selector(f"body[data-jp-theme-light='{str(light).lower()}']", timeout=30_000,
                           state="attached")
    # the theme's stylesheet swaps in after the attribute: wait until its colours are the ones in force
    page.wait_for_function("""light => {
        const base = getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim();
        return base !== '' && (base === '#111') !== light;
    }""", arg=light, timeout=30_000)


def dashboard_notebook(lab_server, prefix: str) -> str:
    """A fresh notebook holding only the dashboard, in the server's root; returns its path there."""
    folder = lab_server.root / f"{prefix}-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Cost model"), nbformat.v4.new_code_cell(DASHBOARD.strip())]
    nbformat.write(nb, folder / "dashboard.ipynb")
    return f"{folder.name}/dashboard.ipynb"


# The dashboard driven by the course's reference functions (the served copy holds no solutions).
DASHBOARD = """
from coursekit import prices
from coursekit.calc import levers, tco
from coursekit.calc.serving_cost import cost_per_million_tokens
from coursekit.cost_dashboard import CostDashboard

replica = levers.scenario("Llama 2 70B", "NVIDIA H100 SXM", 4, 64, 2048, prices.AWS_P5_H100.dollars_per_hour, 0.5)
dash = CostDashboard(replica, {"baseline": {}, "INT8 weights": {"bytes_per_weight": 1}}, 30e6, 500e6,
                     cost_per_million_tokens, tco.break_even_day, levers.decode_tokens_per_second, levers.rank_levers)
dash.show()
"""
