"""Lab 4's live cost model in a real JupyterLab (headless Chromium): typing a new value into a slider
recomputes the numbers and redraws the plots."""
from __future__ import annotations

import pytest

from jupyterlab_ui import dashboard_notebook, open_notebook, run_all_cells

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_typing_into_a_slider_redraws_the_cost_model(lab_server, page):
    open_notebook(page, lab_server, dashboard_notebook(lab_server, "m4-browser"))
    summary = page.locator(".widget-html:visible", has_text="tokens/s").first
    plot = page.locator(".jp-OutputArea img:visible").first
    run_all_cells(page, until=summary)
    plot.wait_for()
    before_text, before_png = summary.inner_text(), plot.get_attribute("src")
    assert "serving overtakes training on day" in before_text

    readout = page.locator(".widget-slider:visible .widget-readout").first   # the training bill, $M
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    page.keyboard.press("Enter")
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[summary.element_handle(), before_text],
                           timeout=60_000)
    # the redraw replaces the plot's <img>: wait for one whose PNG differs from the first
    page.wait_for_function("old => [...document.querySelectorAll('.jp-OutputArea img')].some("
                           "img => img.offsetParent !== null && img.getAttribute('src') !== old)",
                           arg=before_png, timeout=60_000)
    after_text = summary.inner_text()
    # a $1M training bill is matched far sooner than $30M; the price per token is unchanged
    day = lambda text: int(text.split("overtakes training on day ")[1].split(" ")[0].replace(",", ""))
    assert day(after_text) < day(before_text)
    assert after_text.split("per million")[0] == before_text.split("per million")[0]
