"""ipywidgets views of a lesson quiz and a module test. All logic lives in engine.py; this file only
turns Questions into widgets and widget values into responses.

Colours come from JupyterLab's CSS variables so the light and dark themes both read well; stable
class names (course-quiz, course-quiz-item, course-quiz-feedback, course-quiz-correct, ...) let the
browser test and custom themes find each part.
"""
from __future__ import annotations

import html
import re
import sys
from typing import Any, Callable

import ipywidgets as widgets

from .engine import Question, grade, key_text, Outcome
from .items.registry import widget_view
from .numbers import UnreadableNumber

STYLE = """<style>
.course-quiz { border: 1px solid var(--jp-border-color2); border-radius: 4px; padding: 6px 10px;
  background: var(--jp-layout-color1); color: var(--jp-ui-font-color1); }
.course-quiz .widget-radio-box label, .course-quiz .widget-checkbox label,
.course-quiz .widget-checkbox .widget-label-basic, .course-quiz .widget-checkbox label span {
  color: var(--jp-ui-font-color1); white-space: normal; overflow: visible; text-overflow: clip; }
.course-quiz .widget-checkbox { height: auto; }
/* ipywidgets gives each radio label a fixed height: long options spilled over the next one and
   their buttons drifted onto the next row. Let labels grow, and keep each button beside its text. */
.course-quiz .widget-radio-box label { height: auto; min-height: var(--jp-widgets-radio-item-height);
  line-height: 1.4; display: flex; align-items: flex-start; padding: 2px 0; }
.course-quiz .widget-radio-box input { float: none; flex: none; order: -1; height: 1.4em; line-height: 1.4; }
.course-quiz .widget-checkbox label { display: flex; align-items: flex-start; height: auto; line-height: 1.4; }
.course-quiz .widget-checkbox input { flex: none; height: 1.4em; }
/* width:100% plus the widgets' margins overflowed each item: a horizontal scrollbar under every one */
.course-quiz .jupyter-widgets { box-sizing: border-box; max-width: 100%; min-width: 0; }
.course-quiz .widget-vbox > .jupyter-widgets { width: auto !important; }
/* the quiz is a section of its lesson (h1 title, h2 sections), so its title is an h2, sized as a subhead */
.course-quiz .course-quiz-title { margin: 0.2em 0; font-size: var(--jp-content-font-size3); }
.course-quiz-item { border-top: 1px solid var(--jp-border-color2); padding: 4px 0; }
.course-quiz-stem { color: var(--jp-content-font-color1); font-size: var(--jp-content-font-size1); }
.course-quiz-feedback { padding: 4px 8px; margin: 2px 0; border-left: 4px solid var(--jp-border-color1);
  background: var(--jp-layout-color2); color: var(--jp-content-font-color1); white-space: normal; }
.course-quiz-correct { border-left-color: var(--jp-success-color1); }
.course-quiz-incorrect { border-left-color: var(--jp-error-color1); }
.course-quiz-hint { border-left-color: var(--jp-warn-color1); }
.course-quiz-explanation { color: var(--jp-content-font-color2); margin-top: 2px; }
.course-quiz-score { font-weight: bold; color: var(--jp-ui-font-color1); }
.course-quiz-error { border-left: 4px solid var(--jp-error-color1); padding: 4px 8px;
  background: var(--jp-layout-color2); color: var(--jp-ui-font-color1); white-space: pre-wrap; }
/* the number box holds an answer with its units ("73,000 thousand dollars per year") in view */
.course-quiz .course-quiz-number { flex: 0 1 auto; }
.course-quiz .course-quiz-number input { min-width: 22em; }
/* a visible focus ring on every control (WCAG 2.4.7): ipywidgets' text box had none */
.course-quiz input:focus-visible, .course-quiz button:focus-visible {
  outline: 2px solid var(--jp-brand-color1) !important; outline-offset: 1px; }
</style>"""

