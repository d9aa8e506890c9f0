"""Files in submitted/ that are not regular files (issue 30), through the real commands.

Submissions arrive by cp, rsync or tar too: a named pipe in the notebook's place (reading it waits
forever), a link to /dev/zero or /dev/urandom (reading never ends), a folder with the notebook's name,
a pipe or device link as timestamp.txt. Every command that reads submitted/ refuses these without
reading them, says why, and carries on with the other students; a timeout turns a regression into a
failure instead of a hung suite.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re

import pytest

from pipeline_course import LAB, NB, cli, notebook_text, store_rows

pytestmark = [pytest.mark.timeout(420), pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")]


def folder(course, student: str):
    path = course / "submitted" / student / LAB
    path.mkdir(parents=True)
    return path


def plant(course) -> None:
    """ada, ben, cai hand in honest work (ben's and cai's timestamp.txt are a pipe and a device link);
    four others leave something that is not a file where the notebook goes."""
    good = notebook_text(course)
    for student in ("ada", "ben", "cai"):
        (folder(course, student) / NB).write_text(good)
    os.mkfifo(course / "submitted" / "ben" / LAB / "timestamp.txt")
    (course / "submitted" / "cai" / LAB / "timestamp.txt").symlink_to("/dev/zero")
    os.mkfifo(folder(course, "pip") / NB)
    (folder(course, "zer") / NB).symlink_to("/dev/zero")
    (folder(course, "urn") / NB).symlink_to("/dev/urandom")
    (folder(course, "dir") / NB).mkdir()
    (course / "submitted" / "dir" / LAB / NB / "inside.ipynb").write_text(good)


REASONS = {"pip": "named pipe", "zer": "symbolic link", "urn": "symbolic link", "dir": "is a folder"}


@pytest.mark.slow
def test_pipes_devices_and_folders_in_submitted_are_refused_and_every_command_finishes(course, tmp_path):
    plant(course)
    one = cli(course, "grade", LAB, "--student", "ada", "--workers", "1", "--no-progress", timeout=300)
    assert "ada" in one.stdout and "GRADER ERROR" not in one.stdout
    assert {r[1] for r in store_rows(course)} == {"ada"}            # only ada was graded

    status = cli(course, "status", LAB, timeout=120).stdout        # before grading: the others are pending
    assert "pending" in status and "pip" in status

    grade = cli(course, "grade", LAB, "--workers", "1", "--no-progress", check=False, timeout=300)
    assert grade.returncode == 0, grade.stdout + grade.stderr
    rows = {r[1]: (r[3], r[4], r[5]) for r in store_rows(course)}
    assert set(rows) == {"ada", "ben", "cai", "pip", "zer", "urn", "dir"}
    for student in ("ada", "ben", "cai"):
        assert rows[student][:2] == ("graded", 6.0), (student, rows[student])
    for student, words in REASONS.items():
        assert rows[student][:2] == ("failed", 0.0) and words in rows[student][2], (student, rows[student])
    # a lab flags a submission time that rests on the file's date, as a quiz does (one reading of it)
    flags = {r["student_id"]: r["flags"] for r in csv.DictReader(io.StringIO(cli(course, "export", timeout=120).stdout))}
    assert "timestamp.txt unreadable" in flags["ben"] and "timestamp.txt unreadable" in flags["cai"], flags
    assert "timestamp.txt unreadable" not in flags["ada"], flags
    # the autograded copy of ben and cai carries no timestamp read from a pipe or /dev/zero
    for student in ("ben", "cai"):
        assert not (course / "autograded" / student / LAB / "timestamp.txt").exists()
        assert (course / "autograded" / student / LAB / NB).is_file()

    again = cli(course, "grade", LAB, "--no-progress", timeout=300)
    assert "graded now 0, already graded 7" in again.stdout         # refusals are stored results too

    status = cli(course, "status", LAB, timeout=120).stdout
    assert status.rstrip().endswith("3 graded, 4 failed, 0 pending")
    for student, words in REASONS.items():
        line = next(l for l in status.splitlines() if l.split()[1:2] == [student])
        assert "failed" in line and words in line, line
    exported = {r["student_id"]: r for r in csv.DictReader(io.StringIO(cli(course, "export", timeout=120).stdout))}
    assert {s for s, r in exported.items() if r["state"] == "failed"} == set(REASONS)
    assert all(r["reason"].startswith("refused:") for s, r in exported.items() if s in REASONS)
    canvas = cli(course, "export", "--format", "canvas", timeout=120)
    assert "pip" in canvas.stderr
    report = cli(course, "report", LAB, "--no-png", timeout=120).stdout
    assert "3 graded, 4 failed" in report and re.search(r"4 +refused", report)
    feedback = cli(course, "feedback", LAB, check=False, timeout=300)
    assert (course / "feedback" / "ada" / LAB / f"{LAB}.html").is_file(), feedback.stdout + feedback.stderr
    assert (course / "feedback" / "pip" / LAB / f"{LAB}.html").is_file()   # says why it failed

    # a student fixes the pipe: pending again, then graded
    os.unlink(course / "submitted" / "pip" / LAB / NB)
    (course / "submitted" / "pip" / LAB / NB).write_text(notebook_text(course, impl_add="wrong"))
    assert "pending" in next(l for l in cli(course, "status", LAB).stdout.splitlines() if l.split()[1:2] == ["pip"])
    cli(course, "grade", LAB, "--student", "pip", "--no-progress", timeout=300)
    assert "graded" in next(l for l in cli(course, "status", LAB).stdout.splitlines() if l.split()[1:2] == ["pip"])


@pytest.mark.slow
def test_collect_refuses_pipes_and_device_links_and_never_writes_through_links(course, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ada.ipynb").write_text(notebook_text(course))
    (inbox / "ben.ipynb").write_text(notebook_text(course))
    (inbox / "dir.ipynb").write_text(notebook_text(course))
    (inbox / "lnk.ipynb").write_text(notebook_text(course))
    os.mkfifo(inbox / "pip.ipynb")
    (inbox / "zer.ipynb").symlink_to("/dev/zero")
    os.mkfifo(folder(course, "ben") / "timestamp.txt")             # replaced, never opened
    (folder(course, "dir") / NB).mkdir()                            # a folder where the notebook goes
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (course / "submitted" / "lnk").symlink_to(elsewhere)            # a student folder that is a link

    done = cli(course, "collect", str(inbox), "--lab", LAB, check=False, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    text = done.stdout
    assert "pip.ipynb" in text and "zer.ipynb" in text and "dir.ipynb" in text and "lnk.ipynb" in text, text
    assert "is a folder" in text and "not a plain folder" in text, text
    assert (course / "submitted" / "ada" / LAB / NB).is_file()
    ben = course / "submitted" / "ben" / LAB
    assert (ben / "timestamp.txt").is_file() and not (ben / "timestamp.txt").is_symlink()
    assert json.loads((ben / NB).read_text())["cells"]
    assert not list(elsewhere.iterdir()), "collect wrote through a linked student folder"


@pytest.mark.slow
def test_a_graded_quiz_refuses_pipes_devices_and_folders_and_grades_the_rest(quiz_template, tmp_path):
    from quiz_course import QUIZ, answers_for, copy_course, hand_in, run as grader

    course = copy_course(quiz_template, tmp_path)
    hand_in(course, "alice", answers=answers_for("alice", 15))
    for student in ("pip", "zer", "dir"):
        (course / "submitted" / student / QUIZ).mkdir(parents=True)
    os.mkfifo(course / "submitted" / "pip" / QUIZ / f"{QUIZ}.ipynb")
    (course / "submitted" / "zer" / QUIZ / f"{QUIZ}.ipynb").symlink_to("/dev/urandom")
    (course / "submitted" / "dir" / QUIZ / f"{QUIZ}.ipynb").mkdir()
    stamp = course / "submitted" / "alice" / QUIZ / "timestamp.txt"
    stamp.unlink(missing_ok=True)
    os.mkfifo(stamp)

    done = grader(course, "grade", QUIZ, "--no-progress", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(grader(course, "export").stdout))
            if r["lab_id"] == QUIZ}
    assert rows["alice"]["state"] == "graded" and "timestamp.txt unreadable" in rows["alice"]["flags"]
    assert rows["pip"]["state"] == "failed" and "named pipe" in rows["pip"]["reason"]
    assert rows["zer"]["state"] == "failed" and "symbolic link" in rows["zer"]["reason"]
    assert rows["dir"]["state"] == "failed" and "folder" in rows["dir"]["reason"]
    status = grader(course, "status", QUIZ).stdout
    assert status.rstrip().endswith("1 graded, 3 failed, 0 pending")
    analytics = grader(course, "quiz", "analytics", QUIZ, check=False)
    assert analytics.returncode == 0, analytics.stdout + analytics.stderr
