"""The instructor pipeline through the real `autograder` CLI on a toy lab (tests/fixtures/pipeline).

Each test works in a throwaway course directory (nbgrader_config.py, solutions/ with the lab's spec; the `course`
fixture in conftest.py) so the repository's own submitted/, gradebook.db and labs/ are never touched.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from pipeline_course import (HONEST, LAB, NB, cli, comparable, copy_course, env, gradebook_scores, notebook_text,
                             store_rows, write_folder)

# The `course` fixture (a fresh copy of the toy course, its lab generated once per run) is in conftest.py;
# the submissions helpers (notebook_text, write_folder, store_rows...) are in tests/pipeline_course.py.


# ---------------------------------------------------------------- collect

@pytest.mark.slow
def test_collect_from_folder_maps_layouts_and_refuses_unmatched(course, tmp_path):
    src = tmp_path / "inbox"
    (src / "carol").mkdir(parents=True)
    (src / "dan" / LAB).mkdir(parents=True)
    text = notebook_text(course)
    (src / "alice.ipynb").write_text(text)                       # <student>.ipynb
    (src / f"bob_{LAB}.ipynb").write_text(text)                  # <student>_<lab>.ipynb
    (src / "carol" / NB).write_text(text)                        # <student>/<notebook>
    (src / "dan" / LAB / NB).write_text(text)                    # nbgrader layout
    (src / NB).write_text(text)                                  # names no student
    (src / "readme.txt").write_text("not a notebook")
    (src / "eve.ipynb").symlink_to(src / "alice.ipynb")          # symlink
    done = cli(course, "collect", str(src), "--lab", LAB, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    for student in ("alice", "bob", "carol", "dan"):
        path = course / "submitted" / student / LAB / NB
        assert path.read_text() == text, student
        assert (path.parent / "timestamp.txt").read_text().strip().endswith("UTC")
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["alice", "bob", "carol", "dan"]
    out = done.stdout
    assert f"REFUSED   {NB}: unmatched name" in out
    assert "REFUSED   eve.ipynb: symlink" in out
    assert "ignored   readme.txt: not a notebook" in out
    assert "4 collected, 2 refused, 1 ignored" in out


def test_collect_from_hostile_zip_refuses_each_problem_and_keeps_the_rest(course, tmp_path):
    text = notebook_text(course)
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"doe_jane_12345_67890_{NB}", text)                    # roster maps 12345 -> jdoe
        z.writestr(f"roe_rick_late_22222_67891_{LAB}-1.ipynb", text)      # late, resubmission suffix
        z.writestr(f"../../escape_33333_1_{NB}", text)                    # zip-slip
        z.writestr(f"/etc/absolute_44444_1_{NB}", text)                   # absolute path
        link = zipfile.ZipInfo(f"lnk_55555_1_{NB}")
        link.external_attr = (0o120777 << 16)                             # a symlink entry
        z.writestr(link, "/work/main/solutions")
        z.writestr(f"big_66666_1_{NB}", text + " " * 200_000)             # over the 0.1 MB cap
        z.writestr(f"twin_77777_1_{NB}", text)                            # two files, one student
        z.writestr(f"twin_77777_2_{NB}", text)
        z.writestr(f"who_88888_1_{NB}", text)                             # not on the roster
        z.writestr("random.ipynb", text)                                  # no rule matches
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,canvas_id,sis_user_id,sis_login_id,section\n"
                      "jdoe,\"Doe, Jane\",12345,S001,jdoe@uni.example,A\n"
                      "rroe,\"Roe, Rick\",22222,S002,rroe@uni.example,B\n"
                      "big,Big File,66666,S003,big@uni.example,A\n"
                      "twin,Twin,77777,S004,twin@uni.example,A\n")
    done = cli(course, "collect", str(archive), "--lab", LAB, "--roster", str(roster), "--max-mb", "0.1", check=False)
    out = done.stdout
    assert done.returncode == 1
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["jdoe", "rroe"]
    assert (course / "submitted" / "jdoe" / LAB / NB).read_text() == text
    assert not list(tmp_path.rglob("escape*")) and not (course.parent / f"escape_33333_1_{NB}").exists()
    expected = {f"../../escape_33333_1_{NB}": "'..' in the path",
                f"/etc/absolute_44444_1_{NB}": "absolute path",
                f"lnk_55555_1_{NB}": "symlink",
                f"big_66666_1_{NB}": "oversized",
                f"twin_77777_1_{NB}": "duplicate: 2 files map to student twin",
                f"twin_77777_2_{NB}": "duplicate: 2 files map to student twin",
                f"who_88888_1_{NB}": "unmatched name: Canvas user 88888 (who) is not on the roster",
                "random.ipynb": "unmatched name"}
    for entry, reason in expected.items():
        assert any(line.startswith(f"REFUSED   {entry}: ") and reason in line for line in out.splitlines()), (entry, out)
    assert "2 collected, 8 refused" in out


def test_collect_refuses_a_zip_entry_with_a_zeroed_date_and_collects_the_rest(course, tmp_path):
    text = notebook_text(course)
    archive = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(zipfile.ZipInfo("nodate.ipynb", date_time=(1980, 0, 0, 0, 0, 0)), text)   # a zeroed DOS date
        z.writestr(zipfile.ZipInfo("notes.txt", date_time=(1980, 0, 0, 0, 0, 0)), "not a notebook")
        z.writestr(zipfile.ZipInfo("ada.ipynb", date_time=(2026, 3, 1, 12, 30, 0)), text)
    done = cli(course, "collect", str(archive), "--lab", LAB, check=False)
    assert done.returncode == 1, done.stdout + done.stderr           # refused something, did not abort
    assert "REFUSED   nodate.ipynb: invalid date in the archive" in done.stdout
    assert "ignored   notes.txt: not a notebook" in done.stdout
    assert "1 collected, 1 refused, 1 ignored" in done.stdout
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["ada"]
    stamp = (course / "submitted" / "ada" / LAB / "timestamp.txt").read_text()
    assert stamp.startswith("2026-03-01 12:30:00")


# ---------------------------------------------------------------- grading

@pytest.mark.slow
def test_parallel_grades_equal_sequential_nbgrader_on_honest_work(course, tmp_path):
    cli(course, "collect", str(write_folder(course, tmp_path / "inbox", HONEST)), "--lab", LAB)
    baseline = tmp_path / "baseline"
    shutil.copytree(course, baseline)                  # same submissions, same gradebook, nothing graded
    done = cli(course, "grade", LAB, "--workers", "2")
    assert "graded now 5" in done.stdout
    subprocess.run([sys.executable, "-m", "nbgrader", "autograde", LAB], cwd=baseline, env=env(baseline),
                   check=True, capture_output=True, timeout=900)
    ours, theirs = gradebook_scores(course), gradebook_scores(baseline)
    assert len(theirs) == len(HONEST) * 3
    assert ours == theirs
    # and the scores are the ones the choices imply (so "equal" is not "equally broken")
    points = {"test_add": 1, "test_scale": 2, "test_mean": 3}
    impl = {"test_add": "impl_add", "test_scale": "impl_scale", "test_mean": "impl_mean"}
    for (student, cell), score in ours.items():
        assert score == (0 if HONEST[student].get(impl[cell]) == "wrong" else points[cell]), (student, cell)
    graded_nb = nbformat.read(course / "autograded" / "ben" / LAB / NB, as_version=4)
    errors = [o for c in graded_nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert len(errors) == 1 and "add" in errors[0].evalue.lower()


@pytest.fixture(scope="module")
def twelve_collected(generated, tmp_path_factory) -> tuple[Path, Path]:
    """Twelve honest submissions collected into a copy of the toy course (nothing graded), and a copy of
    that course graded by an uninterrupted sequential run: the reference each resume test compares with."""
    base = tmp_path_factory.mktemp("twelve")
    course = copy_course(generated, base)
    students = {f"s{i:02d}": HONEST[list(HONEST)[i % len(HONEST)]] for i in range(12)}
    cli(course, "collect", str(write_folder(course, base / "inbox", students)), "--lab", LAB)
    clean = base / "clean"
    shutil.copytree(course, clean)                     # same submissions, same collection times
    cli(clean, "grade", LAB, "--workers", "1", "--no-progress")
    return course, clean


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_killed_grader_resumes_with_identical_rows(twelve_collected, tmp_path, workers):
    """Killed mid-batch, sequential or parallel: the rerun grades only what is missing, and the rows and
    the gradebook equal an uninterrupted sequential run's."""
    collected, clean = twelve_collected
    course = copy_course(collected, tmp_path)
    reference = comparable(store_rows(clean))
    assert len(reference) == 12

    db = course / "autograded" / ".autograder" / "results.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "autograder.cli", "--root", str(course), "grade", LAB,
                             "--workers", workers, "--no-progress"], cwd=course, env=env(course),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    rows = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                rows = sqlite3.connect(db, timeout=5).execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.OperationalError:
                rows = 0
        if rows >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the grader finished before it could be killed: make the batch longer"
    os.killpg(proc.pid, signal.SIGKILL)            # the grader and its workers, mid-batch
    proc.wait()
    partial = store_rows(course)
    assert 3 <= len(partial) < 12
    done = cli(course, "grade", LAB, "--workers", workers, "--no-progress")
    assert f"already graded {len(partial)}" in done.stdout
    assert comparable(store_rows(course)) == reference
    assert gradebook_scores(course) == gradebook_scores(clean)


