"""Lesson quiz and module test widgets driven from Python: feedback, retry, score, progress, refusal."""
from __future__ import annotations

import shutil

import pytest

from coursekit import progress
from coursekit.quiz import show_module_test, show_quiz
from paths import TESTS
from quiz_ui import wrong_response
from coursekit.quiz.engine import correct_response

FIXTURES = TESTS / "fixtures" / "quiz"
GOOD, BROKEN = FIXTURES / "good", FIXTURES / "broken"


@pytest.fixture(autouse=True)
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    monkeypatch.delenv("COURSE_STUDENT", raising=False)
    return tmp_path / "progress" / "progress.json"


def test_lesson_quiz_feedback_retry_score_and_progress(store):
    quiz = show_quiz("m9-l1", root=GOOD)
    view = quiz.view
    assert len(view.questions) == 3 and "course-quiz" in view.box._dom_classes
    first, button = view.questions[0], view.check_buttons[0]
    for question, check in zip(view.questions, view.check_buttons):     # nothing chosen or typed yet
        check.click()
        wanted = "Choose an answer first" if question.q.type in ("single", "multi") else "Type a number first"
        assert wanted in question.feedback.value, question.q.type
    first.set_response(wrong_response(first.q))
    button.click()
    assert "course-quiz-incorrect" in first.feedback.value and "Try again" in first.feedback.value
    assert not button.disabled
    button.click()          # a second wrong try shows the explanation: no bare "Try again" beside it
    assert "Try again" not in first.feedback.value and "The explanation below works it through" in first.feedback.value
    assert first.q.explanation.split()[0] in first.feedback.value
    first.set_response(correct_response(first.q))
    button.click()
    assert "course-quiz-correct" in first.feedback.value
    assert first.q.explanation.split()[0] in first.feedback.value  # explanation shown once right
    assert button.disabled
    second = view.questions[1]
    second.set_response(correct_response(second.q))
    view.check_buttons[1].click()
    assert "Score: 1 / 3 right on the first try (2 of 3 answered)" in view.score.value

    attempt = progress.quiz_attempts("m9-l1")[-1]
    assert attempt["seed"] == quiz.seed and attempt["shown"] == [q.q.id for q in view.questions]
    record = attempt["items"][first.q.id]
    assert record == {"tries": 3, "first_correct": False, "correct": True,
                      "responses": record["responses"]} and len(record["responses"]) == 3
    assert attempt["score"] == 1 and attempt["total"] == 3
    assert progress.summary()["m9"]["quizzes"]["m9-l1"]["answered"] == 2


def test_unfinished_attempt_resumes_after_restart_then_new_draw():
    quiz = show_quiz("m9-l1", root=GOOD)
    q0 = quiz.view.questions[0]
    q0.set_response(correct_response(q0.q))
    quiz.view.check_buttons[0].click()
    again = show_quiz("m9-l1", root=GOOD)                   # a new kernel would do just this
    assert again.seed == quiz.seed
    assert [q.q.id for q in again.view.questions] == [q.q.id for q in quiz.view.questions]
    assert again.view.check_buttons[0].disabled and "earlier" in again.view.questions[0].feedback.value
    restored = again.view.questions[0]                      # the earlier answer and its feedback, not empty fields
    inputs = restored.boxes.values() if restored.q.type == "multi" else [restored.input]
    assert restored.response() == q0.response() and all(w.disabled for w in inputs)
    assert "<b>Correct.</b>" in restored.feedback.value and "Why:" in restored.feedback.value
    box = again.view.box
    again.new_attempt()
    assert again.seed != quiz.seed and again.view.box is box  # the displayed box updates in place


def test_wrong_answer_before_a_restart_stays_wrong_first_time():
    quiz = show_quiz("m9-l1", root=GOOD)
    q0 = quiz.view.questions[0]
    q0.set_response(wrong_response(q0.q))
    quiz.view.check_buttons[0].click()
    again = show_quiz("m9-l1", root=GOOD)                   # kernel restart: the same attempt comes back
    view = again.view
    assert view.first_try == {q0.q.id: False} and "not yet right" in view.questions[0].feedback.value
    assert view.questions[0].response() == q0.response() and "<b>Not quite.</b>" in view.questions[0].feedback.value
    assert "Score: 0 / 3 right on the first try (1 of 3 answered)" in view.score.value
    view.questions[0].set_response(correct_response(q0.q))
    view.check_buttons[0].click()
    assert "Score: 0 / 3 right on the first try (1 of 3 answered)" in view.score.value
    assert "Why:" in view.questions[0].feedback.value        # second try overall: the explanation shows
    record = progress.quiz_attempts("m9-l1")[-1]["items"][q0.q.id]
    assert record["first_correct"] is False and record["correct"] is True and record["tries"] == 2


