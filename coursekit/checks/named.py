"""The pieces of a check (prepare, encode, compare) written as data, and read back.

A piece is named `module:qualname` (a module-level function) or, for a configured callable such as
`approx(rel=1e-5)`, `{"call": "module:qualname", "args": [...], "kwargs": {...}}`. Only names under
`coursekit` are written or read: what a student's check runs is course code, never the grader's.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

SAFE_PACKAGE = "coursekit"


def _safe(module: str) -> bool:
    return module == SAFE_PACKAGE or module.startswith(SAFE_PACKAGE + ".")


def to_data(piece: Callable[..., Any], what: str) -> str | dict:
    """The name of `piece`; ValueError (naming `what`) when a student could not import it."""
    if hasattr(piece, "as_data"):
        return piece.as_data()
    module, qualname = getattr(piece, "__module__", "") or "", getattr(piece, "__qualname__", "")
    if not _safe(module) or not qualname or "<" in qualname:
        raise ValueError(f"{what}: {module}.{qualname or piece!r} is not a module-level function in "
                         f"{SAFE_PACKAGE}; a visible check may only use course code (move it into {SAFE_PACKAGE})")
    return f"{module}:{qualname}"


def resolve(data: str | dict) -> Callable[..., Any]:
    """The callable `data` names (see the module docstring)."""
    if isinstance(data, dict):
        return resolve(data["call"])(*data.get("args", ()), **data.get("kwargs", {}))
    module, _, qualname = str(data).partition(":")
    if not _safe(module) or not qualname:
        raise ValueError(f"{data!r}: a check may only name functions in {SAFE_PACKAGE} as module:name")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj
