"""An LTI hub being set up, through the real hub and proxy and the emulated LMS: started with
`--public-url` and a settings file that has no context_id yet (docs/LMS.md, section 1). Every URL it hands
the LMS is the public https one whatever the request's Host or forwarded headers, and a launch is refused
with a page naming the launching course's context_id, nothing created."""
from __future__ import annotations

import html
import json
import re
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from lti_hub import hub_users, lms, unix_account  # noqa: F401 - lms: the emulated LMS fixture

pytestmark = pytest.mark.slow

PUBLIC = "https://hub.example.edu"


@pytest.fixture(scope="module")
def hub(lms, tmp_path_factory):
    from hub_server import class_course, make_hub

    course = class_course(tmp_path_factory.mktemp("lti-setup-course"))
    settings = tmp_path_factory.mktemp("lti-setup") / "platform.json"
    settings.write_text(json.dumps(lms.platform_settings(memberships_url="")))        # no context_id yet
    running = make_hub([], course)
    running.users["newbie"] = running.users["prof"].removesuffix("prof") + "newbie"   # cleanup removes it too
    running.command += ["--lti-config", str(settings), "--public-url", PUBLIC]
    lms.redirect_uris = [f"{PUBLIC}/hub/lti13/oauth_callback"]
    lms.tool_jwks = f"{running.url}/hub/lti/jwks"
    lms.enrol(running.users["newbie"], role="Instructor", user_id="u-newbie")
    try:
        running.start(timeout=360)
        yield running
    finally:
        running.cleanup()


def test_the_configuration_and_the_redirect_uri_are_the_public_https_ones(hub, lms):
    forged = {"X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example"}
    for headers in ({}, forged):
        config = requests.get(f"{hub.url}/hub/lti/config", headers=headers, timeout=60).json()
        assert config["oidc_initiation_url"] == f"{PUBLIC}/hub/lti13/oauth_login"
        assert config["redirect_uris"] == [f"{PUBLIC}/hub/lti13/oauth_callback"]
        assert config["public_jwk_url"] == f"{PUBLIC}/hub/lti/jwks"
        assert config["target_link_uri"] == f"{PUBLIC}/hub/spawn"
        assert "127.0.0.1" not in json.dumps(config) and "evil" not in json.dumps(config)
    start = requests.post(f"{hub.url}/hub/lti13/oauth_login", headers=forged, timeout=60, allow_redirects=False, data={
        "iss": lms.issuer, "login_hint": "u-newbie", "target_link_uri": f"{PUBLIC}/hub/spawn",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id})
    assert start.status_code == 302
    assert parse_qs(urlparse(start.headers["Location"]).query)["redirect_uri"] == [f"{PUBLIC}/hub/lti13/oauth_callback"]


def test_without_context_id_a_launch_names_the_course_to_configure_and_creates_nothing(hub, lms):
    session = requests.Session()
    start = session.post(f"{hub.url}/hub/lti13/oauth_login", timeout=60, allow_redirects=False, data={
        "iss": lms.issuer, "login_hint": "u-newbie", "target_link_uri": f"{PUBLIC}/hub/spawn",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id})
    page = session.get(start.headers["Location"], timeout=60)
    assert page.status_code == 200, page.text
    form = {k: html.unescape(v) for k, v in re.findall(r'name="(\w+)" value="([^"]*)"', page.text)}
    # the LMS posts to the public address; the TLS proxy would pass it on to the hub: post there directly,
    # with the state and nonce cookies the browser holds for the public (https) address
    cookies = {c.name: c.value for c in session.cookies}
    answer = requests.post(f"{hub.url}/hub/lti13/oauth_callback", data=form, cookies=cookies, timeout=120,
                           allow_redirects=False)
    text = html.unescape(answer.text)
    assert answer.status_code == 403, text[:2000]
    assert f"whose context_id is {lms.context_id!r}" in text, text[:3000]
    assert f'"context_id": "{lms.context_id}"' in text
    assert "Nothing was created" in text and hub.users["newbie"] not in hub_users(hub)
    assert not unix_account(hub.users["newbie"])
