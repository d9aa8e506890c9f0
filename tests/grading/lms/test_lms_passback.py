"""`autograder lms post`: a graded class's scores reach the emulated LMS through LTI 1.3 AGS.

One class of 33 is graded for real once per module (`autograder grade` on the pipeline's toy lab), then
each test works on a copy: the gradebook's scores (a hand-edited one, a late penalty) are what lands,
every student ends posted, skipped or failed with a reason, a second run sends nothing, and an LMS that
fails half way (500s, timeouts, a revoked token, down) loses nothing: the next run finishes the job.
"""
from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3

import pytest
from lms_emulator import EmulatedLMS
from pipeline_course import BODIES, LAB, NB, cli, copy_course, notebook_text

CLASS = [f"st{i:02d}" for i in range(1, 33)]          # 32 graded submissions
PENDING = "st33"                                      # collected after grading: not graded yet
NOT_IN_LMS = "st05"                                   # graded, never enrolled in the LMS course
NO_SUBMISSION = "st40"                                # enrolled, never handed in
HAND_EDITED, LATE = "st03", "st04"

pytestmark = pytest.mark.slow     # a real class graded, and a command started per post


def choices(i: int) -> dict:
    """A spread of honest mistakes: student i gets task k wrong when bit k of i is set."""
    return {task: "wrong" for k, task in enumerate(BODIES) if i >> k & 1}


@pytest.fixture(scope="module")
def graded(generated, tmp_path_factory):
    course = copy_course(generated, tmp_path_factory.mktemp("lms-class"))
    for i, student in enumerate(CLASS):
        folder = course / "submitted" / student / LAB
        folder.mkdir(parents=True)
        (folder / NB).write_text(notebook_text(course, **choices(i)))
    cli(course, "grade", LAB, "--no-progress")
    return course


