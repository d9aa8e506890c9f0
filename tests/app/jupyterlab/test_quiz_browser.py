"""Lesson quizzes answered by clicking in a real JupyterLab (headless Chromium): wrong then right
feedback appears, the answers land in the progress store, and the feedback stays readable in the
light and the dark theme. One test uses a fixture bank in a scratch notebook, one the real lesson
notebook course/m1-training-vs-inference/01-what-each-does.ipynb and its m1-l1 quiz."""
from __future__ import annotations

import shutil
import uuid

import nbformat
import pytest

from coursekit import progress
from coursekit.quiz import load_all_banks
from coursekit.quiz.bank import pool
from coursekit.quiz.engine import build_quiz
from coursekit.quiz.widgets import REPEATED_VERDICT
from jupyterlab_ui import open_notebook, run_all_cells, set_theme
from quiz_ui import GOOD, QUIZ_ITEMS, first_single_choice_seed, wrong_response
from coursekit.quiz.engine import correct_response

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# WCAG 2.1 relative luminance and contrast ratio (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio).
CONTRAST_JS = """el => {
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const style = getComputedStyle(el);
  const fg = lum(rgb(style.color)), bg = lum(rgb(style.backgroundColor));
  return {ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05), fg: style.color, bg: style.backgroundColor};
}"""


def test_quiz_by_clicking(lab_server, page, artifacts_dir, monkeypatch):
    banks = load_all_banks(GOOD)
    seed = first_single_choice_seed(banks)
    question = build_quiz(banks["m9-l1"], pool(banks["m9-l1"], banks), seed)[0]
    right = correct_response(question)
    wrong = next(i for i, o in enumerate(question.item.options) if not o.correct)

    folder = lab_server.root / f"quiz-browser-{uuid.uuid4().hex[:8]}"
    shutil.copytree(GOOD, folder / "banks")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Quiz in the browser"),
                nbformat.v4.new_code_cell("from coursekit.quiz import show_quiz\n"
                                          f"quiz = show_quiz('m9-l1', seed={seed}, root={str(folder / 'banks')!r})")]
    nbformat.write(nb, folder / "quiz.ipynb")

    open_notebook(page, lab_server, f"{folder.name}/quiz.ipynb")
    item = page.locator(QUIZ_ITEMS).first
    run_all_cells(page, until=item)
    assert question.stem[:40] in item.inner_text()

    light_theme = page.evaluate("document.body.dataset.jpThemeLight")
    try:
        item.locator("label", has_text=question.option_texts[wrong]).click()
        item.locator("button.course-quiz-check").click()
        incorrect = item.locator(".course-quiz-incorrect")
        incorrect.wait_for(timeout=30_000)
        assert question.option_feedback[wrong][:30] in incorrect.inner_text()
        light = incorrect.evaluate(CONTRAST_JS)
        page.screenshot(path=str(artifacts_dir / "quiz-light.png"))

        item.locator("label", has_text=question.option_texts[right]).click()
        item.locator("button.course-quiz-check").click()
        correct = item.locator(".course-quiz-correct")
        correct.wait_for(timeout=30_000)
        shown = REPEATED_VERDICT.sub("", question.option_feedback[right])   # "Correct." heads it, once
        assert correct.inner_text().startswith(f"Correct. {shown[:30]}"), correct.inner_text()
        assert "Score: 0 / 3 right on the first try (1 of 3 answered)" in page.locator(".course-quiz-score").first.inner_text()

        set_theme(page, "JupyterLab Dark", light=False)
        dark = correct.evaluate(CONTRAST_JS)
        page.screenshot(path=str(artifacts_dir / "quiz-dark.png"))
    finally:
        if light_theme != "false":  # the theme is a user setting: put it back for other tests
            set_theme(page, "JupyterLab Light", light=True)
    # Readable in both themes (WCAG AA body text needs 4.5:1), and the colours follow the theme.
    assert light["ratio"] >= 4.5 and dark["ratio"] >= 4.5, (light, dark)
    assert light["bg"] != dark["bg"], (light, dark)

    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(lab_server.progress_dir))
    attempt = next(a for a in progress.quiz_attempts("m9-l1") if a["seed"] == seed)
    record = attempt["items"][question.id]
    assert record["responses"] == [wrong, right]
    assert record["tries"] == 2 and record["first_correct"] is False and record["correct"] is True


def answer_by_clicking(item, q, response) -> None:
    """Set a response in one rendered question as a learner would, then press Check."""
    if q.type == "single":
        item.locator("label", has_text=f"{q.letter(response)}. {q.option_texts[response]}").click()
    elif q.type == "multi":
        for i, text in q.choices():
            box = item.locator(".widget-checkbox", has_text=f"{q.letter(i)}. {text}").locator("input")
            box.set_checked(i in response)
    else:
        field = item.locator("input")
        field.fill(repr(float(response)))
        field.press("Enter")  # FloatText sends its value on Enter (or blur)
    item.locator("button.course-quiz-check").click()


def test_real_lesson_quiz_by_clicking(lab_server, page, artifacts_dir, monkeypatch):
    """Lesson 1 of Module 1 as a learner meets it: run the notebook, answer the m1-l1 quiz's first
    question wrong then right by clicking, and find both answers in the (server's own) progress store."""
    from coursekit.quiz.show import LessonQuiz

    lesson = "course/m1-training-vs-inference/01-what-each-does.ipynb"
    open_notebook(page, lab_server, lesson)
    items = page.locator(QUIZ_ITEMS)
    run_all_cells(page, until=items.first, timeout=240)

    # The kernel drew this learner's current attempt; the same code over the same store says which.
    # The learner id is random per test session, so take the first one-answer question when there
    # is one (a radio button to click), else the first question, whatever its type.
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(lab_server.progress_dir))
    banks = load_all_banks()
    quiz = LessonQuiz(banks["m1-l1"], banks, seed=None)
    n, question = next(((n, q) for n, q in enumerate(quiz.questions) if q.type == "single"), (0, quiz.questions[0]))
    item = items.nth(n)
    assert question.stem[:40] in item.inner_text()

    wrong, right = wrong_response(question), correct_response(question)
    answer_by_clicking(item, question, wrong)
    item.locator(".course-quiz-incorrect").wait_for(timeout=30_000)
    answer_by_clicking(item, question, right)
    correct = item.locator(".course-quiz-correct")
    correct.wait_for(timeout=30_000)
    assert "Why:" in correct.inner_text()                              # the explanation follows
    assert "Score: 0 / 3 right on the first try (1 of 3 answered)" in page.locator(".course-quiz-score").first.inner_text()
    correct.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "lesson-m1-l1-quiz.png"))

    attempt = next(a for a in progress.quiz_attempts("m1-l1") if a["seed"] == quiz.seed)
    record = attempt["items"][question.id]
    assert record["tries"] == 2 and record["first_correct"] is False and record["correct"] is True
    stored = record["responses"]
    if question.type in ("numeric", "param"):
        assert stored == pytest.approx([float(wrong), float(right)], rel=1e-9)
    else:
        assert stored == [progress._jsonable(wrong), progress._jsonable(right)]
