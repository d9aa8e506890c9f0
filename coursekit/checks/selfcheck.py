"""`course check NOTEBOOK`: a self-paced learner's own check of a lab notebook.

Runs the code the graded functions need (`needed_code`: the answer cells and, transitively, the
statements defining the names they use; measurement and plot cells are skipped, which is most of the
time a whole run takes) in an IPython shell in this process, then the visible cases of every task
(`coursekit.checks.visible`), and says which tasks pass with the lab's teaching messages. It is the
learner's own code on the learner's own machine, so there is no sandbox and no hidden test here:
grading proper is the instructor's `autograder grade`.
"""
from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import symtable
from dataclasses import dataclass
from pathlib import Path

from coursekit.nbcells import as_autograded, is_answer_cell, is_test_cell, locked_sources, nbgrader_meta
from coursekit.paths import course_root

from .visible import as_written, load_checks, passed_message, run_task

LAB_CALL = re.compile(r"run_visible\(\s*['\"]([^'\"]+)['\"]")
DEF = re.compile(r"^def (\w+)\(", flags=re.MULTILINE)      # a function a cell defines
# Set for the check as the grader's workers set them (autograder/judge/engine.py), unless the learner set them:
# measurement cells take their small sizes, plots draw nowhere, and torch computes on one thread (its
# pool's size is read from OMP_NUM_THREADS when the learner's code imports torch). A visible case's
# tensors are tiny, so a second thread only adds waiting, and on a loaded machine (a class's shared
# server) a lot of it: Lab 3's two model tasks took 7 s with torch's default two threads at load 6 on
# two cores, 0.1 s with one (benchmarks/RESULTS.md).
CHECK_ENV = {"COURSE_QUICK": "1", "COURSE_GRADING": "1", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}


@dataclass(frozen=True)
class TaskCheck:
    grade_id: str
    title: str
    passed: bool
    message: str


def lab_of(notebook: dict, path: Path) -> str:
    """The lab id named by the notebook's run_visible(...) calls, else the file name's stem."""
    for cell in notebook["cells"]:
        found = LAB_CALL.search("".join(cell.get("source", "")))
        if found:
            return found.group(1)
    return path.stem


