"""Quiz logic with no widgets: seeds, draws, per-seed variants, rendering and scoring.

Everything random is derived from a string through SHA-256, never from Python's hash() (which
changes per process), so a seed gives the same draw and the same numbers on every machine.
"""
from __future__ import annotations

import importlib
import math
import string
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..seeds import derive_seed, rng_for  # noqa: F401  (quizzes' seeds, re-exported)
from .bank import Bank, Item
from .numbers import read_number

LETTERS = string.ascii_uppercase


class ItemError(Exception):
    """An item cannot be instantiated (missing function, unresolved placeholder, bad number)."""


# --- numbers from course code ---------------------------------------------------------------------

def resolve_function(spec: str) -> Callable:
    """Import "package.module:function"; raise ItemError naming what is missing."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
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
    except Exception as exc:  # the author's call is wrong; say which call and why
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


def draw_params(item: Item, seed: int) -> dict:
    """One variant's inputs: each parameter drawn from its choices or range by a seeded generator."""
    rng = rng_for("params", item.id, seed)
    values = {}
    for name, spec in item.params.items():
        if "choices" in spec:
            values[name] = rng.choice(spec["choices"])
            continue
        lo, hi = spec["range"]
        step, digits = spec.get("step"), spec.get("digits")
        if step is not None:
            n = int(math.floor((hi - lo) / step + 1e-9))
            value = lo + step * rng.randint(0, n)
            all_ints = all(isinstance(v, int) for v in (lo, hi, step))
            values[name] = int(value) if all_ints else round(value, 12)
        elif digits is not None:
            values[name] = round(rng.uniform(lo, hi), digits)
        elif isinstance(lo, int) and isinstance(hi, int):
            values[name] = rng.randint(lo, hi)
        else:
            values[name] = round(rng.uniform(lo, hi), 2)
    return values


# --- one item, instantiated for a seed -----------------------------------------------------------

@dataclass
class Question:
    """An item as one learner sees it: texts filled, options in display order, the key computed."""
    item: Item
    seed: int
    params: dict
    names: dict                                   # params + values (+ answer): what texts may use
    stem: str
    explanation: str
    order: list[int] = field(default_factory=list)          # display position -> option index
    option_texts: list[str] = field(default_factory=list)   # by option index
    option_feedback: list[str] = field(default_factory=list)
    answer: float | None = None
    mistakes: list[tuple[float, str]] = field(default_factory=list)
    feedback: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.item.id

    @property
    def type(self) -> str:
        return self.item.type

    def choices(self) -> list[tuple[int, str]]:
        """(option index, text) in the order shown."""
        return [(i, self.option_texts[i]) for i in self.order]

    def letter(self, index: int) -> str:
        return LETTERS[self.order.index(index)]

    def index_of_letter(self, letter: str) -> int:
        pos = LETTERS.find(letter.strip().upper()) if len(letter.strip()) == 1 else -1
        if pos < 0 or pos >= len(self.order):
            raise ValueError(f"{letter!r} is not one of the letters {LETTERS[0]}-{LETTERS[len(self.order) - 1]}")
        return self.order[pos]

    def correct_response(self):
        """The response that scores full marks (used by the self-test and the answer key)."""
        if self.type == "single":
            return next(i for i, o in enumerate(self.item.options) if o.correct)
        if self.type == "multi":
            return frozenset(i for i, o in enumerate(self.item.options) if o.correct)
        return self.answer


def instantiate(item: Item, seed: int = 0) -> Question:
    """Draw parameters, compute values and the answer, and fill every text for this seed."""
    params = draw_params(item, seed) if item.type == "param" else {}
    names: dict[str, Any] = dict(params)
    for name, spec in item.values.items():
        if spec is None:
            raise ItemError(f"value {name!r} is not a valid {{fn, args, scale}} mapping")
        names[name] = call_spec(spec, names)
    q = Question(item=item, seed=seed, params=params, names=names, stem=render(item.stem, names, what="stem"),
                 explanation="")
    if item.type in ("single", "multi"):
        q.option_texts = [render(o.text, names, what=f"option {i + 1} text") for i, o in enumerate(item.options)]
        q.option_feedback = [render(o.feedback, names, what=f"option {i + 1} feedback")
                             for i, o in enumerate(item.options)]
        q.order = list(range(len(item.options)))
        if item.shuffle:
            rng_for("options", item.id, seed).shuffle(q.order)
    else:
        if item.answer is None:
            raise ItemError("the answer is not a valid {fn, args, scale} mapping")
        q.answer = call_spec(item.answer, names)
        names["answer"] = q.answer
        q.mistakes = [(call_spec(m["value"], names), render(m["feedback"], names, what=f"mistake {n} feedback"))
                      for n, m in enumerate(item.mistakes, 1)]
        q.feedback = {k: render(v, names, what=f"{k} feedback") for k, v in item.feedback.items()}
    q.explanation = render(item.explanation, names, what="explanation")
    return q


# --- scoring ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    correct: bool
    feedback: str        # why this response is right or wrong
    explanation: str
    response: Any


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
    """Score one response: an option index (single), a set of indices (multi), or a number."""
    item = q.item
    if item.type == "single":
        if response is None or not 0 <= int(response) < len(item.options):
            raise ValueError(f"{q.id}: choose one of the {len(item.options)} options")
        index = int(response)
        return Outcome(item.options[index].correct, q.option_feedback[index], q.explanation, index)
    if item.type == "multi":
        chosen = frozenset(int(i) for i in (response or ()))
        if any(not 0 <= i < len(item.options) for i in chosen):
            raise ValueError(f"{q.id}: option index out of range in {sorted(chosen)}")
        key = q.correct_response()
        lines = [f"{q.option_texts[i]}: {q.option_feedback[i]}" for i in sorted(chosen, key=q.order.index)]
        lines += [f"Missed: {q.option_texts[i]}: {q.option_feedback[i]}"
                  for i in sorted(key - chosen, key=q.order.index)]
        if not chosen:
            lines.insert(0, "No option selected.")
        return Outcome(chosen == key, "\n".join(lines), q.explanation, chosen)
    value = parse_number(response, item.units)
    if within(value, q.answer, item.tolerance):
        return Outcome(True, q.feedback.get("correct", ""), q.explanation, value)
    for mistake, feedback in q.mistakes:
        if within(value, mistake, item.tolerance):
            return Outcome(False, feedback, q.explanation, value)
    return Outcome(False, q.feedback.get("incorrect", ""), q.explanation, value)


def key_text(q: Question) -> str:
    """The right answer in words, shown after a module test is submitted."""
    if q.type in ("single", "multi"):
        key = q.correct_response()
        indices = [key] if q.type == "single" else sorted(key, key=q.order.index)
        return "; ".join(f"{q.letter(i)}. {q.option_texts[i]}" for i in indices)
    return f"{format_number(q.answer)} {q.item.units}".strip()


def format_number(x: float) -> str:
    return f"{x:,.4g}" if abs(x) < 1e6 else f"{x:.4g}"


# --- drawing a quiz ---------------------------------------------------------------------------------

def draw(items: Iterable[Item], show: int, seed: int, salt: str) -> list[Item]:
    """`show` items from the pool, the same ones for the same seed (order shuffled too)."""
    pool = list(items)
    return rng_for("draw", salt, seed).sample(pool, min(show, len(pool)))


def build_quiz(bank: Bank, pool_items: list[Item], seed: int) -> list[Question]:
    return [instantiate(item, seed) for item in draw(pool_items, bank.show, seed, bank.id)]
