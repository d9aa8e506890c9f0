"""type: multi -- every right option and no other, chosen with checkboxes or a list of letters."""
from __future__ import annotations

import re
from typing import Any

from ..bank import _Reader
from ..engine import Outcome, Question
from .base import register
from .choice import ChoiceType


AGREEING = re.compile(r"^(?:correct|right|yes)\b[\s.,:;!-]*", re.IGNORECASE)


def missed(text: str, feedback: str) -> str:
    """A right option the learner left out: said as missed, without its feedback's leading "Correct",
    which read as if the answer had been right (quiz-engine.js says the same)."""
    rest = AGREEING.sub("", feedback, count=1)
    return f"Missed, this one applies too: {text}" + (f": {rest}" if rest else "")


@register
class Multi(ChoiceType):
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

    def widget(self, view) -> list:
        import ipywidgets as widgets

        from ..widgets import FULL

        hint = widgets.HTML("<p class='course-quiz-multi-hint'>Select every answer that applies.</p>", layout=FULL)

        view.boxes = {i: widgets.Checkbox(value=False, description=f"{view.q.letter(i)}. {t}", indent=False,
                                          layout=FULL)
                      for i, t in view.q.choices()}
        for box in view.boxes.values():
            box.add_class("course-quiz-option")
        view.input = widgets.VBox(list(view.boxes.values()), layout=FULL)
        view.input.add_class("course-quiz-options")
        return [hint, view.input]

    def widget_response(self, view) -> Any:
        chosen = frozenset(i for i, box in view.boxes.items() if box.value)
        return chosen or None

    def set_widget_response(self, view, response: Any) -> None:
        for i, box in view.boxes.items():
            box.value = i in set(response)

    def controls(self, view) -> list:
        return list(view.boxes.values())

    def markdown(self, q: Question) -> list[str]:
        return ["*(choose all that apply)*", *self.choices_markdown(q)]

    def answer_hint(self, q: Question) -> str:
        return 'a list of letters, e.g. ["A", "C"]'

    def read_written(self, q: Question, answer: Any) -> frozenset[int]:
        if isinstance(answer, str):  # "A, C", "A C" and "AC" all mean A and C
            letters = [x for x in re.split(r"[\s,;]+", answer) if x]
            if len(letters) == 1 and letters[0].isalpha():
                letters = list(letters[0])
        elif isinstance(answer, (list, tuple, set)):
            letters = list(answer)
        else:
            raise ValueError(f"expected a list of letters, got {str(answer)[:40]!r}")
        return frozenset(q.index_of_letter(str(x)) for x in letters)

    def choice_label(self, q: Question, response: Any) -> list[str]:
        return [q.item.options[i].text for i in sorted(response)] or ["(none)"]
