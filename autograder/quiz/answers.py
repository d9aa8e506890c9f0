"""A quiz submission's answers, read as data: the answers cell is parsed, never executed.

Limits keep a hostile cell from costing the grader time or memory: the cell's size, the nesting
depth of the value, the number of entries and the length of each text. A cell that breaks a limit of
the whole, or is not a plain literal dict, is refused with a reason that names the problem; the
submission then fails with that reason instead of being guessed at. One bad entry costs only itself:
an answer over the length limit is kept as `Unreadable` (its question scores 0 with the reason), and a
key that is no question number is set aside in `Answers.stray` (never guessed to be one).
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.quiz.assignment import META

MAX_CELL_CHARS = 20_000       # a 15-question answers cell is under 2 000
MAX_FILE_BYTES = 5 * 2**20    # `collect` caps files too; submissions copied by hand get the same cap here
MAX_DEPTH = 3                 # dict -> list -> letter
MAX_ENTRIES = 200
MAX_TEXT = 200


class AnswersError(ValueError):
    """The submission's answers cannot be read; the message is the reason the instructor sees."""


@dataclass(frozen=True)
class Unreadable:
    """One answer that cannot be scored as written: its question scores 0 with `reason`."""
    reason: str


class Answers(dict):
    """{question number: value}, plus `stray`: each key that is no question number, as shown to people."""

    def __init__(self, *args, stray: list[str] = ()) -> None:
        super().__init__(*args)
        self.stray = list(stray)


def read_answers(path: Path, base: Path | None = None) -> dict:
    """{slot: value} from the answers cell of the notebook at `path` (only JSON parsing, no nbformat
    validation, so a notebook with hostile metadata is still read; cells are all that matter). Only a
    regular file reached from `base` (submitted/) through no link is read (autograder/submitted.py)."""
    from autograder import submitted

    try:
        raw = submitted.read(path, Path(base) if base is not None else Path(path).parent, MAX_FILE_BYTES)
        if len(raw) > MAX_FILE_BYTES:
            raise AnswersError(f"notebook too large (more than {MAX_FILE_BYTES} bytes)")
        data = json.loads(raw)
        cells = data["cells"]
        if not isinstance(cells, list):
            raise TypeError("cells is not a list")
    except submitted.Refused as refusal:
        raise AnswersError(str(refusal)) from None
    except FileNotFoundError:
        raise AnswersError(f"missing notebook: no {path.name} in the submission") from None
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as error:
        if isinstance(error, AnswersError):
            raise
        raise AnswersError(f"invalid notebook: {path.name} is not a readable notebook ({type(error).__name__})") from None
    found = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"
             and isinstance(c.get("metadata"), dict) and isinstance(c["metadata"].get(META), dict)
             and c["metadata"][META].get("role") == "answers"]
    if not found:
        raise AnswersError("missing answers cell: no code cell marked as the answers cell (copy it back from "
                           "the released notebook)")
    if len(found) > 1:
        raise AnswersError(f"{len(found)} answers cells: keep exactly one")
    source = found[0].get("source", "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        source = "".join(source)
    if not isinstance(source, str):
        raise AnswersError("answers cell: its source is not text (nbformat keeps a string or a list of strings)")
    return parse_answers(source)


def parse_answers(source: str) -> dict:
    if len(source) > MAX_CELL_CHARS:
        raise AnswersError(f"answers cell too large ({len(source)} characters > {MAX_CELL_CHARS})")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise AnswersError(f"answers cell is not valid Python ({type(error).__name__})") from None
    values = [node.value for node in tree.body if isinstance(node, ast.Assign)
              and [getattr(t, "id", None) for t in node.targets] == ["answers"]]
    if len(values) != 1:
        raise AnswersError("answers cell: expected exactly one `answers = {...}`, found "
                           f"{len(values)}")
    others = [node for node in tree.body if not isinstance(node, ast.Assign) or node.value is not values[0]]
    if others:
        raise AnswersError("answers cell: only `answers = {...}` is allowed (it is read, never run), "
                           f"found a {type(others[0]).__name__} statement")
    if _depth(values[0]) > MAX_DEPTH:
        raise AnswersError(f"answers cell: nested deeper than {MAX_DEPTH} levels")
    try:
        value = ast.literal_eval(values[0])
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as error:
        raise AnswersError(f"answers cell: not a plain dict of values ({str(error)[:80]})") from None
    if not isinstance(value, dict):
        raise AnswersError(f"answers cell: `answers` is a {type(value).__name__}, not a dict")
    if len(value) > MAX_ENTRIES:
        raise AnswersError(f"answers cell: {len(value)} entries > {MAX_ENTRIES}")
    answers, stray = Answers(), []
    for key, item in value.items():
        slot = _slot(key)
        if slot is None:
            stray.append(_shown(key))
        else:
            answers[slot] = _checked(item)
    answers.stray = stray
    return answers


def _depth(node: ast.AST, limit: int = MAX_DEPTH + 1) -> int:
    """Container nesting depth, stopping once past the limit (so a deep cell costs nothing more)."""
    if not isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return 0
    if limit <= 0:
        return 1
    children = [c for c in (node.keys + node.values if isinstance(node, ast.Dict) else node.elts) if c is not None]
    return 1 + max((_depth(c, limit - 1) for c in children), default=0)


def _slot(key) -> int | None:
    """A question number: an int, or text of the digits 0-9 ("3"); anything else (a Unicode digit
    such as "³", a 400-digit number, a float) is None, never guessed at."""
    text = key.strip() if isinstance(key, str) else str(key) if isinstance(key, int) and not isinstance(key, bool) \
        and abs(key) < 10**6 else None
    return int(text) if text is not None and re.fullmatch(r"[0-9]{1,6}", text) else None


def _shown(key) -> str:
    """A stray key as the instructor and the student read it: "key '²' is not a question number"."""
    shown = repr(key)[:20] if not isinstance(key, int) or abs(key) < 10**20 else f"an integer of {len(str(abs(key)))} digits"
    return f"key {shown} is not a question number"


def _checked(value):
    texts = value if isinstance(value, (list, tuple, set)) else [value]
    if any(isinstance(t, str) and len(t) > MAX_TEXT for t in texts):
        return Unreadable(f"an answer longer than {MAX_TEXT} characters")
    if len(texts) > 26:
        return Unreadable(f"{len(texts)} choices (at most 26)")
    return value
