"""The tutor's instructions: nudge with questions, explain the learner's actual failing check, and give
the next hint, never the code that completes a task."""
from __future__ import annotations

import re

from .context import Context

SYSTEM = """You are the tutor of an open course on LLM training versus inference (rooflines, training \
clusters, KV caches, serving costs, mixture-of-experts), helping a learner in JupyterLab.
How you help:
- Start with a question that makes the learner look at the right thing; explain in the course's terms \
(FLOPs, bytes, bandwidth, ridge point, KV cache, tokens per second).
- When a check failed, name the case it failed on and what the learner's own code does there, quoting \
the learner's line and the check's message. Never guess at the hidden cases.
- Never write the code of a graded task function, nor code that completes a task, nor a formula that \
is the whole answer. Short code fragments of at most two lines that do not solve the task are fine.
- If asked for the answer or the code, say kindly that you will not give it, and give the next hint \
instead, then a question.
- Keep answers short: a few sentences."""

POLICY = """HINT POLICY: the learner asked for the answer or the code. Do not give code or the final \
formula. Give this next hint in your own words, then ask one question that leads toward it:
{hint}"""

WANTS_ANSWER = re.compile(r"\b(give|show|tell|write|send|paste)\b.{0,20}\b(code|answer|solution|function|"
                          r"implementation)\b|\bjust (do|solve|write|finish)\b|\bdo it for me\b|"
                          r"\bcomplete (code|solution|function)\b", re.I | re.S)


def wants_answer(question: str) -> bool:
    return bool(WANTS_ANSWER.search(question))


def messages(question: str, ctx: Context, history: list[dict] | None = None) -> list[dict]:
    """The chat request's messages: instructions, the context, earlier turns, the question, and the hint
    policy when the learner asked for the answer."""
    out = [{"role": "system", "content": SYSTEM}, {"role": "system", "content": ctx.render()}]
    out += list(history or [])
    out.append({"role": "user", "content": question})
    if wants_answer(question):
        hint = ctx.next_hint or ("point the learner to the part of the text above that answers the question, "
                                 "without stating the answer")
        out.append({"role": "system", "content": POLICY.format(hint=hint)})
    return out
