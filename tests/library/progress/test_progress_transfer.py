"""`course progress --export FILE` and `--import FILE`: progress carried between JupyterLab and the
course website, merged with every best result kept; a bad file refused with its name and problem."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from coursekit import progress
from coursekit.progress_report import course_report
from coursekit.app.progress_transfer import export_file, import_file

from paths import ROOT
from coursekit.quiz.engine import correct_response


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "store"))
    return tmp_path


def site_attempt(score_first: bool, correct: bool, seed: str = "site-abc-1") -> dict:
    """A lesson-quiz attempt as the website records it (coursekit/app/site/static/quiz.js)."""
    items = {"m1-l1-a": {"tries": 1 if score_first else 2, "first_correct": score_first, "correct": correct,
                         "responses": [0]}}
    return {"seed": seed, "source": "site", "attempt": 1, "started": "2026-11-25T10:00:00+00:00",
            "shown": ["m1-l1-a"], "variants": {"m1-l1-a": 3}, "items": items,
            "score": int(score_first), "total": 1}


def site_file(path, attempts: list[dict], tests: list[dict] = ()) -> None:
    data = {"schema": 1, "learner": "browser1", "quizzes": {"m1-l1": {"module": "m1", "attempts": attempts}},
            "module_tests": {"m1": {"attempts": list(tests)}}, "labs": {}, "recovered": []}
    path.write_text(json.dumps(data))


def test_import_merges_keeping_the_best_and_export_round_trips(store):
    progress.record_quiz("m1-l1", module="m1", seed=7, shown=["x", "y"], item_id="x", response=1, correct=True)
    passed = {"time": "2026-11-25T11:00:00+00:00", "bank": "m1-test", "student": "site-abc", "attempt": 1,
              "seed": "site-abc-test-1", "score": 13, "total": 15, "pass_mark": 0.8, "passed": True, "items": {}}
    failed = {**passed, "time": "2026-11-25T12:00:00+00:00", "attempt": 2, "seed": "site-abc-test-2", "score": 9,
              "passed": False}
    site_file(store / "a.json", [site_attempt(False, False)], [passed, failed])
    assert import_file(store / "a.json") == 3
    assert import_file(store / "a.json") == 0                         # the same file again adds nothing
    # the same attempt, further along in another browser: its record wins, the score is recomputed
    site_file(store / "b.json", [site_attempt(False, True)])
    assert import_file(store / "b.json") == 0
    data = progress.load()
    attempts = data["quizzes"]["m1-l1"]["attempts"]
    assert len(attempts) == 2 and attempts[0]["seed"] == "site-abc-1"          # sorted by start time
    assert attempts[0]["items"]["m1-l1-a"]["correct"] is True and attempts[0]["score"] == 0
    test = next(i for m in course_report(ROOT, data) for i in m.items if i.title == "Module 1 test")
    assert (test.state, test.detail) == ("done", "passed: best 13/15 right, pass mark 80% (2 attempts)")

    export_file(store / "out.json")
    assert json.loads((store / "out.json").read_text()) == data


def test_jupyterlab_quiz_continues_its_own_attempt_not_the_websites(store):
    """An imported website attempt has the site's draw, not this engine's: JupyterLab's current attempt
    is its own latest one."""
    from coursekit.quiz.bank import load_all_banks
    from coursekit.quiz.show import LessonQuiz

    banks = load_all_banks(ROOT / "quizzes")
    quiz = LessonQuiz(banks["m1-l1"], banks, seed=None)
    own = quiz.seed
    quiz.view.questions[0].set_response(correct_response(quiz.view.questions[0].q))
    quiz.view.check(quiz.view.questions[0], quiz.view.check_buttons[0])
    site_file(store / "a.json", [{**site_attempt(True, True), "started": "2999-01-01T00:00:00+00:00"}])
    import_file(store / "a.json")
    assert progress.quiz_attempts("m1-l1")[-1]["source"] == "site"
    assert LessonQuiz(banks["m1-l1"], banks, seed=None).seed == own


@pytest.mark.parametrize("text, problem", [
    ("{not json", "not valid JSON (Expecting property name enclosed in double quotes at line 1, column 2)"),
    ("[1, 2]", "expected a JSON object (a course progress file), found list"),
    ('{"schema": 2, "quizzes": {}, "module_tests": {}, "labs": {}}', "schema: expected 1, found 2"),
    ('{"schema": 1, "quizzes": {"m1-l1": {"attempts": [{"seed": 1, "shown": ["a"], "items": {"a": {"tries": 0}}}]}},'
     ' "module_tests": {}, "labs": {}}',
     "quizzes.m1-l1.attempts[0].items.a: expected tries (>= 1), first_correct, correct and responses"),
])
def test_a_bad_file_is_refused_naming_the_file_and_the_problem(store, text, problem):
    bad = store / "bad.json"
    bad.write_text(text)
    progress.learner_id()                                              # the store exists
    before = progress.load()
    with pytest.raises(ValueError) as caught:
        import_file(bad)
    assert str(caught.value) == f"{bad}: not a course progress file: {problem}"
    assert progress.load() == before                                   # nothing merged from a bad file
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "progress", "--import", str(bad)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and done.stderr.strip() == f"course progress: {bad}: not a course progress file: {problem}"


def test_a_missing_file_is_named(store):
    with pytest.raises(ValueError, match=r"nope\.json: cannot read it: No such file or directory"):
        import_file(store / "nope.json")
