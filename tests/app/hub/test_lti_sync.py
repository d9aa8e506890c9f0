"""Roster sync from the LMS (NRPS, coursekit/app/hub/lti/sync.py) against the emulated LMS, as root: who
joined gets an account, home and role; who dropped is marked, their account and files kept; a failing
LMS changes nothing. Accounts are cth<hex>-* and removed at the end."""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

import pytest
from lms_emulator import EmulatedLMS


@pytest.fixture
def hub_data(tmp_path):
    from coursekit.app.hub.classroom import Layout, Settings

    lms = EmulatedLMS().start()
    prefix = f"cth{secrets.token_hex(2)}-"
    names = [prefix + n for n in ("amy", "bob", "cat")]
    os.chmod(tmp_path, 0o711)
    layout = Layout(tmp_path / "data")
    layout.data.mkdir()
    (layout.data / "home").mkdir()
    platform = tmp_path / "platform.json"
    platform.write_text(json.dumps(lms.platform_settings(context_id=lms.context_id)))
    settings = Settings(roster="", course_source=str(tmp_path / "course"), lti_config=str(platform))
    layout.settings.write_text(json.dumps(settings.__dict__))
    from coursekit.app.hub.lti.hub import lti_folder
    from coursekit.app.lti import keys

    key_file = lti_folder(layout.data) / keys.KEYS_FILE
    lms.tool_jwks = lambda: keys.public_jwks(keys.ensure(key_file)[0])
    try:
        yield lms, layout, names
    finally:
        lms.stop()
        for name in names:
            subprocess.run(["userdel", name], capture_output=True)


def run_sync(layout):
    return subprocess.run([sys.executable, "-m", "coursekit.app.hub.lti.sync", str(layout.data)],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_joined_and_dropped_students_with_files_kept(hub_data):
    lms, layout, (amy, bob, cat) = hub_data
    lms.enrol(amy)
    lms.enrol(bob, role="Instructor")
    done = run_sync(layout)
    assert done.returncode == 0, done.stderr
    assert f"joined: {amy}, {bob}" in done.stdout or f"joined: {bob}, {amy}" in done.stdout
    people = json.loads((layout.data / "lti" / "people.json").read_text())
    assert people[amy]["role"] == "student" and people[bob]["role"] == "instructor"
    assert (layout.home(amy) / "lessons").is_dir() and (layout.home(bob) / "course").is_dir()
    (layout.home(amy) / "work.txt").write_text("amy's work")

    lms.by_username(amy).status = "Deleted"        # amy drops the course; cat joins
    lms.enrol(cat)
    done = run_sync(layout)
    assert done.returncode == 0, done.stderr
    assert f"joined: {cat}" in done.stdout and f"dropped (files kept): {amy}" in done.stdout
    assert "1 joined, 1 dropped, 1 unchanged" in done.stdout
    assert json.loads((layout.data / "lti" / "people.json").read_text())[amy]["dropped"] is True
    assert (layout.home(amy) / "work.txt").read_text() == "amy's work"
    assert subprocess.run(["id", amy], capture_output=True).returncode == 0      # the account stays too

    lms.by_username(amy).status = "Active"          # back in the course: same account, same files
    done = run_sync(layout)
    assert f"back in the course: {amy}" in done.stdout and "0 joined, 0 dropped, 2 unchanged" in done.stdout


def test_an_lms_that_fails_changes_nothing(hub_data):
    lms, layout, (amy, _, _) = hub_data
    lms.enrol(amy)
    lms.fail("nrps", status=500)
    done = run_sync(layout)
    assert done.returncode == 1 and "the LMS answered HTTP 500" in done.stderr and "nothing changed" in done.stderr
    assert not (layout.data / "lti" / "people.json").exists()
    assert subprocess.run(["id", amy], capture_output=True).returncode != 0


@pytest.mark.slow
def test_a_second_lms_member_claiming_a_bound_name_is_not_synced_into_that_account(hub_data):
    lms, layout, (amy, _, _) = hub_data
    lms.enrol(amy, user_id="u-amy")
    assert run_sync(layout).returncode == 0
    lms.enrol(amy.upper() + "@gmail.example", role="Instructor", user_id="u-other")     # maps to amy too
    done = run_sync(layout)
    assert done.returncode == 0, done.stderr
    assert f"not synced: the course account {amy!r} belongs to another LMS person" in done.stdout, done.stdout
    assert "'u-amy'" in done.stdout and "'u-other'" in done.stdout
    people = json.loads((layout.data / "lti" / "people.json").read_text())
    assert people[amy] == {"role": "student", "user_id": "u-amy"}      # never made an instructor by the other