FULL = widgets.Layout(width="100%")
# feedback that opens with its own verdict ("Right.", "Yes,"), which the "Correct." head already says
REPEATED_VERDICT = re.compile(r"^\s*(?:right|correct|yes)\b\s*[.,!:;]\s*", re.IGNORECASE)


def to_html(text: str) -> str:
    """Escape, then allow the little markup bank texts use: `code`, **bold**, line breaks."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    return out.replace("\n", "<br>")


def error_widget(title: str, problems) -> widgets.HTML:
    """What a broken bank shows instead of a quiz: every problem, with file and item id."""
    lines = "\n".join(html.escape(str(p)) for p in problems)
    box = widgets.HTML(f"{STYLE}<div class='course-quiz-error'><b>{html.escape(title)}</b>\n{lines}\n"
                       "Run <code>course quiz check</code> to see every problem.</div>")
    box.add_class("course-quiz-error-box")
    return box


def feedback_html(outcome: Outcome | None, *, note: str = "", explain: bool = False, key: str = "") -> str:
    if outcome is None:
        return f"<div class='course-quiz-feedback course-quiz-hint' role='alert'>{to_html(note)}</div>"
    verdict = "course-quiz-correct" if outcome.correct else "course-quiz-incorrect"
    head = "Correct." if outcome.correct else "Not quite."
    feedback = outcome.feedback
    if outcome.correct:      # a bank's "Right." after the head's "Correct." says it twice
        feedback = REPEATED_VERDICT.sub("", feedback, count=1)
    parts = [f"<b>{head}</b> {to_html(feedback)}"]
    if key:
        parts.append(f"<div class='course-quiz-key'><b>Answer:</b> {to_html(key)}</div>")
    if explain:
        parts.append(f"<div class='course-quiz-explanation'><b>Why:</b> {to_html(outcome.explanation)}</div>")
    if note:
        parts.append(f"<div>{to_html(note)}</div>")
    return f"<div class='course-quiz-feedback {verdict}' role='alert'>{''.join(parts)}</div>"


AFTER_EXPLANATION = "The explanation below works it through: enter the answer it leads to, to finish the question."


class QuestionView:
    """One question's widgets: stem, input (radio / checkboxes / number), feedback area."""

    def __init__(self, q: Question, number: int):
        self.q, self.number = q, number
        stem = widgets.HTML(f"<div class='course-quiz-stem'><b>{number}.</b> {to_html(q.stem)}</div>", layout=FULL)
        self.kind = widget_view(q.type)     # its controls: set self.input (and any others) there
        inputs = self.kind.build(self)
        self.feedback = widgets.HTML("", layout=FULL)
        self.feedback.add_class("course-quiz-feedback-area")
        self.box = widgets.VBox([stem, *inputs], layout=FULL)
        self.box.add_class("course-quiz-item")

    def response(self) -> Any:
        """The learner's current response, or None when nothing is chosen/entered yet.
        Raises UnreadableNumber when a typed number cannot be read (never graded as another number)."""
        return self.kind.response(self)

    def read_as(self, response: Any) -> str:
        """How a typed number was read (scale words included), shown with the feedback so a misreading
        is visible."""
        return self.kind.read_as(self, response)

    def set_response(self, response: Any) -> None:
        """Set the input as a learner would (used by tests and scripts)."""
        self.kind.set_response(self, response)

    def disable(self) -> None:
        for w in self.kind.controls(self):
            w.disabled = True


def _safe_record(record: Callable[[], Any]) -> str:
    """Record progress; a store problem is shown to the learner, never allowed to break the quiz."""
    try:
        record()
        return ""
    except Exception as exc:  # noqa: BLE001 - the quiz must keep working; say what failed and where
        print(f"coursekit: could not record progress: {exc}", file=sys.stderr)
        return f"(Your answer was checked but could not be saved: {exc})"


