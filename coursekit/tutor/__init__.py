"""The course's tutor: a language model a learner can ask about the lesson or lab task in front of them,
which never sees the solution. Off until configured (`course tutor setup`, or the class's hub).

In a notebook:  `from coursekit.tutor import tutor; tutor()` opens the chat panel under the cell;
`ask("why does my check fail?")` prints a streamed answer; `%load_ext coursekit.tutor` adds `%tutor`.
What it may read: allowlist.py. What it is told: context.py and prompt.py. What it shows: guard.py.
"""
from __future__ import annotations

import sys

from .session import Exchange, TutorUnavailable

_HISTORY: list[dict] = []   # this kernel's conversation, so a follow-up question has its earlier turns


def _namespace() -> dict | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell.user_ns if shell is not None else None


def ask(question: str, *, lab: str | None = None, task: str | None = None) -> Exchange | None:
    """Ask the tutor; the answer prints as it streams. `task` names a task (its function or grade id)
    when the question is not about the one the last check failed."""
    from .session import ask as ask_once

    def show(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    try:
        exchange = ask_once(question, lab=lab, task=task, namespace=_namespace(), history=_HISTORY[-6:],
                            on_text=show)
    except (TutorUnavailable, ValueError, OSError, RuntimeError) as error:
        print(f"Tutor: {error}")
        return None
    print()
    _HISTORY[:] = exchange.history
    return exchange


def tutor(lab: str | None = None):
    """The chat panel (ipywidgets), shown under the cell that calls it."""
    from .panel import TutorPanel

    return TutorPanel(namespace=_namespace(), lab=lab).widget


def load_ipython_extension(shell) -> None:
    """`%load_ext coursekit.tutor`: `%tutor` opens the panel, `%tutor QUESTION` asks directly."""
    from IPython.display import display

    def magic(line: str):
        if line.strip():
            ask(line.strip())
        else:
            display(tutor())

    shell.register_magic_function(magic, "line", "tutor")


__all__ = ["Exchange", "TutorUnavailable", "ask", "tutor"]
