"""type: single -- one right option among several, chosen with radio buttons or one letter."""
from __future__ import annotations

from typing import Any

from ..bank import _Reader
from ..engine import Outcome, Question
from .base import register
from .choice import ChoiceType


@register
class Single(ChoiceType):
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

    def widget(self, view) -> list:
        import ipywidgets as widgets

        from ..widgets import FULL

        q = view.q
        view.input = widgets.RadioButtons(options=[(f"{q.letter(i)}. {t}", i) for i, t in q.choices()],
                                          value=None, layout=FULL)
        view.input.add_class("course-quiz-options")
        return [view.input]

    def widget_response(self, view) -> Any:
        return view.input.value

    def set_widget_response(self, view, response: Any) -> None:
        view.input.value = response

    def markdown(self, q: Question) -> list[str]:
        return ["*(choose one)*", *self.choices_markdown(q)]

    def answer_hint(self, q: Question) -> str:
        return 'one letter, e.g. "B"'

    def read_written(self, q: Question, answer: Any) -> int:
        if not isinstance(answer, str):
            raise ValueError(f"expected one letter, got {str(answer)[:40]!r}")
        return q.index_of_letter(answer)

    def choice_label(self, q: Question, response: Any) -> list[str]:
        return [q.item.options[response].text]
