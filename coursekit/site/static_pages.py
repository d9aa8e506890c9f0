"""Turn an executed notebook into a page that reads well without a kernel.

Quiz widgets need a running kernel, so a lesson's quiz cell becomes its questions as text (the draw
a first attempt gets, from the bank), with a link that opens the lesson in JupyterLab to answer them.
A module test is not printed (it is drawn per student and may be graded): the page links to it.
A student lab's unimplemented tasks raise NotImplementedError; those error outputs are dropped.
"""
from __future__ import annotations

import re

import nbformat

from ..quiz.bank import Bank, pool
from ..quiz.engine import LETTERS, build_quiz

QUIZ_CALL = re.compile(r"""show_quiz\(\s*["']([\w-]+)["']""")
TEST_CALL = re.compile(r"""show_module_test\(\s*["']([\w-]+)["']""")
# `course start` serves JupyterLab here unless told another port.
JUPYTERLAB_URL = "http://localhost:8888/lab/tree/{path}"


def open_in_jupyterlab(rel_path: str, what: str) -> str:
    url = JUPYTERLAB_URL.format(path=rel_path)
    return (f"{what} in JupyterLab, with instant feedback: start the course from its folder with "
            f"`./course.sh start`, then open [{rel_path}]({url}).")


def quiz_markdown(bank: Bank, banks: dict[str, Bank], rel_path: str) -> str:
    lines = [f"**{bank.title}.** " + open_in_jupyterlab(rel_path, "Answer this quiz"), ""]
    for n, q in enumerate(build_quiz(bank, pool(bank, banks), seed=0), 1):
        lines += [f"**Question {n}.** {q.stem.strip()}", ""]
        if q.type in ("single", "multi"):
            if q.type == "multi":
                lines += ["*Select every answer that applies.*", ""]
            lines += [f"- {LETTERS[pos]}. {text.strip()}" for pos, (_, text) in enumerate(q.choices())]
        else:
            lines.append("*Answer with a number.*")
        lines.append("")
    return "\n".join(lines)


def module_test_markdown(module: str, rel_path: str) -> str:
    return (f"The module {module[1:]} test draws its questions for each student and "
            "records the result, so it is taken in JupyterLab only. "
            + open_in_jupyterlab(rel_path, "Take it"))


def make_static(nb: nbformat.NotebookNode, rel_path: str, banks: dict[str, Bank], *, lab: bool) -> None:
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
                    else module_test_markdown(test.group(1), rel_path))
            cells.append(nbformat.v4.new_markdown_cell(text))
    nb.cells = cells
