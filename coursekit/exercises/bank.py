"""Exercises as data: one YAML file per lesson in coursekit/exercises/lessons/, numbers from coursekit.

    lesson: m1-l2
    exercises:
      - id: m1-l2-train-70b
        title: Training state of a 70B model
        values:                       # Python expressions over coursekit, evaluated in order
          n: models.LLAMA2_70B.n_params
          answer: memory.training_bytes(n) / 1e9
        prompt: "Llama 2 70B has {n:.3g} parameters. How many GB ...?"
        source: Touvron et al. 2023 (shapes); Rajbhandari et al. 2020 (16 bytes per parameter)
        units: GB
        format: ",.0f"                # how the answer is written (Python format spec)
        tolerance: 0.05               # relative: within 5% counts as close
        worked: "16 bytes x {n:.3g} parameters = {answer:,.0f} GB ..."

Every value is an expression over coursekit, or a plain number for a scenario's own input (16 users,
a 4,096-token context) that the prompt states; never a number typed from a table. The answer must use
a coursekit function or constant (directly or through other values), or loading refuses it. `{name:spec}` in the
prompt and worked answer is filled from the values. Names in the expressions: the modules
`hardware`, `models` (model_configs), `prices`, each `coursekit.calc` module by its name (`memory`,
`roofline`, ...), and `math`.
"""
from __future__ import annotations

import ast
import importlib
import math
import pkgutil
import string
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).with_name("lessons")
FIELDS = {"id", "title", "values", "prompt", "source", "units", "format", "tolerance", "worked"}
REQUIRED = FIELDS - {"format", "tolerance"}


class ExerciseError(ValueError):
    """An exercise file that cannot be used; the message names the file, the exercise and the problem."""


@lru_cache(maxsize=1)
def module_names() -> dict[str, str]:
    """What an exercise's expressions may name -> the module: coursekit's data and formula modules, math."""
    from .. import calc

    names = {"hardware": "coursekit.hardware", "models": "coursekit.model_configs", "prices": "coursekit.prices",
             "math": "math"}
    names.update({info.name: f"{calc.__name__}.{info.name}" for info in pkgutil.iter_modules(calc.__path__)})
    return names


def namespace(expressions: dict[str, Any] | None = None) -> dict[str, Any]:
    """The modules `expressions` name (all of them when None), imported: only those, since one
    (calc.precision) imports torch, which takes seconds."""
    wanted = set(module_names())
    if expressions is not None:
        wanted &= {node.id for e in expressions.values() if isinstance(e, str)
                   for node in ast.walk(ast.parse(e, mode="eval")) if isinstance(node, ast.Name)}
    return {name: importlib.import_module(module_names()[name]) for name in sorted(wanted)}


@dataclass(frozen=True)
class Exercise:
    id: str
    lesson: str
    title: str
    prompt: str              # filled in
    source: str
    units: str
    answer: float
    answer_text: str         # the answer as written, with units ("1,120 GB")
    tolerance: float
    worked: str              # filled in
    expressions: dict[str, str] = field(repr=False)
    path: Path = field(repr=False)

    number_format: str = ",.4g"


def _coursekit_names(expression: str, expressions: dict[str, str], seen: frozenset = frozenset()) -> bool:
    """True when `expression` reads a coursekit module, itself or through the values it names."""
    modules = set(module_names()) - {"math"}
    if not isinstance(expression, str):
        return False
    for node in ast.walk(ast.parse(expression, mode="eval")):
        if isinstance(node, ast.Name):
            if node.id in modules:
                return True
            if node.id in expressions and node.id not in seen and \
                    _coursekit_names(expressions[node.id], expressions, seen | {node.id}):
                return True
    return False


def _fill(template: str, values: dict[str, Any], where: str) -> str:
    try:
        return string.Formatter().vformat(template, (), values).strip()
    except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
        raise ExerciseError(f"{where}: cannot fill {template[:60]!r}...: {type(exc).__name__}: {exc}") from None


def evaluate(expressions: dict[str, str], where: str) -> dict[str, Any]:
    """Each value's expression, in order; a value may use the ones before it."""
    try:
        scope = namespace(expressions)
    except SyntaxError as exc:
        raise ExerciseError(f"{where}: a value is not a Python expression: {exc}") from None
    values: dict[str, Any] = {}
    for name, expression in expressions.items():
        if isinstance(expression, bool) or not isinstance(expression, (str, int, float)):
            raise ExerciseError(f"{where}: value {name!r} must be an expression or a scenario's number, got {expression!r}")
        if not isinstance(expression, str):      # a scenario's input (16 users, 4,096 tokens), stated in the prompt
            values[name] = scope[name] = expression
            continue
        try:
            values[name] = scope[name] = eval(compile(expression, f"<{where}: {name}>", "eval"), scope)
        except Exception as exc:  # noqa: BLE001 - an author's expression: name it and its error
            raise ExerciseError(f"{where}: value {name!r} = {expression!r} failed: {type(exc).__name__}: {exc}") from None
    return values


