"""type: numeric (and param) in the JupyterLab widget: a text box for a number, read by numbers.py with
its units or scale words."""
from __future__ import annotations

import html
from typing import Any

from ...numbers import Reading, read_number
from ..base import WidgetView


class NumericWidget(WidgetView):
    empty_note = "Type a number first."       # a number box is typed in, not chosen from

    def build(self, view) -> list:
        import ipywidgets as widgets

        q = view.q
        # Text, not FloatText: the browser's number box drops "36,500" and keeps the old value.
        # The label is the input's accessible name (ipywidgets links it with `for`): number and unit.
        units = f", in {q.item.units}" if q.item.units else ""
        view.input = widgets.Text(description=f"Answer to question {view.number}{units}:",
                                  placeholder="e.g. 36500 or 0.075",
                                  style={"description_width": "initial"}, layout=widgets.Layout(width="auto"),
                                  # sent on Enter or Tab, so a Check right after typing never sees a
                                  # half-synced value (keystrokes queue behind the first one's update)
                                  continuous_update=False)
        view.input.add_class("course-quiz-number")
        return [widgets.HBox([view.input, widgets.HTML(html.escape(q.item.units))])]

    def response(self, view) -> Any:
        text = view.input.value.strip()
        if not text:
            return None
        view.reading = read_number(text, view.q.item.units)   # the graded scorer reads numbers the same way
        return view.reading.value

    def set_response(self, view, response: Any) -> None:
        view.input.value = f"{float(response):,.10g}"

    def read_as(self, view, response: Any) -> str:
        if response is None:
            return ""
        reading = getattr(view, "reading", None)
        if isinstance(reading, Reading) and reading.value == response:
            return reading.how
        return read_number(response, view.q.item.units).how
