"""The built website's layout, in Chromium: the sidebar shows the page the learner is on, and a cell's
printed lines wrap instead of needing a sideways scroll."""
from __future__ import annotations

from urllib.parse import urljoin

import pytest

from site_build import html_path

pytestmark = [pytest.mark.slow, pytest.mark.browser]
FIRST = "course/m1-training-vs-inference/01-what-each-does.ipynb"
LAST = "course/m5-co-design/03-draft-verify-and-cascades.ipynb"

IN_VIEW = """() => { const a = document.querySelector('.bd-docs-nav a.current'), s = a.closest('.bd-sidebar-primary');
  const b = s.getBoundingClientRect(), r = a.getBoundingClientRect(); return r.top >= b.top && r.bottom <= b.bottom; }"""


def lesson(page, site_url, rel):
    page.goto(urljoin(site_url, html_path(rel)))
    page.wait_for_load_state("load")


def test_sidebar_shows_the_current_page_after_coming_from_another_module(site_url, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        lesson(page, site_url, FIRST)                  # the sidebar at its top, as the theme stores it
        lesson(page, site_url, LAST)                   # a later module: the theme restores that scroll
        page.wait_for_function(IN_VIEW)
    finally:
        context.close()


def test_printed_lines_wrap_on_a_phone(site_url, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        lesson(page, site_url, FIRST)
        outputs = page.locator(".cell_output .output pre")
        assert outputs.count() > 0
        wide = outputs.evaluate_all("ps => ps.filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent)")
        assert not wide, wide
    finally:
        context.close()
