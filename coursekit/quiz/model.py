"""The quiz package's data: an item as a bank states it (Item, Option), an item drawn for one learner
(Question) and a graded response (Outcome).

These types sit on the package's lowest floor and import nothing of it, so the item-type interfaces
(items/base.py), the bank reader, the engine and the widgets can all name them without an import circle
(tests/house/test_import_cycles.py counts type-only imports too).
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class Option:
    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True)
class Item:
    id: str
    type: str
    stem: str
    explanation: str
    source: str
    file: str
    bank_id: str
    options: tuple[Option, ...] = ()
    answer: dict | None = None          # {fn, args, scale}
    tolerance: dict | None = None       # {rel: x} or {abs: x}
    units: str = ""
    mistakes: tuple[dict, ...] = ()     # ({value: {fn, args, scale}, feedback: str}, ...)
    feedback: dict = field(default_factory=dict)  # numeric/param: {correct, incorrect}
    params: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    shuffle: bool = True                # optional: keep authored option order when false


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


@dataclass(frozen=True)
class Outcome:
    correct: bool
    feedback: str        # why this response is right or wrong
    explanation: str
    response: Any
