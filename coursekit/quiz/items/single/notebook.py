"""type: single in a graded quiz's notebook: the options by letter, answered with one letter."""
from __future__ import annotations

from typing import Any

from ...engine import Question
from ..base import NotebookView
from ..choice import choices_markdown


class SingleNotebook(NotebookView):
    def markdown(self, q: Question) -> list[str]:
        return ["*(choose one)*", *choices_markdown(q)]

    def answer_hint(self, q: Question) -> str:
        return 'one letter, e.g. "B"'

    def read_written(self, q: Question, answer: Any) -> int:
        if not isinstance(answer, str):
            raise ValueError(f"expected one letter, got {str(answer)[:40]!r}")
        return q.index_of_letter(answer)

    def choice_label(self, q: Question, response: Any) -> list[str]:
        return [q.item.options[response].text]
