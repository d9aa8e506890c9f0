"""Which of the course's own reference code a graded function reaches while it runs.

A task may forbid modules (`Task.forbidden`; default `cases.DEFAULT_FORBIDDEN`): calling the course's
calculators or the spec's helpers instead of writing the function is not the student's answer. A
profile hook sees every Python function entered during one call, in the calling thread and in any
thread the call starts; a function is forbidden by its module's name or by the file its code comes
from, so loading the reference under another name or from its path is still seen. Handing work to a
pool or thread that was running before the call, or removing the hook, counts as reaching, since the
watch cannot see what happens there. Used by the grader's harness (the judge's run) and by
`coursekit.checks.visible` (the student's own visible check, which warns).

Copying the reference's source text under another file name is not seen here: that is plagiarism of
the course's public code, for an instructor's eyes (docs/SANDBOX.md).
"""
from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable

# Bound when the grader imports this module, before any student code runs: a notebook that rebinds
# sys.setprofile or this module's names afterwards does not change what the watch uses.
_setprofile, _getprofile, _thread_setprofile = sys.setprofile, sys.getprofile, threading.setprofile
_find_spec, _realpath = importlib.util.find_spec, os.path.realpath
_COURSEKIT = Path(__file__).resolve().parents[1]
HANDED_OFF = ("concurrent.futures", "multiprocessing", "queue")   # pools and queues that outlive a call
TAMPERED = "(the grader's call watch was removed)"
HANDED = "(work handed to a thread or process the grader cannot watch)"


SPEC_MODULES = "autograder_spec_"     # a lab's spec.py, as autograder.spec loads it: part of `autograder`


def _matches(module: str, qualname: str, rules: tuple[str, ...]) -> bool:
    """A rule names a module (and everything under it) or one function or method in it."""
    if module.startswith(SPEC_MODULES):
        module = f"autograder.specs.{module}"
    full = f"{module}.{qualname}"
    return any(module == r or module.startswith(r + ".") or full == r or full.startswith(r + ".") for r in rules)


@functools.lru_cache(maxsize=None)
def _top(name: str) -> str | None:
    if name == "coursekit":
        return str(_COURSEKIT)
    try:
        spec = _find_spec(name)            # locates the package; imports nothing
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return _realpath(locations[0]) if locations else None


@functools.lru_cache(maxsize=None)
def _sources(rule: str) -> tuple[str, str] | None:
    """(the file or folder a rule's code lives in, the qualified name inside it or '')."""
    parts = rule.split(".")
    base = _top(parts[0])
    if base is None:
        return None
    for i, part in enumerate(parts[1:], 1):
        if os.path.isdir(os.path.join(base, part)):
            base = os.path.join(base, part)
        elif os.path.isfile(os.path.join(base, part + ".py")):
            return os.path.join(base, part + ".py"), ".".join(parts[i + 1:])
        else:
            return os.path.join(base, "__init__.py"), ".".join(parts[i:])
    return base + os.sep, ""


@functools.lru_cache(maxsize=65536)      # the hook asks for every function entered: once each
def _from_file(filename: str, qualname: str, rules: tuple[str, ...]) -> str | None:
    """The rule whose source file holds this code, whatever name the module was loaded under."""
    path = _realpath(filename)
    for rule in rules:
        found = _sources(rule)
        if found is None:
            continue
        where, inner = found
        if (path.startswith(where) if where.endswith(os.sep) else path == where) and \
                (not inner or qualname == inner or qualname.startswith(inner + ".")):
            return rule
    return None


def call_watched(function: Callable[..., Any], args: tuple, kwargs: dict,
                 forbidden: tuple[str, ...], seen: list[str] | None = None,
                 exempt: tuple[str, ...] = ()) -> tuple[Any, str | None]:
    """(function's result, dotted name of the first forbidden function it reached, or None).
    Raises what the function raises; what it reached before raising is still added to `seen` (while
    grading, the course's code only raises). A hook removed by the function counts as reaching.
    `exempt` names code that is not counted (the grader's own instrumentation, such as its os.environ)."""
    if not forbidden:
        return function(*args, **kwargs), None
    seen = [] if seen is None else seen
    watching = [True]

    def hook(frame, event, arg):
        if not watching[0] or seen:
            return
        if event == "c_call":
            if arg is _setprofile:
                seen.append(TAMPERED)
            return
        # "<module>": a forbidden module's body runs when the function first imports it; importing is not
        # calling (a check that ran only the code it needs may not have imported it yet)
        if event != "call" or frame.f_code.co_qualname == "<module>":
            return
        code, module = frame.f_code, frame.f_globals.get("__name__", "")
        if exempt and isinstance(module, str) and _matches(module, code.co_qualname, exempt):
            return
        if isinstance(module, str) and _matches(module, code.co_qualname, forbidden):
            seen.append(f"{module}.{code.co_qualname}")
        elif rule := _from_file(code.co_filename, code.co_qualname, forbidden):
            seen.append(f"{rule} (as {module}.{code.co_qualname})")
        elif isinstance(module, str) and _matches(module, code.co_qualname, HANDED_OFF):
            seen.append(HANDED)
        elif module == "threading" and code.co_qualname == "setprofile":
            seen.append(TAMPERED)

    previous, previous_threads = _getprofile(), getattr(threading, "_profile_hook", None)
    _thread_setprofile(hook)              # threads the call starts are watched too
    _setprofile(hook)
    try:
        result = function(*args, **kwargs)
    finally:
        removed = _getprofile() is not hook
        watching[0] = False               # restoring the hooks below is the watch's own doing
        _setprofile(previous)
        _thread_setprofile(previous_threads)
        if removed and not seen:
            seen.append(TAMPERED)
    return result, (seen[0] if seen else None)
