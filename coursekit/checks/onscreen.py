"""A learner's check of what is on screen, not only of what was last saved.

`check_here()` runs in the notebook's own kernel: it reports each task as its test cell last ran it
(the grader judges a task at its test cell), and checks a task whose test cell has not run on its
function as it is now. `course check NOTEBOOK` reads the saved file instead; saved.py says whether
that file is what the learner sees.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from .last import remember
from .selfcheck import DEF, LAB_CALL, check_namespace, lab_of, record_progress, render
from .visible import AT_TEST_CELL



def _notebook_of_kernel(namespace: dict) -> dict | None:
    """The saved notebook this kernel serves (Jupyter names its file), or None."""
    session = os.environ.get("JPY_SESSION_NAME") or namespace.get("__session__")
    if session and Path(session).is_file():
        try:
            return json.loads(Path(session).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    return None


def _defined_in(notebook: dict | None) -> frozenset:
    """Names of the functions the notebook's code cells define (at the start of a line)."""
    if not notebook:
        return frozenset()
    sources = ("".join(c.get("source", "")) for c in notebook.get("cells", []) if c.get("cell_type") == "code")
    return frozenset(name for source in sources for name in DEF.findall(source))


def _lab_in_kernel(namespace: dict) -> str | None:
    """The lab of the notebook this kernel serves: its file (Jupyter names it), else cells it ran."""
    notebook = _notebook_of_kernel(namespace)
    if notebook is not None:
        session = os.environ.get("JPY_SESSION_NAME") or namespace.get("__session__")
        try:
            return lab_of(notebook, Path(session))
        except (OSError, ValueError):
            pass
    for source in reversed(namespace.get("In", [])):
        found = LAB_CALL.search(source)
        if found:
            return found.group(1)
    return None


def check_here(lab_id: str | None = None, *, record: bool = True) -> int:
    """Each task as its test cell last ran in this kernel, else its function checked as it is now;
    returns tasks passed."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("check_here() runs inside a notebook; from a terminal use `course check NOTEBOOK`")
    lab_id = lab_id or _lab_in_kernel(shell.user_ns)
    if lab_id is None:
        raise ValueError("cannot tell which lab this is: name it, e.g. check_here('lab1-roofline')")
    seen = {grade_id: fn for (lab, grade_id), fn in AT_TEST_CELL.items() if lab == lab_id}
    checks = check_namespace(lab_id, shell.user_ns, _defined_in(_notebook_of_kernel(shell.user_ns)), seen)
    report = render(lab_id, checks, [])
    print(report)
    remember(lab_id, report, "check_here()")
    print("Checked the code this kernel has run, as it is now (unsaved edits included once run).")
    passed = sum(c.passed for c in checks)
    if record and record_progress(lab_id, passed, len(checks)):
        print("(progress recorded)")
    if passed < len(checks) and _tutor_on(lab_id):
        print("Stuck? Ask the course's tutor about this check: `from coursekit.tutor import tutor; tutor()`")
    return passed


def _tutor_on(lab_id: str) -> bool:
    """A tutor is configured and not turned off for this lab (a broken configuration: say nothing here;
    the tutor itself names the problem when asked)."""
    from coursekit.tutor.config import TutorConfigError, load

    try:
        config = load()
    except TutorConfigError:
        return False
    return config is not None and lab_id not in config.off_for
