"""`autograder new LAB`: a lab's starting point, one folder that validates, generates and grades at once.

solutions/<lab>/<lab>.ipynb is an nbgrader source notebook (a scenario, one task whose answer sits between
solution markers, its test cell with the visible check and the hidden-tests block, a measurement cell
and the check-your-work cell every lab ends with); solutions/<lab>/spec.py beside it holds the task's
visible cases, its hidden-case generator and wrong-but-plausible answers that must fail. docs/AUTHORING.md
walks through editing both into a real lab. The lab is recorded under its module in the course outline,
course/outline.yaml (coursekit/outline.py), which the start page, `course progress` and the site read.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograder.course import Course, check_id
from autograder.spec import SPEC_FILE
from coursekit.outline import OUTLINE, add_lab

REPO_CONFIG = Path(__file__).resolve().parents[2] / "nbgrader_config.py"
ID_LINE = re.compile(r"^c\.CourseDirectory\.course_id = .*$", re.MULTILINE)


def _meta(grade_id: str, *, solution: bool = False, grade: bool = False, points: float = 0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def notebook(lab: str) -> nbformat.NotebookNode:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md(f"# {lab}: decode throughput\n\n"
           "**The situation.** Your team serves a chat model. A profiler says one decode step (every sequence "
           "of the batch produces one token) takes `step_ms` milliseconds. The product manager asks: how many "
           "tokens per second is that?\n\n"
           "Replace this scenario, the task and the spec (`spec.py` beside this notebook) with your own: "
           "see docs/AUTHORING.md.", metadata=_meta("intro")),
        code("import time\n\nfrom coursekit.checks import run_visible", metadata=_meta("setup")),
        md("## Task (throughput) (1 point)\n\n"
           "**Deliverable:** `tokens_per_second(batch, step_ms)`: the tokens a decode step of `batch` sequences "
           "taking `step_ms` milliseconds produces per second.", metadata=_meta("md_throughput")),
        code("def tokens_per_second(batch, step_ms):\n"
             "    \"\"\"Tokens per second of a decode step: batch sequences, step_ms milliseconds.\"\"\"\n"
             "    ### BEGIN SOLUTION\n"
             "    return batch * 1000.0 / step_ms\n"
             "    ### END SOLUTION", metadata=_meta("impl_throughput", solution=True)),
        code(f'run_visible("{lab}", "test_throughput", tokens_per_second)\n'
             "### BEGIN HIDDEN TESTS\n"
             "from autograder.judge.hidden import check_task\n"
             f'check_task("{lab}", "test_throughput", globals())\n'
             "### END HIDDEN TESTS", metadata=_meta("test_throughput", grade=True, points=1)),
        md("### Measured: how long the function itself takes\n\n"
           "Not graded: the grader runs only the code a graded function needs, so a measurement "
           "like this one costs grading nothing.", metadata=_meta("md_measure")),
        code("start = time.perf_counter()\n"
             "rates = [tokens_per_second(batch, 20.0) for batch in range(1, 10_001)]\n"
             "elapsed = time.perf_counter() - start\n"
             "print(f\"10,000 calls: {elapsed * 1e3:.1f} ms; batch 64 at 20 ms per step: {rates[63]:,.0f} tokens/s\")",
             metadata=_meta("measure")),
        md("## Check your work\n\nRun the cell below: it runs every task's visible tests on the functions as "
           f"you have run them. From a terminal in this notebook's folder, `course check {lab}.ipynb` checks the "
           "saved file (wherever your copy is: the hub's Assignments folder, a download from your LMS).",
           metadata=_meta("check_work_intro")),
        code("from coursekit.checks import check_here\n\ncheck_here();", metadata=_meta("check_work")),
        md("## Measurements before every task is done\n\nThe cell below runs the measurement cells that have "
           "not run yet in this kernel, on the functions you have so far; a cell that needs an unfinished task "
           "is skipped and names it.", metadata=_meta("what_works_intro")),
        code(f'from coursekit.what_works import run_what_works\n\nrun_what_works("{lab}");',
             metadata=_meta("what_works")),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    return nb


SPEC_TEMPLATE = '''"""Spec of {lab}: what `autograder validate`, `generate` and `grade` judge (docs/AUTHORING.md).

