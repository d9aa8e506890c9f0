"""`run_what_works(lab)`: a lab's measurements and dashboards before every task is done.

Run All stops at the first failing test cell, so a learner stuck on task 3 never sees the lab's
measurements, plots or dashboard below it, even those that need only tasks 1 and 2. This runs, in the
notebook's own kernel and in order, every code cell that has not run in this kernel yet, except test
cells and the check cell: the lab's set-up, measurement, scenario, plot and discussion cells, and the
learner's task cells whose functions are not defined yet (never one that would replace a function
already defined: the screen may be newer than the saved file). A cell whose code works
shows its output as usual; a cell that fails says which unfinished task it needs and is skipped, and
the rest go on.

Nothing the learner wrote is replaced and no reference implementation stands in. The runs are not
recorded as the learner's (store_history=False: the course kernel ignores them, coursekit/kernel_runs.py),
so `course check` still judges the saved code; under grading (COURSE_GRADING, NBGRADER_EXECUTION) the
call does nothing, as the notebook's own cells run in order there.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .paths import course_root

DEF = re.compile(r"^def (\w+)\(", flags=re.MULTILINE)
SKIP_CALLS = ("run_what_works", "check_here")   # this cell itself, and the check that records progress


def _nbgrader(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def notebook_for(lab: str, namespace: dict | None = None) -> tuple[dict, Path]:
    """The notebook whose cells to run: the learner's saved copy of `lab` when this kernel serves it
    (Jupyter names the file), else the released student version in labs/."""
    session = os.environ.get("JPY_SESSION_NAME") or (namespace or {}).get("__session__")
    candidates = [Path(session)] if session and Path(session).name == f"{lab}.ipynb" else []
    candidates.append(course_root() / "labs" / lab / f"{lab}.ipynb")
    for path in candidates:
        if path.is_file():
            try:
                return json.loads(path.read_text(encoding="utf-8")), path
            except (OSError, ValueError):
                continue
    raise FileNotFoundError(f"no notebook for lab {lab!r}: looked for {', '.join(map(str, candidates))}")


def given_cells(notebook: dict) -> tuple[list[tuple[str, str, frozenset]], frozenset]:
    """(name, source, functions it defines if a task cell) of each code cell, test and check cells left
    out; and every function the task cells define."""
    cells, tasks = [], set()
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        meta, source = _nbgrader(cell), _source(cell)
        defines = frozenset(DEF.findall(source)) if meta.get("solution") else frozenset()
        tasks |= defines
        if meta.get("grade") or any(call in source for call in SKIP_CALLS):
            continue
        cells.append((meta.get("grade_id") or f"cell {index + 1}", source, defines))
    return cells, frozenset(tasks)


def _needs(error: BaseException, source: str, tasks: frozenset) -> list[str]:
    """The unfinished tasks behind a cell's error: task functions on its traceback (the one that raised
    NotImplementedError), or the task a NameError names (a NameError for another name: a cell above
    that defines it was skipped, no task to name); else the tasks the cell mentions."""
    if isinstance(error, NameError):
        return [error.name] if getattr(error, "name", None) in tasks else []
    frames, trace = set(), error.__traceback__
    while trace is not None:
        frames.add(trace.tb_frame.f_code.co_name)
        trace = trace.tb_next
    found = sorted(frames & tasks)
    return found or sorted(name for name in tasks if re.search(rf"\b{re.escape(name)}\b", source))


def run_what_works(lab: str) -> tuple[int, int]:
    """Run the lab's cells that have not run, test cells left out, on what works; returns (ran, skipped)."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("run_what_works() runs inside the lab's notebook")
    if os.environ.get("NBGRADER_EXECUTION") or os.environ.get("COURSE_GRADING"):
        print("run_what_works: not run while grading (the notebook's own cells already ran in order).")
        return 0, 0
    notebook, path = notebook_for(lab, shell.user_ns)
    cells, tasks = given_cells(notebook)
    namespace, already = shell.user_ns, {source.strip() for source in shell.user_ns.get("In", [])}
    cells = [(name, source, defines) for name, source, defines in cells if source.strip() not in already
             and not (defines and all(callable(namespace.get(function)) for function in defines))]
    if not cells:
        print(f"Every cell of {path.name} but its tests has already run in this kernel (above): "
              "nothing left to run.")
        return 0, 0
    print(f"Running the {len(cells)} cells of {path.name} that have not run in this kernel, test cells left "
          "out; a cell that needs an unfinished task is skipped and says which.\n")
    skipped: dict[str, str] = {}
    for name, source, defines in cells:
        shown = shell.showtraceback, shell.showsyntaxerror
        shell.showtraceback = shell.showsyntaxerror = lambda *args, **kwargs: None   # one line says it below
        try:
            result = shell.run_cell(source, store_history=False)
        finally:
            shell.showtraceback, shell.showsyntaxerror = shown
        error = result.error_before_exec or result.error_in_exec
        if error is None:
            continue
        because = f"{type(error).__name__}: {error}".strip().rstrip(":")[:200]
        if defines:   # the learner's own task cell: its error is the news, not a missing task
            skipped[name] = ", ".join(sorted(defines))
            print(f"[failed] your cell '{name}' ({skipped[name]}): {because}")
            continue
        needs = _needs(error, source, tasks)
        skipped[name] = ", ".join(needs)
        print(f"[skipped] cell '{name}'" + (f" needs {skipped[name]}" if needs else "") + f" ({because})")
    ran = len(cells) - len(skipped)
    print(f"\nRan {ran} of {len(cells)} cells on your code.", end=" ")
    unfinished = sorted({name for needs in skipped.values() for name in needs.split(", ") if name})
    print(f"Finish {', '.join(unfinished)} to see the rest." if unfinished else
          "Nothing was skipped." if not skipped else "The skipped cells failed for another reason: see above.")
    return ran, len(skipped)
