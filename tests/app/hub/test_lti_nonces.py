"""Used launch nonces on disk (coursekit/app/hub/lti/nonces.py): once only, across a restart (a new
process reading the same file), forgotten only after their expiry. tests/app/hub/test_hub_lti.py replays a
launch across a real hub restart."""
from __future__ import annotations

from coursekit.app.hub.lti import nonces
from coursekit.app.hub.lti.nonces import NONCE_TTL_S, UsedNonces


def test_a_nonce_is_accepted_once_even_after_a_restart_and_forgotten_only_once_expired(tmp_path, monkeypatch):
    path = tmp_path / "used-nonces.sqlite"
    assert UsedNonces(path).first_use("n-1") and UsedNonces(path).first_use("n-2")
    assert not UsedNonces(path).first_use("n-1")            # a fresh instance: what a restarted hub makes
    now = nonces.time.time()
    monkeypatch.setattr(nonces.time, "time", lambda: now + NONCE_TTL_S - 5)
    assert not UsedNonces(path).first_use("n-1")            # still inside its time
    monkeypatch.setattr(nonces.time, "time", lambda: now + NONCE_TTL_S + 5)
    assert UsedNonces(path).first_use("n-1")                # expired: its id_token is refused as too old anyway


def test_a_nonce_that_is_not_a_string_is_refused_not_a_database_error(tmp_path):
    used = UsedNonces(tmp_path / "used-nonces.sqlite")
    for forged in (["n-1", "n-2"], {"n": 1}, 42, None, ""):
        assert used.first_use(forged) is False
    assert used.first_use("n-1")            # the store still works after them