class LessonQuizView:
    """A lesson quiz: check each question, get feedback, retry until right; first tries score."""

    def __init__(self, title: str, questions: list[Question], *, on_answer: Callable | None = None,
                 on_new_attempt: Callable | None = None, done: dict | None = None, history: str = ""):
        self.questions = [QuestionView(q, n) for n, q in enumerate(questions, 1)]
        self.on_answer = on_answer
        self.first_try: dict[str, bool] = {}
        self.tries: dict[str, int] = {}
        self.score = widgets.HTML()
        self.score.add_class("course-quiz-score")
        children = [widgets.HTML(f"{STYLE}<h2 class='course-quiz-title'>{html.escape(title)}</h2>"
                                 + (f"<div class='course-quiz-history'>{to_html(history)}</div>" if history else ""))]
        self.check_buttons = []
        for view in self.questions:
            button = widgets.Button(description=f"Check answer {view.number}", button_style="primary", icon="check")
            button.add_class("course-quiz-check")
            button.on_click(lambda _b, v=view, b=button: self.check(v, b))
            self.check_buttons.append(button)
            view.box.children = (*view.box.children, button, view.feedback)
            children.append(view.box)
        self.new_attempt = widgets.Button(description="New attempt", icon="refresh",
                                          tooltip="Draw a new set of questions")
        self.new_attempt.add_class("course-quiz-new")
        if on_new_attempt:
            self.new_attempt.on_click(lambda _b: on_new_attempt())
        children.append(widgets.HBox([self.score, self.new_attempt]))
        self.box = widgets.VBox(children, layout=FULL)
        self.box.add_class("course-quiz")
        for view, button in zip(self.questions, self.check_buttons):
            record = (done or {}).get(view.q.id)
            if not record:
                continue
            # The store decides the first try for every answered item, right or not yet right, so an
            # answer that was wrong before a kernel restart never becomes right first time after it.
            self.first_try[view.q.id] = record.get("first_correct", False)
            self.tries[view.q.id] = record.get("tries", 1)
            outcome = self._restore(view, (record.get("responses") or [None])[-1])
            if record.get("correct"):
                note = "Answered correctly earlier in this attempt."
                view.disable()
                button.disabled = True
            else:
                note = "Answered earlier in this attempt, not yet right: try again."
            explain = outcome is not None and (outcome.correct or self.tries[view.q.id] >= 2)
            view.feedback.value = feedback_html(outcome, note=note, explain=explain)
        self._update_score()

    @staticmethod
    def _restore(view: QuestionView, response: Any) -> Outcome | None:
        """The learner's last answer back in its field and graded again for its feedback; None when the
        store has none this question can take (an older store, or an edited bank)."""
        if response is None:
            return None
        try:
            outcome = grade(view.q, response)
            view.set_response(response)
        except Exception:   # noqa: BLE001 - a stored answer is the learner's past, never a reason the quiz fails to show
            return None
        return outcome

    def check(self, view: QuestionView, button: widgets.Button) -> Outcome | None:
        try:
            response = view.response()
        except UnreadableNumber as exc:
            view.feedback.value = feedback_html(None, note=f"{exc} This did not count as a try.")
            return None
        if response is None:
            view.feedback.value = feedback_html(None, note=view.kind.empty_note)
            return None
        outcome = grade(view.q, response)
        qid = view.q.id
        self.tries[qid] = self.tries.get(qid, 0) + 1
        self.first_try.setdefault(qid, outcome.correct)
        note = _safe_record(lambda: self.on_answer(view.q, outcome)) if self.on_answer else ""
        note = " ".join(filter(None, [view.read_as(response), note]))
        if outcome.correct:
            view.disable()
            button.disabled = True
        else:   # from the second try the explanation shows: "Try again" would read as if it had not
            again = "Try again." if self.tries[qid] < 2 else AFTER_EXPLANATION
            note = (again + (" " + note if note else "")).strip()
        view.feedback.value = feedback_html(outcome, explain=outcome.correct or self.tries[qid] >= 2, note=note)
        self._update_score()
        return outcome

    def _update_score(self) -> None:
        n = len(self.questions)
        right = sum(self.first_try.values())
        answered = len(self.first_try)
        self.score.value = (f"<span class='course-quiz-score'>Score: {right} / {n} right on the first try"
                            f" ({answered} of {n} answered)</span>")

    def _ipython_display_(self):
        pass  # show_* already displayed the box; showing it again as a cell result would duplicate it


