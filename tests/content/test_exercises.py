"""Lesson exercises (coursekit/exercises): each loads with an answer computed by coursekit, every lesson
has at least three placed in its notebook, the widget commits then reveals (driven from Python), the
lessons still execute with them, and the website's form works in Chromium."""
from __future__ import annotations

import html
import importlib
import json
import math
import pkgutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursekit import calc, hardware, model_configs, prices
from coursekit.exercises import ExerciseError, all_exercises, lesson_exercises
from coursekit.exercises.bank import load_file
from coursekit.outline import load_outline
from paths import ROOT


def lessons() -> dict[str, Path]:
    """'m1-l2' -> its notebook, for every lesson of every module (module tests are not lessons)."""
    found = {}
    for module in load_outline(ROOT):
        for lesson in module.lessons:
            found[f"{module.id}-l{lesson.number}"] = lesson.path
    return found


LESSONS = lessons()
EXERCISES = all_exercises()


def test_there_are_twenty_six_lessons():
    assert len(LESSONS) == 26, sorted(LESSONS)


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_every_lesson_has_three_exercises_placed_before_its_key_terms(lesson):
    exercises = lesson_exercises(lesson)
    assert len(exercises) >= 3, f"{lesson}: {len(exercises)} exercises, need at least 3"
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    key_terms = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## Key terms" in c.source)
    for ex in exercises:
        cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and f'exercise("{ex.id}")' in c.source]
        assert len(cells) == 1, f"{LESSONS[lesson].name}: exercise {ex.id} shown {len(cells)} times, want once"
        assert cells[0] < key_terms, f"{LESSONS[lesson].name}: {ex.id} comes after the Key terms"


def _independent_namespace() -> dict:
    """The names exercise expressions use, built here again so the test does not trust bank.namespace."""
    names = {"hardware": hardware, "models": model_configs, "prices": prices, "math": math}
    for info in pkgutil.iter_modules(calc.__path__):
        names[info.name] = importlib.import_module(f"coursekit.calc.{info.name}")
    return names


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_answer_is_finite_and_is_the_coursekit_expression(exercise_id):
    ex = EXERCISES[exercise_id]
    assert math.isfinite(ex.answer) and ex.answer != 0
    scope = _independent_namespace()
    for name, expression in ex.expressions.items():
        scope[name] = eval(expression, scope) if isinstance(expression, str) else expression
    assert ex.answer == pytest.approx(float(scope["answer"]), rel=1e-12)
    assert isinstance(ex.expressions["answer"], str)
    # the prompt cites its inputs, and its numbers came from the values (no unfilled field is left)
    assert ex.source and "{" not in ex.prompt and "{" not in ex.worked
    assert ex.answer_text in ex.worked or format(ex.answer, ex.number_format) in ex.worked, \
        f"{exercise_id}: the worked answer never states the answer {ex.answer_text}"


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "m9-l1.yaml"
    path.write_text("lesson: m9-l1\nexercises:\n" + body)
    return path


GOOD = """  - id: m9-l1-x
    title: t
    values:
      answer: {answer}
    prompt: p
    source: s
    units: GB
    worked: "{{answer}}"
"""


@pytest.mark.parametrize("answer, message", [
    ("140", "uses no coursekit function or constant"),                       # a typed number
    ("'2 * 70'", "uses no coursekit function or constant"),                  # arithmetic on typed numbers
    ("'memory.no_such_function(1)'", "failed: AttributeError"),
    ("'memory.weight_bytes(0, 2)'", "finite, non-zero answer"),
])
def test_bad_answers_are_refused_naming_file_and_exercise(tmp_path, answer, message):
    path = _write(tmp_path, GOOD.format(answer=answer))
    with pytest.raises(ExerciseError) as err:
        load_file(path)
    assert str(path) in str(err.value) and "'m9-l1-x'" in str(err.value) and message in str(err.value)


