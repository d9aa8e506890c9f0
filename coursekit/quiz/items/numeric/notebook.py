"""type: numeric (and param) in a graded quiz's notebook: answered with a number, read as the widget reads it."""
from __future__ import annotations

from typing import Any

from ...engine import Question, within
from ...numbers import Reading, read_number
from ..base import NotebookView


class NumericNotebook(NotebookView):
    def markdown(self, q: Question) -> list[str]:
        return [f"*(a number{', in ' + q.item.units if q.item.units else ''})*"]

    def answer_hint(self, q: Question) -> str:
        return f"a number{' in ' + q.item.units if q.item.units else ''}"

    def read_written(self, q: Question, answer: Any) -> Reading:
        return read_number(answer, q.item.units)      # the lesson widget's reader: one parser for both

    def choice_label(self, q: Question, response: Any) -> list[str]:
        if within(response, q.answer, q.item.tolerance):
            return ["correct value"]
        for k, (value, _) in enumerate(q.mistakes, 1):
            if within(response, value, q.item.tolerance):
                return [f"mistake {k}"]
        return ["other value"]
