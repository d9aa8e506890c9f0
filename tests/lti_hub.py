"""The LTI hub the tests/app/hub/test_hub_lti*.py files launch into: `course hub --roster CSV --lti-config FILE`
(a roster of one, ada, and a course with the toy lab and a graded module test released in labs/ for
Deep Linking), the emulated LMS (tests/lms_emulator.py) it trusts, and a launch as the LMS makes one.

Each test file that imports the `lms` and `hub` fixtures gets one hub for its tests (a hub takes a minute
or two to start on a loaded machine); its accounts are cth<hex>-* and removed at the end
(tests/hub_server.py).
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest
import requests

from lms_emulator import EmulatedLMS
from quiz_course import QUIZ

NEWCOMERS = ("eve", "ted", "tia", "bad")       # arrive by LTI only (not in the roster)


@pytest.fixture(scope="module")
def lms():
    running = EmulatedLMS().start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def hub(lms, tmp_path_factory, quiz_template):
    from hub_server import CLASS_LAB, class_course, make_hub

    course = class_course(tmp_path_factory.mktemp("lti-course"))
    released = course / "labs" / CLASS_LAB            # what Deep Linking offers: the released labs
    released.mkdir(parents=True)
    shutil.copy(course / "solutions" / CLASS_LAB / f"{CLASS_LAB}.ipynb", released)
    for folder in ("solutions", "labs"):               # and a graded module test (the fixture bank's)
        shutil.copytree(quiz_template / folder / QUIZ, course / folder / QUIZ)
    settings = tmp_path_factory.mktemp("lti") / "platform.json"
    running = make_hub(["ada"], course)
    prefix = running.users["ada"].removesuffix("ada")
    running.users.update({name: prefix + name for name in NEWCOMERS})      # cleanup removes them too
    # no memberships_url: no hourly roster sync here, which would make the newcomers' accounts before
    # their launch (tests/app/hub/test_lti_sync.py tests the sync)
    settings.write_text(json.dumps(lms.platform_settings(context_id=lms.context_id, memberships_url="")))
    running.command += ["--lti-config", str(settings)]
    lms.redirect_uris = [f"{running.url}/hub/lti13/oauth_callback"]
    lms.tool_jwks = f"{running.url}/hub/lti/jwks"        # the LMS reads the tool's served key set
    lms.tool_login_url, lms.tool_target = f"{running.url}/hub/lti13/oauth_login", f"{running.url}/hub/spawn"
    lms.enrol(running.users["ada"], user_id="u-ada")
    lms.enrol(running.users["eve"], user_id="u-eve")
    lms.enrol(running.users["ted"], role="Instructor", user_id="u-ted")
    lms.enrol(running.users["tia"], role="Instructor", user_id="u-tia")
    lms.people["u-tia"].roles += ("http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",)
    lms.enrol(running.users["bad"], user_id="u-bad")
    try:
        running.start(timeout=360)       # a loaded 2-core machine can take minutes
        yield running
    finally:
        running.cleanup()


def launch(hub, lms, user_id: str, session: requests.Session | None = None, edit=None, form_edit=None,
           message_type: str = "LtiResourceLinkRequest", link: str = "course-nav"):
    """A click on the course (or on the assignment `link`) in the LMS: login initiation at the hub, the
    LMS's auth endpoint, the form post."""
    session = session or requests.Session()
    start = session.post(f"{hub.url}/hub/lti13/oauth_login", timeout=60, allow_redirects=False, data={
        "iss": lms.issuer, "login_hint": user_id, "target_link_uri": f"{hub.url}/hub/spawn",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id,
        "lti_message_hint": json.dumps({"message_type": message_type, "link": link})})
    assert start.status_code == 302, start.text[:500]
    assert start.headers["Location"].startswith(f"{lms.url}/auth?")
    lms.launch_edit = edit
    page = session.get(start.headers["Location"], timeout=60)
    assert page.status_code == 200, page.text
    form = {k: html.unescape(v) for k, v in re.findall(r'name="(\w+)" value="([^"]*)"', page.text)}
    if form_edit:
        form = form_edit(form)
    action = html.unescape(re.search(r'action="([^"]+)"', page.text).group(1))
    sent = {c.name: c.value for c in session.cookies}          # what a thief would copy with the form
    answer = session.post(action, data=form, timeout=120, allow_redirects=False)
    answer.form, answer.sent_cookies = form, sent
    return session, answer


def hub_users(hub) -> set[str]:
    return {u["name"] for u in hub.api("GET", "users").json()}


def unix_account(name: str) -> bool:
    return subprocess.run(["id", name], capture_output=True).returncode == 0



def edit_claims(**changes):
    def edit(claims, header, key):
        return {**claims, **changes}, header, key
    return edit