@pytest.mark.slow
def test_status_report_export_feedback_after_a_mixed_batch(course, tmp_path):
    inbox = write_folder(course, tmp_path / "inbox", {"ada": {}, "ben": {"impl_add": "wrong"}, "cai": {}})
    (inbox / "zed.ipynb").write_text("{ this is not json")
    cli(course, "collect", str(inbox), "--lab", LAB)
    grade = cli(course, "grade", LAB, "--workers", "2")
    assert "1 failed" in grade.stdout and "zed" in grade.stdout
    (course / "submitted" / "cai" / LAB / NB).write_text(notebook_text(course, impl_mean="wrong"))  # resubmitted

    status = cli(course, "status", LAB).stdout
    line = {l.split()[1]: l for l in status.splitlines() if l.startswith(LAB)}
    assert "graded" in line["ada"] and "6/6" in line["ada"]
    assert "graded" in line["ben"] and "5/6" in line["ben"]
    assert "pending" in line["cai"]
    assert "failed" in line["zed"] and "0/6" in line["zed"]
    zed_reason = line["zed"].split("0/6", 1)[1].strip()
    assert zed_reason, "a failed submission must show its reason"
    assert "2 graded, 1 failed, 1 pending" in status

    rows = list(csv.DictReader(io.StringIO(cli(course, "export").stdout)))
    by = {r["student_id"]: r for r in rows}
    assert by["ada"]["score"] == "6" and by["ben"]["score"] == "5" and by["cai"]["state"] == "pending"
    assert by["zed"]["state"] == "failed" and by["zed"]["reason"]
    out = tmp_path / "canvas.csv"
    canvas = cli(course, "export", "--format", "canvas", "--canvas-id", f"{LAB}=4242", "-o", str(out))
    table = list(csv.reader(out.open()))
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{LAB} (4242)"]
    assert table[1] == ["Points Possible", "", "", "", "", "6"]
    scores = {r[0]: r[5] for r in table[2:]}
    assert scores == {"ada": "6", "ben": "5", "cai": "", "zed": ""}   # failed/pending blank, never a zero
    assert "zed" in canvas.stderr and "failed to grade" in canvas.stderr

    report = cli(course, "report", LAB).stdout
    assert "3 graded" not in report and "2 graded, 1 failed, 1 pending" in report
    assert "test_add" in report and "discrimination" in report and "failure reasons:" in report
    assert (course / "autograded" / ".autograder" / "reports" / f"{LAB}.png").stat().st_size > 1000

    cli(course, "feedback", LAB)
    html = (course / "feedback" / "ben" / LAB / f"{LAB}.html").read_text()
    assert "5.0 / 6.0" in html or "5 / 6" in html


