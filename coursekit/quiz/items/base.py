"""What an item type implements, as three small interfaces: its model (what the course computes about an
item, in bank.py, engine.py, selftest.py and the website's export), its JupyterLab widget (widgets.py) and
its graded-notebook rendering (autograder/quiz/). Its browser code is a script in the same folder
(site.js), registered in the website's table of types (coursekit/app/site/static/quiz-types.js).

This module imports only the package's data types (model.py, the floor below), so bank.py and engine.py
can look types up without an import circle (registry.py loads the built-in types on first lookup; they
import bank and engine). What it needs of the bank reader and the widget view it states as protocols.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol

from ..model import Item, Outcome, Question


class _Reader(Protocol):
    """What a type's read() gets from the bank reader (bank._Reader): where to put a problem, and the
    check of a computed value's {fn, args, scale} mapping."""

    def problem(self, item: str, message: str) -> None: ...

    def text(self, data: dict, key: str, item: str, *, required: bool = True) -> str: ...

    def fn_spec(self, spec: Any, item: str, what: str) -> dict | None: ...


class QuestionView(Protocol):
    """What a type's widget view gets (widgets.QuestionView): the question shown; the view's own controls
    are attributes it sets in build()."""
    q: Question
    number: int


class ItemModel(ABC):
    """One item type's model: read, draw, grade, key, self-test, export. An instance holds no state;
    every method gets the Item or Question it works on."""
    name: str = ""
    keys: frozenset[str] = frozenset()    # the item keys this type reads, beyond those every item has
    varies: bool = False                  # True: each seed is its own variant (the self-test tries several)

    @abstractmethod
    def read(self, r: _Reader, data: dict, item_id: str) -> dict[str, Any]:
        """This type's fields of an Item from the YAML mapping `data`; each problem goes to r.problem()."""

    def draw_params(self, item: Item, seed: int) -> dict:
        """The inputs drawn for this seed (none unless the type varies per learner)."""
        return {}

    @abstractmethod
    def fill(self, q: Question, names: dict) -> None:
        """Fill the Question's type-specific parts (options, key, feedback) for its seed."""

    @abstractmethod
    def grade(self, q: Question, response: Any) -> Outcome:
        """Right or wrong, and why; ValueError for a response this type cannot take."""

    @abstractmethod
    def correct_response(self, q: Question) -> Any:
        """The response that scores full marks (the self-test's and the answer key's)."""

    @abstractmethod
    def key_text(self, q: Question) -> str:
        """The right answer in words, shown after a module test is submitted."""

    @abstractmethod
    def selftest(self, q: Question) -> list[str]:
        """Why this variant cannot be answered as its author meant (empty when it can)."""

    def check_variants(self, variants: list[tuple[tuple, Any]], seeds: int) -> list[str]:
        """Problems across the seeds' variants, each (sorted params, key); only a varying type has any."""
        return []

    @abstractmethod
    def export_variant(self, q: Question) -> dict:
        """This type's part of one variant exported to the website (what its site.js grades against)."""

    def export_item(self, item: Item) -> dict:
        """This type's part of an exported item, beside its id, type and variants."""
        return {}

    def site_seeds(self, item: Item, variants: int) -> list[int]:
        """The seeds exported: one when every seed gives the same question."""
        return list(range(variants))


class WidgetView(ABC):
    """One item type's controls in the JupyterLab widget (widgets.QuestionView holds them)."""
    empty_note: str = "Choose an answer first."   # a Check with nothing answered (its site.js says the same)

    @abstractmethod
    def build(self, view: QuestionView) -> list:
        """Set view.input (and any other controls) and return the widgets shown under the stem."""

    @abstractmethod
    def response(self, view: QuestionView) -> Any:
        """The response in the view's controls, or None when nothing is chosen or typed."""

    @abstractmethod
    def set_response(self, view: QuestionView, response: Any) -> None:
        """Set the controls as a learner would."""

    def controls(self, view: QuestionView) -> list:
        """The widgets disabled once the question is done."""
        return [view.input]

    def read_as(self, view: QuestionView, response: Any) -> str:
        """How a typed response was read, shown beside the feedback ("" when nothing was typed)."""
        return ""


class NotebookView(ABC):
    """One item type in a graded quiz's notebook (autograder/quiz/): its text and its written answer."""

    @abstractmethod
    def markdown(self, q: Question) -> list[str]:
        """What the student reads under the stem: how to answer, and the options; never the key."""

    @abstractmethod
    def answer_hint(self, q: Question) -> str:
        """The comment beside the question's slot in the answers cell."""

    @abstractmethod
    def read_written(self, q: Question, answer: Any) -> Any:
        """A written answer as a response grade() takes; ValueError says what format was expected."""

    @abstractmethod
    def choice_label(self, q: Question, response: Any) -> list[str]:
        """What the student picked, in words item analytics can count."""
