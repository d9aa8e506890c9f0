"""Honest variations of Lab 5's solution, each graded the same way by `autograder grade` and by plain
`nbgrader autograde` (tests/grading/test_grading_vs_nbgrader.py, benchmarks/bench_grading.py).

Each variant is what a real student writes: the solution, with a timing magic around an answer, an
`eval`, a `globals()` lookup, sections moved, a stub or scratch version run again at the end, a helper
written below its test cell, an edited (locked) setup cell, an import in a cell of one's own, the
lab's QUICK setting used. `EXPECTED` says
which tasks score 0 for each (nbgrader runs every cell top to bottom and judges each task at its test
cell); every other task scores full marks. Both graders must agree on all of them.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Callable

import nbformat

from paths import ROOT

LAB = "lab5-moe"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def solution_sources(lab: str = LAB) -> dict[str, str]:
    """grade_id -> what a student who solved the cell submits (the solution without its markers)."""
    nb = nbformat.read(ROOT / "solutions" / lab / f"{lab}.ipynb", as_version=4)
    return {cell.metadata["nbgrader"]["grade_id"]:
            "\n".join(line for line in cell.source.splitlines() if line.strip() not in MARKERS)
            for cell in nb.cells if cell.cell_type == "code" and (cell.metadata.get("nbgrader") or {}).get("solution")}


def solved(release: nbformat.NotebookNode, lab: str = LAB) -> nbformat.NotebookNode:
    """The released notebook with every answer cell solved."""
    nb = copy.deepcopy(release)
    answers = solution_sources(lab)
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def cell(nb, grade_id: str):
    return next(c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("grade_id") == grade_id)


def at(nb, grade_id: str) -> int:
    return nb.cells.index(cell(nb, grade_id))


def code(source: str):
    return nbformat.v4.new_code_cell(source)


# ---------------------------------------------------------------- the variants (each edits a solved notebook)

def time_magic(nb):
    """%%time around the scaling answer, the only code that uses the setup cell's `math` and `QUICK`."""
    answer = cell(nb, "impl_scaling")
    answer.source = ("%%time\nSEARCH_STEPS = 200 if QUICK else 400\n"
                     + answer.source.replace("range(200)", "range(SEARCH_STEPS)"))


def capture_magic(nb):
    """%%capture around the scaling answer (it prints nothing, but a student may keep the magic)."""
    cell(nb, "impl_scaling").source = "%%capture\n" + cell(nb, "impl_scaling").source


def _scaling_without_math(nb, first_line: str) -> None:
    """The scaling answer with every `math.` use going through names that `first_line` binds."""
    answer = cell(nb, "impl_scaling")
    body = answer.source.replace("math.exp(", "exp(").replace("math.log(", "log(").replace("math.inf", "inf")
    lines = body.splitlines()
    after = next(n for n, line in enumerate(lines) if line.strip().startswith('"""'))   # the docstring
    answer.source = "\n".join(lines[:after + 1] + [f"    {first_line}"] + lines[after + 1:])


def line_magic(nb):
    """The scaling answer's math functions bound in a %time line magic (the setup cell imports math)."""
    _scaling_without_math(nb, "exp, log, inf = EXP, LOG, INF")
    cell(nb, "impl_scaling").source = "%time EXP, LOG, INF = math.exp, math.log, math.inf\n" + \
        cell(nb, "impl_scaling").source


def eval_string(nb):
    """The scaling answer takes its math functions from eval of a literal."""
    _scaling_without_math(nb, 'exp, log, inf = eval("math.exp, math.log, math.inf")')


def globals_lookup(nb):
    """The scaling answer takes `math` from globals()."""
    _scaling_without_math(nb, 'exp, log, inf = globals()["math"].exp, globals()["math"].log, globals()["math"].inf')


def main_module(nb):
    """The scaling answer reads the setup cell's `math` through `__main__`."""
    _scaling_without_math(nb, "import __main__; exp, log, inf = __main__.math.exp, __main__.math.log, __main__.math.inf")


def quick_setting(nb):
    """The scaling answer sizes its search with the lab's QUICK (set by the setup cell)."""
    answer = cell(nb, "impl_scaling")
    answer.source = "SEARCH_STEPS = 200 if QUICK else 400\n" + answer.source.replace("range(200)", "range(SEARCH_STEPS)")


