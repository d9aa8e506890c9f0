"""Grading without root (an instructor's own terminal on the hub): student code is confined in a user
namespace, reaches nothing of the instructor's, leaves nothing running, and a grader that cannot confine
refuses unless told --unconfined (autograder/sandbox/userns.py, docs/SANDBOX.md).

Each test grades as `nobody` through tests/grade_as_user.py. A hostile cell probes one thing per bit and
ends the process with exit status 1 + the bits of what worked, which the result's reason carries: so a
confined run must say "status 1", and the same notebook run unconfined proves each probe can succeed.
"""
from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from coursekit.app.hub.accounts import make_reachable
from hostile_code import PROBE, ROUTES, UNAVAILABLE
from paths import ROOT, TESTS

pytestmark = pytest.mark.slow
LAB = "toy-pipeline"
NOBODY = pwd.getpwnam("nobody")
NO_USER_NAMESPACES = TESTS / "no_user_namespaces.py"

# what the instructor owns beside the course: each probe tries one of them
FILES_AND_PROCESSES = PROBE + """COURSE = {course!r}
probe(0, lambda: open(COURSE + "/solutions/toy-pipeline/spec.py").read())                 # the spec
probe(1, lambda: open(COURSE + "/instructor-secret").read())                               # the secret
probe(2, lambda: open(COURSE + "/submitted/ada/toy-pipeline/toy-pipeline.ipynb").read())   # another student
probe(3, lambda: open(COURSE + "/gradebook.db", "a").write("0"))                           # the grades
probe(4, lambda: os.kill({{GRADER_PID}}, 0))                                               # the grader itself
probe(5, lambda: open("/proc/{{GRADER_PID}}/environ").read())                              # its environment
probe(6, lambda: socket.create_connection(("127.0.0.1", {{LISTEN_PORT}}), timeout=2))      # a local service
os._exit(1 + bits)
"""

# what a process with capabilities could use to undo the confinement
KERNEL = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
bits = 0
def probe(bit, call):
    global bits
    try:
        if call() == 0:
            bits |= 1 << bit
    except Exception:
        pass
caps = [int(line.split()[1], 16) for line in open("/proc/self/status") if line.startswith(("CapEff", "CapPrm", "CapBnd"))]
probe(4, lambda: 0 if any(caps) else 1)                                  # any capability left
probe(5, lambda: 0 if {int(p) for p in os.listdir("/proc") if p.isdigit()} - {1, os.getpid()} else 1)   # others' processes
probe(0, lambda: libc.unshare(0x10000000))                               # a user namespace of its own (first: a
                                                                         # chroot that worked unconfined hides /proc)
probe(1, lambda: libc.umount2(b"/proc", 2))                              # uncover what is mounted over
probe(2, lambda: libc.chroot(b"/tmp"))                                   # the chroot trick
probe(3, lambda: libc.mount(b"tmpfs", b"/tmp/work", b"tmpfs", 0, None))  # new mounts
os._exit(1 + bits)
"""


def _userns_works() -> bool:
    done = subprocess.run(["runuser", "-u", "nobody", "--", "unshare", "--user", "--map-current-user", "--pid",
                           "--fork", "--mount-proc", "--net", "--mount", "true"], capture_output=True)
    return done.returncode == 0


@pytest.fixture(scope="module")
def course():
    """An instructor's course folder owned by `nobody`, who grades it."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("needs root to act as another user")
    if not _userns_works():
        pytest.skip("this kernel allows no unprivileged user namespaces (tests of the refusal still run)")
    for path in (Path(sys.executable).resolve(), ROOT / ".venv" / "bin", ROOT):
        make_reachable(path)
    folder = Path(tempfile.mkdtemp(prefix="userns-course-", dir="/tmp"))
    shutil.copytree(ROOT / "tests" / "fixtures" / "pipeline" / "solutions", folder / "solutions")
    other = folder / "submitted" / "ada" / LAB
    other.mkdir(parents=True)
    shutil.copy(folder / "solutions" / LAB / f"{LAB}.ipynb", other)
    (folder / "instructor-secret").write_text("s3cret\n")
    (folder / "gradebook.db").write_text("grades\n")
    (folder / "out").mkdir()
    subprocess.run(["chown", "-R", f"{NOBODY.pw_uid}:{NOBODY.pw_gid}", str(folder)], check=True)
    os.chmod(folder / "instructor-secret", 0o600)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def grade(course: Path, cells: list[str], wrapper: tuple[str, ...] = (), solution: Path | None = None,
          **limits) -> dict:
    """Grade the toy lab's solution (or `solution`'s folder's lab) with `cells` added, as nobody; the
    result (or refusal) as a dict."""
    folder = solution or course / "solutions" / LAB
    job = course / "out" / "job.json"
    job.write_text(json.dumps({"spec": str(folder / "spec.py"), "out": str(course / "out"),
                               "notebook": str(folder / f"{folder.name}.ipynb"), "cells": cells, **limits}))
    os.chown(job, NOBODY.pw_uid, NOBODY.pw_gid)
    env = [f"HOME={course / 'out'}", "PATH=/usr/bin:/bin", f"COURSE_ROOT={course}"]
    user = ("runuser", "-u", "nobody", "--") if not wrapper else wrapper
    done = subprocess.run([*user, "env", "-i", *env, sys.executable, str(ROOT / "tests" / "grade_as_user.py"),
                           str(job)], capture_output=True, text=True, timeout=600, cwd=course)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def exit_bits(result: dict) -> int:
    """The probe bits a hostile cell reported through its exit status."""
    found = re.search(r"exited with status (\d+)", result.get("reason") or "")
    assert found, result
    return int(found.group(1)) - 1


