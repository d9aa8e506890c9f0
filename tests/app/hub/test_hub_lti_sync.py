"""The roster sync on a real hub, run as the hub runs it: `course hub --lti-config` whose settings have
the LMS's memberships_url starts the `lti-roster-sync` service (every --lti-sync-every seconds; an hour
by default). A student who joins the course in the emulated LMS gets an account, home and role without
launching; one who drops is marked dropped, their account and files kept. Accounts are cth<hex>-*,
removed at the end (tests/hub_server.py)."""
from __future__ import annotations

import json
import subprocess

import pytest

from lti_hub import lms  # noqa: F401  (the emulated LMS fixture)
from waiting import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hub(lms, tmp_path_factory):
    from hub_server import class_course, make_hub

    course = class_course(tmp_path_factory.mktemp("lti-sync-course"))
    running = make_hub(["ada"], course, options=("--lti-sync-every", "2"))
    running.users["amy"] = running.users["ada"].removesuffix("ada") + "amy"      # joins later; cleanup removes her
    settings = tmp_path_factory.mktemp("lti-sync") / "platform.json"
    settings.write_text(json.dumps(lms.platform_settings(context_id=lms.context_id)))     # with memberships_url
    running.command += ["--lti-config", str(settings)]
    lms.tool_jwks = f"{running.url}/hub/lti/jwks"       # the sync's token assertion is checked against it
    lms.enrol(running.users["ada"], user_id="u-ada")
    try:
        running.start(timeout=360)
        yield running
    finally:
        running.cleanup()


def people(hub) -> dict:
    path = hub.data / "lti" / "people.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def account(name: str) -> bool:
    return subprocess.run(["id", name], capture_output=True).returncode == 0


def test_the_hubs_scheduled_sync_admits_who_joined_and_marks_who_dropped_keeping_their_files(hub, lms):
    ada, amy = hub.users["ada"], hub.users["amy"]
    wait_for(lambda: people(hub).get(ada, {}).get("role") == "student", 300, "the hub's first roster sync")
    made = hub.as_user("ada", "sh", "-c", "echo 'ada wrote this' > work.txt")
    assert made.returncode == 0, made.stderr
    assert not account(amy)

    lms.enrol(amy, user_id="u-amy")                     # amy joins the course in the LMS; she never launches
    wait_for(lambda: people(hub).get(amy, {}).get("role") == "student", 120, "amy admitted by a scheduled sync")
    assert account(amy) and (hub.home("amy") / "lessons").is_dir()
    assert amy not in {u["name"] for u in hub.api("GET", "users").json()}     # an account, not a login: none yet

    lms.by_username(ada).status = "Deleted"             # ada drops the course
    wait_for(lambda: people(hub).get(ada, {}).get("dropped"), 120, "ada marked dropped by a scheduled sync")
    assert account(ada) and (hub.home("ada") / "work.txt").read_text() == "ada wrote this\n"
    assert not people(hub)[amy].get("dropped")
    assert "joined:" in hub.log.read_text() and f"dropped (files kept): {ada}" in hub.log.read_text()