@pytest.fixture
def course(graded, tmp_path):
    """A copy of the graded class, with an instructor's hand edit, a late penalty and a late hand-in."""
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    shutil.copytree(graded, course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        gb.find_grade("test_mean", LAB, LAB, HAND_EDITED).manual_score = 1.0      # the formgrader's edit: 3 -> 1
        gb.find_submission_notebook(LAB, LAB, LATE).late_submission_penalty = 1.0
        gb.db.commit()
    folder = course / "submitted" / PENDING / LAB
    folder.mkdir(parents=True)
    (folder / NB).write_text(notebook_text(course))
    cli(course, "lms", "keys")
    return course


@pytest.fixture
def lms(course):
    from coursekit.app.lti import keys

    running = EmulatedLMS(tool_jwks=lambda: keys.public_jwks(keys.load(course / "lti" / "tool-keys.json"))).start()
    running.enrol("prof", role="Instructor")
    for student in CLASS + [PENDING, NO_SUBMISSION]:
        if student != NOT_IN_LMS:
            running.enrol(student)
    (course / "lti" / "platform.json").write_text(json.dumps(running.platform_settings(timeout_s=2)))
    yield running
    running.stop()


def expected(course) -> dict[str, float]:
    """The gradebook's score after its late penalty: what the LMS must hold."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        return {s.student.id: max(0.0, s.score - s.late_submission_penalty) for s in gb.assignment_submissions(LAB)}


def landed(lms) -> dict[str, float]:
    users = {p.user_id: p.username for p in lms.people.values()}
    return {users[user]: score["scoreGiven"] for (_, user), score in lms.results.items()}


def post(course, *extra, check=False):
    return cli(course, "lms", "post", LAB, *extra, check=check)


def test_a_graded_class_lands_in_the_lms_and_every_student_is_accounted_for(course, lms):
    done = post(course)
    assert done.returncode == 0, done.stdout + done.stderr
    want = {s: v for s, v in expected(course).items() if s != NOT_IN_LMS}
    assert len(want) == 31 and landed(lms) == want
    assert len({round(v, 2) for v in want.values()}) >= 4             # a real spread of scores, not one value
    assert want[HAND_EDITED] == expected(course)[HAND_EDITED] and want[LATE] == expected(course)[LATE]
    # the gradebook's hand edit and late penalty, not the autograder's raw score
    rows = {r[0]: r for r in sqlite3.connect(course / "autograded/.autograder/results.sqlite").execute(
        "SELECT student_id, score FROM results")}
    assert landed(lms)[HAND_EDITED] == rows[HAND_EDITED][1] - 2 and landed(lms)[LATE] == max(0.0, rows[LATE][1] - 1.0)
    score = lms.score_of(LAB, "st01")
    assert score["scoreMaximum"] == 6 and score["gradingProgress"] == "FullyGraded"
    assert score["activityProgress"] == "Completed" and "Fetch Feedback" in score["comment"]
    assert "Late penalty: 1 points" in lms.score_of(LAB, LATE)["comment"]
    assert f"{LAB}: 31 posted, 0 unchanged, 3 skipped, 0 failed" in done.stdout
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip().startswith("st")}
    assert "not in the LMS" in lines[NOT_IN_LMS] and "no submission" in lines[NO_SUBMISSION]
    assert "not yet graded" in lines[PENDING]
    assert [li["tag"] for li in lms.lineitems.values()] == [LAB]      # one line item, made by the first run

    again = post(course)          # nothing changed: nothing is sent, no second line item
    assert again.returncode == 0 and f"{LAB}: 0 posted, 31 unchanged, 3 skipped, 0 failed" in again.stdout
    assert len(lms.posts) == 31 and len(lms.lineitems) == 1


def test_a_dry_run_sends_and_records_nothing(course, lms):
    done = post(course, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"{LAB}: 31 would post, 0 posted, 0 unchanged, 3 skipped, 0 failed" in done.stdout
    assert "6/6" in done.stdout and "(late -1)" in done.stdout
    assert lms.posts == [] and lms.lineitems == {}
    assert f"{LAB}: 31 posted" in post(course).stdout         # the real run still sends everything


def test_a_grade_changed_by_hand_after_posting_is_posted_again_alone(course, lms):
    from nbgrader.api import Gradebook

    post(course, check=True)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        gb.find_grade("test_mean", LAB, LAB, "st02").manual_score = 0.0
        gb.db.commit()
    done = post(course, check=True)
    assert f"{LAB}: 1 posted, 30 unchanged" in done.stdout
    assert len(lms.posts) == 32 and landed(lms)["st02"] == expected(course)["st02"]


def test_the_canvas_export_and_the_lms_get_the_same_score_a_hand_edit_included(course, lms):
    """One owner of the outgoing score (autograder/record/outgoing.py): the Canvas CSV once took the
    autograder's stored score less the penalty, the passback the gradebook's, where a hand edit wins."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:    # as the formgrader
        grade = gb.find_grade("test_scale", LAB, LAB, LATE)                                # saves a hand grade
        grade.manual_score, grade.needs_manual_grade = 0.5, False
        gb.db.commit()
    # a hub class: `course hub` leaves its roster in the course folder, with the usernames as logins
    (course / "class-roster.csv").write_text("username,role,name\nprof,instructor,Prof\n"
                                             + "".join(f"{s},student,\n" for s in CLASS + [PENDING]))
    out = course / "canvas.csv"
    exported = cli(course, "export", "--format", "canvas", "--canvas-id", f"{LAB}=77", "-o", str(out))
    post(course, check=True)
    table = list(csv.DictReader(out.open()))
    canvas = {row["SIS Login ID"]: float(row[f"{LAB} (77)"]) for row in table[1:] if row[f"{LAB} (77)"]}
    sent = {s: v for s, v in landed(lms).items()}
    assert canvas == {**sent, NOT_IN_LMS: expected(course)[NOT_IN_LMS]} and len(canvas) == 32
    rows = {r[0]: r[1] for r in sqlite3.connect(course / "autograded/.autograder/results.sqlite").execute(
        "SELECT student_id, score FROM results")}
    assert canvas[HAND_EDITED] == rows[HAND_EDITED] - 2 != rows[HAND_EDITED]         # the hand edit went out
    assert canvas[LATE] == sent[LATE] == expected(course)[LATE]                       # penalty once, edit kept
    assert "Canvas cannot match" not in exported.stderr, exported.stderr
    assert f"{PENDING}: {LAB} not yet graded" in exported.stderr and "left blank" in exported.stderr
    long = {r["student_id"]: r for r in csv.DictReader(io.StringIO(cli(course, "export").stdout))}
    assert float(long[HAND_EDITED]["outgoing_score"]) == canvas[HAND_EDITED]
    assert float(long[HAND_EDITED]["score"]) == rows[HAND_EDITED]       # the autograder's own, kept beside it


def test_500s_and_a_timeout_fail_those_students_with_the_reason_and_the_next_run_finishes(course, lms):
    lms.fail("scores", status=500, times=1, after=5)
    lms.hang("scores", times=1, after=11)
    done = post(course)
    assert done.returncode == 1 and f"{LAB}: 29 posted, 0 unchanged, 3 skipped, 2 failed" in done.stdout
    assert "the LMS answered HTTP 500" in done.stdout and "did not answer in time" in done.stdout
    assert "run the same command again" in done.stderr
    done = post(course)
    assert done.returncode == 0 and f"{LAB}: 2 posted, 29 unchanged, 3 skipped, 0 failed" in done.stdout
    want = {s: v for s, v in expected(course).items() if s != NOT_IN_LMS}
    assert landed(lms) == want


def test_a_token_revoked_mid_run_is_replaced_and_nothing_is_lost(course, lms):
    lms.revoke_at("scores", after=10)
    done = post(course)
    assert done.returncode == 0 and f"{LAB}: 31 posted" in done.stdout, done.stdout
    assert lms.counts["token"] >= 2 and len(lms.posts) == 31


def test_an_lms_that_goes_down_half_way_is_given_up_on_and_the_next_run_resumes(course, lms):
    lms.fail("scores", status=503, times=1000, after=15)
    done = post(course)
    assert done.returncode == 1
    assert f"{LAB}: 15 posted, 0 unchanged, 3 skipped, 16 failed" in done.stdout
    assert done.stdout.count("not tried: the LMS failed 3 times in a row") == 13
    assert lms.counts["scores"] == 18          # it stopped asking after three failures in a row
    lms.rules.clear()
    done = post(course)
    assert done.returncode == 0 and f"{LAB}: 16 posted, 15 unchanged, 3 skipped, 0 failed" in done.stdout
    assert len(lms.posts) == 31


def test_an_unreachable_or_refusing_lms_and_bad_settings_stop_with_a_clear_message(course, lms):
    lms.fail("token", status=500, times=1)
    done = post(course)
    assert done.returncode == 2 and "the LMS answered HTTP 500 to /token" in done.stderr
    (course / "lti" / "platform.json").write_text(json.dumps({"issuer": lms.issuer}))
    done = post(course)
    assert done.returncode == 2 and "platform.json: missing client_id" in done.stderr
    assert lms.posts == []


def test_the_lms_refuses_the_tool_after_its_key_is_rotated_away_unless_the_key_set_is_served(course, lms):
    from coursekit.app.lti import keys

    served = keys.public_jwks(keys.load(course / "lti" / "tool-keys.json"))
    lms.tool_jwks = lambda: served                  # an LMS holding a pasted copy of the old key set
    cli(course, "lms", "keys", "--rotate")
    done = post(course)
    assert done.returncode == 2 and "no key" in done.stderr and "in the tool's key set" in done.stderr
    lms.tool_jwks = lambda: keys.public_jwks(keys.load(course / "lti" / "tool-keys.json"))   # the served set
    assert post(course).returncode == 0 and len(lms.posts) == 31


def test_grading_with_post_to_lms_posts_right_after(course, lms):
    """`autograder grade LAB --post-to-lms`: one student regraded, then the whole lab posted."""
    done = cli(course, "grade", LAB, "--student", "st01", "--regrade", "--no-progress", "--post-to-lms", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{LAB}: 31 posted, 0 unchanged, 3 skipped, 0 failed" in done.stdout and len(lms.posts) == 31
