"""Hostile and broken submissions through the instructor's commands (collect, grade, feedback, export,
status): each ends graded or failed with a reason, and none stops the batch or the steps after it.

The engine-level adversarial suite is tests/grading/test_autograder_adversarial.py; this one works on a
throwaway copy of the pipeline tests' toy course (tests/grading/test_autograder_pipeline.py).
"""
from __future__ import annotations

import csv
import io
import json
import os
import re

import nbformat
import pytest

from paths import ROOT
from pipeline_course import LAB, NB, cli, notebook_text, store_rows


def _with_cell(course, code: str, **metadata) -> str:
    nb = nbformat.reads(notebook_text(course), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(code, metadata=metadata))
    return nbformat.writes(nb)


def _rows(course) -> dict[str, tuple]:
    return {r[1]: (r[3], r[4], r[5]) for r in store_rows(course)}


# Rewrites its report through os.pwrite into a 100,000-deep nest: the harness holds its own pwrite.
DEEP_REPORT = ("import os\n_pwrite = os.pwrite\n"
               "def _forge(fd, data, offset):\n    _pwrite(fd, b'[' * 100000, 0)\n    return len(data)\n"
               "os.pwrite = _forge")
# Tries to connect out (out of sight of the static scan), then forges a report without that flag.
HIDES_FLAGS = ("import os\n_pwrite = os.pwrite\n"
               "try:\n    __import__('so' + 'cket').create_connection(('10.0.0.1', 80), timeout=1)\n"
               "except OSError:\n    pass\n"
               "def _forge(fd, data, offset):\n"
               "    _pwrite(fd, data.tobytes().replace(b'network: tried to connect', b'x'), offset)\n"
               "    return len(data)\n"
               "os.pwrite = _forge")


