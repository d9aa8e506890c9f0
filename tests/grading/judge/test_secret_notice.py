"""A new instructor secret is announced once, with where it lives and why to back it up."""
from __future__ import annotations

from autograder.judge.secrets import SECRET_ENV, load_secret


def test_new_secret_is_announced_once(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(SECRET_ENV, raising=False)
    path = tmp_path / "instructor-secret"
    first = load_secret(path=path)
    told = capsys.readouterr().err
    assert f"created the instructor secret {path}" in told and "Back it up" in told and "Never commit" in told
    assert load_secret(path=path) == first
    assert capsys.readouterr().err == ""
    assert path.stat().st_mode & 0o777 == 0o600
