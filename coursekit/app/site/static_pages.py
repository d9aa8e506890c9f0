"""Turn an executed notebook into a page that reads well without a kernel.

Quiz widgets need a running kernel, so a lesson's quiz cell and a module test's cell become the
site's own quiz (coursekit/app/site/quizzes.py: the bank's data, answered and checked in the browser by
static/quiz.js, progress kept in the browser), with how to take the same quiz in JupyterLab
(`./course.sh start`; a published site has no JupyterLab on localhost to link to).
A student lab's unimplemented tasks raise NotImplementedError; those error outputs are dropped, and the
page says how to do the lab, lists each task's visible checks and offers the student notebook.
A lesson's "Next" link to the learner's own copy of a lab (work/, not on the site) leads to the lab's page.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from coursekit.paths import course_root
from coursekit.quiz.bank import Bank, resolve_bank
from coursekit.app.site.quizzes import progress_html, quiz_html

QUIZ_CALL = re.compile(r"""show_quiz\(\s*["']([\w-]+)["']""")
TEST_CALL = re.compile(r"""show_module_test\(\s*["']([\w-]+)["']""")
CHECK_CALL = re.compile(r"""run_visible\(\s*["'][\w-]+["']\s*,\s*["'](\w+)["']""")
# nbtools writes a lesson's "Next" link to the lab as the learner's copy, ../../work/<lab>/<lab>.ipynb.
WORK_LINK = re.compile(r"\]\((?:\.\./)+work/([\w-]+)/\1\.ipynb\)")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STUDENT_COPY = "student"  # the folder beside a lab's page that holds its downloadable student notebook


def open_in_jupyterlab(rel_path: str, what: str) -> str:
    """A static site has no JupyterLab to link to (localhost means the reader's own machine): say how."""
    return (f"{what} in JupyterLab: in your copy of the course (the repository "
            f"linked at the top of the page), run `./course.sh start` and open `{rel_path}`; on a class "
            "hub, open it from your home folder.")


def quiz_markdown(bank_id: str, banks: dict[str, Bank], rel_path: str) -> str:
    bank = resolve_bank(banks, bank_id)     # a former id too, as show_quiz accepts it
    if bank is None:
        raise KeyError(f"{rel_path}: show_quiz({bank_id!r}) names no bank under quizzes/ "
                       f"(known: {', '.join(sorted(banks)) or 'none'})")
    return "\n".join([quiz_html(bank, banks), "", open_in_jupyterlab(rel_path, "Or answer this quiz")])


def module_test_markdown(module: str, rel_path: str, banks: dict[str, Bank], root: Path) -> str:
    bank = next(b for b in banks.values() if b.kind == "module-test" and b.module == module)
    return "\n".join([quiz_html(bank, banks), "", f"Your progress in module {module[1:]}, kept in this browser:", "",
                      progress_html(root, module), "", open_in_jupyterlab(rel_path, "Or take the test")])


def how_to_do_the_lab(lab_id: str, repository: str) -> str:
    work = f"work/{lab_id}/{lab_id}.ipynb"
    return "\n".join([
        "**How to do this lab.** This page is the student version, executed when the site was built: the "
        "tasks are not done yet, so their cells show no results. Do it in JupyterLab, where each task's "
        "test cell runs its visible checks (listed below each task) on your code.", "",
        f"- *On your own computer:* `git clone {repository}`, then from its folder `./course.sh start` "
        f"(it sets everything up the first time and opens JupyterLab). Work in your own copy, `{work}`; "
        f"its last cell, `check_here()`, or `course check {work}` in a course terminal runs every visible check.",
        f"- *In a class:* on your class's JupyterHub, open the Assignments tab, fetch `{lab_id}`, work in it, "
        "then Validate and Submit there; your instructor grades it with hidden checks as well.",
        f"- *The notebook itself:* {{download}}`download {lab_id}.ipynb <{STUDENT_COPY}/{lab_id}.ipynb>` (the "
        "student version, unexecuted; it imports the course's `coursekit`, so open it inside the course folder).",
        ""])


def visible_checks_markdown(task: dict) -> str:
    """A task's visible cases by name, with the expected value where it is a plain number or word."""
    items = []
    for case in task["cases"]:
        expected = case.get("expected")
        shown = (f"{expected:.6g}" if isinstance(expected, float) else str(expected)
                 if isinstance(expected, (int, str)) else None)
        name = re.sub(r"([\\`*_\[\]<>#|$])", r"\\\1", case["name"])  # shown as written, not as markdown
        items.append(f"- {name}" + (f": expects `{shown}`" if shown is not None else ""))
    return "\n".join([f"*Visible checks for `{task['function']}` (run by the cell above in JupyterLab):*", "",
                       *items, ""])


def make_static(nb: nbformat.NotebookNode, rel_path: str, banks: dict[str, Bank], *, lab: bool,
                root: Path | None = None, repository: str = "", checks: dict | None = None) -> None:
    """Edit `nb` in place (an executed copy, never a committed notebook). A lab's page takes the course's
    repository URL and its `<lab>.checks.json` (the visible cases)."""
    tasks = {task["grade_id"]: task for task in (checks or {}).get("tasks", [])}
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "markdown":
            cell.source = WORK_LINK.sub(r"](../../labs/\1/\1.ipynb)", cell.source)
        if cell.cell_type != "code":
            continue
        if lab:
            cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
            check = CHECK_CALL.search(cell.source)
            if check and check.group(1) in tasks:
                cells.append(nbformat.v4.new_markdown_cell(visible_checks_markdown(tasks[check.group(1)])))
        quiz, test = QUIZ_CALL.search(cell.source), TEST_CALL.search(cell.source)
        if quiz or test:
            cell.outputs = []
            cell.metadata.setdefault("tags", []).append("remove-cell")
            text = (quiz_markdown(quiz.group(1), banks, rel_path) if quiz
                    else module_test_markdown(test.group(1), rel_path, banks, root or course_root()))
            cells.append(nbformat.v4.new_markdown_cell(text))
    if lab:
        lab_id = rel_path.split("/")[1]
        cells.insert(1, nbformat.v4.new_markdown_cell(how_to_do_the_lab(lab_id, repository)))
    nb.cells = cells
    drop_unseen_widget_state(nb)


def drop_unseen_widget_state(nb: nbformat.NotebookNode) -> None:
    """A lesson's only widget is its quiz, left out of the page; without a widget to show, its saved state
    would only make every page load the widget manager (3.6 MB of script) for nothing."""
    shown = any(WIDGET_VIEW in output.get("data", {})
                for cell in nb.cells if cell.cell_type == "code" and "remove-cell" not in cell.metadata.get("tags", [])
                for output in cell.outputs)
    if not shown:
        nb.metadata.pop("widgets", None)