@pytest.mark.slow
def test_resubmitting_an_earlier_notebook_shows_its_result_everywhere(course, tmp_path):
    """A, then B, then A again: A's stored row is reused, and the gradebook, the autograded notebook
    and the feedback must show A's result, not B's."""
    def submit(version: str, choices: dict) -> str:
        inbox = tmp_path / version
        inbox.mkdir()
        (inbox / "ada.ipynb").write_text(notebook_text(course, **choices))
        os.utime(inbox / "ada.ipynb", (time.time(), time.time()))
        cli(course, "collect", str(inbox), "--lab", LAB)
        return cli(course, "grade", LAB, "--workers", "1", "--no-progress").stdout

    html = course / "feedback" / "ada" / LAB / f"{LAB}.html"
    graded = course / "autograded" / "ada" / LAB / NB
    submit("a", {})
    submit("b", {"impl_add": "wrong"})
    cli(course, "feedback", LAB)
    assert "5.0 / 6.0" in html.read_text() or "5 / 6" in html.read_text()
    assert "graded now 0, already graded 1" in submit("a-again", {})        # A's stored row is reused
    assert [r[3:5] for r in store_rows(course)] == [("graded", 6.0), ("graded", 5.0)]   # A's row, B's row
    assert "6/6" in cli(course, "status", LAB).stdout
    assert gradebook_scores(course) == {("ada", "test_add"): 1.0, ("ada", "test_scale"): 2.0, ("ada", "test_mean"): 3.0}
    errors = [o for c in nbformat.read(graded, as_version=4).cells for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert errors == []                                   # B's failing add is gone from the graded notebook
    assert not html.exists()                              # B's feedback is not left to be handed out
    cli(course, "feedback", LAB)
    assert "6.0 / 6.0" in html.read_text() or "6 / 6" in html.read_text()
    from nbgrader.api import Gradebook

    stamp = (course / "submitted" / "ada" / LAB / "timestamp.txt").read_text().strip()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        timestamp = gb.find_submission(LAB, "ada").timestamp
    assert stamp.startswith(timestamp.strftime("%Y-%m-%d %H:%M:%S"))   # the time of the latest submission


def test_check_tells_a_learner_which_tasks_pass(course, tmp_path):
    good = tmp_path / NB
    good.write_text(notebook_text(course))
    done = cli(course, "check", str(good), check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3/3 tasks pass" in done.stdout and "(progress recorded)" in done.stdout
    partial = tmp_path / "mine.ipynb"
    partial.write_text(notebook_text(course, impl_mean="wrong"))
    done = cli(course, "check", str(partial), check=False)
    assert done.returncode == 1
    assert "2/3 tasks pass" in done.stdout
    assert "FAIL  Task (mean)" in done.stdout and "sum divided by count" in done.stdout   # the case's hint
    checks = json.loads((course / ".progress" / "progress.json").read_text())["labs"][LAB]["checks"]
    assert [(c["passed"], c["total"]) for c in checks] == [(3, 3), (2, 3)]


def _with_cell(course: Path, code: str, **choices: str) -> str:
    nb = nbformat.reads(notebook_text(course, **choices), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(code))
    return nbformat.writes(nb)


ALL_WRONG = {"impl_add": "wrong", "impl_scale": "wrong", "impl_mean": "wrong"}


@pytest.mark.slow
def test_hostile_submissions_gain_nothing_and_the_batch_carries_on(course, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "honest.ipynb").write_text(_with_cell(course, "import warnings, sys\nwarnings.warn('noise')\n"
                                                           "print('to stderr', file=sys.stderr)"))
    # wrong answers, then (below the test cells, where each task is judged) versions that equal anything
    (inbox / "rigged.ipynb").write_text(_with_cell(course, (
        "class Anything:\n    def __eq__(self, other):\n        return True\n"
        "def add(a, b):\n    return Anything()\n"
        "def scale(xs, k):\n    return Anything()\n"
        "def mean(xs):\n    return Anything()"), **ALL_WRONG))
    (inbox / "patcher.ipynb").write_text(_with_cell(
        course, "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None", **ALL_WRONG))
    (inbox / "exits.ipynb").write_text(_with_cell(course, "import sys\nsys.exit(0)", **ALL_WRONG))
    (inbox / "sleeper.ipynb").write_text(_with_cell(course, "import time\nwhile True:\n    time.sleep(0.1)"))
    cli(course, "collect", str(inbox), "--lab", LAB)
    cli(course, "grade", LAB, "--workers", "2", "--wall-s", "6", "--no-progress")
    rows = {r[1]: (r[3], r[4], r[5], json.loads(r[6])["flags"]) for r in store_rows(course)}
    assert rows["honest"][:2] == ("graded", 6.0) and rows["honest"][3] == []   # noise costs nothing
    expected_flags = {"rigged": "__eq__", "patcher": "unittest.TestCase.assertEqual", "exits": "sys.exit"}
    for student, flag in expected_flags.items():
        status, score, _, flags = rows[student]
        assert score == 0.0, (student, rows[student])
        assert any(flag in f for f in flags), (student, flags)
    assert rows["sleeper"][0] == "failed" and "timeout" in rows["sleeper"][2] and rows["sleeper"][1] == 0.0
    status = cli(course, "status", LAB).stdout
    assert "timeout" in status and "__eq__" in status
    report = cli(course, "report", LAB, "--no-png").stdout
    assert "timeout" in report and "flags:" in report and "__eq__" in report


def _running(pid: int, parent: int | None = None, name: bytes = b"") -> bool:
    """Whether `pid` is alive (not a zombie), and when asked, a child of `parent` whose command has `name`."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        command = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return False
    return fields[0] not in ("Z", "X") and (parent is None or int(fields[1]) == parent) and name in command


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="student code runs under its own uid only as root")
@pytest.mark.parametrize("kill", ["grader only", "process group"])
def test_killing_the_grader_leaves_no_student_process_behind(course, tmp_path, kill):
    from autograder.sandbox.confine import UID_BASE, processes_of

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    # the notebook sleeps, and so does a grandchild it started in a session of its own
    (inbox / "sleepy.ipynb").write_text(_with_cell(
        course, "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(1000)\ntime.sleep(1000)"))
    cli(course, "collect", str(inbox), "--lab", LAB)
    proc = subprocess.Popen([sys.executable, "-m", "autograder.cli", "--root", str(course), "grade", LAB,
                             "--workers", "1", "--no-progress", "--wall-s", "600"], cwd=course, env=env(course),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline, workers = time.monotonic() + 180, []
        while time.monotonic() < deadline and not (workers and len(processes_of(UID_BASE + workers[0])) >= 2):
            workers = [int(p) for p in os.listdir("/proc") if p.isdigit()
                       and _running(int(p), proc.pid, b"autograder.sandbox.worker")]
            time.sleep(0.1)
        assert workers, "the grader never started a worker"
        uid = UID_BASE + workers[0]
        assert len(processes_of(uid)) >= 2, "the notebook and its grandchild never ran"
        if kill == "grader only":
            os.kill(proc.pid, signal.SIGKILL)       # the workers learn it from the kernel (parent-death signal)
        else:
            os.killpg(proc.pid, signal.SIGKILL)     # grader and workers at once, as Ctrl-C or a job kill would
        proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (processes_of(uid) or _running(workers[0])):
            time.sleep(0.05)
        assert processes_of(uid) == [] and not _running(workers[0])
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


# ---------------------------------------------------------------- small pieces

@pytest.mark.parametrize("name, student", [
    ("doe_jane_12345_67890_lab1-roofline.ipynb", "doe_jane"),
    ("doejane_late_12345_67890_lab1-roofline-2.ipynb", "doejane"),
    ("alice.ipynb", "alice"),
    ("alice_lab1-roofline.ipynb", "alice"),
    ("alice-lab1-roofline.ipynb", "alice"),
    ("alice/lab1-roofline.ipynb", "alice"),
    ("alice/lab1-roofline/lab1-roofline.ipynb", "alice"),
    ("lab1-roofline.ipynb", None),
    ("alice/other.ipynb", None),
    ("alice/lab3-kv-cache/lab1-roofline.ipynb", None),
    ("doe_jane_12345_67890_lab3-kv-cache.ipynb", "doe_jane_12345_67890_lab3-kv-cache"),  # not this lab's file
])
def test_name_mapping_rules(name, student):
    from autograder.collect.intake import map_entry

    assert map_entry(name, "lab1-roofline", "lab1-roofline.ipynb", None)[0] == student


def test_roster_maps_canvas_ids_and_aliases(tmp_path):
    from autograder.collect.intake import Roster, map_entry

    roster_csv = tmp_path / "r.csv"
    roster_csv.write_text("student_id,name,canvas_id,sis_login_id\njd1,\"Doe, Jane\",12345,jane@uni.example\n")
    roster = Roster(roster_csv)
    assert map_entry("whatever_12345_1_lab.ipynb", "lab", "lab.ipynb", roster)[:2] == ("jd1", "12345")
    assert map_entry("doe_jane_999_1_lab.ipynb", "lab", "lab.ipynb", roster)[0] == "jd1"   # by name key
    assert map_entry("jd1.ipynb", "lab", "lab.ipynb", roster)[0] == "jd1"
    assert map_entry("stranger.ipynb", "lab", "lab.ipynb", roster)[0] is None
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name\n1,x\n")
    with pytest.raises(ValueError, match="student_id column"):
        Roster(bad)


def test_item_analytics_on_a_known_table():
    from autograder.record.report import discrimination, histogram, item_stats
    from autograder.record.store import Row

    def row(student, a, b):
        tasks = [{"grade_id": "A", "points": a, "passed": a == 1}, {"grade_id": "B", "points": b, "passed": b == 2}]
        return Row("lab", student, "h", "c", "graded", a + b, 3, None, {"tasks": tasks, "flags": []})

    # A separates the strong from the weak (it goes with B); nobody passes B alone
    rows = [row("s1", 1, 2), row("s2", 1, 2), row("s3", 0, 0), row("s4", 1, 0)]
    a, b = item_stats(rows, [("A", 1.0), ("B", 2.0)])
    assert a.difficulty == pytest.approx(0.75) and b.difficulty == pytest.approx(0.5)
    assert a.discrimination == pytest.approx(discrimination([1, 1, 0, 1], [2, 2, 0, 0]))
    assert a.discrimination == pytest.approx(0.57735, rel=1e-4)
    constant = item_stats([row("s1", 1, 2), row("s2", 1, 0)], [("A", 1.0)])[0]
    assert constant.discrimination is None          # everyone passed A: undefined, not 0
    text = histogram([0, 3, 3, 1.5], 3, bins=3)
    assert [line.split()[3] for line in text.splitlines()] == ["1", "1", "2"]


@pytest.mark.slow
def test_a_broken_solution_leaves_submissions_pending_not_failed(course, tmp_path):
    cli(course, "collect", str(write_folder(course, tmp_path / "inbox", {"ada": {}})), "--lab", LAB)
    solution = course / "solutions" / LAB / NB
    good = solution.read_text()
    nb = nbformat.reads(good, as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_mean":
            cell.source = "raise RuntimeError('instructor typo')"
    solution.write_text(nbformat.writes(nb))
    done = cli(course, "grade", LAB, "--workers", "1", "--no-progress", check=False)
    assert done.returncode == 1
    assert "GRADER ERROR for ada" in done.stdout and "instructor typo" in done.stdout
    assert "pending" in cli(course, "status", LAB).stdout
    solution.write_text(good)                          # fixed: the next run grades it
    cli(course, "grade", LAB, "--workers", "1", "--no-progress")
    assert [r[3:5] for r in store_rows(course)] == [("graded", 6.0)]
