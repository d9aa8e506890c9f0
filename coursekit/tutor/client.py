"""A streaming client for any OpenAI-compatible chat endpoint (POST {endpoint}/chat/completions with
"stream": true; server-sent events, one JSON chunk per `data:` line, ended by `data: [DONE]`).
Only the standard library: a learner's laptop needs nothing more than the course."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Iterator

from .config import TutorConfig

TIMEOUT_S = 120


class TutorError(RuntimeError):
    """The endpoint could not answer; the message says what to check."""


def stream_chat(config: TutorConfig, messages: list[dict], *, opener=urllib.request.urlopen) -> Iterator[str]:
    """Yield the reply's text as the endpoint streams it."""
    body = json.dumps({"model": config.model, "messages": messages, "stream": True,
                       "max_tokens": config.max_tokens, "temperature": 0.3}).encode()
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    key = config.key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(config.url(), data=body, headers=headers, method="POST")
    try:
        response = opener(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as error:
        detail = error.read(2000).decode("utf-8", "replace")
        try:                                   # OpenAI-style {"error": {"message": ...}}, as the hub's service sends
            detail = json.loads(detail)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            detail = detail[:500]
        if error.code in (413, 429, 503):      # limits and set-up the class's service reports: its words
            raise TutorError(f"The class's tutor: {detail}") from None
        raise TutorError(f"{config.url()} answered HTTP {error.code}: {detail.strip() or error.reason} "
                         f"(check endpoint, model and key in {config.source})") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise TutorError(f"cannot reach {config.url()} ({reason}); is the model server running? "
                         f"(configured in {config.source})") from None
    with response:
        for raw in response:
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue                       # comments, event names, keep-alives, blank separators
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                chunk = json.loads(data)
            except ValueError:
                raise TutorError(f"{config.url()} sent a stream line that is not JSON: {data[:200]!r}") from None
            if "error" in chunk:
                raise TutorError(f"{config.url()}: {chunk['error']}")
            for choice in chunk.get("choices", []):
                text = (choice.get("delta") or {}).get("content")
                if text:
                    yield text