def _one(entry: Any, lesson: str, path: Path) -> Exercise:
    if not isinstance(entry, dict):
        raise ExerciseError(f"{path}: every exercise must be a mapping, got {entry!r}")
    where = f"{path}: exercise {entry.get('id', '?')!r}"
    missing, unknown = REQUIRED - set(entry), set(entry) - FIELDS
    if missing or unknown:
        raise ExerciseError(f"{where}: " + "; ".join(filter(None, [
            missing and f"missing {', '.join(sorted(missing))}", unknown and f"unknown {', '.join(sorted(unknown))}"])))
    expressions = entry["values"]
    if not isinstance(expressions, dict) or "answer" not in expressions:
        raise ExerciseError(f"{where}: values must be a mapping that defines answer")
    if not _coursekit_names(expressions["answer"], expressions):
        raise ExerciseError(f"{where}: answer {expressions['answer']!r} uses no coursekit function or constant; "
                            "compute it from coursekit (hardware, models, prices, calc modules)")
    values = evaluate(expressions, where)
    try:
        answer = float(values["answer"])
    except (TypeError, ValueError):
        raise ExerciseError(f"{where}: answer is {values['answer']!r}, not a number") from None
    if not math.isfinite(answer) or answer == 0:
        raise ExerciseError(f"{where}: answer is {answer}; an exercise needs a finite, non-zero answer")
    tolerance = float(entry.get("tolerance", 0.05))
    if not 0 < tolerance < 1:
        raise ExerciseError(f"{where}: tolerance {tolerance} must be a fraction between 0 and 1 (0.05 is 5%)")
    number_format = str(entry.get("format", ",.4g"))
    try:
        format(answer, number_format)
    except ValueError as exc:
        raise ExerciseError(f"{where}: format {number_format!r}: {exc}") from None
    from ..quiz.numbers import UnreadableNumber, read_number, with_units

    units = str(entry["units"])
    text = with_units(format(answer, number_format), units)
    try:                      # the answer as written must read back as itself: the units are readable
        read_number(text, units)
    except UnreadableNumber as exc:
        raise ExerciseError(f"{where}: units {units!r} cannot be typed: {exc}") from None
    return Exercise(id=str(entry["id"]), lesson=lesson, title=_fill(entry["title"], values, where),
                    prompt=_fill(entry["prompt"], values, where), source=str(entry["source"]).strip(),
                    units=units, answer=answer, answer_text=text, tolerance=tolerance,
                    worked=_fill(entry["worked"], values, where), expressions=dict(expressions), path=path,
                    number_format=number_format)


def load_file(path: Path) -> list[Exercise]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ExerciseError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("lesson"), str) or not isinstance(data.get("exercises"), list):
        raise ExerciseError(f"{path}: expected a mapping with lesson (e.g. m1-l2) and a list of exercises")
    if data["lesson"] != path.stem:
        raise ExerciseError(f"{path}: lesson {data['lesson']!r} does not match the file name {path.stem!r}")
    exercises = [_one(entry, data["lesson"], path) for entry in data["exercises"]]
    ids = [ex.id for ex in exercises]
    for ex in exercises:
        if not ex.id.startswith(f"{data['lesson']}-") or ids.count(ex.id) > 1:
            raise ExerciseError(f"{path}: exercise id {ex.id!r} must start with {data['lesson']}- and be unique in the file")
    return exercises


@lru_cache(maxsize=None)
def _load_file(path: str) -> tuple[Exercise, ...]:
    return tuple(load_file(Path(path)))


def all_exercises(folder: Path = FOLDER) -> dict[str, Exercise]:
    """Every exercise by id (each file loaded once per process). Ids are unique: each starts with its
    file's lesson id, and load_file refuses a repeat within a file."""
    return {ex.id: ex for path in sorted(Path(folder).glob("*.yaml")) for ex in _load_file(str(path))}


def get(exercise_id: str, folder: Path = FOLDER) -> Exercise:
    """One exercise; only its lesson's file is loaded (its id starts with the lesson id, "m1-l2-...")."""
    path = Path(folder) / f"{'-'.join(exercise_id.split('-')[:2])}.yaml"
    found = {ex.id: ex for ex in _load_file(str(path))} if path.exists() else {}
    if exercise_id not in found:
        raise KeyError(f"no exercise {exercise_id!r} in {path} (known there: {', '.join(found) or 'none'})")
    return found[exercise_id]


def compare(ex: Exercise, prediction: float, typed: str) -> tuple[float, bool, str]:
    """(percent off, close?, a sentence) for a committed prediction against the worked answer.
    page.SCRIPT writes the same sentence in the browser (tests/content/test_exercises.py holds them together)."""
    off = (prediction - ex.answer) / abs(ex.answer) * 100
    close = abs(off) <= ex.tolerance * 100
    if abs(off) < 0.05:
        where = "matches the worked answer"
    else:
        where = f"is {abs(off):,.1f}% {'above' if off > 0 else 'below'} the worked answer"
    # a percent typed as a fraction (or the reverse) is right but for the scale: say so, not just "99% below"
    hundredfold = not close and any(abs(prediction * k - ex.answer) <= ex.tolerance * abs(ex.answer) for k in (100, 0.01))
    verdict = (f"within the {ex.tolerance:.0%} this exercise counts as close." if close else
               f"outside the {ex.tolerance:.0%} this exercise counts as close, but only by a factor of 100: a fraction "
               "where a percent is asked, or the reverse?" if hundredfold else
               f"outside the {ex.tolerance:.0%} this exercise counts as close: compare your steps with the worked answer.")
    return off, close, f"Your prediction, {typed.strip()}, {where}, {ex.answer_text}: {verdict}"
