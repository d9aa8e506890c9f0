"""One question to the tutor, start to end: configured? allowed here and now? then the context, the
request, and the reply streamed through the guard."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Iterator

from . import usage
from .client import stream_chat
from .config import TutorConfig, load
from .context import Context, assemble
from .guard import ReplyGuard
from .prompt import messages, wants_answer

OFF = ("The tutor is off: no model is configured. `course tutor setup --endpoint URL --model NAME` sets one "
       "up (docs/TUTOR.md); the lab's hints and check_here() work without it.")
# An instructor's server holds the grading secret; the tutor is a student-side tool.
INSTRUCTOR_ENV = ("COURSE_GRADING_SECRET",)


class TutorUnavailable(RuntimeError):
    """The tutor will not answer here or now; the message says why and what works instead."""


@dataclass
class Exchange:
    """A question and its reply, as shown (after the guard)."""
    question: str
    context: Context
    request: list[dict]
    reply: str = ""
    raw: str = ""                  # as the model sent it, before the guard
    withheld: int = 0
    asked_for_answer: bool = False
    history: list[dict] = field(default_factory=list)


def refusal(config: TutorConfig | None, lab: str | None) -> str | None:
    if config is None:
        return OFF
    found = [name for name in INSTRUCTOR_ENV if name in os.environ]
    if found:
        return (f"The tutor does not run in an instructor's server ({found[0]} is set here): it is a "
                "student-side tool and must never be given instructor material. Use a student server.")
    if lab and lab in config.off_for:
        return (f"The tutor is off for {lab} (the instructor turned it off in {config.source}, e.g. during a "
                "graded test). The lab's hints and check_here() still work.")
    return usage.allowed(config)


def ask(question: str, *, config: TutorConfig | None = None, lab: str | None = None, task: str | None = None,
        notebook=None, namespace: dict | None = None, history: list[dict] | None = None,
        on_text: Callable[[str], None] | None = None) -> Exchange:
    """Ask `question`; `on_text` receives the reply as it streams (after the guard)."""
    if not question.strip():
        raise ValueError("ask the tutor something: the question is empty")
    config = config or load()
    if config is None:
        raise TutorUnavailable(OFF)
    why = refusal(config, lab)            # before anything is read
    if why:
        raise TutorUnavailable(why)
    ctx = assemble(question, lab=lab, task=task, notebook=notebook, namespace=namespace)
    if ctx.lab in config.off_for:
        raise TutorUnavailable(refusal(config, ctx.lab))
    request = messages(question, ctx, history)
    exchange = Exchange(question, ctx, request, asked_for_answer=wants_answer(question))
    guard = ReplyGuard(ctx.functions, ctx.learner_code)
    usage.record(config, ctx.lab, ctx.task["grade_id"] if ctx.task else None)

    def shown() -> Iterator[str]:
        for text in stream_chat(config, request):
            exchange.raw += text
            yield guard.feed(text)
        yield guard.close()

    for text in shown():
        if text:
            exchange.reply += text
            if on_text:
                on_text(text)
    exchange.withheld = guard.withheld
    exchange.history = list(history or []) + [{"role": "user", "content": question},
                                              {"role": "assistant", "content": exchange.reply}]
    return exchange