def test_missing_fields_unknown_units_and_wrong_file_name_are_refused(tmp_path):
    path = _write(tmp_path, "  - id: m9-l1-x\n    title: t\n    values: {answer: 'memory.weight_bytes(1e9, 2)'}\n")
    with pytest.raises(ExerciseError, match="missing prompt, source, units, worked"):
        load_file(path)
    path = _write(tmp_path, GOOD.format(answer="'memory.weight_bytes(1e9, 2)'").replace("units: GB", "units: furlongs per fortnight?"))
    assert load_file(path)[0].answer == 2e9       # odd units still read back as themselves
    other = _write(tmp_path, GOOD.format(answer="'memory.weight_bytes(1e9, 2)'").replace("id: m9-l1-x", "id: x"))
    with pytest.raises(ExerciseError, match="must start with m9-l1-"):
        load_file(other)
    twice = _write(tmp_path, GOOD.format(answer="'memory.weight_bytes(1e9, 2)'") * 2)
    with pytest.raises(ExerciseError, match="unique in the file"):
        load_file(twice)
    bad = tmp_path / "m9-l2.yaml"
    bad.write_text("lesson: m9-l1\nexercises: []\n")
    with pytest.raises(ExerciseError, match="does not match the file name"):
        load_file(bad)


# --- the widget, driven from Python --------------------------------------------------------------

@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    return tmp_path / "progress" / "progress.json"


def test_commit_then_reveal_shows_the_worked_answer_and_how_far_off(store):
    from coursekit.exercises import exercise

    view = exercise("m1-l2-train-state-mistral")
    ex = view.ex
    assert view.reveal_button.disabled and not view.commit_button.disabled
    # sized to their labels, not ipywidgets' fixed width that cut "Commit my an..."
    assert view.commit_button.layout.width == view.reveal_button.layout.width == "auto"
    assert view.worked.value == ""                                      # nothing of the answer in the page yet
    typed = f"{ex.answer * 1.1:,.0f} GB"
    view.input.value = typed
    view.commit_button.click()
    assert view.input.disabled and view.commit_button.disabled and not view.reveal_button.disabled
    assert "Committed" in view.feedback.value
    view.reveal_button.click()
    shown = view.worked.value
    assert "Worked answer." in shown and ex.answer_text in shown
    expected = (float(typed.split()[0].replace(",", "")) - ex.answer) / ex.answer * 100
    assert f"{expected:.1f}% above the worked answer" in shown
    assert "counts as close" in shown
    record = json.loads(store.read_text())["exercises"]["m1-l2-train-state-mistral"]
    assert record["lesson"] == "m1-l2"
    assert record["reveals"][0]["off_pct"] == pytest.approx(expected, abs=1e-3)
    assert record["reveals"][0]["close"] is (abs(expected) <= ex.tolerance * 100)


@pytest.mark.parametrize("typed, value", [("36,500", 36500), ("1.2e9", 1.2e9), ("3.2 x 10^3 GB", 3200),
                                          ("116 GB", 116), ("0,5", 0.5), ("1.5k", 1500)])
def test_predictions_are_read_by_the_quiz_number_reader(store, typed, value):
    from coursekit.exercises import exercise

    view = exercise("m1-l2-train-state-mistral", record=False)
    view.input.value = typed
    assert view.commit()
    assert view.prediction == pytest.approx(value)


def test_bad_input_gets_a_clear_message_and_reveal_before_commit_is_refused(store):
    from coursekit.exercises import exercise

    view = exercise("m1-l3-ridge-l40s")
    view.reveal_button.click()                       # a script or a stale page can still click it
    assert "Commit a prediction first" in view.feedback.value and view.worked.value == ""
    view.commit_button.click()
    assert "Type your prediction first (in FLOP/byte)" in view.feedback.value
    view.input.value = "about four hundred"
    view.commit_button.click()
    assert "Could not read 'about four hundred' as a number" in html.unescape(view.feedback.value)
    assert "Nothing was committed" in view.feedback.value
    assert view.prediction is None and view.reveal_button.disabled and not store.exists()
    view.input.value = "420"
    view.commit_button.click()
    view.reveal_button.click()
    assert "Worked answer." in view.worked.value and view.reveal_button.disabled


def test_the_output_carries_the_widget_and_a_self_contained_html_form():
    from coursekit.exercises import exercise

    view = exercise("m1-l1-days-to-repay", record=False)
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    page = bundle["text/html"]
    assert 'label for="course-exercise-m1-l1-days-to-repay"' in page and 'id="course-exercise-m1-l1-days-to-repay"' in page
    assert "Commit my answer" in page and "Reveal the worked answer" in page and "<script>" in page
    assert "hidden><p class=\"course-exercise-result\"></p><p><b>Worked answer.</b>" in page
    for external in ("http://", "https://", "src=", "fetch("):
        assert external not in page
    # the accessible names: the text box is labelled with what to type and in which units
    assert view.input.description == "Your prediction, in days:"


