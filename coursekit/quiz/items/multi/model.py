"""type: multi -- every right option and no other: its model."""
from __future__ import annotations

import re
from typing import Any

from ...bank import _Reader
from ...engine import Outcome, Question
from ..choice import ChoiceModel


AGREEING = re.compile(r"^(?:correct|right|yes)\b[\s.,:;!-]*", re.IGNORECASE)


def missed(text: str, feedback: str) -> str:
    """A right option the learner left out: said as missed, without its feedback's leading "Correct",
    which read as if the answer had been right (quiz-engine.js says the same)."""
    rest = AGREEING.sub("", feedback, count=1)
    return f"Missed, this one applies too: {text}" + (f": {rest}" if rest else "")


class Multi(ChoiceModel):
    name = "multi"

    def check_correct(self, r: _Reader, item_id: str, n_correct: int) -> None:
        if n_correct < 1:
            r.problem(item_id, "a multi-select item needs at least one correct option")

    def correct_response(self, q: Question) -> frozenset[int]:
        return frozenset(i for i, o in enumerate(q.item.options) if o.correct)

    def grade(self, q: Question, response: Any) -> Outcome:
        chosen = frozenset(int(i) for i in (response or ()))
        if any(not 0 <= i < len(q.item.options) for i in chosen):
            raise ValueError(f"{q.id}: option index out of range in {sorted(chosen)}")
        key = self.correct_response(q)
        lines = [f"{q.option_texts[i]}: {q.option_feedback[i]}" for i in sorted(chosen, key=q.order.index)]
        lines += [missed(q.option_texts[i], q.option_feedback[i]) for i in sorted(key - chosen, key=q.order.index)]
        if not chosen:
            lines.insert(0, "No option selected.")
        return Outcome(chosen == key, "\n".join(lines), q.explanation, chosen)

    def with_wrong(self, key: frozenset[int], index: int) -> frozenset[int]:
        return key | {index}

    def selftest(self, q: Question) -> list[str]:
        found = super().selftest(q)
        key = self.correct_response(q)
        for i in key:
            if self.grade(q, key - {i}).correct:
                found.append(f"leaving out correct option {i + 1} is still accepted")
        return found
