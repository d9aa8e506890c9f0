"""What single and multi share: options, each with its text, whether it is right, and its feedback (their
browser code shares choice.js, beside this file)."""
from __future__ import annotations

from abc import abstractmethod
from typing import Any

from ..bank import Item, Option, _Reader
from ..engine import Question, render
from ...seeds import rng_for
from .base import ItemModel


class ChoiceModel(ItemModel):
    keys = frozenset({"options"})

    def read(self, r: _Reader, data: dict, item_id: str) -> dict[str, Any]:
        fields = {"options": self._read_options(r, data, item_id)}
        for key in ("answer", "tolerance", "mistakes", "params"):
            if key in data:
                r.problem(item_id, f"a {self.name} item takes no '{key}' (mark options with correct: true)")
        return fields

    def _read_options(self, r: _Reader, data: dict, item_id: str) -> tuple[Option, ...]:
        raw = data.get("options")
        if not isinstance(raw, list) or len(raw) < 2:
            r.problem(item_id, f"a {self.name} item needs 'options': a list of at least 2")
            return ()
        options = []
        for n, opt in enumerate(raw, 1):
            if not isinstance(opt, dict):
                r.problem(item_id, f"option {n} must be a mapping with text, feedback (and correct: true)")
                continue
            unknown = set(opt) - {"text", "correct", "feedback"}
            if unknown:
                r.problem(item_id, f"option {n} has unknown keys {sorted(unknown)}")
            correct = opt.get("correct", False)
            if not isinstance(correct, bool):
                r.problem(item_id, f"option {n}: 'correct' must be true or false, got {correct!r}")
            text = r.text(opt, "text", item_id) if "text" in opt else ""
            if "text" not in opt:
                r.problem(item_id, f"option {n} has no 'text'")
            if "feedback" not in opt:
                r.problem(item_id, f"option {n} ({text[:40]!r}) has no 'feedback' (why this choice is right or wrong)")
            feedback = r.text(opt, "feedback", item_id, required=False)
            options.append(Option(str(text), correct is True, feedback))
        self.check_correct(r, item_id, sum(o.correct for o in options))
        return tuple(options)

    def check_correct(self, r: _Reader, item_id: str, n_correct: int) -> None:
        """Report a number of correct options this type cannot key."""

    def fill(self, q: Question, names: dict) -> None:
        item = q.item
        q.option_texts = [render(o.text, names, what=f"option {i + 1} text") for i, o in enumerate(item.options)]
        q.option_feedback = [render(o.feedback, names, what=f"option {i + 1} feedback")
                             for i, o in enumerate(item.options)]
        q.order = list(range(len(item.options)))
        if item.shuffle:
            rng_for("options", item.id, q.seed).shuffle(q.order)

    def key_indices(self, q: Question) -> list[int]:
        """The correct options' indices in display order."""
        return sorted((i for i, o in enumerate(q.item.options) if o.correct), key=q.order.index)

    def key_text(self, q: Question) -> str:
        return "; ".join(f"{q.letter(i)}. {q.option_texts[i]}" for i in self.key_indices(q))

    def selftest(self, q: Question) -> list[str]:
        found = []
        texts = q.option_texts
        if len(set(texts)) != len(texts):
            found.append("two options have the same text")
        key = self.correct_response(q)
        if not self.grade(q, key).correct:
            found.append("the correct option(s) are not accepted")
        for i in (i for i, o in enumerate(q.item.options) if not o.correct):
            if self.grade(q, self.with_wrong(key, i)).correct:
                found.append(f"wrong option {i + 1} ({texts[i][:40]!r}) is accepted")
        return found

    @abstractmethod
    def with_wrong(self, key: Any, index: int) -> Any:
        """The key changed to choose wrong option `index` (the self-test expects it rejected)."""

    def site_seeds(self, item: Item, variants: int) -> list[int]:
        return list(range(variants)) if item.shuffle else [0]

    def export_variant(self, q: Question) -> dict:
        return {"order": list(q.order),
                "options": [{"text": q.option_texts[i], "feedback": q.option_feedback[i],
                             "correct": q.item.options[i].correct} for i in range(len(q.item.options))]}


def choices_markdown(q: Question) -> list[str]:
    """The options as a graded notebook lists them, by letter."""
    return [f"- **{q.letter(i)}.** {text}" for i, text in q.choices()]
