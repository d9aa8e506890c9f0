"""The exercise widget in JupyterLab: predict, commit, then reveal the worked answer.

The widget's worked-answer area stays empty until the reveal. The same output also carries
page.exercise_html as text/html, which the website shows (JupyterLab shows the widget); that form holds
the worked answer hidden in the page, so an exercise is a check a learner runs on themselves, not a
secret (graded questions are the quizzes' job). `course start` saves the output as a "run this cell"
note (coursekit/app/saving.py), so a saved notebook keeps neither.
"""
from __future__ import annotations

import html
from typing import Callable

import ipywidgets as widgets

from .bank import Exercise, compare
from .page import exercise_html
from ..quiz.numbers import UnreadableNumber, read_number
from ..quiz.widgets import STYLE, to_html

PLACEHOLDER = "e.g. 36500 or 1.2e9"


def prompt_html(ex: Exercise) -> str:
    return (f"<h3 class='course-exercise-title'>Exercise: {html.escape(ex.title)}</h3>"
            f"<p class='course-exercise-prompt'>{to_html(ex.prompt)}</p>"
            f"<p class='course-exercise-source'><b>Inputs from:</b> {to_html(ex.source)}</p>")


def worked_html(ex: Exercise) -> str:
    return f"<p><b>Worked answer.</b> {to_html(ex.worked)}</p>"


def _alert(text: str) -> str:
    return f"<div class='course-quiz-feedback course-quiz-hint' role='alert'>{to_html(text)}</div>"


class ExerciseView:
    """Prompt, a labelled text box, "Commit my answer", then "Reveal the worked answer"."""

    def __init__(self, ex: Exercise, *, on_reveal: Callable[[Exercise, float, float, bool], None] | None = None):
        self.ex, self.on_reveal = ex, on_reveal
        self.prediction: float | None = None
        unit = f", in {ex.units}" if ex.units else ""
        # The description is the text box's accessible name (ipywidgets links the label with `for`).
        self.input = widgets.Text(description=f"Your prediction{unit}:", placeholder=PLACEHOLDER,
                                  style={"description_width": "initial"}, layout=widgets.Layout(width="auto"),
                                  continuous_update=False)
        self.input.add_class("course-quiz-number")
        # ipywidgets' buttons are 148 px wide: "Commit my an..." at 1280 px with the file browser open
        self.commit_button = widgets.Button(description="Commit my answer", button_style="primary", icon="lock",
                                            layout=widgets.Layout(width="auto"))
        self.commit_button.add_class("course-exercise-commit")
        self.reveal_button = widgets.Button(description="Reveal the worked answer", icon="eye", disabled=True,
                                            layout=widgets.Layout(width="auto"))
        self.reveal_button.add_class("course-exercise-reveal")
        self.feedback = widgets.HTML("")
        self.worked = widgets.HTML("")
        self.commit_button.on_click(lambda _b: self.commit())
        self.reveal_button.on_click(lambda _b: self.reveal())
        head = widgets.HTML(STYLE + prompt_html(ex))
        self.box = widgets.VBox([head, self.input, widgets.HBox([self.commit_button, self.reveal_button]),
                                 self.feedback, self.worked], layout=widgets.Layout(width="100%"))
        self.box.add_class("course-quiz")
        self.box.add_class("course-exercise")

    def commit(self) -> bool:
        """Read the typed prediction; once read, it is fixed and the worked answer can be revealed."""
        if self.prediction is not None:
            return True
        text = self.input.value
        if not text.strip():
            self.feedback.value = _alert(f"Type your prediction first{f' (in {self.ex.units})' if self.ex.units else ''}, "
                                         "then commit it.")
            return False
        try:
            reading = read_number(text, self.ex.units)
        except UnreadableNumber as exc:
            self.feedback.value = _alert(f"{exc} Nothing was committed.")
            return False
        self.prediction, self.typed = reading.value, text.strip()
        self.input.disabled = self.commit_button.disabled = True
        self.reveal_button.disabled = False
        self.feedback.value = _alert(f"Committed: {reading.how} Now reveal the worked answer.")
        return True

    def reveal(self) -> str | None:
        """Show the worked answer and how far the committed prediction was; refused before a commit."""
        if self.prediction is None:
            self.feedback.value = _alert("Commit a prediction first: the worked answer opens after you commit one.")
            return None
        off, close, sentence = compare(self.ex, self.prediction, self.typed)
        verdict = "course-quiz-correct" if close else "course-quiz-incorrect"
        note = ""
        if self.on_reveal is not None:
            try:
                self.on_reveal(self.ex, self.prediction, off, close)
            except Exception as exc:   # noqa: BLE001 - the answer still shows; say the record failed and why
                note = f" (Your prediction could not be saved to your progress: {exc})"
        self.worked.value = (f"<div class='course-quiz-feedback {verdict}' role='alert'><p class='course-exercise-result'>"
                             f"{to_html(sentence + note)}</p>{worked_html(self.ex)}</div>")
        self.feedback.value = ""
        self.reveal_button.disabled = True
        return sentence

    def _repr_mimebundle_(self, **kwargs):
        """The widget for JupyterLab, and the same exercise as a self-contained form for the website."""
        bundle = self.box._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data = dict(data)
        data["text/html"] = exercise_html(self.ex, prompt_html(self.ex), worked_html(self.ex))
        data["text/plain"] = f"Exercise: {self.ex.title}. {self.ex.prompt} (Run this cell in JupyterLab to answer it.)"
        return data
