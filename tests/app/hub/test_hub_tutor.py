"""The class's tutor on a real `course hub`: its JupyterHub service holds the key (which students
cannot read) and counts questions per person, so the limit cannot be reset from a student's files;
a student's own tutor client reaches it with their JupyterHub token."""
from __future__ import annotations

import json
import os

import pytest
import requests

from coursekit.app.hub.config import server_environment
from coursekit.app.hub.tutor_service import service_url
from tutor_endpoint import RecordingEndpoint

pytestmark = pytest.mark.slow
KEY = "sk-class-key-7f3a"
QUESTION = {"model": "any", "max_tokens": 100_000, "messages": [{"role": "user", "content": "Why does it fail?"}]}


@pytest.fixture
def class_tutor(hub):
    """<data>/tutor.json as `course tutor setup --class-config` writes it, the key in a root-only file."""
    key_file = hub.data / "tutor-key"
    key_file.write_text(KEY + "\n")
    os.chmod(key_file, 0o600)
    with RecordingEndpoint(reply="Which argument goes on top?") as endpoint:
        config = hub.data / "tutor.json"
        config.write_text(json.dumps({"endpoint": endpoint.url, "model": "class-model", "key_file": str(key_file),
                                      "rate_per_hour": 2, "max_tokens": 64}))
        os.chmod(config, 0o644)
        try:
            yield endpoint
        finally:     # missing_ok: after the hub's last test its whole data folder is gone already
            config.unlink(missing_ok=True)
            key_file.unlink(missing_ok=True)


def streamed(events: str) -> str:
    chunks = [json.loads(line[5:]) for line in events.splitlines() if line.startswith("data: {")]
    assert events.rstrip().endswith("data: [DONE]")
    return "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)


def ask(url: str, token: str | None, body: dict = QUESTION) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.post(f"{url}/chat/completions", json=body, headers=headers, timeout=60)


def test_the_service_holds_the_key_and_limits_each_student(hub, class_tutor):
    url = service_url(hub.data)
    ada, ben = hub.user_token("ada"), hub.user_token("ben")
    first = ask(url, ada)
    assert first.status_code == 200, first.text
    assert streamed(first.text) == "Which argument goes on top?"                  # the stream, relayed
    sent = class_tutor.requests[-1]
    assert sent.headers.get("Authorization") == f"Bearer {KEY}"                   # the key added here only
    assert sent.body["model"] == "class-model" and sent.body["max_tokens"] == 64  # the class's, not the ask's
    via_proxy = ask(f"{hub.url}/services/tutor/v1", ada)                           # also routed by the hub
    assert via_proxy.status_code == 200, via_proxy.text
    third = ask(url, ada)
    assert third.status_code == 429 and "2 questions an hour" in third.json()["error"]["message"]
    assert ask(url, ben).status_code == 200                                        # per student
    assert len(class_tutor.requests) == 3                                          # the refused one never left
    assert ask(url, None).status_code == 401
    assert ask(url, "not-a-token").status_code == 403
    assert KEY not in hub.as_user("ada", "cat", str(hub.data / "tutor-key")).stdout   # students cannot read it


def test_a_students_tutor_asks_through_the_service_with_its_hub_token(hub, class_tutor, monkeypatch):
    """What a student's kernel does: the class file for limits, the service for the answer, no key."""
    from coursekit.tutor import config as tutor_config
    from coursekit.tutor.client import TutorError, stream_chat

    env, _ = server_environment(hub_layout(hub), hub.users["cai"], instructor=False)
    assert env["COURSE_TUTOR_SERVICE"] == service_url(hub.data)
    for name in ("COURSE_TUTOR_CONFIG", "COURSE_TUTOR_SERVICE"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", hub.user_token("cai"))
    config = tutor_config.load()
    assert config.key_file is None and config.key() != KEY
    assert "".join(stream_chat(config, QUESTION["messages"])) == "Which argument goes on top?"
    assert class_tutor.requests[-1].headers.get("Authorization") == f"Bearer {KEY}"
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "stolen")
    with pytest.raises(TutorError, match="403"):
        list(stream_chat(tutor_config.load(), QUESTION["messages"]))


def hub_layout(hub):
    from coursekit.app.hub.classroom import Layout

    return Layout(hub.data)