@pytest.mark.slow
def test_no_submission_stops_the_batch_or_stays_pending(course, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ada.ipynb").write_text(notebook_text(course))
    # a lone surrogate: valid JSON ("\udcff" escaped), but no file can store it as text
    surrogate = json.loads(notebook_text(course))
    surrogate["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "\udcff"})
    (inbox / "sue.ipynb").write_text(json.dumps(surrogate))
    (inbox / "nest.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    (inbox / "sam.ipynb").write_text(_with_cell(course, "total = " + " + ".join(["1"] * 800)))
    extra = {"nbgrader": {"grade": True, "grade_id": "my_own_test", "points": 1, "solution": False,
                          "locked": False, "schema_version": 3}}
    (inbox / "xan.ipynb").write_text(_with_cell(course, "assert True", **extra))
    (inbox / "deb.ipynb").write_text(_with_cell(course, DEEP_REPORT))
    (inbox / "odd.ipynb").write_text(_with_cell(course, HIDES_FLAGS))
    (inbox / "cut.ipynb").write_text(_with_cell(course, "import os\nos.close(4)"))
    cli(course, "collect", str(inbox), "--lab", LAB)
    stale = course / "autograded" / "ada" / LAB / "tmpcrash.tmp"        # left by a crashed earlier run
    stale.parent.mkdir(parents=True)
    stale.write_text("")

    grade = cli(course, "grade", LAB, "--workers", "2", "--no-progress")
    assert "GRADER ERROR" not in grade.stdout and not stale.exists()
    rows = _rows(course)
    assert set(rows) == {"ada", "sue", "nest", "sam", "xan", "deb", "odd", "cut"}
    for student in ("ada", "sam", "xan", "deb", "odd", "cut"):    # their own work is graded in full
        assert rows[student][:2] == ("graded", 6.0), (student, rows[student])
    assert rows["sue"][0] == "failed" and "unreadable notebook" in rows["sue"][2] and "surrogate" in rows["sue"][2]
    assert rows["nest"][0] == "failed" and "nested too deeply" in rows["nest"][2]
    flags = {r[1]: json.loads(r[6])["flags"] for r in store_rows(course)}
    assert "network: tried to connect" in flags["odd"]          # streamed as it happened: not forgeable
    assert "tamper: cut the grader's flag channel" in flags["cut"]
    assert not list((course / "autograded").glob(f"*/{LAB}/*.tmp"))

    again = cli(course, "grade", LAB, "--no-progress")                  # a rerun has nothing left to do
    assert "graded now 0, already graded 8" in again.stdout
    assert cli(course, "grade", LAB, "--student", "ada", "--regrade", "--no-progress").returncode == 0
    status = cli(course, "status", LAB).stdout
    assert status.rstrip().endswith("0 pending")
    exported = {r["student_id"]: r for r in csv.DictReader(io.StringIO(cli(course, "export").stdout))}
    assert all(r["state"] in ("graded", "failed") for r in exported.values())
    assert all(r["reason"] for r in exported.values() if r["state"] == "failed")

    feedback = cli(course, "feedback", LAB)                             # xan's extra grade cell included
    assert "no feedback" not in feedback.stderr
    for student in rows:
        assert (course / "feedback" / student / LAB / f"{LAB}.html").exists(), student


@pytest.mark.slow
def test_links_to_instructor_files_are_refused_with_a_reason(course):
    solution = course / "solutions" / LAB / NB
    for student in ("lin", "dir", "har", "sec", "ada"):
        (course / "submitted" / student).mkdir(parents=True)
    (course / "submitted" / "lin" / LAB).mkdir()
    (course / "submitted" / "lin" / LAB / NB).symlink_to(solution)            # a link to the solution
    (course / "submitted" / "dir" / LAB).symlink_to(solution.parent)          # a linked folder
    (course / "submitted" / "har" / LAB).mkdir()
    os.link(solution, course / "submitted" / "har" / LAB / NB)               # a hard link (rsync -H, tar)
    secret = course / "instructor-secret"                                     # where load_secret reads it
    if not secret.exists():
        secret.write_text("a-secret\n")
    (course / "submitted" / "sec" / LAB).mkdir()
    os.link(secret, course / "submitted" / "sec" / LAB / NB)
    (course / "submitted" / "ada" / LAB).mkdir()
    (course / "submitted" / "ada" / LAB / NB).write_text(notebook_text(course))

    cli(course, "grade", LAB, "--workers", "1", "--no-progress")
    rows = _rows(course)
    assert rows["ada"][:2] == ("graded", 6.0)
    assert rows["lin"][:2] == ("failed", 0.0) and "symbolic link" in rows["lin"][2]
    assert rows["dir"][:2] == ("failed", 0.0) and "symbolic link" in rows["dir"][2]
    assert rows["har"][:2] == ("failed", 0.0) and "hard link to an instructor file" in rows["har"][2]
    assert rows["sec"][:2] == ("failed", 0.0) and "hard link to an instructor file" in rows["sec"][2]
    assert "symbolic link" in cli(course, "status", LAB).stdout


@pytest.mark.slow
def test_a_hard_link_to_the_gradebook_is_refused_and_stays_refused(course):
    """The gradebook changes while a batch grades: keyed by its bytes, the stored refusal never matched
    and the submission showed pending forever (issue 51). Keyed by its inode, it shows failed with why."""
    (course / "submitted" / "ada" / LAB).mkdir(parents=True, exist_ok=True)
    (course / "submitted" / "ada" / LAB / NB).write_text(notebook_text(course))
    cli(course, "grade", LAB, "--workers", "1", "--no-progress")          # the gradebook exists from here
    gradebook = course / "gradebook.db"
    (course / "submitted" / "gbk" / LAB).mkdir(parents=True)
    os.link(gradebook, course / "submitted" / "gbk" / LAB / NB)
    cli(course, "grade", LAB, "--workers", "1", "--no-progress")
    rows = _rows(course)
    assert rows["gbk"][:2] == ("failed", 0.0) and "hard link to an instructor file" in rows["gbk"][2]
    status = cli(course, "status", LAB).stdout
    assert status.rstrip().endswith("0 pending"), status
    assert "graded now 0" in cli(course, "grade", LAB, "--no-progress").stdout     # nothing left to do


def _probe(course, body: str, setup: str = "") -> str:
    """A notebook whose add() returns what `body` computes inside the sandbox: the judge's message for
    the visible case shows it ("expected 5, got ...")."""
    nb = nbformat.reads(notebook_text(course), as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_add":
            cell.source = f"{setup}\ndef add(a, b):\n    {body}"
    return nbformat.writes(nb)


def _seen(course, student: str) -> str:
    rows = {r[1]: json.loads(r[6]) for r in store_rows(course)}
    return next(t["message"] for t in rows[student]["tasks"] if t["grade_id"] == "test_add")


SHM_KEY = 0x5EED14
SYSV = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="namespaces need root (see docs/SANDBOX.md)")
def test_the_child_sees_an_allowlist_and_shares_nothing_writable(course, tmp_path):
    import ctypes
    import tempfile
    from pathlib import Path

    other = Path(tempfile.mkdtemp(prefix="other-checkout-", dir=ROOT.parent))
    lock = Path("/run/lock") / f"autograder-probe-{os.getpid()}"
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        (other / "solutions").mkdir()
        root = ROOT
        # another checkout of the course, this one's solutions and history, the host's shared folders
        hidden = [str(other / "solutions"), str(root / "solutions"), str(root / ".git"), str(course),
                  "/run/lock", "/var/lib", "/root/.bashrc", str(root / "tests")]
        submitted = course / "submitted"
        notebooks = {
            # bit i set: HOST_PATHS[i] is visible
            "see": _probe(course, f"return sum(1 << i for i, p in enumerate({hidden!r}) if os.path.lexists(p))",
                          "import os"),
            # first graded: leaves input/output pairs behind in a host lock folder and SysV shared memory
            "aaa": _probe(course, "return a + b", SYSV + f"libc.shmget({SHM_KEY}, 4096, 0o1666)\n"
                          f"try:\n    open({str(lock)!r}, 'w').write('5')\nexcept OSError:\n    pass"),
            # then two that implement nothing, and take the answer from what aaa left
            "bbb": _probe(course, f"return a + b if libc.shmget({SHM_KEY}, 0, 0) >= 0 else -1", SYSV),
            "ccc": _probe(course, f"return int(open({str(lock)!r}).read()) if a == 2 else -1"),
            # fills every writable folder it can find: the total is capped, not only each file
            "fill": _probe(course, "return total", (
                "import os\ntotal = 0\nfor folder in ('/tmp', '/var/tmp', '/dev/shm', '/run/lock', os.getcwd()):\n"
                "    for n in range(40):\n        try:\n"
                "            with open(f'{folder}/fill-{os.getpid()}-{n}', 'wb') as f:\n"
                "                for _ in range(20):\n                    f.write(bytes(1 << 20))\n"
                "                    total += 1\n        except OSError:\n            break")),
        }
        for student, text in notebooks.items():
            (submitted / student / LAB).mkdir(parents=True)
            (submitted / student / LAB / NB).write_text(text)
        cli(course, "grade", LAB, "--workers", "1", "--no-progress", "--wall-s", "60")

        assert "got 0." in _seen(course, "see"), _seen(course, "see")      # bit i: hidden[i] visible
        rows = _rows(course)
        assert rows["aaa"][1] == 6.0
        assert rows["bbb"][1] == 5.0 and rows["ccc"][1] == 5.0     # add earned nothing from aaa's leftovers
        assert not lock.exists() and libc.shmget(SHM_KEY, 0, 0) < 0
        written_mb = float(re.search(r"got ([0-9.]+)\.", _seen(course, "fill")).group(1))
        assert 100 <= written_mb <= 256                       # the scratch cap, across all its folders
    finally:
        for path in (other / "solutions", other):
            path.rmdir()
        lock.unlink(missing_ok=True)
        segment = libc.shmget(SHM_KEY, 0, 0)
        if segment >= 0:
            libc.shmctl(segment, 0, None)                      # IPC_RMID: do not leak into the host


def _hidden_messages(course, student: str) -> list[str]:
    """Messages naming a hidden case, over every stored attempt of `student`."""
    return [t["message"] for r in store_rows(course) if r[1] == student
            for t in json.loads(r[6])["tasks"] if "hidden case" in t["message"]]


@pytest.mark.slow
def test_hidden_cases_are_per_student_and_attempt_and_never_show_the_answer(course, tmp_path):
    # passes the visible case only: the judge's message names a failing hidden case
    only_visible = _probe(course, "return a + b if (a, b) == (2, 3) else 0")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for student in ("amy", "bob"):
        (inbox / f"{student}.ipynb").write_text(only_visible)
    cli(course, "collect", str(inbox), "--lab", LAB)
    cli(course, "grade", LAB, "--workers", "1", "--no-progress")
    amy, bob = _hidden_messages(course, "amy"), _hidden_messages(course, "bob")
    assert len(amy) == len(bob) == 1
    for message in amy + bob:
        assert "expected values of hidden cases are not shown" in message and "expected 0" not in message
        a, b = map(int, re.search(r"add\((-?\d+), (-?\d+)\)", message).groups())
        assert f"{a + b}" not in message.split(")", 2)[-1]        # the answer appears nowhere after the case
    assert amy != bob                                              # same code, other student: other cases
    # bob resubmits with the answer his feedback would have shown hard-coded: a new attempt, new cases
    a, b = map(int, re.search(r"add\((-?\d+), (-?\d+)\)", bob[0]).groups())
    (inbox / "bob.ipynb").write_text(_probe(course, f"return a + b if (a, b) in ((2, 3), ({a}, {b})) else 0"))
    cli(course, "collect", str(inbox), "--lab", LAB)
    cli(course, "grade", LAB, "--workers", "1", "--no-progress")
    assert len(set(_hidden_messages(course, "bob"))) == 2          # the second attempt failed on other cases
    feedback = cli(course, "feedback", LAB)
    assert feedback.returncode == 0
    html = (course / "feedback" / "bob" / LAB / f"{LAB}.html").read_text()
    assert "expected values of hidden cases are not shown" in html


BYPASSES = {   # ways around the reference rule that once scored full marks with no flag (issue #30)
    "another thread": ("import threading\nfrom coursekit.calc import roofline\n\n"
                       "def ridge_point(peak_flops, bandwidth):\n    out = []\n"
                       "    worker = threading.Thread(target=lambda: out.append(roofline.ridge_point(peak_flops, bandwidth)))\n"
                       "    worker.start(); worker.join()\n    return out[0]", "coursekit.calc.roofline.ridge_point"),
    "a pool started earlier": ("import concurrent.futures\nfrom coursekit.calc import roofline\n"
                               "POOL = concurrent.futures.ThreadPoolExecutor(1)\nPOOL.submit(int).result()\n\n"
                               "def ridge_point(peak_flops, bandwidth):\n"
                               "    return POOL.submit(roofline.ridge_point, peak_flops, bandwidth).result()",
                               "(work handed to a thread or process the grader cannot watch)"),
    "another module name": ("import importlib.util, coursekit.calc.roofline as original\n"
                            "spec = importlib.util.spec_from_file_location('my_maths', original.__file__)\n"
                            "mine = importlib.util.module_from_spec(spec); spec.loader.exec_module(mine)\n\n"
                            "def ridge_point(peak_flops, bandwidth):\n    return mine.ridge_point(peak_flops, bandwidth)",
                            "coursekit.calc (as my_maths.ridge_point)"),
    "the watch rebound": ("import sys\nfrom coursekit.calc import roofline\n"
                         "import coursekit.checks.reach as reach\n"
                         "reach.call_watched = lambda f, a, k, forbidden: (f(*a, **k), None)\n"
                         "for name in list(sys.modules):\n"
                         "    if hasattr(sys.modules[name], 'call_watched'):\n"
                         "        sys.modules[name].call_watched = reach.call_watched\n\n"
                         "def ridge_point(peak_flops, bandwidth):\n    return roofline.ridge_point(peak_flops, bandwidth)",
                         "coursekit.calc.roofline.ridge_point"),
    "the hook lifted and put back": ("import sys\nfrom coursekit.calc import roofline\n\n"
                                     "def ridge_point(peak_flops, bandwidth):\n    hook = sys.getprofile()\n"
                                     "    sys.setprofile(None)\n    value = roofline.ridge_point(peak_flops, bandwidth)\n"
                                     "    sys.setprofile(hook)\n    return value", "(the grader's call watch was removed)"),
}


@pytest.mark.slow
@pytest.mark.parametrize("how", list(BYPASSES))
def test_the_reference_rule_holds_whatever_thread_name_or_watch(tmp_path, how):
    """Each way around the rule, graded for real: ridge_point scores 0 and the flag names what it reached."""
    from autograder.judge.engine import grade_submission
    from autograder.spec import load_spec

    source, reached = BYPASSES[how]
    root = ROOT
    nb = nbformat.read(root / "solutions" / "lab1-roofline" / "lab1-roofline.ipynb", as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_ridge":
            cell.source = source
    path = tmp_path / "lab1-roofline.ipynb"
    nbformat.write(nb, path)
    result = grade_submission(path, load_spec("lab1-roofline"), student_id="rex", secret=b"reach-test")
    tasks = {t.grade_id: t for t in result.tasks}
    assert result.status == "graded" and tasks["test_ridge"].points == 0, tasks["test_ridge"].message
    assert f"reference: test_ridge calls {reached}" in result.flags, result.flags


FLOOD = """import gc, socket
recorder = next(o for o in gc.get_objects() if type(o).__name__ == 'StreamedFlags')
for n in range(5000):                      # thousands of harmless-looking flags first...
    recorder.add(f'files: read /tmp/nothing-{n}')
try:                                       # ...then what the flood was meant to hide
    socket.create_connection(('127.0.0.1', 9), timeout=1)
except OSError:
    pass
set.clear(recorder)                        # and the report's own copy of the flags, gone
"""


@pytest.mark.slow
def test_a_flood_of_flags_hides_neither_later_flags_nor_itself(tmp_path):
    """The recorder is reachable from student code; filling the flag channel with junk before a network
    attempt still shows the attempt, and the flood itself is flagged."""
    from autograder.judge.engine import grade_submission
    from autograder.spec import load_spec

    root = ROOT
    nb = nbformat.read(root / "solutions" / "lab1-roofline" / "lab1-roofline.ipynb", as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if (c.metadata.get("nbgrader") or {}).get("grade_id") == "impl_ridge")
    nb.cells[at].source += "\n\n" + FLOOD
    path = tmp_path / "lab1-roofline.ipynb"
    nbformat.write(nb, path)
    result = grade_submission(path, load_spec("lab1-roofline"), student_id="rex", secret=b"flood-test")
    assert result.status == "graded", result.reason
    assert "network: tried to connect" in result.flags, result.flags[:5]
    assert any(f.startswith("tamper: flooded the grader's flag channel") for f in result.flags), result.flags[:5]


@pytest.mark.slow
def test_calling_the_course_reference_scores_zero_and_the_visible_check_warns(tmp_path):
    """Lab 1 with ridge_point answered by coursekit's own calculator: that task scores 0 with a reason
    in the judge's run; the student's `autograder check` passes the case but warns."""
    import sys
    import subprocess

    from autograder.judge.engine import grade_submission
    from autograder.spec import load_spec

    root = ROOT
    nb = nbformat.read(root / "solutions" / "lab1-roofline" / "lab1-roofline.ipynb", as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_ridge":
            cell.source = ("def ridge_point(peak_flops, bandwidth):\n    from coursekit.calc import roofline\n"
                           "    return roofline.ridge_point(peak_flops, bandwidth)")
    path = tmp_path / "lab1-roofline.ipynb"
    nbformat.write(nb, path)
    result = grade_submission(path, load_spec("lab1-roofline"), student_id="rex", secret=b"reach-test")
    tasks = {t.grade_id: t for t in result.tasks}
    assert result.status == "graded" and tasks["test_ridge"].points == 0
    assert "calls coursekit.calc.roofline.ridge_point" in tasks["test_ridge"].message
    assert all(t.passed for g, t in tasks.items() if g != "test_ridge"), [t.message for t in result.tasks]
    assert "reference: test_ridge calls coursekit.calc.roofline.ridge_point" in result.flags
    check = subprocess.run([sys.executable, "-m", "autograder.cli", "check", str(path)], cwd=root,
                           capture_output=True, text=True, env=dict(os.environ, COURSE_QUICK="1"))
    assert "warning: ridge_point calls coursekit.calc.roofline.ridge_point" in check.stdout, check.stdout
