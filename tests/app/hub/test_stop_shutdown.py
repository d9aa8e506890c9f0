"""`course hub stop` asks the hub to shut down through its REST API (the hub then ends its periodic checks
before its clean-up); a hub that refuses the call (started before its admin role had the `shutdown`
scope) or does not answer gets SIGTERM, as before. The whole command runs on a real hub in
tests/app/hub/test_hub_stop.py."""
import signal
import urllib.error

import pytest

from coursekit.app.hub import stop


class FakeAPI:
    def __init__(self, error: Exception | None = None):
        self.error, self.calls = error, []

    def call(self, method, path):
        self.calls.append((method, path))
        if self.error:
            raise self.error


@pytest.fixture
def kills(monkeypatch):
    sent = []
    monkeypatch.setattr(stop.os, "kill", lambda pid, sig: sent.append((pid, sig)))
    return sent


def test_the_hub_is_asked_through_its_api(kills):
    api = FakeAPI()
    stop._shut_down(api, 4242)
    assert api.calls == [("POST", "/shutdown")] and kills == []


@pytest.mark.parametrize("error", [
    urllib.error.HTTPError("http://127.0.0.1:8081/hub/api/shutdown", 403, "Forbidden", {}, None),
    urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")),
    TimeoutError("timed out")])
def test_a_hub_that_refuses_or_does_not_answer_gets_sigterm(kills, error):
    stop._shut_down(FakeAPI(error), 4242)
    assert kills == [(4242, signal.SIGTERM)]
