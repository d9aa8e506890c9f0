"""Build the start page, course/index.ipynb, from the notebooks that exist.

    python -m coursekit.index          # rewrite course/index.ipynb
    python -m coursekit.index --check  # exit 1 if it is out of date (the test suite runs this)

Generated, so it never drifts from the files: every module, lesson, lab and module test is linked, in
the order of the course outline (course/outline.yaml, coursekit/outline.py). Titles come from each
notebook's first markdown heading.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from .outline import OutlineError, load_outline
from .paths import START_PAGE, WORK_FOLDER, course_root

def build_index(root: Path) -> nbformat.NotebookNode:
    course = root / "course"
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    cells = [
        md("# Training vs inference: chips, money and co-design\n\n"
           "Welcome. This course explains why training a large language model and serving it are "
           "different workloads, and what follows for the silicon, the budget and the model itself.\n\n"
           "**How to begin.** Run the cell below (click it, then press Shift+Enter). It tells you "
           "which device your labs will use; the cell after it shows your progress. Then open the first "
           "lesson of Module 1. Each lesson ends with a short quiz with instant feedback; each module ends "
           "with a lab you implement and check yourself, and a 15-question module test (pass at 80%)."),
        code("from coursekit.device import pick_device\n\n"
             "device = pick_device()"),
        md("Your progress so far (quizzes, module tests and lab checks; the same as `course progress`):"),
        code("from coursekit.progress_report import show_progress\n\n"
             "show_progress()"),
    ]
    for module in load_outline(root):   # course/outline.yaml: the modules, their folders and labs
        number, labs = module.number, [lab for lab in module.labs if lab.released]
        if not (module.folder or labs):
            cells.append(md(f"## Module {number}: {module.title}\n\n*In preparation.*"))
            continue
        lines = [f"## Module {number}: {module.title}", ""]
        for lesson in module.lessons:
            rel = lesson.path.relative_to(course).as_posix()
            lines.append(f"- Lesson {lesson.number}: [{lesson.title}]({rel})")
        for lab in labs:
            # the learner's own copy, as everywhere else (course start, README, progress, Next links):
            # labs/ is the release that course updates replace
            work = f"{WORK_FOLDER}/{lab.id}/{lab.id}.ipynb"
            lines.append(f"- Lab (graded): [{lab.title}](../{work}), your own copy"
                         f" (check your work: `course check {work}`)")
        if module.test:
            lines.append(f"- [Module {number} test]({module.test.relative_to(course).as_posix()}): 15 questions, pass at 80%")
        cells.append(md("\n".join(lines)))
    cells.append(md(
        "## Checking your own work\n\n"
        "- Quizzes give feedback as you answer and remember your results.\n"
        "- Your labs are your own copies in `work/` (`course start` and `course work` make them); "
        "`labs/` is the released version that course updates replace.\n"
        "- In a terminal: `course progress` prints your per-module summary; "
        "`course check work/<lab>/<lab>.ipynb` runs a lab's visible tests on your copy; "
        "`course doctor` checks your installation.\n"
        "- Studying on your own from a copy of the repository: the worked solutions (and the generators of "
        "the hidden tests) are in `solutions/`, which the file browser does not list. Try each lab first; "
        "to compare once you have an answer of your own, open `solutions/<lab>/<lab>.ipynb` with "
        "File > Open from Path.\n"
        "- Labs run on a CPU and use a GPU when there is one (CUDA, then Apple MPS)."))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def render(root: Path) -> str:
    nb = build_index(root)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"index-{i}"  # stable ids keep the committed file byte-identical across rebuilds
    return nbformat.writes(nb) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit.index", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if course/index.ipynb is out of date")
    args = parser.parse_args(argv)
    root = course_root()
    target = root / START_PAGE
    try:
        text = render(root)
    except OutlineError as error:
        print(error, file=sys.stderr)
        return 2
    if args.check:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{target} is out of date: run python -m coursekit.index", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