def reordered(nb):
    """Part C (scaling) moved before Part A: each task's answer still comes before its test cell."""
    first, last = at(nb, "md_scaling"), at(nb, "scaling_plot")
    part = nb.cells[first:last + 1]
    del nb.cells[first:last + 1]
    start = at(nb, "md_router")
    nb.cells[start:start] = part


def stub_rerun_at_end(nb, release):
    """The router's released stub run again in a cell at the very end (a copy kept for reference)."""
    nb.cells.append(code(cell(release, "impl_router").source))


def scratch_at_end(nb):
    """An experiment at the end redefines the gain with a wrong formula; its test cell saw the right one."""
    nb.cells.append(code("def speculation_gain(a, k, c):   # scratch: what if a draft were free?\n"
                         "    return {\"tokens_per_step\": k + 1.0, \"speedup\": k + 1.0}"))


def helper_after_test(nb):
    """The counts answer calls a helper the student wrote below the test cell: nbgrader's test cell
    raises NameError, so the task scores 0."""
    cell(nb, "impl_counts").source = (
        "def moe_counts(n_layers, d_model, d_ff, n_experts, top_k, n_shared=0, dense_params=0):\n"
        "    expert, router = expert_params(d_model, d_ff), d_model * n_experts\n"
        "    total = n_layers * ((n_experts + n_shared) * expert + router) + dense_params\n"
        "    active = n_layers * ((top_k + n_shared) * expert + router) + dense_params\n"
        "    return {\"total_params\": total, \"active_params\": active, \"flops_per_token\": 2 * active}")
    nb.cells.insert(at(nb, "test_counts") + 1, code("def expert_params(d_model, d_ff):\n    return 3 * d_model * d_ff"))


def edited_setup(nb):
    """The (locked) setup cell edited to add an import the gain answer uses: nbgrader runs a locked cell
    as released, so `np` is not defined and the task scores 0 (the grader and `course check` do the same)."""
    cell(nb, "setup").source += "\nimport numpy as np\n"
    answer = cell(nb, "impl_gain")
    answer.source = answer.source.replace("if a == 1 else", "if np.isclose(a, 1) else")


def own_import_cell(nb):
    """The same import in a cell of the student's own below the setup cell: it runs, the task passes."""
    nb.cells.insert(at(nb, "setup") + 1, code("import numpy as np"))
    answer = cell(nb, "impl_gain")
    answer.source = answer.source.replace("if a == 1 else", "if np.isclose(a, 1) else")


def one_stub(nb, release):
    """The speculative decoding task left as released (NotImplementedError): 0 for it, both ways."""
    cell(nb, "impl_speculative").source = cell(release, "impl_speculative").source


def wrong_gain(nb):
    """An honest mistake: draft cost counted once per step instead of once per drafted token."""
    answer = cell(nb, "impl_gain")
    answer.source = answer.source.replace("tokens / (k * c + 1)", "tokens / (c + 1)")


def unchanged(nb):
    """The solution as it is."""


VARIANTS: dict[str, Callable] = {f.__name__: f for f in (
    unchanged, time_magic, capture_magic, line_magic, eval_string, globals_lookup, main_module, quick_setting,
    reordered, stub_rerun_at_end, scratch_at_end, helper_after_test, edited_setup, own_import_cell, one_stub,
    wrong_gain)}

# The tasks that score 0 in each variant, by both graders; every other task scores full marks.
EXPECTED: dict[str, set[str]] = {name: set() for name in VARIANTS} | {
    "helper_after_test": {"test_counts"},
    "edited_setup": {"test_gain"},
    "one_stub": {"test_speculative"},
    "wrong_gain": {"test_gain"},
}


def build(name: str, release: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Variant `name` of the solved lab, from its released notebook."""
    nb = solved(release)
    edit = VARIANTS[name]
    edit(nb, release) if edit.__code__.co_argcount == 2 else edit(nb)
    return nb


def write_submissions(course: Path, names: list[str] | None = None, lab: str = LAB) -> list[str]:
    """submitted/<variant>/<lab>/<lab>.ipynb for each variant (the student's id is the variant's name)."""
    release = nbformat.read(course / "labs" / lab / f"{lab}.ipynb", as_version=4)
    names = names or list(VARIANTS)
    for name in names:
        folder = course / "submitted" / name.replace("_", "-") / lab
        folder.mkdir(parents=True)
        nbformat.write(build(name, release), folder / f"{lab}.ipynb")
    return names