def test_the_site_prefers_the_html_form_to_a_widget_view():
    from coursekit.app.site.build import CONF_PY, STUDENT_COPY

    namespace: dict = {}
    exec(CONF_PY.format(title="t", student=STUDENT_COPY), namespace)
    assert ("html", "text/html", 5) in namespace["nb_mime_priority_overrides"]   # widget views rank 10


# --- the lessons still run -----------------------------------------------------------------------

CHANGED = ["m1-l1", "m2-l4", "m3-l2", "m4-l3", "m5-l3", "m6-l2", "m7-l2"]   # one lesson of each module


@pytest.mark.slow
@pytest.mark.parametrize("lesson", CHANGED)
def test_lessons_execute_with_their_exercises(executed_notebooks, lesson):
    nb = executed_notebooks.get(LESSONS[lesson])
    shown = []
    for cell in nb.cells:
        if cell.cell_type == "code" and "exercise(" in cell.source:
            data = [o["data"] for o in cell.outputs if o.get("output_type") in ("execute_result", "display_data")]
            assert len(data) == 1, cell.source
            assert "application/vnd.jupyter.widget-view+json" in data[0] and "course-exercise" in data[0]["text/html"]
            shown.append(cell.source)
    assert len(shown) == len(lesson_exercises(lesson))


# --- the website, in Chromium -------------------------------------------------------------------

@pytest.fixture(scope="module")
def lesson_site(executed_notebooks, tmp_path_factory):
    """One executed lesson rendered by the site's own steps (make_static, CONF_PY, Sphinx + MyST-NB)."""
    from coursekit.quiz.bank import load_all_banks
    from coursekit.app.site.build import CONF_PY, SITE_TITLE, STUDENT_COPY
    from coursekit.app.site.static_pages import make_static

    rel = LESSONS["m1-l3"].relative_to(ROOT).as_posix()
    nb = executed_notebooks.get(LESSONS["m1-l3"])
    make_static(nb, rel, load_all_banks(ROOT / "quizzes"), lab=False)
    out = tmp_path_factory.mktemp("exercise-site")
    source = out / "source"
    (source / Path(rel).parent).mkdir(parents=True)
    nbformat.write(nb, source / rel)
    (source / "index.md").write_text(f"# Site\n\n```{{toctree}}\n{rel.rsplit('.', 1)[0]}\n```\n")
    (source / "conf.py").write_text(CONF_PY.format(title=SITE_TITLE, student=STUDENT_COPY))
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(source), str(out / "html")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return out / "html" / rel.replace(".ipynb", ".html")


READINGS = ["36,500", "36 500", "1.2e9", "3.2 x 10^9", "0,075", "1.234.567", "730k", "2.5 million", "-5", "abc",
            "1,23,4", "", "419 FLOP/byte", "12 GB", "116 gigabytes", "$5.69/M", "5.69 dollars per million tokens",
            "$5.69 per 1M tokens", "47B tokens", "46.7 billion", "46.7 billion tokens a day", "12%", "12 percent",
            "2.9x a year", "2.9 times", "1,500 days", "$1.2bn", "3.1 hours", "168 ms", "21 GPUs", "0.55 s", "303 us"]