One Task per graded test cell of {lab}.ipynb: its visible cases (students see them, with hints), a
generator drawing hidden cases from a seeded random.Random, and wrong-but-plausible answers that
`autograder validate {lab}` checks fail. The reference is the solution notebook's own function.
"""
from __future__ import annotations

import random

from autograder.spec import Case, LabSpec, Task

LAB = "{lab}"

THROUGHPUT_VISIBLE = (
    Case("batch 1, 20 ms per step", args=(1, 20.0), expected=50.0,
         hint="one sequence, one token every 20 ms: 1000 / 20 tokens per second"),
    Case("batch 64, 25 ms per step", args=(64, 25.0), expected=2560.0,
         hint="every sequence of the batch makes one token per step: multiply by the batch"),
)


def throughput_hidden(rng: random.Random) -> Case:
    """One hidden case; everything random comes from `rng`, so each student and attempt gets its own."""
    batch, step_ms = rng.randint(1, 512), round(rng.uniform(2.0, 200.0), 2)
    return Case(f"batch {{batch}}, {{step_ms}} ms per step", args=(batch, step_ms))


WRONG_THROUGHPUT = (
    "def tokens_per_second(batch, step_ms):\\n    return batch / step_ms",          # forgot ms -> s
    "def tokens_per_second(batch, step_ms):\\n    return 1000.0 / step_ms",         # ignored the batch
)

SPEC = LabSpec(
    lab_id=LAB,
    notebook=f"{{LAB}}.ipynb",
    tasks=(
        Task("test_throughput", "Task (throughput)", 1, "tokens_per_second",
             visible=THROUGHPUT_VISIBLE, hidden=throughput_hidden, n_hidden=5, wrong=WRONG_THROUGHPUT),
    ),
    budget_s=120,
)
'''


def new_lab(course: Course, lab: str, module: str, module_title: str | None = None) -> list[Path]:
    """Write solutions/<lab>/<lab>.ipynb and spec.py and list the lab under `module` in the course outline
    (course/outline.yaml; a new module needs `module_title`), so the start page, `course progress` and the
    site show it once generated. Refuse to overwrite anything; check the outline change before writing."""
    check_id("lab id", lab)
    folder = course.solutions / lab
    if folder.exists():
        raise FileExistsError(f"{folder} already exists: pick another lab id or remove it first")
    outline = course.root / OUTLINE
    before = outline.read_text(encoding="utf-8") if outline.exists() else None
    written = [add_lab(course.root, lab, module, module_title)]   # raises OutlineError (a ValueError) first
    try:
        folder.mkdir(parents=True)
        nb_path, spec_path = folder / f"{lab}.ipynb", folder / SPEC_FILE
        nbformat.write(notebook(lab), nb_path)
        spec_path.write_text(SPEC_TEMPLATE.format(lab=lab), encoding="utf-8")
    except OSError:
        if before is None:       # put the outline back as it was: a lab with no folder is a broken outline
            outline.unlink(missing_ok=True)
        else:
            outline.write_text(before, encoding="utf-8")
        raise
    return [nb_path, spec_path, *written]


def private_course_id(root: Path) -> str:
    """A course id from the folder's name ("My Course 2026" -> "my-course-2026")."""
    return re.sub(r"[^a-z0-9]+", "-", root.name.lower()).strip("-") or "my-course"


def ensure_course_root(root: Path, course_id: str | None = None) -> Path | None:
    """A private instructor folder without nbgrader_config.py gets a copy of the course's, with its own
    course id (nbgrader files the exchange and the gradebook under it); returns it if made."""
    config = root / "nbgrader_config.py"
    if config.exists():
        return None
    root.mkdir(parents=True, exist_ok=True)
    text, n = ID_LINE.subn(f"c.CourseDirectory.course_id = {course_id or private_course_id(root)!r}",
                           REPO_CONFIG.read_text(encoding="utf-8"))
    if n != 1:
        raise RuntimeError(f"{REPO_CONFIG}: expected one c.CourseDirectory.course_id line, found {n}")
    config.write_text(text, encoding="utf-8")
    return config
