"""The item types by name: each a model, a widget view, a notebook view and its browser scripts, registered
from its own folder (items/<type>/__init__.py). Callers look a type up here and call it, never compare its
name (tests/library/quiz/test_quiz_item_types.py); the website assembles the registered scripts at build time and
dispatches through the same table in the browser (coursekit/app/site/quizzes.py, static/quiz-types.js)."""
from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .base import ItemModel, NotebookView, WidgetView

BUILT_IN = ("single", "multi", "numeric", "param")   # folders of this package, in the order shown to authors


@dataclass(frozen=True)
class ItemKind:
    """Everything the course does for one type, in four parts."""
    model: ItemModel
    widget: WidgetView
    notebook: NotebookView
    scripts: tuple[Path, ...]     # its browser code (and what that builds on), in load order

    @property
    def name(self) -> str:
        return self.model.name


class Registry(Mapping):
    """Type name -> ItemKind. The built-in types load on first use; others join by register()."""

    def __init__(self):
        self._kinds: dict[str, ItemKind] = {}
        self._loaded = False

    def _all(self) -> dict[str, ItemKind]:
        if not self._loaded:
            self._loaded = True
            for folder in BUILT_IN:
                importlib.import_module(f"{__package__}.{folder}")
            # authors see the built-in types in their order, whichever module was imported first
            self._kinds = {**{n: self._kinds[n] for n in BUILT_IN}, **self._kinds}
        return self._kinds

    def __getitem__(self, name: str) -> ItemKind:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._all()   # a bank's `type: [a, b]` is just not one

    def __len__(self) -> int:
        return len(self._all())

    def add(self, model: type[ItemModel], widget: type[WidgetView], notebook: type[NotebookView],
            scripts: Sequence[Path]) -> ItemKind:
        if not model.name or model.name in self._kinds:
            raise ValueError(f"item type {model.__name__}: name {model.name!r} is empty or already registered")
        missing = [str(p) for p in scripts if not Path(p).is_file()]
        if not scripts or missing:
            raise ValueError(f"item type {model.name!r}: its browser code {missing or 'site.js'} is missing")
        # an abstract method left out fails here, naming it
        kind = ItemKind(model(), widget(), notebook(), tuple(Path(p) for p in scripts))
        self._kinds[model.name] = kind
        return kind

    def remove(self, name: str) -> None:
        """Forget a type (a test's own type, once the test is done)."""
        del self._kinds[name]


ITEM_TYPES = Registry()
register = ITEM_TYPES.add


def item_type(name: str) -> ItemModel:
    """The model of items whose `type:` is `name` (a bank's items were checked against ITEM_TYPES)."""
    return ITEM_TYPES[name].model


def widget_view(name: str) -> WidgetView:
    return ITEM_TYPES[name].widget


def notebook_view(name: str) -> NotebookView:
    return ITEM_TYPES[name].notebook


def site_scripts() -> list[Path]:
    """Every registered type's browser scripts in registration order, each once (the website's table)."""
    return list(dict.fromkeys(p for kind in ITEM_TYPES.values() for p in kind.scripts))
