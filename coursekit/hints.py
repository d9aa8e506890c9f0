"""Discussion prompts with a hint ladder: hints revealed one at a time, then a worked answer.

This replaces a chat tutor for self-paced learners: think first, then ask for the next rung.
A lab cell shows only the call, `hint_ladder("lab1-roofline-discuss1")`: the texts live in
hint_texts.yaml, out of sight until asked, and their numbers are computed in the notebook's
namespace when the cell runs. Texts can also be given directly:

    hint_ladder("How many H100s does the 7B service need?",
                hints=["Start from bytes per user...", "..."],
                answer="Worked answer ...")
"""
from __future__ import annotations

import html
import inspect
from pathlib import Path
from typing import Sequence

TEXTS = Path(__file__).with_name("hint_texts.yaml")
# What this kernel's learner has opened: prompt (its id, or its question) -> the question and the rungs
# revealed so far, in order. The tutor reads this, never hint_texts.yaml, so it knows no rung the
# learner has not seen (coursekit/tutor/allowlist.py).
REVEALED: dict[str, list[str]] = {}


def prompt_texts(prompt_id: str, namespace: dict) -> dict:
    """The stored prompt `prompt_id`, its expressions evaluated in `namespace` (the notebook's globals)."""
    import yaml

    prompts = yaml.safe_load(TEXTS.read_text(encoding="utf-8")) or {}
    if prompt_id not in prompts:
        raise KeyError(f"{TEXTS}: no discussion prompt {prompt_id!r} (known: {', '.join(prompts)})")
    entry = prompts[prompt_id]

    def value(expression: str) -> str:
        try:
            # the course's own f-strings over the notebook's variables; parentheses join multi-line ones
            return eval(f"({expression}\n)", namespace)
        except Exception as exc:  # noqa: BLE001 - a hint's expression: say which prompt and what it needs
            raise RuntimeError(f"{TEXTS}: prompt {prompt_id!r} needs {exc}; run the cells above first") from None

    texts = {key: value(entry[key]) for key in ("question", "answer")}
    texts["hints"] = [value(h) for h in entry["hints"]]
    texts["title"] = value(entry["title"]) if "title" in entry else "Discuss"
    return texts


def hint_ladder(question: str, hints: Sequence[str] | None = None, answer: str | None = None, *,
                title: str = "Discuss"):
    """Show `question` with a button that reveals the next hint, and finally the worked answer.

    With only a prompt id, the texts come from hint_texts.yaml, evaluated in the caller's globals.
    Text may use simple HTML. Returns the ipywidgets container (displayed when last in a cell).
    """
    import ipywidgets as widgets

    key = question
    if hints is None and answer is None:
        caller = inspect.currentframe().f_back
        texts = prompt_texts(question, caller.f_globals)
        question, hints, answer, title = texts["question"], texts["hints"], texts["answer"], texts["title"]
    if not hints:
        raise ValueError("hint_ladder needs at least one hint before the worked answer")
    # Each rung's text stays in the kernel until revealed: a hidden widget's value would be in the page.
    texts = [f"<b>Hint {i + 1}.</b> {h}" for i, h in enumerate(hints)] + [f"<b>Worked answer.</b> {answer}"]
    rungs = [widgets.HTML("") for _ in texts]
    for rung in rungs:
        rung.layout.display = "none"
    button = widgets.Button(description="Show hint 1", icon="lightbulb-o", button_style="info")
    shown = {"n": 0}

    def reveal(_=None):
        n = shown["n"]
        if n >= len(rungs):
            return
        rungs[n].value, rungs[n].layout.display = texts[n], None
        shown["n"] = n + 1
        REVEALED.setdefault(key, [f"Question: {question}"]).append(rungs[n].value)
        if shown["n"] == len(rungs):
            button.description, button.disabled = "All hints shown", True
        elif shown["n"] == len(hints):
            button.description, button.button_style = "Show worked answer", "warning"
        else:
            button.description = f"Show hint {shown['n'] + 1}"

    button.on_click(reveal)
    header = widgets.HTML(f"<h4 style='margin:0.2em 0'>{html.escape(title)}</h4><p>{question}</p>")
    box = widgets.VBox([header, *rungs, button])
    box.add_class("course-hint-ladder")
    box.reveal = reveal  # lets tests and scripts step through without a browser
    return box