def _names(source: str) -> tuple[set[str], set[str]]:
    """(global names `source` binds, global names it or its functions read, code in magics and eval/exec
    strings included); SyntaxError if it is not valid. DYNAMIC among the reads: it reaches names that
    cannot be told (globals(), __main__, eval of a computed string, ...)."""
    table = symtable.symtable(source, "<cell>", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    read = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    inner = list(table.get_children())
    while inner:                          # functions and classes: the globals they read when called
        child = inner.pop()
        read |= {s.get_name() for s in child.get_symbols() if s.is_global() and s.is_referenced()}
        inner += child.get_children()
    for code in _reached(ast.parse(source), read):
        more = _names_of_code(code)
        bound |= more[0]
        read |= more[1]
    return bound, read


DYNAMIC = "<dynamic>"         # a read standing for "any name": keep everything
# Names whose use reads the namespace by a name computed at run time; attributes that are a namespace.
DYNAMIC_CALLS = {"globals", "vars", "locals", "eval", "exec", "compile", "__import__", "get_ipython"}
DYNAMIC_ATTRIBUTES = {"user_ns", "user_global_ns", "f_globals", "__globals__", "modules", "__dict__"}
MAGIC_CALLS = {"run_cell_magic", "run_line_magic"}
SHELL_CALLS = MAGIC_CALLS | {"system", "getoutput"}      # what IPython's own syntax asks get_ipython() for


def _reached(tree: ast.AST, read: set[str]) -> list[str]:
    """Code `tree` runs from strings (a magic's body or line, eval/exec of a literal); adds DYNAMIC to
    `read` when it reaches the namespace in a way no reading of the code can follow."""
    codes, understood = [], set()        # calls whose reach is read from their literal strings
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if isinstance(node.func, ast.Attribute) and node.func.attr in SHELL_CALLS:
            understood.add(id(node.func.value))            # get_ipython().run_cell_magic(name, line, body)
            codes += strings[1:] if node.func.attr in MAGIC_CALLS else []
        elif isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            understood.add(id(node))
            codes.append(node.args[0].value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in DYNAMIC_CALLS \
                and id(node) not in understood:
            read.add(DYNAMIC)
        elif isinstance(node, ast.Attribute) and node.attr in DYNAMIC_ATTRIBUTES and \
                (node.attr != "modules" or isinstance(node.value, ast.Name) and node.value.id == "sys"):
            read.add(DYNAMIC)
        elif isinstance(node, ast.Constant) and node.value == "__main__" or \
                isinstance(node, (ast.Import, ast.ImportFrom)) and "__main__" in {a.name for a in node.names} | {
                    getattr(node, "module", None)}:
            read.add(DYNAMIC)
    return codes


def _names_of_code(code: str) -> tuple[set[str], set[str]]:
    """_names of code run from a string: IPython syntax allowed; a body that is not Python (a %%bash
    cell, say) binds and reads nothing here."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return _names(TransformerManager().transform_cell(code))
    except (SyntaxError, ValueError, RecursionError):
        return set(), set()


def _nothing() -> None:
    """needed_code's `tick` when nobody counts."""


@dataclass
class _Unit:
    cell: int                 # index in the notebook
    source: str
    names: tuple[set[str], set[str]] | None   # (binds, reads); None: it does not parse
    always: bool = False                      # an answer cell, or code whose names cannot be told: run it


def _units(index: int, cell: dict, tick=_nothing) -> list[_Unit]:
    """An answer cell whole; any other cell one top-level statement at a time (statements sharing a line
    stay together), so an import of pyplot or a timing loop beside a needed constant is not run."""
    from IPython.core.inputtransformer2 import TransformerManager

    source = TransformerManager().transform_cell("".join(cell.get("source", "")))
    try:
        body = ast.parse(source).body
        if is_answer_cell(cell):
            return [_Unit(index, source, _names(source), True)]
    except SyntaxError:
        return [_Unit(index, source, None, True)]      # running it reports the problem
    lines, spans = source.splitlines(keepends=True), []
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if spans and first <= spans[-1][1]:
            spans[-1][1] = node.end_lineno
        else:
            spans.append([first, node.end_lineno])
    units = []
    for first, last in spans:
        tick()
        text = "".join(lines[first - 1:last])
        try:
            names = _names(text)
        except SyntaxError:
            names = None
        units.append(_Unit(index, text, names, names is None or "import *" in text))  # * binds unseen names
    return units


def needed_code(cells: list[dict], functions: set[str], tick=None) -> list[_Unit]:
    """What to run for `functions`, in notebook order: answer cells, and every statement binding a needed
    name, where a needed statement's reads are needed too. `tick` is called as the analysis goes, once a
    cell, statement and round (the grader's CPU budget raises from it)."""
    tick = tick or _nothing
    units = []
    for i, c in enumerate(cells):
        if c.get("cell_type") == "code" and not is_test_cell(c):
            tick()
            units += _units(i, c, tick)
    keep = {n for n, u in enumerate(units) if u.always}
    needed = set(functions)
    while True:
        tick()
        for n in keep:
            needed |= units[n].names[1] if units[n].names else set()
        if DYNAMIC in needed:     # kept code reads names no analysis can tell (globals(), __main__, ...)
            return units
        more = {n for n, u in enumerate(units) if n not in keep and u.names and u.names[0] & needed}
        if not more:
            return [u for n, u in enumerate(units) if n in keep]
        keep |= more


def every_code_cell(cells: list[dict]) -> list[_Unit]:
    return [_Unit(i, "".join(c.get("source", "")), None, True) for i, c in enumerate(cells)
            if c.get("cell_type") == "code" and not is_test_cell(c)]


def run_check(path: Path, every_cell: bool = False) -> tuple[str, list[TaskCheck], list[str]]:
    """(lab id, per-task results, problems met while running the notebook's code); `every_cell` runs every
    code cell but the test cells, as the notebook would, instead of only the code the tasks need."""
    from IPython.core.interactiveshell import InteractiveShell

    for name, value in CHECK_ENV.items():
        os.environ.setdefault(name, value)
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot read this notebook ({error})") from None
    lab_id = lab_of(notebook, Path(path))
    os.chdir(Path(path).resolve().parent)            # notebooks open files relative to their folder
    tasks = load_checks(lab_id)                      # an unknown lab fails before any cell runs
    shell = InteractiveShell.instance()
    cells, problems = as_released(notebook["cells"], lab_id)
    functions = {t.function for t in tasks.values()}
    units = every_code_cell(cells) if every_cell else needed_code(cells, functions)
    # Each task is checked where its test cell stands, as the grader and a run from the top judge it.
    places = where_judged(cells, set(tasks))
    pending = sorted((places.get(grade_id, len(cells)), grade_id) for grade_id in tasks)
    checks: dict[str, TaskCheck] = {}
    defined = {name for c in cells if c.get("cell_type") == "code" for name in DEF.findall("".join(c.get("source", "")))}

    def at_test_cell(grade_id: str) -> TaskCheck:
        task = tasks[grade_id]
        fn = shell.user_ns.get(task.function)
        if not callable(fn) and task.function in defined and grade_id in places:
            return TaskCheck(grade_id, task.title, False, f"{task.function} is not defined when its test cell "
                             "runs: the grader judges each task at its test cell, so define it in a cell above "
                             "that one (or fix the error that stopped its cell)")
        return check_task(task, fn)

    for unit in units:
        while pending and pending[0][0] < unit.cell:
            grade_id = pending.pop(0)[1]
            checks[grade_id] = at_test_cell(grade_id)
        index = unit.cell + 1
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            outcome = shell.run_cell(unit.source, store_history=False, silent=True)
        error = outcome.error_before_exec or outcome.error_in_exec
        if error is not None and not isinstance(error, NotImplementedError):
            problems.append(f"cell {index} raised {type(error).__name__}: {error}")
    for _, grade_id in pending:
        checks[grade_id] = at_test_cell(grade_id)
    return lab_id, [checks[grade_id] for grade_id in tasks], problems


def as_released(cells: list[dict], lab_id: str) -> tuple[list[dict], list[str]]:
    """The cells as the grader runs them (nbgrader's rule): a locked cell the learner changed runs as the
    course released it (labs/<lab>/<lab>.ipynb under the course root); and a note for each such cell."""
    release = course_root() / "labs" / lab_id / f"{lab_id}.ipynb"
    try:
        locked = locked_sources(json.loads(release.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return cells, []                             # a lone downloaded lab: nothing to compare with
    restored = as_autograded(cells, locked)
    notes = [f"cell {n + 1} is locked and was changed: it runs as released, as the grader runs it"
             for n, (mine, theirs) in enumerate(zip(cells, restored))
             if mine is not theirs and "".join(mine.get("source", "")) != theirs["source"]]
    return restored, notes


def where_judged(cells: list[dict], grade_ids: set[str]) -> dict[str, int]:
    """grade_id -> index of the test cell judging it."""
    return {nbgrader_meta(c)["grade_id"]: n for n, c in enumerate(cells)
            if is_test_cell(c) and nbgrader_meta(c).get("grade_id") in grade_ids}


def check_namespace(lab_id: str, namespace: dict, in_notebook: frozenset = frozenset(),
                    seen: dict | None = None) -> list[TaskCheck]:
    """Every task's visible cases on the functions defined in `namespace`; `in_notebook` names the
    functions the notebook's cells define, so a missing one whose cell exists is said to be not run.
    `seen` (grade_id -> visible.TestCellRun) holds each test cell's last run: that outcome is the
    task's, as the grader judges each task at its test cell, and a redefinition since is pointed out."""
    checks = []
    for task in load_checks(lab_id).values():
        run = (seen or {}).get(task.grade_id)
        if run is None:
            checks.append(check_task(task, namespace.get(task.function), in_notebook))
            continue
        note = ("as its test cell last ran it" if namespace.get(task.function) is run.fn else
                f"as its test cell last ran it; {task.function} was defined again after that, and the grader "
                "judges each task at its test cell: run that cell again (or Run All) to check the new one")
        checks.append(TaskCheck(task.grade_id, task.title, run.passed, f"{run.message} ({note})"))
    return checks


def check_task(task, fn, in_notebook: frozenset = frozenset()) -> TaskCheck:
    """One task's visible cases on `fn` (None: not defined)."""
    if not callable(fn):
        why = (f"the cell that defines {task.function} has not run in this kernel (Run All stops at the "
               "first error: run that cell, Shift+Enter)" if task.function in in_notebook
               else f"define a function named {task.function}")
        return TaskCheck(task.grade_id, task.title, False, why)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            run_task(task, fn, want=as_written)
    except AssertionError as error:
        return TaskCheck(task.grade_id, task.title, False, str(error))
    except Exception as error:   # noqa: BLE001 - a broken check must not hide the other tasks' results
        return TaskCheck(task.grade_id, task.title, False, f"{type(error).__name__}: {error}")
    return TaskCheck(task.grade_id, task.title, True, passed_message(printed.getvalue()))


def record_progress(lab_id: str, passed: int, total: int) -> bool:
    """Record with coursekit.progress.record_lab_check when the course's progress module has it."""
    try:
        from coursekit import progress
    except ImportError:
        return False
    record = getattr(progress, "record_lab_check", None)
    if record is None:
        return False
    record(lab_id, passed, total)
    return True


def render(lab_id: str, checks: list[TaskCheck], problems: list[str]) -> str:
    lines = [f"{lab_id}: visible tests"]
    for c in checks:
        mark = "PASS" if c.passed else "FAIL"
        message = c.message.replace("\n", "\n         ")
        lines.append(f"  {mark}  {c.title}: {message}")
    if problems:
        lines.append("while running your cells:")
        lines += [f"  {p}" for p in problems]
    passed = sum(c.passed for c in checks)
    lines.append(f"{passed}/{len(checks)} tasks pass their visible cases. Hidden cases with other inputs "
                 "decide the grade: make sure your code is right in general, not only on these cases.")
    return "\n".join(lines)


def is_submission(path: Path) -> bool:
    """A notebook in an nbgrader course's submitted/<student>/<lab>/ or autograded/ (an instructor
    checking a student's work): its result is not the instructor's own progress."""
    return len(path.parents) > 3 and path.parents[2].name in ("submitted", "autograded")


def check_notebook(path: Path, every_cell: bool = False) -> int:
    """`course check NOTEBOOK`: print the check of the saved file; exit status 0 when every task passes."""
    from .saved import saved_version, unsaved_work

    path = Path(path).resolve()                       # running the cells changes the working folder
    stale = unsaved_work(path) if path.is_file() else None   # asked first: running the cells takes a while
    lab_id, checks, problems = run_check(path, every_cell)
    report = render(lab_id, checks, problems)
    print(report)
    from .last import remember

    remember(lab_id, report, f"course check {path.name}")
    print(saved_version(path))
    passed = sum(c.passed for c in checks)
    if stale:
        print(f"WARNING: {stale}\n(progress not recorded: the saved file may be out of date)")
    elif is_submission(path):
        print("(progress not recorded: this is a student's submission, not your own work)")
    elif record_progress(lab_id, passed, len(checks)):
        print("(progress recorded)")
    return 0 if passed == len(checks) else 1