def left_running(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-u", "nobody", "-o", "args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line]


def test_an_honest_notebook_graded_without_root_scores_fully_with_no_flags(course):
    result = grade(course, [])
    assert (result["status"], result["score"], result["flags"]) == ("graded", 6.0, []), result


def test_student_code_graded_without_root_reaches_no_file_process_or_service_of_the_instructor(course):
    before = {p: p.read_bytes() for p in course.rglob("*") if p.is_file() and p.parent.name != "out"}
    hostile = FILES_AND_PROCESSES.format(course=str(course))
    assert exit_bits(grade(course, [hostile])) == 0
    assert {p: p.read_bytes() for p in before} == before        # nothing of the instructor's changed
    # the same probes, unconfined: each one works, so the confined run above really was kept out
    unconfined = grade(course, [hostile], isolate=False)
    assert exit_bits(unconfined) == 0b1111111, unconfined
    assert any(flag.startswith("sandbox: ") for flag in unconfined["flags"])


def test_student_code_graded_without_root_holds_no_capability_and_sees_only_its_own_processes(course):
    assert exit_bits(grade(course, [KERNEL])) == 0
    assert exit_bits(grade(course, [KERNEL], isolate=False)) & 0b100000    # the host's processes, unconfined


def test_processes_left_running_are_flagged_and_killed(course):
    started = "import subprocess\nsubprocess.Popen(['sleep', '1234'], start_new_session=True)"
    result = grade(course, [started])
    assert result["status"] == "graded" and result["score"] == 6.0, result
    assert "fork: left processes running after the notebook finished" in result["flags"]
    assert left_running("sleep 1234") == []


def test_a_timeout_ends_every_process_the_notebook_started(course):
    spinning = "import subprocess\nsubprocess.Popen(['sleep', '2345'], start_new_session=True)\nwhile True:\n    pass"
    result = grade(course, [spinning], wall_s=10)
    assert result["status"] == "failed" and result["reason"].startswith("timeout"), result
    assert left_running("sleep 2345") == []


def test_the_process_limit_holds_inside_the_namespace(course):
    many = ("import os, subprocess\nstarted = 0\nfor _ in range(40):\n    try:\n"
            "        subprocess.Popen(['sleep', '3456']); started += 1\n    except OSError:\n        break\n"
            "os._exit(1 + started)")
    started = exit_bits(grade(course, [many], max_procs=12))
    assert 0 < started < 12
    assert left_running("sleep 3456") == []


def test_a_grader_that_cannot_confine_refuses_unless_told_unconfined(course):
    """A user namespace whose own limit allows no further one stands in for a kernel that forbids them."""
    wrapper = (sys.executable, str(NO_USER_NAMESPACES), str(NOBODY.pw_uid), str(NOBODY.pw_gid), "--")
    refused = grade(course, [], wrapper=wrapper)
    assert "cannot confine student code" in refused["refused"] and "--unconfined" in refused["refused"]
    assert "user.max_user_namespaces" in refused["refused"]
    unconfined = grade(course, [], wrapper=wrapper, isolate=False)
    assert unconfined["status"] == "graded" and unconfined["score"] == 6.0
    assert "sandbox: isolation disabled by the limits (no namespaces, no uid drop)" in unconfined["flags"]


def test_autograder_grade_offers_unconfined_and_explains_the_refusal():
    from autograder.cli import build_parser
    from autograder.judge.engine import UNCONFINED

    assert build_parser().parse_args(["grade", "lab", "--unconfined"]).unconfined is True
    assert build_parser().parse_args(["grade", "lab"]).unconfined is False
    assert "{problem}" in UNCONFINED and "docs/SANDBOX.md" in UNCONFINED


def test_without_root_the_course_reference_is_a_stand_in_for_a_subprocess_and_a_file_read_too(course):
    """The reference rule's stand-ins are bound into the user namespace's root as into root's: a graded
    function that reads the course's source file, or asks a `python -c` server, finds only the stand-in."""

    lab1 = course / "solutions" / "lab1-roofline"         # the instructor's copy (the checkout's may be 0700)
    if not lab1.exists():
        shutil.copytree(ROOT / "solutions" / "lab1-roofline", lab1, ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(["chown", "-R", f"{NOBODY.pw_uid}:{NOBODY.pw_gid}", str(lab1)], check=True)
    for how in ("the pasted source read at run time", "a python -c server started earlier"):
        result = grade(course, [], solution=lab1, replace={"impl_ridge": ROUTES[how]})
        tasks = {t["grade_id"]: t for t in result["tasks"]}
        assert result["status"] == "graded" and tasks["test_ridge"]["points"] == 0, (how, result)
        assert UNAVAILABLE in tasks["test_ridge"]["message"], (how, tasks["test_ridge"])
        assert not [f for f in result["flags"] if f.startswith("sandbox:")], (how, result["flags"])


@pytest.fixture(scope="module")
def lab6(course):
    """Lab 6's solution folder in the course, its speed timed at milestone 2 only (as the adversarial suite)."""
    folder = course / "lab6" / "lab6-serving"
    shutil.copytree(ROOT / "solutions" / "lab6-serving", folder, ignore=shutil.ignore_patterns("__pycache__"))
    with open(folder / "spec.py", "a") as spec:
        spec.write("\nfrom dataclasses import replace as _replace\n"
                   "SPEC = _replace(SPEC, speed=_replace(SPEC.speed, milestones={'test_batching': 2}))\n")
    subprocess.run(["chown", "-R", f"{NOBODY.pw_uid}:{NOBODY.pw_gid}", str(course / "lab6")], check=True)
    return folder


def _lab6_variant(course: Path, lab6: Path, name: str) -> dict:
    import nbformat
    from lab6_variants import VARIANTS

    nb = nbformat.read(lab6 / "lab6-serving.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "impl_batching")
    result = grade(course, [], solution=lab6, replace={"impl_batching": cell.source + "\n\n" + VARIANTS[name]})
    assert result["status"] == "graded", result
    return {t["grade_id"]: t for t in result["tasks"]} | {"flags": result["flags"], "speed": result["speed"]}


def test_without_root_the_honest_lab6_engine_is_timed_and_passes(course, lab6):
    graded = _lab6_variant(course, lab6, "honest")
    assert all(graded[t]["passed"] for t in ("test_paged", "test_batching", "test_chunked", "test_speculative"))
    assert "ratio" in graded["speed"]["test_batching"] and not any("fork" in f for f in graded["flags"])


@pytest.mark.parametrize("name, grade_id, reason", [
    ("fork_server", "test_batching", "started a process while timed"),
    ("sleep", "test_batching", "too slow: still running after"),
    ("clear_hooks", "test_speculative", "speculation must verify several drafted tokens")])
def test_without_root_forking_sleeping_or_clearing_hooks_gains_nothing(course, lab6, name, grade_id, reason):
    """The non-root path: the process-start filter kills PID 2 of the child's namespace, whose status its
    PID 1 reports, the wall-clock bound stops a sleeper, and the trusted side reads speculation from the
    tokens each step returned, as they do as root (tests/content/m6/test_lab6_adversarial.py)."""
    graded = _lab6_variant(course, lab6, name)
    assert not graded[grade_id]["passed"] and reason in graded[grade_id]["message"], graded[grade_id]
    assert graded["test_paged"]["passed"]
    if name == "fork_server":
        assert "fork: started a process in a timed run of test_batching (refused; the task fails on speed)" \
            in graded["flags"], graded["flags"]
