"""A student's feedback page (`autograder feedback`, nbgrader's HTML) read with the tools an
accessibility office uses: axe-core finds no serious or critical WCAG 2.1 A/AA violation, and at
200% zoom of a 1280x800 screen the score and the feedback stay readable."""
from __future__ import annotations

import nbformat
import pytest

from axe import axe_version, blocking, run_axe, summary
from pipeline_course import LAB, cli, write_folder


@pytest.mark.browser
@pytest.mark.slow
def test_feedback_page_passes_axe_and_reads_at_200_percent(course, tmp_path, browser):
    inbox = write_folder(course, tmp_path / "inbox", {"ben": {"impl_add": "wrong"}})
    cli(course, "collect", str(inbox), "--lab", LAB)
    cli(course, "grade", LAB, "--workers", "1")
    cli(course, "feedback", LAB)
    html = course / "feedback" / "ben" / LAB / f"{LAB}.html"
    context = browser.new_context(viewport={"width": 640, "height": 400})   # 1280x800 at 200%
    page = context.new_page()
    try:
        page.goto(html.as_uri())
        found = run_axe(page)
        print(f"axe-core {axe_version()} on the feedback page: all violations:\n{summary(found) or 'none'}")
        assert not blocking(found), summary(blocking(found))
        seen = page.evaluate("""() => ({width: window.innerWidth, scroll: document.documentElement.scrollWidth,
                                        text: document.body.innerText})""")
        assert "5.0 / 6.0" in seen["text"] or "5 / 6" in seen["text"]
        # Code cells may scroll inside themselves (a code line is not prose); the page as a whole must not.
        assert seen["scroll"] <= seen["width"] + 1, seen
    finally:
        context.close()


@pytest.mark.parametrize("page", ['<html><head></head><body><pre>x</pre><a href="#a">a</a></body></html>'])
def test_feedback_fix_adds_lang_styles_and_focusable_output_once(page):
    from autograder.record.feedback_html import make_accessible

    fixed = make_accessible(page)
    assert '<html lang="en">' in fixed and '<pre tabindex="0">' in fixed and "text-decoration: underline" in fixed
    assert make_accessible(fixed) == fixed


VERDICT = "failed: add(123456, 654321) returned " + "7" * 40 + ", " + "the reference differs in the last digits " * 12


@pytest.mark.browser
def test_a_long_verdict_line_wraps_inside_its_box(browser):
    """The judge's message is one long line (a value with no space in it too): at 640 px it wraps,
    its end on screen, and the box never scrolls sideways."""
    from traitlets.config import Config
    from nbformat.v4 import new_code_cell, new_notebook, new_output
    from autograder.record.feedback_html import make_accessible
    from nbgrader_feedback import feedback_page

    cell = new_code_cell("check_add()", outputs=[new_output("stream", name="stdout", text=VERDICT + "\n"),
                                                 new_output("error", ename="AssertionError", evalue=VERDICT, traceback=[VERDICT])])
    html = make_accessible(feedback_page(nbformat.writes(new_notebook(cells=[cell])), Config()))
    assert "white-space: pre-wrap" in html and "overflow-wrap: anywhere" in html
    page = browser.new_page(viewport={"width": 640, "height": 800})
    try:
        page.set_content(html)
        boxes = page.evaluate("""() => [...document.querySelectorAll('div.output_area pre')].map(pre => ({
            scroll: pre.scrollWidth, width: pre.clientWidth, right: pre.getBoundingClientRect().right,
            lines: Math.round(pre.getBoundingClientRect().height / parseFloat(getComputedStyle(pre).lineHeight))}))""")
        assert len(boxes) == 2, boxes
        for box in boxes:
            assert box["scroll"] <= box["width"] + 1 and box["right"] <= 640 and box["lines"] > 3, box
    finally:
        page.close()
