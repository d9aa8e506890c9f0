"""Driving a real JupyterLab page from Playwright, shared by the browser tests."""
from __future__ import annotations

import time


def open_notebook(page, server, path: str) -> None:
    """Open `path` as the only tab: `?reset` drops the tabs earlier tests left in the server's shared
    workspace, whose hidden cells would otherwise confuse what is running."""
    page.goto(server.url(f"lab/tree/{path}?reset"))
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=90_000)


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
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            last_run = time.monotonic()
        time.sleep(0.5)
    until.wait_for(timeout=1_000)  # raises with Playwright's own message
