"""What makes a file not a progress file, in a learner's words: coursekit/progress.schema.json checked by
jsonschema, each error told by the nearest `problem` the schema gives on its way to it.

The website tells the same problems the same way (coursekit/app/site/static/progress-format.js, over the
same schema compiled with ajv); tests/library/progress/test_progress_schema.py holds the two to the same messages. The rule,
in both: follow the error's schema path from the root; each `properties`/`additionalProperties`/`items`
step is one step into the data; the deepest schema on the way with a `problem` names the place and the
problem. A missing member with its own `problem` is told at its own place. Problems are in the schema's
order (then by name and number), one per place, and when the file's top level is wrong only the top level is told.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("progress.schema.json")
STEPS = ("properties", "additionalProperties", "items")    # the schema words that step into the data
MISSING = object()


@functools.cache
def schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _at_most(validator, pair, instance, _schema):
    """`atMost: [a, b]`: instance[a] <= instance[b] when both are numbers (what JSON Schema cannot say)."""
    from jsonschema import ValidationError

    a, b = pair
    if (validator.is_type(instance, "object") and all(validator.is_type(instance.get(k), "number") for k in pair)
            and instance[a] > instance[b]):
        yield ValidationError(f"{a} must not exceed {b}")


@functools.cache
def _validator():
    from jsonschema import Draft7Validator, validators

    # an integer is an int, never a float such as 1.0 (Python can tell them apart; the browser cannot)
    types = Draft7Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, x: isinstance(x, int) and not isinstance(x, bool))
    cls = validators.extend(Draft7Validator, validators={"atMost": _at_most}, type_checker=types)
    return cls(schema())


def type_name(value: Any) -> str:
    return "nothing" if value is MISSING else type(value).__name__


def _value(data: Any, path: list) -> Any:
    for step in path:
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
            data = data[step]
        else:
            return MISSING
    return data


def where(path: list) -> str:
    """quizzes.m1-l1.attempts[0].shown"""
    return "".join(f"[{s}]" if isinstance(s, int) else f"{'.' if n else ''}{s}" for n, s in enumerate(path))


def _told(node: dict, path: list, data: Any) -> tuple[list, str]:
    value = _value(data, path)
    found = "null" if value is MISSING else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return path, node["problem"].replace("{type}", type_name(value)).replace("{json}", found)


def explain(schema_path: list, data_path: list, data: Any) -> list[tuple[list, str]]:
    """The (place, problem) pairs one validation error tells; `schema_path` ends in the failing keyword."""
    node, depth, told = schema(), 0, None
    if "problem" in node:
        told = (node, 0)
    steps = list(schema_path[:-1])
    while steps and steps[0] in STEPS:
        word = steps.pop(0)
        node = node[word][steps.pop(0)] if word == "properties" else node[word]
        depth += 1
        if "problem" in node:
            told = (node, depth)
    if told is None:
        return []
    found = [_told(told[0], list(data_path[:told[1]]), data)]
    if schema_path[-1] == "required":
        here = _value(data, list(data_path))
        props = node.get("properties", {})
        missing = [p for p in node["required"] if isinstance(here, dict) and p not in here]
        if any("problem" in props.get(p, {}) for p in missing):
            found = [_told(props[p], [*data_path, p], data) if "problem" in props.get(p, {}) else found[0]
                     for p in missing]
    return found


def _order(place: list) -> list:
    """Places in the schema's order (its members as it lists them), then by name, array items by number."""
    node, key = schema(), []
    for step in place:
        members = list(node.get("properties", {}))
        if isinstance(step, int):
            key.append((0, step, ""))
            node = node.get("items", {})
        elif step in members:
            key.append((1, members.index(step), ""))
            node = node["properties"][step]
        else:
            key.append((2, 0, step))
            node = node.get("additionalProperties", {})
    return key


def problems(data: Any) -> list[str]:
    """What makes `data` not a progress file, each with where it is ([] when it is one)."""
    told: dict[tuple, tuple[list, str]] = {}
    for error in _validator().iter_errors(data):
        for place, problem in explain(list(error.absolute_schema_path), list(error.absolute_path), data):
            told.setdefault(tuple(place), (place, problem))
    found = sorted(told.values(), key=lambda t: (_order(t[0]), t[1]))
    if any(len(place) <= 1 for place, _ in found):
        found = [t for t in found if len(t[0]) <= 1]
    return [f"{where(place)}: {problem}" if place else problem for place, problem in found]
