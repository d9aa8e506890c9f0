"""A graded quiz's scores to the LMS: after `autograder quiz grade` of the fixture module test (bank
m9-module-test, released as a graded quiz), the passback posts each student's score to the line item
Deep Linking made for it in the emulated LMS (tests/lms_emulator.py), never a second one."""
from __future__ import annotations

import json

import pytest
from lms_emulator import EmulatedLMS
from quiz_course import QUIZ, STUDENTS, answers_for, copy_course, hand_in, run

pytestmark = pytest.mark.slow
RIGHT = {"alice": 15, "bob": 12, "carol": 4}        # questions answered right, of 15
NO_SUBMISSION = "dave"


@pytest.fixture
def course(quiz_template, tmp_path):
    course = copy_course(quiz_template, tmp_path)
    for student, n in RIGHT.items():
        hand_in(course, student, answers=answers_for(student, n))
    run(course, "lms", "keys")
    return course


@pytest.fixture
def lms(course):
    from coursekit.app.lti import keys

    running = EmulatedLMS(tool_jwks=lambda: keys.public_jwks(keys.load(course / "lti" / "tool-keys.json"))).start()
    for student in (*STUDENTS, NO_SUBMISSION):
        running.enrol(student)
    # the assignment an instructor made by Deep Linking the quiz (tests/app/hub/test_hub_lti.py makes one for real)
    running.links.append({"id": "assignment-1", "type": "ltiResourceLink", "custom": {"lab": QUIZ}})
    running.lineitems[1] = {"label": QUIZ, "scoreMaximum": 15, "tag": QUIZ, "resourceId": QUIZ,
                            "resourceLinkId": "assignment-1", "id": f"{running.url}/ags/{running.context_id}/lineitems/1"}
    (course / "lti" / "platform.json").write_text(json.dumps(running.platform_settings(timeout_s=5)))
    yield running
    running.stop()


def test_quiz_grade_posts_each_score_to_the_deep_linked_line_item(course, lms):
    done = run(course, "quiz", "grade", QUIZ, "--no-progress", "--post-to-lms")
    assert f"{QUIZ}: graded now 3" in done.stdout
    assert f"{QUIZ}: 3 posted, 0 unchanged, 1 skipped, 0 failed" in done.stdout, done.stdout
    assert f"{QUIZ} -> {lms.url}/ags/{lms.context_id}/lineitems/1" in done.stdout
    assert list(lms.lineitems) == [1]                       # found by its tag: no second column made
    for student, n in RIGHT.items():
        score = lms.score_of(QUIZ, student)
        assert (score["scoreGiven"], score["scoreMaximum"]) == (n, 15), (student, score)
        assert score["gradingProgress"] == "FullyGraded" and QUIZ in score["comment"]
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith(NO_SUBMISSION))
    assert "no submission" in line

    again = run(course, "lms", "post", QUIZ)                # the passback command alone: nothing new to send
    assert f"{QUIZ}: 0 posted, 3 unchanged, 1 skipped, 0 failed" in again.stdout and len(lms.posts) == 3


def test_a_regraded_quiz_posts_only_the_changed_score(course, lms):
    run(course, "quiz", "grade", QUIZ, "--no-progress")
    assert f"{QUIZ}: 3 posted" in run(course, "lms", "post", QUIZ).stdout
    hand_in(course, "carol", answers=answers_for("carol", 9))          # a resubmission, collected again
    run(course, "quiz", "grade", QUIZ, "--no-progress")
    done = run(course, "lms", "post", QUIZ)
    assert f"{QUIZ}: 1 posted, 2 unchanged" in done.stdout, done.stdout
    assert lms.score_of(QUIZ, "carol")["scoreGiven"] == 9 and len(lms.posts) == 4
