"""One hostile submission never stops a class-wide command for everyone else (issue 51): the grading,
status, report, export, feedback, similarity, leaderboard and LMS passback of a class in which some
notebooks are built to break readers (an expression Python's parser cannot take, cut-off JSON, binary
junk, a cell whose source is a mapping, a notebook without a list of cells) finish for the honest
students, and name each hostile one with a reason where they leave it out."""
from __future__ import annotations

import csv
import io
import json

import nbformat
import pytest

from lms_emulator import EmulatedLMS
from pipeline_course import LAB, NB, cli, copy_course, notebook_text, store_rows

pytestmark = pytest.mark.slow          # a class graded for real, then one command started per check

HONEST = ("ada", "bob")
DEEP = "x = " + " + ".join(["1"] * 10_000)


def hostile_notebooks(honest: str) -> dict[str, str | bytes]:
    deep = nbformat.reads(honest, as_version=4)
    deep.cells.append(nbformat.v4.new_code_cell(f'LEADERBOARD_NAME = "deep"\n{DEEP}'))
    as_map = json.loads(honest)
    as_map["cells"][0]["source"] = {"not": "a string"}
    no_cells = json.loads(honest)
    no_cells["cells"] = "none"
    return {"deep": nbformat.writes(deep), "cut": honest[: len(honest) // 2], "junk": b"\x00\xff" * 5000,
            "mapping": json.dumps(as_map), "nocells": json.dumps(no_cells)}


@pytest.fixture(scope="module")
def course(generated, tmp_path_factory):
    course = copy_course(generated, tmp_path_factory.mktemp("hostile-class"))
    honest = notebook_text(course)
    for student, text in {**dict.fromkeys(HONEST, honest), **hostile_notebooks(honest)}.items():
        path = course / "submitted" / student / LAB / NB
        path.parent.mkdir(parents=True)
        path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    cli(course, "grade", LAB, "--no-progress")
    return course


def test_every_submission_ends_graded_or_failed_with_a_reason(course):
    rows = {r[1]: (r[3], r[5]) for r in store_rows(course)}
    assert set(rows) == {*HONEST, "deep", "cut", "junk", "mapping", "nocells"}
    assert all(rows[s][0] == "graded" for s in HONEST)
    assert all(status == "graded" or reason for status, reason in rows.values()), rows
    assert rows["cut"][0] == "failed" and "invalid JSON" in rows["cut"][1]
    assert rows["junk"][0] == "failed" and "UTF-8" in rows["junk"][1]
    status = cli(course, "status", LAB).stdout
    assert status.rstrip().endswith("0 pending") and all(s in status for s in HONEST), status


def test_report_export_and_feedback_finish_for_the_honest_students(course):
    report = cli(course, "report", LAB, "--no-png").stdout
    assert "not a notebook" in report                                      # the failures, counted
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(cli(course, "export").stdout))}
    assert all(rows[s]["state"] == "graded" and float(rows[s]["score"]) == 6.0 for s in HONEST)
    assert all(rows[s]["reason"] for s in ("cut", "junk", "nocells"))
    feedback = cli(course, "feedback", LAB, check=False)
    for student in HONEST:
        assert (course / "feedback" / student / LAB / f"{LAB}.html").is_file(), feedback.stderr
    # a notebook nbgrader cannot render gets no page, and is named; it never costs the others theirs
    missing = [s for s in ("deep", "mapping") if not (course / "feedback" / s / LAB / f"{LAB}.html").is_file()]
    assert all(f"no feedback for {s}" in feedback.stderr for s in missing), feedback.stderr


def test_similarity_and_the_leaderboard_finish_and_name_what_they_skip(course, tmp_path):
    similarity = cli(course, "similarity", LAB, "--json", str(tmp_path / "similar.json"))
    for student in ("cut", "junk", "nocells"):
        assert student in similarity.stdout.split("skipped:")[1], similarity.stdout
    data = json.loads((tmp_path / "similar.json").read_text())
    assert data, "the report was written"
    board = cli(course, "leaderboard", LAB, "--rerun", "0", "--out", str(tmp_path / "board"))
    assert (tmp_path / "board" / f"{LAB}.json").is_file(), board.stdout


def test_lms_post_sends_the_honest_scores_and_accounts_for_everyone(course):
    from coursekit.app.lti import keys

    cli(course, "lms", "keys")
    lms = EmulatedLMS(tool_jwks=lambda: keys.public_jwks(keys.load(course / "lti" / "tool-keys.json"))).start()
    try:
        lms.enrol("prof", role="Instructor")
        for student in (*HONEST, "deep", "cut", "junk", "mapping", "nocells"):
            lms.enrol(student)
        (course / "lti" / "platform.json").write_text(json.dumps(lms.platform_settings(timeout_s=5)))
        done = cli(course, "lms", "post", LAB, check=False)
        users = {p.user_id: p.username for p in lms.people.values()}
        landed = {users[user]: score["scoreGiven"] for (_, user), score in lms.results.items()}
    finally:
        lms.stop()
    assert all(landed.get(s) == pytest.approx(6.0) for s in HONEST), (landed, done.stdout, done.stderr)
    for student in ("cut", "junk", "nocells"):
        assert student in done.stdout + done.stderr, done.stdout + done.stderr
