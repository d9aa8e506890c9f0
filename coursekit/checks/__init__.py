"""A student's checks of a lab: the visible cases, run in the notebook (`run_visible`, `check_here()`)
or on a saved notebook (`course check NOTEBOOK`). Nothing here imports the grader (`autograder`)."""
from .onscreen import check_here
from .visible import CasesPassed, VisibleTestFailed, run_visible

__all__ = ["CasesPassed", "VisibleTestFailed", "check_here", "run_visible"]
