"""What every item type implements, and the registry that maps a bank's `type:` to its class.

This module imports nothing else of the quiz package, so bank.py and engine.py can look types up
without an import cycle; the built-in types load on first lookup (they import bank and engine).
"""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:   # types only: the type modules import these, never the other way round
    from ..bank import Item, _Reader
    from ..engine import Outcome, Question
    from ..widgets import QuestionView

BUILT_IN = ("single", "multi", "numeric", "param")   # modules of this package, in the order shown to authors


class ItemType(ABC):
    """One item type: everything the course does differently for it, each step one method.

    Subclass, set `name` and `keys`, implement the abstract methods, and decorate with @register.
    An instance holds no state; every method gets the Item or Question it works on.
    """
    name: str = ""
    keys: frozenset[str] = frozenset()    # the item keys this type reads, beyond those every item has
    varies: bool = False                  # True: each seed is its own variant (the self-test tries several)
    empty_note: str = "Choose an answer first."   # a Check with nothing answered (quiz.js says the same)

    # --- the bank entry (bank.py) ---
    @abstractmethod
    def read(self, r: _Reader, data: dict, item_id: str) -> dict[str, Any]:
        """This type's fields of an Item from the YAML mapping `data`; each problem goes to r.problem()."""

    # --- one learner's question (engine.py) ---
    def draw_params(self, item: Item, seed: int) -> dict:
        """The inputs drawn for this seed (none unless the type varies per learner)."""
        return {}

    @abstractmethod
    def fill(self, q: Question, names: dict) -> None:
        """Fill the Question's type-specific parts (options, key, feedback) for its seed."""

    @abstractmethod
    def correct_response(self, q: Question) -> Any:
        """The response that scores full marks (the self-test's and the answer key's)."""

    @abstractmethod
    def grade(self, q: Question, response: Any) -> Outcome:
        """Right or wrong, and why; ValueError for a response this type cannot take."""

    @abstractmethod
    def key_text(self, q: Question) -> str:
        """The right answer in words, shown after a module test is submitted."""

    # --- the self-test (selftest.py) ---
    @abstractmethod
    def selftest(self, q: Question) -> list[str]:
        """Why this variant cannot be answered as its author meant (empty when it can)."""

    def check_variants(self, variants: list[tuple[tuple, Any]], seeds: int) -> list[str]:
        """Problems across the seeds' variants, each (sorted params, key); only a varying type has any."""
        return []

    # --- the JupyterLab widget (widgets.py) ---
    @abstractmethod
    def widget(self, view: QuestionView) -> list:
        """Set view.input (and any other controls) and return the widgets shown under the stem."""

    @abstractmethod
    def widget_response(self, view: QuestionView) -> Any:
        """The response in the view's controls, or None when nothing is chosen or typed."""

    @abstractmethod
    def set_widget_response(self, view: QuestionView, response: Any) -> None:
        """Set the controls as a learner would."""

    def controls(self, view: QuestionView) -> list:
        """The widgets disabled once the question is done."""
        return [view.input]

    def read_as(self, view: QuestionView, response: Any) -> str:
        """How a typed response was read, shown beside the feedback ("" when nothing was typed)."""
        return ""

    # --- the graded quiz (autograder/quiz/): the student's notebook and written answer ---
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

    # --- the website (site/quizzes.py; static/quiz-engine.js ports grade()) ---
    def site_seeds(self, item: Item, variants: int) -> list[int]:
        """The seeds exported: one when every seed gives the same question."""
        return list(range(variants))

    @abstractmethod
    def export_variant(self, q: Question) -> dict:
        """This type's part of one exported variant (what quiz-engine.js grades against)."""

    def export_item(self, item: Item) -> dict:
        """This type's part of an exported item, beside its id, type and variants."""
        return {}


class Registry(Mapping):
    """Type name -> ItemType instance. The built-in types load on first use; others join by @register."""

    def __init__(self):
        self._types: dict[str, ItemType] = {}
        self._loaded = False

    def _all(self) -> dict[str, ItemType]:
        if not self._loaded:
            self._loaded = True
            for module in BUILT_IN:
                importlib.import_module(f"{__package__}.{module}")
            # authors see the built-in types in their order, whichever module was imported first
            self._types = {**{n: self._types[n] for n in BUILT_IN}, **self._types}
        return self._types

    def __getitem__(self, name: str) -> ItemType:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._all()   # a bank's `type: [a, b]` is just not one

    def __len__(self) -> int:
        return len(self._all())

    def add(self, cls: type[ItemType]) -> type[ItemType]:
        if not cls.name or cls.name in self._types:
            raise ValueError(f"item type {cls.__name__}: name {cls.name!r} is empty or already registered")
        self._types[cls.name] = cls()      # an abstract method left out fails here, naming it
        return cls

    def remove(self, name: str) -> None:
        """Forget a type (a test's own type, once the test is done)."""
        del self._types[name]


ITEM_TYPES = Registry()
register = ITEM_TYPES.add


def item_type(name: str) -> ItemType:
    """The class of items whose `type:` is `name` (a bank's items were checked against ITEM_TYPES)."""
    return ITEM_TYPES[name]
