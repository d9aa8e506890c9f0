"""type: multi in a graded quiz's notebook: the options by letter, answered with a list of letters."""
from __future__ import annotations

import re
from typing import Any

from ...engine import Question
from ..base import NotebookView
from ..choice import choices_markdown


class MultiNotebook(NotebookView):
    def markdown(self, q: Question) -> list[str]:
        return ["*(choose all that apply)*", *choices_markdown(q)]

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
