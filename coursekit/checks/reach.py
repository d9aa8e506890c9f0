"""Which of the course's own reference code a graded function reaches while it runs.

A task may forbid modules (`Task.forbidden`; default `cases.DEFAULT_FORBIDDEN`): calling the course's
calculators or the spec's helpers instead of writing the function is not the student's answer. A
profile hook sees every Python function entered during one call; the first whose module is forbidden
is the answer. Used by the grader's harness (the judge's run) and by `coursekit.checks.visible` (the student's own
visible check, which warns).
"""
from __future__ import annotations

import sys
from typing import Any, Callable


def _matches(module: str, qualname: str, rules: tuple[str, ...]) -> bool:
    """A rule names a module (and everything under it) or one function or method in it."""
    full = f"{module}.{qualname}"
    return any(module == r or module.startswith(r + ".") or full == r or full.startswith(r + ".") for r in rules)


def call_watched(function: Callable[..., Any], args: tuple, kwargs: dict,
                 forbidden: tuple[str, ...]) -> tuple[Any, str | None]:
    """(function's result, dotted name of the first forbidden function it reached, or None).
    Raises what the function raises; a profile hook removed by the function counts as reaching."""
    seen: list[str] = []

    def hook(frame, event, _arg):
        # "<module>": a forbidden module's body runs when the function first imports it; importing is not
        # calling (a check that ran only the code it needs may not have imported it yet)
        if event == "call" and not seen and frame.f_code.co_qualname != "<module>":
            module = frame.f_globals.get("__name__", "")
            if isinstance(module, str) and _matches(module, frame.f_code.co_qualname, forbidden):
                seen.append(f"{module}.{frame.f_code.co_qualname}")

    if not forbidden:
        return function(*args, **kwargs), None
    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        result = function(*args, **kwargs)
    finally:
        removed = sys.getprofile() is not hook
        sys.setprofile(previous)
    if removed and not seen:
        seen.append("(the grader's call watch was removed)")
    return result, (seen[0] if seen else None)
