"""type: single -- one right option among several: its model."""
from __future__ import annotations

from typing import Any

from ...bank import _Reader
from ...engine import Outcome, Question
from ..choice import ChoiceModel


class Single(ChoiceModel):
    name = "single"

    def check_correct(self, r: _Reader, item_id: str, n_correct: int) -> None:
        if n_correct != 1:
            r.problem(item_id, f"a single-choice item needs exactly one correct option, found {n_correct}")

    def correct_response(self, q: Question) -> int:
        return next(i for i, o in enumerate(q.item.options) if o.correct)

    def grade(self, q: Question, response: Any) -> Outcome:
        options = q.item.options
        if response is None or not 0 <= int(response) < len(options):
            raise ValueError(f"{q.id}: choose one of the {len(options)} options")
        index = int(response)
        return Outcome(options[index].correct, q.option_feedback[index], q.explanation, index)

    def with_wrong(self, key: int, index: int) -> int:
        return index