@pytest.mark.slow
@pytest.mark.browser
def test_site_form_commits_reveals_and_reads_numbers_like_python(lesson_site, page):
    from coursekit.quiz.numbers import UnreadableNumber, read_number

    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(lesson_site.as_uri())
    ex = EXERCISES["m1-l3-ridge-l40s"]
    box = page.locator(f"[data-exercise='{ex.id}']")
    assert box.count() == 1 and page.locator(".course-exercise").count() == len(lesson_exercises("m1-l3"))
    worked = box.locator(".course-exercise-worked")
    assert worked.is_hidden()
    reveal = box.get_by_role("button", name="Reveal the worked answer")
    assert reveal.is_disabled()
    field = box.get_by_label("Your prediction, in FLOP/byte:")
    field.fill("about four hundred")
    box.get_by_role("button", name="Commit my answer").click()
    assert "Could not read 'about four hundred' as a number" in box.locator(".course-exercise-feedback").inner_text()
    assert reveal.is_disabled()
    field.fill("400")
    field.press("Enter")                                            # the keyboard commits too
    reveal.wait_for(state="visible")
    page.wait_for_function(f"!document.querySelector(\"[data-exercise='{ex.id}'] .course-exercise-reveal\").disabled")
    reveal.click()
    worked.wait_for(state="visible")
    text = worked.inner_text()
    off = (400 - ex.answer) / ex.answer * 100
    assert ex.answer_text in text and "Worked answer." in text
    assert f"{abs(off):.1f}% {'above' if off > 0 else 'below'} the worked answer" in text
    python_sentence = __import__("coursekit.exercises", fromlist=["compare"]).compare(ex, 400, "400")[2]
    assert python_sentence in text                                  # the browser writes Python's sentence
    # the browser's reader agrees with coursekit's on what it accepts and what it reads, in every unit used
    mismatches = []
    for units in sorted({e.units for e in EXERCISES.values()}):
        for typed in READINGS:
            js = page.evaluate("([t, u]) => { const v = window.courseExercises.read(t, u); "
                               "return v instanceof Error ? null : v; }", [typed, units])
            try:
                expected = read_number(typed, units).value if typed.strip() else None
            except UnreadableNumber:
                expected = None
            if (js is None) != (expected is None) or (js is not None and js != pytest.approx(expected)):
                mismatches.append(f"{typed!r} in {units!r}: browser {js}, coursekit {expected}")
    assert not mismatches, "\n".join(mismatches)
    # Nothing fetched for the exercises. MyST-NB's own ipywidgets loader (require.js and the widget
    # html-manager, loaded on any page whose notebook saved widget state) is the site's, not theirs.
    from myst_nb.core.config import ipywidgets_js_factory

    theirs = set(ipywidgets_js_factory())
    assert all(url.startswith("file:") or url in theirs for url in requests), requests


# --- JupyterLab, by keyboard only ----------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.browser
def test_exercise_in_jupyterlab_by_keyboard(lab_server, page, monkeypatch):
    """Type a prediction, Tab to Commit and press Enter, Tab to Reveal and press Enter: the worked answer
    shows how far off it was, and the reveal is in the server's progress store."""
    import uuid

    from coursekit import progress
    from jupyterlab_ui import open_notebook, run_all_cells

    ex = EXERCISES["m1-l3-ridge-l40s"]
    folder = lab_server.root / f"exercise-browser-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Exercise in the browser"),
                nbformat.v4.new_code_cell(f"from coursekit.exercises import exercise\n\nexercise({ex.id!r})")]
    nbformat.write(nb, folder / "exercise.ipynb")
    open_notebook(page, lab_server, f"{folder.name}/exercise.ipynb")
    box = page.locator(".course-exercise:visible").first
    run_all_cells(page, until=box)
    assert ex.prompt[:40] in box.inner_text()
    field = box.get_by_label("Your prediction, in FLOP/byte:")     # the label is the box's accessible name
    reveal = box.get_by_role("button", name="Reveal the worked answer")
    assert reveal.is_disabled()
    field.click()
    field.type("400")
    page.keyboard.press("Tab")                                     # sends the value and moves to Commit
    page.wait_for_function("document.activeElement && document.activeElement.textContent.includes('Commit my answer')")
    page.keyboard.press("Enter")
    box.get_by_text("Committed: Read your answer as 400 FLOP/byte.").wait_for(timeout=30_000)
    reveal.wait_for(state="visible")
    page.wait_for_function("[...document.querySelectorAll('.course-exercise-reveal')].some(b => !b.disabled)")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    worked = box.locator(".course-exercise-result")
    worked.wait_for(timeout=30_000)
    off = (400 - ex.answer) / ex.answer * 100
    assert f"{abs(off):.1f}% {'above' if off > 0 else 'below'} the worked answer" in worked.inner_text()
    assert "Worked answer." in box.inner_text() and ex.answer_text in box.inner_text()
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(lab_server.progress_dir))
    assert progress.exercise_reveals(ex.id)[-1]["prediction"] == pytest.approx(400)


def test_a_fraction_for_a_percent_is_named_as_a_factor_of_100():
    """M1 L1 asks MFU in percent; 0.43 is right but for the scale, and the sentence says so."""
    from coursekit.exercises import compare

    ex = EXERCISES["m1-l1-mfu-70b"]
    off, close, sentence = compare(ex, ex.answer / 100, "0.43")
    assert not close and "only by a factor of 100" in sentence, sentence
    assert "factor of 100" not in compare(ex, ex.answer / 3, "14")[2]     # an ordinary miss is not
