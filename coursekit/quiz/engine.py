"""Quiz logic with no widgets: seeds, draws, per-seed variants, rendering and scoring.

Everything random is derived from a string through SHA-256, never from Python's hash() (which
changes per process), so a seed gives the same draw and the same numbers on every machine.
"""
from __future__ import annotations

import importlib
import math
import string
from typing import Any, Callable, Iterable

from ..seeds import derive_seed, rng_for  # noqa: F401  (quizzes' seeds, re-exported)
from .bank import Bank
from .items.registry import item_type
from .model import LETTERS, Item, Outcome, Question  # noqa: F401 - re-exported: the engine's types
from .numbers import read_number


class ItemError(Exception):
    """An item cannot be instantiated (missing function, unresolved placeholder, bad number)."""


# --- numbers from course code ---------------------------------------------------------------------

def _load_local(path: str):
    """A private course's formulas.py (bank.py turned `formulas:name` into its absolute path), loaded once
    under a name of its own so two courses' files never shadow each other or a real module."""
    import hashlib
    import importlib.util
    import sys

    name = "coursekit_local_formulas_" + hashlib.sha256(path.encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the author's file: name it and the error
        raise ItemError(f"{path}: cannot load it ({type(exc).__name__}: {exc})") from None
    sys.modules[name] = module
    return module


def resolve_function(spec: str) -> Callable:
    """Import "package.module:function" (or a bank's own "/path/formulas.py:function"); raise ItemError
    naming what is missing."""
    module_name, _, attr = spec.partition(":")
    try:
        module = _load_local(module_name) if module_name.endswith(".py") else importlib.import_module(module_name)
    except ImportError as exc:
        raise ItemError(f"cannot import module {module_name!r} for fn {spec!r}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ItemError(f"function {attr!r} not found in {module_name} (fn {spec!r})")
    return fn


def _fill(value: Any, names: dict) -> Any:
    """'{x}' becomes the value of x; 'text {x}e12' is formatted and read as a number."""
    if isinstance(value, dict):
        return {k: _fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, names) for v in value]
    if not isinstance(value, str) or "{" not in value:
        return value
    inner = value[1:-1]
    if value.startswith("{") and value.endswith("}") and inner.isidentifier():
        if inner not in names:
            raise ItemError(f"argument {value!r} names no parameter or value")
        return names[inner]
    text = render(value, names, what="argument")
    try:
        return float(text)
    except ValueError:
        raise ItemError(f"argument {value!r} became {text!r}, which is not a number") from None


def call_spec(spec: dict, names: dict) -> float:
    """Evaluate {fn, args, scale}: the function's result times scale, as a finite float."""
    fn = resolve_function(spec["fn"])
    args = _fill(spec.get("args", {}), names)
    try:
        result = fn(**args)
    except Exception as exc:  # noqa: BLE001 - the author's call is wrong; say which call and why
        raise ItemError(f"{spec['fn']}(**{args!r}) raised {type(exc).__name__}: {exc}") from None
    try:
        number = float(result) * spec.get("scale", 1.0)
    except (TypeError, ValueError):
        raise ItemError(f"{spec['fn']} returned {result!r}, not a number") from None
    if not math.isfinite(number):
        raise ItemError(f"{spec['fn']}(**{args!r}) gave {number}, not a finite number")
    return number


def render(text: str, names: dict, *, what: str = "text") -> str:
    """Fill {name} / {name:fmt} placeholders; an unknown name or bad format is an ItemError."""
    try:
        return string.Formatter().vformat(text, (), names)
    except KeyError as exc:
        raise ItemError(f"placeholder {{{exc.args[0]}}} in the {what} has no value "
                        f"(known: {', '.join(sorted(names)) or 'none'})") from None
    except (ValueError, IndexError, AttributeError, TypeError) as exc:
        raise ItemError(f"cannot fill the {what} {text[:60]!r}: {exc} (write literal braces as {{{{ }}}})") from None


# --- one item, instantiated for a seed -----------------------------------------------------------

def correct_response(q: Question) -> Any:
    """The response that scores full marks for `q` (used by the self-test, the answer key and tests)."""
    return item_type(q.type).correct_response(q)


def instantiate(item: Item, seed: int = 0) -> Question:
    """Draw parameters, compute values and the answer, and fill every text for this seed."""
    kind = item_type(item.type)
    params = kind.draw_params(item, seed)
    names: dict[str, Any] = dict(params)
    for name, spec in item.values.items():
        if spec is None:
            raise ItemError(f"value {name!r} is not a valid {{fn, args, scale}} mapping")
        names[name] = call_spec(spec, names)
    q = Question(item=item, seed=seed, params=params, names=names, stem=render(item.stem, names, what="stem"),
                 explanation="")
    kind.fill(q, names)
    q.explanation = render(item.explanation, names, what="explanation")
    return q


# --- scoring ----------------------------------------------------------------------------------------

def within(value: float, target: float, tolerance: dict) -> bool:
    if "abs" in tolerance:
        return abs(value - target) <= tolerance["abs"] * (1 + 1e-12)
    return abs(value - target) <= tolerance["rel"] * abs(target) * (1 + 1e-12)


def outside_tolerance(target: float, tolerance: dict) -> float:
    """A value just clearly outside the tolerance band (3x its width), for self-tests."""
    width = tolerance["abs"] if "abs" in tolerance else tolerance["rel"] * abs(target)
    return target + 3 * width if width else target + 1.0


def parse_number(response: Any, units: str = "") -> float:
    """A numeric response as a float: the course's one number reader (coursekit/quiz/numbers.py);
    raises UnreadableNumber (a ValueError) with a message for anything it will not guess at."""
    return read_number(response, units).value


def grade(q: Question, response: Any) -> Outcome:
    """Score one response: what the item's type takes (an option index, a set of indices, a number)."""
    return item_type(q.type).grade(q, response)


def key_text(q: Question) -> str:
    """The right answer in words, shown after a module test is submitted."""
    return item_type(q.type).key_text(q)


def format_number(x: float) -> str:
    return f"{x:,.4g}" if abs(x) < 1e6 else f"{x:.4g}"


# --- drawing a quiz ---------------------------------------------------------------------------------

def draw(items: Iterable[Item], show: int, seed: int, salt: str) -> list[Item]:
    """`show` items from the pool, the same ones for the same seed (order shuffled too)."""
    pool = list(items)
    return rng_for("draw", salt, seed).sample(pool, min(show, len(pool)))


def build_quiz(bank: Bank, pool_items: list[Item], seed: int, salt: str = "") -> list[Question]:
    """The questions for a seed. The draw is salted with the bank's id; `salt` is the id a draw was made
    under when that was a former one (a record or a graded quiz from before a rename), so it comes back."""
    return [instantiate(item, seed) for item in draw(pool_items, bank.show, seed, salt or bank.id)]
