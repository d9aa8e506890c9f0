"""The class path grades with the full sandbox: the instructor runs `autograder grade` in their own terminal
on the hub, as their own (non-root) Unix user, and a hostile submission reaches nothing (docs/SANDBOX.md).

A second lab, `toy-sandbox` (the class lab under another name), keeps this test's grades apart from the
class day's (tests/app/hub/test_hub_browser.py). The hostile cell probes one thing per bit and ends its process
with exit status 1 + the bits that worked, which the stored result's reason carries.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.record.store import Store
from hub_server import CLASS_LAB, instructor, own_pids
from hostile_code import PROBE

pytestmark = pytest.mark.slow
LAB = "toy-sandbox"

PROBES = PROBE + """probe(0, lambda: open({spec!r}).read())                                  # the lab's spec, hidden cases
probe(1, lambda: os.environ["COURSE_GRADING_SECRET"])                    # the secret, in the grader's env
probe(2, lambda: open("/proc/{server}/environ").read())                  # ... and in the server's
probe(3, lambda: open({other!r}).read())                                 # another student's submission
probe(4, lambda: open({notes!r}, "a").write("changed"))                  # the instructor's own files
probe(5, lambda: os.kill({server}, 0))                                   # the instructor's JupyterLab
probe(6, lambda: socket.create_connection(("127.0.0.1", {port}), timeout=2))   # the hub itself
os._exit(1 + bits)
"""


def _digest(folder: Path) -> dict[str, str]:
    """Every file's hash (not Python's byte-code cache, which the grader's own loading of a spec writes)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _add_lab(course: Path, owner: str) -> None:
    """The class lab again as LAB, owned by the instructor, as `autograder new` would leave it."""
    source, target = course / "solutions" / CLASS_LAB, course / "solutions" / LAB
    shutil.copytree(source, target)
    (target / f"{CLASS_LAB}.ipynb").rename(target / f"{LAB}.ipynb")
    spec = target / "spec.py"
    spec.write_text(spec.read_text().replace(CLASS_LAB, LAB))
    subprocess.run(["chown", "-R", f"{owner}:{owner}", str(target)], check=True)


def _submit(course: Path, student: str, owner: str, extra: str | None) -> Path:
    """A collected submission (as `nbgrader collect` leaves it, owned by the instructor)."""
    nb = nbformat.read(course / "solutions" / LAB / f"{LAB}.ipynb", as_version=4)
    if extra:
        nb.cells.insert(1, nbformat.v4.new_code_cell(extra))
    path = course / "submitted" / student / LAB / f"{LAB}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    subprocess.run(["chown", "-R", f"{owner}:{owner}", str(course / "submitted")], check=True)
    return path


def test_a_hostile_submission_graded_in_the_instructors_terminal_reaches_nothing(hub):
    prof = hub.users["prof"]
    course = hub.home("prof") / "course"
    hub.login("prof")
    hub.start_server("prof")
    server = own_pids(hub, "prof")[0]
    _add_lab(course, prof)
    notes = course / "notes-private.txt"
    notes.write_text("the instructor's notes\n")
    shutil.chown(notes, prof, prof)
    ada, mallory = hub.users["ada"], hub.users["mallory"]
    other = _submit(course, ada, prof, None)
    port = int(hub.url.rsplit(":", 1)[1])
    hostile = PROBES.format(spec=str(course / "solutions" / LAB / "spec.py"), server=server, other=str(other),
                            notes=str(notes), port=port)
    _submit(course, mallory, prof, hostile)
    kept = _digest(course / "solutions") | {"notes": hashlib.sha256(notes.read_bytes()).hexdigest()}

    instructor(hub, "autograder", "generate", LAB)
    summary = instructor(hub, "autograder", "grade", LAB, "--no-progress")

    with Store(course / "autograded" / ".autograder" / "results.sqlite") as store:
        rows = {row.student_id: row for row in store.rows(LAB)}
    assert rows[ada].status == "graded" and rows[ada].score == 6.0, summary
    # graded in a user namespace: not one protection missing, so no infrastructure flag at all
    assert not [f for f in rows[ada].result.get("flags", []) if f.startswith("sandbox:")], rows[ada].result
    assert "sandboxed in a user namespace of its own" in summary and "every protection in place" in summary, summary
    reached = re.search(r"exited with status (\d+)", rows[mallory].reason or "")
    assert reached and int(reached.group(1)) == 1, (rows[mallory].reason, summary)
    assert _digest(course / "solutions") | {"notes": hashlib.sha256(notes.read_bytes()).hexdigest()} == kept
    assert server in own_pids(hub, "prof")            # the instructor's JupyterLab still runs
