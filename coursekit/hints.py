"""Discussion prompts with a hint ladder: hints revealed one at a time, then a worked answer.

This replaces a chat tutor for self-paced learners: think first, then ask for the next rung.

    hint_ladder("How many H100s does the 7B service need?",
                hints=["Start from bytes per user...", "..."],
                answer="Worked answer ...")
"""
from __future__ import annotations

import html
from typing import Sequence


def hint_ladder(question: str, hints: Sequence[str], answer: str, *, title: str = "Discuss"):
    """Show `question` with a button that reveals the next hint, and finally the worked answer.

    Text may use simple HTML. Returns the ipywidgets container (displayed when last in a cell).
    """
    import ipywidgets as widgets

    if not hints:
        raise ValueError("hint_ladder needs at least one hint before the worked answer")
    rungs = [widgets.HTML(f"<b>Hint {i + 1}.</b> {h}") for i, h in enumerate(hints)]
    rungs.append(widgets.HTML(f"<b>Worked answer.</b> {answer}"))
    for rung in rungs:
        rung.layout.display = "none"
    button = widgets.Button(description="Show hint 1", icon="lightbulb-o", button_style="info")
    shown = {"n": 0}

    def reveal(_=None):
        n = shown["n"]
        if n >= len(rungs):
            return
        rungs[n].layout.display = None
        shown["n"] = n + 1
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
