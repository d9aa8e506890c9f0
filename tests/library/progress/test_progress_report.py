"""coursekit.progress_report: `course progress` and the start page list every lesson, lab and module
test in course order with its state and what its score means, and each module's share done."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursekit import progress
from coursekit.progress_report import DONE, IN_PROGRESS, MEANING, NOT_STARTED, course_report, format_report, report_html
from paths import ROOT


NO_EXERCISES = "; exercises: 0 of 3 answered and revealed"   # each lesson has three (tests/content/test_exercises.py)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))


def test_nothing_recorded_still_lists_the_whole_course(store):
    modules = course_report(ROOT)
    lessons = sorted(ROOT.glob("course/m*/[0-9]*.ipynb"))
    items = [i for m in modules for i in m.items]
    assert [i.path for i in items if i.title.startswith("Lesson")] == [p.relative_to(ROOT).as_posix() for p in lessons]
    assert sum("test" in i.title for i in items) == len(list(ROOT.glob("course/m*/module-test.ipynb")))
    assert sum(i.title.startswith("Lab") for i in items) == len(list(ROOT.glob("labs/*/*.ipynb")))
    assert {i.state for i in items} == {NOT_STARTED}
    text = format_report(modules)
    assert "Module 1: Training vs inference: 0 of 6 done (0%)" in text and text.endswith(MEANING)


def test_states_scores_and_shares(store):
    shown = ["a", "b"]
    progress.record_quiz("m1-l1", module="m1", seed=1, shown=shown, item_id="a", response=0, correct=False)
    for item in shown:
        progress.record_quiz("m1-l1", module="m1", seed=1, shown=shown, item_id=item, response=1, correct=True)
    progress.record_quiz("m1-l2", module="m1", seed=1, shown=["a", "b", "c"], item_id="a", response=1, correct=True)
    progress.record_lab_check("lab1-roofline", 5, 5)
    progress.record_module_test("m1", bank_id="m1-test", student="s", seed=1, pass_mark=0.8,
                                items={f"i{n}": {"response": n, "correct": n < 10} for n in range(15)})
    m1 = course_report(ROOT)[0]
    states = {i.title.split(":")[0]: (i.state, i.detail) for i in m1.items}
    assert states["Lesson 1"] == (DONE, "quiz: all answered right; 1 of 2 on the first try (best of 1 attempt)" + NO_EXERCISES)
    assert states["Lesson 2"] == (IN_PROGRESS, "quiz: 1 of 3 questions answered right" + NO_EXERCISES)
    assert states["Lesson 3"] == (NOT_STARTED, "quiz not answered yet" + NO_EXERCISES)
    assert states["Lab 1"] == (DONE, "all 5 tasks passed their visible tests at your best check")
    assert states["Module 1 test"] == (IN_PROGRESS, "not passed yet: best 10/15 right, pass mark 80% (1 attempt)")
    assert m1.done == 2
    assert "Module 1: Training vs inference: 2 of 6 done (33%)" in format_report([m1])


def test_progress_never_goes_backwards(store):
    """A check in a freshly restarted kernel (0/7 after 1/7) and a new quiz attempt keep the best: the
    report shows it, and says what the latest shows."""
    progress.record_lab_check("lab1-roofline", 1, 7)
    progress.record_lab_check("lab1-roofline", 0, 7)
    shown = ["a", "b"]
    for item in shown:
        progress.record_quiz("m1-l1", module="m1", seed=1, shown=shown, item_id=item, response=1, correct=True)
    progress.record_quiz("m1-l1", module="m1", seed=2, shown=shown, item_id="a", response=0, correct=False)
    states = {i.title.split(":")[0]: (i.state, i.detail) for i in course_report(ROOT)[0].items}
    assert states["Lab 1"] == (IN_PROGRESS, "1 of 7 tasks pass their visible tests at your best check; your latest check: 0 of 7")
    assert states["Lesson 1"] == (DONE, "quiz: all answered right; 2 of 2 on the first try (best of 2 attempts); a new attempt is "
                                        "under way (0 of 2 questions answered right)" + NO_EXERCISES)
    progress.record_lab_check("lab1-roofline", 7, 7)
    progress.record_lab_check("lab1-roofline", 0, 7)
    lab = {i.title.split(":")[0]: i for i in course_report(ROOT)[0].items}["Lab 1"]
    assert lab.state == DONE and lab.detail.endswith("your latest check: 0 of 7")


def test_links_lead_to_the_learners_copy_from_the_start_page(store, tmp_path):
    root = tmp_path / "course-root"
    for folder in ("course", "labs"):
        shutil.copytree(ROOT / folder, root / folder)
    html = report_html(course_report(root))
    assert "href='../labs/lab1-roofline/lab1-roofline.ipynb'" in html
    assert "href='../course/m1-training-vs-inference/01-what-each-does.ipynb'" in html
    copy = root / "work" / "lab1-roofline" / "lab1-roofline.ipynb"
    copy.parent.mkdir(parents=True)
    shutil.copy(root / "labs" / "lab1-roofline" / "lab1-roofline.ipynb", copy)
    assert "href='../work/lab1-roofline/lab1-roofline.ipynb'" in report_html(course_report(root))


def test_course_progress_in_a_terminal_shows_the_best_check(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, COURSE_PROGRESS_DIR=str(tmp_path), COURSE_ROOT=str(ROOT))
    record = ("from coursekit import progress\n"
              "progress.record_lab_check('lab1-roofline', 1, 7)\nprogress.record_lab_check('lab1-roofline', 0, 7)")
    subprocess.run([sys.executable, "-c", record], env=env, check=True)
    shown = subprocess.run([str(Path(sys.executable).parent / "course"), "progress"], env=env, check=True,
                           capture_output=True, text=True).stdout
    assert "1 of 7 tasks pass their visible tests at your best check; your latest check: 0 of 7" in shown, shown


def test_the_next_step_is_marked(store):
    modules = course_report(ROOT)
    first = modules[0].items[0]
    assert first.next and sum(i.next for m in modules for i in m.items) == 1
    assert f"Next: {first.title} ({first.path})" in format_report(modules)
    shown = ["a", "b"]
    for item in shown:
        progress.record_quiz("m1-l1", module="m1", seed=1, shown=shown, item_id=item, response=1, correct=True)
    modules = course_report(ROOT)
    assert not modules[0].items[0].next and modules[0].items[1].next
    assert f"-> {NOT_STARTED:<12} {modules[0].items[1].title}" in format_report(modules)
    html = report_html(modules)
    assert html.count("course-progress-next") == 1 and "<strong>not started, next</strong>" in html


def test_the_table_has_column_headers_and_a_header_per_module(store):
    html = report_html(course_report())
    assert "<thead><tr><th scope='col'>State</th><th scope='col'>Lesson, lab or test</th><th scope='col'>Result</th>" in html
    assert html.count("scope='rowgroup'") == html.count("<tbody>") == 7


def test_revealed_exercises_are_said_but_never_decide_a_lesson(store):
    from coursekit.progress_report import lesson_exercises

    ids = lesson_exercises("m1-l2")
    assert len(ids) >= 3
    for exercise in ids[:2]:
        progress.record_exercise(exercise, lesson="m1-l2", prediction=1.0, answer=2.0, off_pct=-50.0, close=False)
    progress.record_exercise(ids[0], lesson="m1-l2", prediction=2.0, answer=2.0, off_pct=0.0, close=True)  # again
    lesson = {i.title.split(":")[0]: i for i in course_report(ROOT)[0].items}["Lesson 2"]
    assert (lesson.state, lesson.detail) == (NOT_STARTED, f"quiz not answered yet; exercises: 2 of {len(ids)} "
                                                          "answered and revealed")
