"""Turn an executed notebook into a page that reads well without a kernel.

Quiz widgets need a running kernel, so a lesson's quiz cell and a module test's cell become the
site's own quiz (coursekit/site/quizzes.py: the bank's data, answered and checked in the browser by
static/quiz.js, progress kept in the browser), with a link to the same quiz in JupyterLab.
A student lab's unimplemented tasks raise NotImplementedError; those error outputs are dropped.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from ..paths import course_root
from ..quiz.bank import Bank
from .quizzes import progress_html, quiz_html

QUIZ_CALL = re.compile(r"""show_quiz\(\s*["']([\w-]+)["']""")
TEST_CALL = re.compile(r"""show_module_test\(\s*["']([\w-]+)["']""")
# `course start` serves JupyterLab here unless told another port.
JUPYTERLAB_URL = "http://localhost:8888/lab/tree/{path}"


def open_in_jupyterlab(rel_path: str, what: str) -> str:
    url = JUPYTERLAB_URL.format(path=rel_path)
    return (f"{what} in JupyterLab, with instant feedback: start the course from its folder with "
            f"`./course.sh start`, then open [{rel_path}]({url}).")


def quiz_markdown(bank: Bank, banks: dict[str, Bank], rel_path: str) -> str:
    return "\n".join([quiz_html(bank, banks), "", open_in_jupyterlab(rel_path, "Or answer this quiz")])


def module_test_markdown(module: str, rel_path: str, banks: dict[str, Bank], root: Path) -> str:
    bank = next(b for b in banks.values() if b.kind == "module-test" and b.module == module)
    return "\n".join([quiz_html(bank, banks), "", f"Your progress in module {module[1:]}, kept in this browser:", "",
                      progress_html(root, module), "", open_in_jupyterlab(rel_path, "Or take the test")])


def make_static(nb: nbformat.NotebookNode, rel_path: str, banks: dict[str, Bank], *, lab: bool,
                root: Path | None = None) -> None:
    """Edit `nb` in place (an executed copy, never a committed notebook)."""
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        if lab:
            cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
        quiz, test = QUIZ_CALL.search(cell.source), TEST_CALL.search(cell.source)
        if quiz or test:
            cell.outputs = []
            cell.metadata.setdefault("tags", []).append("remove-cell")
            text = (quiz_markdown(banks[quiz.group(1)], banks, rel_path) if quiz
                    else module_test_markdown(test.group(1), rel_path, banks, root or course_root()))
            cells.append(nbformat.v4.new_markdown_cell(text))
    nb.cells = cells
