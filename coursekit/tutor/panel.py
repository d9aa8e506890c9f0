"""The tutor's chat panel: ipywidgets under the cell that opens it (`tutor()` or `%tutor`).

Why ipywidgets and not a JupyterLab extension or Jupyter AI: the course already ships ipywidgets (quizzes,
hint ladders, the cost dashboard), so the panel needs no JavaScript build, no extra server extension and
no package a class's image lacks, and it runs in the learner's own kernel, where the context is (their
functions as run, their last check, the hint rungs they opened). Jupyter AI 3 would bring its own
provider settings and would have to be kept from reading the notebook's other cells and files; here one
allowlist (allowlist.py) decides what the model sees. JupyterLab's "Create New View for Output" moves
the panel beside the notebook.
"""
from __future__ import annotations

import html

from .session import TutorUnavailable, ask


class TutorPanel:
    def __init__(self, namespace: dict | None = None, lab: str | None = None):
        import ipywidgets as widgets

        self.namespace, self.lab = namespace, lab
        self.turns: list[list[str]] = []          # [question, reply so far]
        self.history: list[dict] = []
        header = widgets.HTML("<b>Course tutor</b> <span style='opacity:0.7'>asks questions and gives hints, "
                              "not code; it sees this lab's task, your code and your last check</span>")
        self.log = widgets.HTML()
        self.log.add_class("course-tutor-log")
        self.question = widgets.Textarea(placeholder="Ask about the task, a failing check, or the lesson",
                                         layout=widgets.Layout(width="75%", height="3.2em"))
        self.question.add_class("course-tutor-question")
        self.button = widgets.Button(description="Ask", icon="comments", button_style="primary")
        self.button.add_class("course-tutor-ask")
        self.button.on_click(lambda _: self.ask(self.question.value))
        self.status = widgets.HTML()
        self.status.add_class("course-tutor-status")
        self.widget = widgets.VBox([header, self.log, widgets.HBox([self.question, self.button]), self.status])
        self.widget.add_class("course-tutor")

    def _render(self) -> None:
        rows = [f"<div class='course-tutor-q'><b>You:</b> {html.escape(q)}</div>"
                f"<div class='course-tutor-a'><b>Tutor:</b> <span class='course-tutor-reply' "
                f"style='white-space:pre-wrap'>{html.escape(a)}</span></div>" for q, a in self.turns]
        self.log.value = "".join(rows)

    def _grow(self, text: str) -> None:
        self.turns[-1][1] += text
        self._render()

    def ask(self, question: str) -> None:
        question = question.strip()
        if not question:
            self.status.value = "Type a question first."
            return
        self.button.disabled, self.question.value = True, ""
        self.status.value = "<i>thinking...</i>"
        self.turns.append([question, ""])
        self._render()
        try:
            exchange = ask(question, lab=self.lab, namespace=self.namespace, history=self.history[-6:],
                           on_text=self._grow)
        except (TutorUnavailable, ValueError, OSError, RuntimeError) as error:
            self.turns.pop()
            self._render()
            self.status.value = f"<span class='course-tutor-error'>{html.escape(str(error))}</span>"
        else:
            self.history = exchange.history
            note = " (it held back code: hints, not solutions)" if exchange.withheld else ""
            self.status.value = f"<span class='course-tutor-done'>answered{note}</span>"
        finally:
            self.button.disabled = False