def test_numeric_question_shows_its_units():
    quiz = show_quiz("m9-l1", seed=0, root=GOOD, record=False)
    numeric = [v for v in quiz.view.questions if v.q.type in ("numeric", "param")]
    assert numeric, "seed 0 should draw a numeric item"
    for view in numeric:
        row = view.box.children[1]                           # the answer box and its units, side by side
        assert view.input in row.children
        assert [w.value for w in row.children if w is not view.input] == [view.q.item.units]


def test_module_test_with_no_questions_submits_without_dividing_by_zero():
    from coursekit.quiz.widgets import ModuleTestView

    view = ModuleTestView("Empty", [], 0.8)
    result = view.submit()
    assert result == {"score": 0, "total": 0, "passed": False, "items": {}}
    assert "Score: 0 / 0 (0%): not passed" in view.result.value


def test_explicit_seed_is_deterministic():
    a = show_quiz("m9-l1", seed=5, root=GOOD, record=False)
    b = show_quiz("m9-l1", seed=5, root=GOOD, record=False)
    assert [(q.q.id, q.q.stem) for q in a.view.questions] == [(q.q.id, q.q.stem) for q in b.view.questions]


def test_broken_bank_is_refused_with_file_and_item():
    shown = show_quiz("m9-broken", root=BROKEN)
    assert "course-quiz-error" in shown.value
    assert "l1-broken.yaml: m9-bad-two-correct" in shown.value
    missing = show_quiz("m9-nope", root=GOOD)
    assert "no bank with this id" in missing.value
    assert "not a lesson quiz" in show_quiz("m9-module-test", root=GOOD).value


def test_module_test_per_student_submit_feedback_and_record():
    alice = show_module_test("m9", student="alice", root=GOOD)
    alice2 = show_module_test("m9", student="alice", root=GOOD, record=False)
    bob = show_module_test("m9", student="bob", root=GOOD, record=False)
    ids = [q.q.id for q in alice.view.questions]
    assert len(ids) == 15 and ids == [q.q.id for q in alice2.view.questions]
    assert ids != [q.q.id for q in bob.view.questions]
    view = alice.view
    for n, qv in enumerate(view.questions):
        if n < 12:
            qv.set_response(correct_response(qv.q))
        elif n < 14:
            qv.set_response(wrong_response(qv.q))
    assert view.submit() is None and "Unanswered: 15" in view.result.value   # warned once
    assert all(not qv.feedback.value for qv in view.questions)              # no feedback before submitting
    result = view.submit()
    assert result["score"] == 12 and result["total"] == 15 and result["passed"] is True  # 80% passes
    assert "Score: 12 / 15" in view.result.value and "passed" in view.result.value
    assert all("course-quiz-feedback" in qv.feedback.value for qv in view.questions)
    assert "Answer:" in view.questions[13].feedback.value
    assert view.submit_button.disabled and view.submit() is None
    summary = progress.summary()["m9"]["module_test"]
    assert summary == {"attempts": 1, "best": 0.8, "best_score": "12/15", "passed": True}


def test_module_test_retake_is_a_new_draw_per_attempt():
    from coursekit.quiz.engine import derive_seed

    def shown(test):
        return [(q.q.id, q.q.stem) for q in test.view.questions]

    first = show_module_test("m9", student="dana", root=GOOD)
    assert first.attempt == 1 and first.seed == derive_seed("module-test", "dana", "m9-module-test")  # as before
    assert shown(show_module_test("m9", student="dana", root=GOOD)) == shown(first)  # until submitted
    first.view.submit(force=True)
    second = show_module_test("m9", student="dana", root=GOOD)
    assert second.attempt == 2 and second.seed != first.seed
    assert shown(second) != shown(first)
    assert shown(show_module_test("m9", student="dana", root=GOOD)) == shown(second)  # reproducible
    for n, test in ((1, first), (2, second)):                  # and from the attempt number alone
        assert shown(show_module_test("m9", student="dana", root=GOOD, record=False, attempt=n)) == shown(test)
    second.view.submit(force=True)
    stored = progress.module_test_attempts("m9", "m9-module-test", "dana")
    assert [(a["attempt"], a["seed"]) for a in stored] == [(1, first.seed), (2, second.seed)]
    assert show_module_test("m9", student="erin", root=GOOD).attempt == 1  # counted per student


def test_module_test_below_pass_mark_fails():
    view = show_module_test("m9", student="carol", root=GOOD).view
    for qv in view.questions[:11]:
        qv.set_response(correct_response(qv.q))
    result = view.submit(force=True)
    assert result["score"] == 11 and result["passed"] is False
    assert "not passed" in view.result.value


def test_missing_module_test():
    assert "no bank with kind: module-test and module: m42" in show_module_test("m42", root=GOOD).value


