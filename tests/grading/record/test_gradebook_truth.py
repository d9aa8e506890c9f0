"""nbgrader's own tools see what the pipeline decided (issue 15): students by their roster names, a
failed submission as failed (no automatic score, flagged, needs a manual grade), lateness carried
from the LMS file through `collect` (timestamp.txt) to a penalty under the gradebook's due date and
the course's LateSubmissionPlugin, and a Canvas export with a column only for what was graded.
Run on a graded quiz (the gradebook writer is the labs' own) through the real commands."""
from __future__ import annotations

import csv
import datetime as dt
import io
import shutil
import zipfile

import pytest

from quiz_course import QUIZ, answers_for, copy_course, hand_in, nbgrader_grades, run

pytestmark = pytest.mark.slow

ROSTER = ("student_id,name,canvas_id\njdoe,\"Doe, Jane\",12345\nrroe,Rick Roe,22222\nzbad,\"Bad, Zed\",33333\n")


def canvas_zip(course, path, entries: dict[str, tuple[str, dict | None, tuple]]):
    """A Canvas bulk download: file name -> (student id, answers or None for a corrupt file, zip date)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, (student, answers, when) in entries.items():
            data = b'{"cells": [ not json'
            if answers is not None:
                data = hand_in(course, student, answers=answers).read_bytes()
                shutil.rmtree(course / "submitted" / student)
            archive.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


def test_names_failures_lateness_and_export_reach_nbgrader(quiz_template, tmp_path):
    course = copy_course(quiz_template, tmp_path)
    with open(course / "nbgrader_config.py", "a") as config:      # the course's late policy, nbgrader's way
        config.write('c.AssignLatePenalties.plugin_class = "autograder.record.late.PerDayPenalty"\n'
                     "c.PerDayPenalty.fraction_per_day = 0.25\n")
    due = "2026-11-20 12:00:00 UTC"
    run(course, "db", "assignment", "add", QUIZ, f"--duedate={due}", module="nbgrader")
    shutil.copytree(course / "solutions" / QUIZ, course / "solutions" / "quiz-unused")   # released, never handed in
    (course / "solutions" / "quiz-unused" / f"{QUIZ}.ipynb").rename(course / "solutions" / "quiz-unused" / "quiz-unused.ipynb")
    inbox = canvas_zip(course, tmp_path / "submissions.zip", {
        f"doe_jane_12345_1_{QUIZ}.ipynb": ("jdoe", answers_for("jdoe", 15), (2026, 11, 20, 10, 0, 0)),
        f"roe_rick_late_22222_2_{QUIZ}.ipynb": ("rroe", answers_for("rroe", 12), (2026, 11, 21, 23, 0, 0)),
        f"bad_zed_33333_3_{QUIZ}.ipynb": ("zbad", None, (2026, 11, 20, 9, 0, 0)),
    })
    (tmp_path / "roster.csv").write_text(ROSTER)
    collected = run(course, "collect", str(inbox), "--lab", QUIZ, "--roster", str(tmp_path / "roster.csv")).stdout
    assert "late      rroe" in collected and "2026-11-21 23:00:00" in collected

    run(course, "quiz", "grade", QUIZ, "--no-progress")
    rows = nbgrader_grades(course)
    jane, rick, zed = rows[(QUIZ, "jdoe")], rows[(QUIZ, "rroe")], rows[(QUIZ, "zbad")]
    assert (jane["last_name"], jane["first_name"]) == ("Doe", "Jane")
    assert (rick["last_name"], rick["first_name"]) == ("Roe", "Rick")
    assert (float(jane["score"]), float(jane["late_submission_penalty"])) == (15.0, 0.0)
    # 35 hours late: two started days at 25% of 12 points each
    assert (float(rick["raw_score"]), float(rick["late_submission_penalty"]), float(rick["score"])) == (12.0, 6.0, 6.0)
    # plain `nbgrader export` (the course's nbgrader_config.py plugin): a failure is blank, with its reason
    assert (zed["status"], zed["raw_score"], zed["score"]) == ("failed", "", "")
    assert "invalid notebook" in zed["reason"], zed
    assert (jane["status"], rick["status"]) == ("graded", "graded")

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        failed = gb.find_submission_notebook(QUIZ, QUIZ, "zbad")
        assert failed.flagged and failed.needs_manual_grade and all(g.auto_score is None for g in failed.grades)
        assert (failed.student.last_name, failed.student.first_name) == ("Bad", "Zed")
        graded = gb.find_submission_notebook(QUIZ, QUIZ, "jdoe")
        assert not graded.flagged and not graded.needs_manual_grade
        assert gb.find_assignment(QUIZ).duedate == dt.datetime(2026, 11, 20, 12, 0)

    out = tmp_path / "canvas.csv"
    canvas = run(course, "export", "--format", "canvas", "-o", str(out))
    table = list(csv.reader(out.open()))
    assert table[0][5:] == [QUIZ] and "quiz-unused has no graded submissions" in canvas.stderr
    assert {row[0]: row[5] for row in table[2:]} == {"Doe, Jane": "15", "Rick Roe": "6", "Bad, Zed": ""}
    assert "rroe: quiz-m9 late: 12 less a penalty of 6" in canvas.stderr
    long = {r["student_id"]: r for r in csv.DictReader(io.StringIO(run(course, "export").stdout))}
    assert (long["rroe"]["score"], long["rroe"]["late_penalty"], long["jdoe"]["late_penalty"]) == ("12", "6", "0")