class ModuleTestView:
    """A module test: every question answered, then submitted once; feedback per question after."""

    def __init__(self, title: str, questions: list[Question], pass_mark: float, *,
                 on_submit: Callable | None = None):
        self.questions = [QuestionView(q, n) for n, q in enumerate(questions, 1)]
        self.pass_mark = pass_mark
        self.on_submit = on_submit
        self.submitted = False
        self._warned = False
        self.result = widgets.HTML()
        self.result.add_class("course-quiz-score")
        self.submit_button = widgets.Button(description="Submit test", button_style="primary", icon="paper-plane")
        self.submit_button.add_class("course-quiz-submit")
        self.submit_button.on_click(lambda _b: self.submit())
        intro = (f"{STYLE}<h2 class='course-quiz-title'>{html.escape(title)}</h2><p>{len(questions)} questions; "
                 f"pass mark {pass_mark:.0%}. Answer them all, then submit once: feedback follows.</p>")
        for view in self.questions:
            view.box.children = (*view.box.children, view.feedback)
        self.box = widgets.VBox([widgets.HTML(intro), *[v.box for v in self.questions], self.submit_button,
                                 self.result], layout=FULL)
        self.box.add_class("course-quiz")
        self.box.add_class("course-module-test")

    def submit(self, *, force: bool = False) -> dict | None:
        if self.submitted:
            return None
        unreadable = []
        for n, view in enumerate(self.questions, 1):
            try:
                view.response()
            except UnreadableNumber as exc:
                unreadable.append(f"{n}: {exc}")
        if unreadable:
            self.result.value = ("<div class='course-quiz-feedback course-quiz-hint' role='alert'>Not submitted: fix these answers "
                                 f"first.<br>{'<br>'.join(map(to_html, unreadable))}</div>")
            return None
        missing = [n for n, v in enumerate(self.questions, 1) if v.response() is None]
        if missing and not (force or self._warned):
            self._warned = True
            self.result.value = (f"<div class='course-quiz-feedback course-quiz-hint' role='alert'>Unanswered: "
                                 f"{', '.join(map(str, missing))}. Click Submit again to submit anyway "
                                 "(unanswered questions score zero).</div>")
            return None
        self.submitted = True
        items = {}
        for view in self.questions:
            response = view.response()
            view.disable()
            if response is None:
                outcome = Outcome(False, "Not answered.", view.q.explanation, None)
            else:
                outcome = grade(view.q, response)
            items[view.q.id] = {"response": response, "correct": outcome.correct}
            view.feedback.value = feedback_html(outcome, explain=True, key=key_text(view.q), note=view.read_as(response))
        self.submit_button.disabled = True
        score = sum(v["correct"] for v in items.values())
        total = len(items)
        passed = total > 0 and score / total >= self.pass_mark - 1e-12
        note = _safe_record(lambda: self.on_submit(items)) if self.on_submit else ""
        verdict = "course-quiz-correct" if passed else "course-quiz-incorrect"
        self.result.value = (f"<div class='course-quiz-feedback {verdict}' role='alert'><span class='course-quiz-score'>"
                             f"Score: {score} / {total} ({score / total if total else 0:.0%}): "
                             f"{'passed' if passed else f'not passed (pass mark {self.pass_mark:.0%})'}"
                             f"</span> {to_html(note)}</div>")
        return {"score": score, "total": total, "passed": passed, "items": items}

    def _ipython_display_(self):
        pass  # show_* already displayed the box; showing it again as a cell result would duplicate it