def test_finished_quiz_comes_back_after_restart_with_its_attempts():
    quiz = show_quiz("m9-l1", root=GOOD)
    for view, button in zip(quiz.view.questions, quiz.view.check_buttons):
        view.set_response(correct_response(view.q))
        button.click()
    again = show_quiz("m9-l1", root=GOOD)                    # a kernel restart after finishing
    assert again.seed == quiz.seed and "Score: 3 / 3" in again.view.score.value
    assert all(b.disabled for b in again.view.check_buttons)
    assert "Attempt 1." in again.view.box.children[0].value
    again.new_attempt()                                       # the learner's choice
    assert "Attempt 2. Earlier attempts: #1: 3/3." in again.view.box.children[0].value
    assert "Score: 0 / 3" in again.view.score.value


def test_submitted_module_test_shows_its_attempts_and_waits_for_start():
    first = show_module_test("m9", student="fay", root=GOOD)
    for qv in first.view.questions[1:]:
        qv.set_response(correct_response(qv.q))
    first.view.submit(force=True)                             # the first question left unanswered
    given = [qv.feedback.value for qv in first.view.questions]
    again = show_module_test("m9", student="fay", root=GOOD)   # after a restart
    history, start, review = again.box.children
    n = len(first.view.questions)
    assert f"Attempt 1: {n - 1}/{n}" in history.value and start.description == "Start attempt 2"
    # the submitted attempt's per-question feedback is back, as it was after submitting
    assert review is again.review.box and [qv.feedback.value for qv in again.review.questions] == given
    assert "Not answered." in given[0] and "course-quiz-correct" in given[1]
    assert again.view.box not in again.box.children           # no fresh draw at 0 until asked
    assert progress.module_test_attempts("m9", again.bank.id, "fay")[-1]["attempt"] == 1   # the review records nothing
    start.click()
    assert again.view.box in again.box.children and again.attempt == 2


@pytest.mark.parametrize("feedback, shown", [("Right.", ""), ("Right: 2mkn.", "2mkn."), ("Yes, m and v.", "m and v."),
                                             ("Rightly so.", "Rightly so."), ("Right idea.", "Right idea.")])
def test_right_answer_feedback_says_correct_once(feedback, shown):
    from coursekit.quiz.engine import Outcome
    from coursekit.quiz.widgets import feedback_html

    html = feedback_html(Outcome(True, feedback, "why", 0))
    assert f"<b>Correct.</b> {shown}</div>" in html, html
    wrong = feedback_html(Outcome(False, "Right idea, wrong unit.", "why", 0))   # only a right answer's is trimmed
    assert "<b>Not quite.</b> Right idea, wrong unit." in wrong


def test_quiz_titles_are_section_headings():
    """A lesson has an h1 title and h2 sections; the quiz after them is an h2 (no skipped level, WCAG 1.3.1)."""
    quiz = show_quiz("m9-l1", root=GOOD)
    assert "<h2 class='course-quiz-title'>" in quiz.view.box.children[0].value
    test = show_module_test("m9", root=GOOD)
    assert "<h2 class='course-quiz-title'>" in test.view.box.children[0].value


def test_a_restored_numeric_answer_shows_what_was_typed_and_how_it_was_read():
    quiz = show_quiz("m9-l1", seed=0, root=GOOD)
    index, view = next((i, v) for i, v in enumerate(quiz.view.questions) if v.q.type in ("numeric", "param"))
    view.input.value = f"{view.q.answer * 10:,.10g}"        # wrong by ten: "not yet right"
    quiz.view.check_buttons[index].click()
    again = show_quiz("m9-l1", root=GOOD).view.questions[index]   # after a kernel restart
    assert again.response() == pytest.approx(view.q.answer * 10)
    assert "Not quite." in again.feedback.value and "not yet right" in again.feedback.value


def test_a_renamed_module_test_keeps_the_attempts_under_its_former_id(tmp_path):
    """The bank renamed after a submitted attempt (`formerly` names the old id): that attempt is still
    counted, reviewed with its own questions, and the next one is attempt 2; show_quiz takes the old id."""
    first = show_module_test("m9", student="gus", root=GOOD)
    for qv in first.view.questions:
        qv.set_response(correct_response(qv.q))
    first.view.submit(force=True)
    renamed = tmp_path / "renamed"
    shutil.copytree(GOOD, renamed)
    test_file = renamed / "m9" / "module-test.yaml"
    test_file.write_text(test_file.read_text().replace("id: m9-module-test\n",
                                                       "id: m9-test\nformerly: [m9-module-test]\n", 1))
    again = show_module_test("m9", student="gus", root=renamed)
    assert again.bank.id == "m9-test" and again.attempt == 2
    history, start, review = again.box.children
    assert "Attempt 1: 15/15" in history.value and start.description == "Start attempt 2"
    assert [(q.q.id, q.q.stem) for q in again.review.questions] == [(q.q.id, q.q.stem) for q in first.view.questions]
    again.view.submit(force=True)
    stored = progress.module_test_attempts("m9", "m9-test", "gus", formerly=again.bank.formerly)
    assert [(a["bank"], a["attempt"]) for a in stored] == [("m9-module-test", 1), ("m9-test", 2)]
    assert "not a lesson quiz" in show_quiz("m9-module-test", root=renamed).value   # found under its old id
