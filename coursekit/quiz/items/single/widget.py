"""type: single in the JupyterLab widget: radio buttons."""
from __future__ import annotations

from typing import Any

from ..base import WidgetView


class SingleWidget(WidgetView):
    def build(self, view) -> list:
        import ipywidgets as widgets

        from ...widgets import FULL

        q = view.q
        view.input = widgets.RadioButtons(options=[(f"{q.letter(i)}. {t}", i) for i, t in q.choices()],
                                          value=None, layout=FULL)
        view.input.add_class("course-quiz-options")
        return [view.input]

    def response(self, view) -> Any:
        return view.input.value

    def set_response(self, view, response: Any) -> None:
        view.input.value = response
