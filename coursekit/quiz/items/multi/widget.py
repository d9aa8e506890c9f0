"""type: multi in the JupyterLab widget: a checkbox per option."""
from __future__ import annotations

from typing import Any

from ..base import WidgetView


class MultiWidget(WidgetView):
    def build(self, view) -> list:
        import ipywidgets as widgets

        from ...widgets import FULL

        hint = widgets.HTML("<p class='course-quiz-multi-hint'>Select every answer that applies.</p>", layout=FULL)

        view.boxes = {i: widgets.Checkbox(value=False, description=f"{view.q.letter(i)}. {t}", indent=False,
                                          layout=FULL)
                      for i, t in view.q.choices()}
        for box in view.boxes.values():
            box.add_class("course-quiz-option")
        view.input = widgets.VBox(list(view.boxes.values()), layout=FULL)
        view.input.add_class("course-quiz-options")
        return [hint, view.input]

    def response(self, view) -> Any:
        chosen = frozenset(i for i, box in view.boxes.items() if box.value)
        return chosen or None

    def set_response(self, view, response: Any) -> None:
        for i, box in view.boxes.items():
            box.value = i in set(response)

    def controls(self, view) -> list:
        return list(view.boxes.values())
