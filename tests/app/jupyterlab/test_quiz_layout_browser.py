"""Long quiz options at a laptop's 1280x800: each option wraps inside its own row, its button stays
beside its own text, a click on its last line chooses it, and no item grows a horizontal scrollbar."""
from __future__ import annotations

import shutil
import uuid

import nbformat
import pytest
import yaml

from coursekit.quiz import load_all_banks
from jupyterlab_ui import open_notebook, run_all_cells
from quiz_ui import GOOD, QUIZ_ITEMS, first_single_choice_seed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LONG = (" This option goes on, as some real ones do, about memory bandwidth, batch sizes, the KV cache"
        " and the cost per million tokens, long enough to need three or four lines at a laptop width.")

ROWS_JS = """(item, selector) => [...item.querySelectorAll(selector)].filter(l => l.querySelector("input")).map(label => {
  const r = label.getBoundingClientRect(), b = label.querySelector('input').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, height: r.height, lineHeight: parseFloat(getComputedStyle(label).lineHeight),
          buttonTop: b.top, buttonBottom: b.bottom, buttonRight: b.right,
          textLeft: Math.min(...[...label.childNodes].filter(n => n !== label.querySelector('input')).map(n => {
            const range = document.createRange(); range.selectNodeContents(n);
            return range.getBoundingClientRect().left; }))};
})"""
SCROLLERS_JS = """root => [...root.querySelectorAll('*')].filter(e => {
  const x = getComputedStyle(e).overflowX;
  return (x === 'auto' || x === 'scroll') && e.scrollWidth > e.clientWidth + 1;
}).map(e => e.className)"""


def long_option_banks(folder):
    """The fixture banks with every choice option made long."""
    shutil.copytree(GOOD, folder)
    for path in folder.rglob("*.yaml"):
        bank = yaml.safe_load(path.read_text())
        for item in bank["items"]:
            for option in item.get("options", []):
                option["text"] += LONG
        path.write_text(yaml.safe_dump(bank, sort_keys=False))
    return folder


def test_long_options_wrap_and_keep_their_buttons(lab_server, laptop_page, artifacts_dir):
    page = laptop_page
    folder = lab_server.root / f"quiz-layout-{uuid.uuid4().hex[:8]}"
    banks = long_option_banks(folder / "banks")
    seed = first_single_choice_seed(load_all_banks(banks))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    # Its own progress store: an earlier browser test may have finished m9-l1 in the shared server's
    # store, and a finished quiz comes back answered (its options disabled) after a restart.
    nb.cells = [nbformat.v4.new_code_cell(f"import os\nos.environ['COURSE_PROGRESS_DIR'] = {str(folder / 'progress')!r}\n"
                                          "from coursekit.quiz import show_quiz\n"
                                          f"quiz = show_quiz('m9-l1', seed={seed}, root={str(banks)!r})")]
    nbformat.write(nb, folder / "quiz.ipynb")

    open_notebook(page, lab_server, f"{folder.name}/quiz.ipynb")
    item = page.locator(QUIZ_ITEMS).first
    run_all_cells(page, until=item)
    page.screenshot(path=str(artifacts_dir / "quiz-long-options-1280.png"), full_page=True)

    checked = 0
    for selector in (".widget-radio-box label", ".widget-checkbox label"):
        for handle in page.locator(QUIZ_ITEMS).element_handles():
            rows = handle.evaluate(ROWS_JS, selector)
            for row in rows:
                assert row["height"] > 1.5 * row["lineHeight"], f"a long option did not wrap: {row}"
                assert row["top"] - 1 <= row["buttonTop"] and row["buttonBottom"] <= row["bottom"] + 1, row
                assert row["buttonRight"] <= row["textLeft"] + 1, f"the button is not before its text: {row}"
            for upper, lower in zip(rows, rows[1:]):
                assert upper["bottom"] <= lower["top"] + 1, f"options overlap: {upper} / {lower}"
            checked += len(rows)
    assert checked >= 5

    # A click on the last line of option A's text chooses A, not the option drawn below it.
    labels = item.locator(".widget-radio-box label")
    first = labels.nth(0)
    box = first.bounding_box()
    first.click(position={"x": box["width"] * 0.6, "y": box["height"] - 6})
    assert labels.nth(0).locator("input").is_checked()
    assert not labels.nth(1).locator("input").is_checked()

    scrollers = page.locator(".course-quiz").first.evaluate(SCROLLERS_JS)
    assert scrollers == [], f"horizontal scrollbars in the quiz: {scrollers}"

    # A typed answer with its units stays in view: the number box is wide enough for
    # "73,000 thousand dollars per year" at 1280 px, nothing scrolled out of it.
    number = page.locator(".course-quiz-number input").first
    number.fill("73,000 thousand dollars per year")
    widths = number.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1] + 1, f"the answer box cuts off what was typed: scroll/client widths {widths}"
