"""`course hub --roster CSV --lti-config FILE`: launches from the emulated LMS (tests/lms_emulator.py)
through the real proxy: OIDC login, a verified id_token, the person's own server; every bad launch refused
with a page saying why and nothing created, a replay refused also after a hub restart; the key set and
tool configuration served; the key private, and a student refused the passback and any token from the LMS.
The hub and its LMS: tests/lti_hub.py; Deep Linking: tests/app/hub/test_hub_lti_deeplink.py.
"""
from __future__ import annotations

import html
import json
import re
import time
from urllib.parse import urlparse

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from lms_emulator import LTI
from lti_hub import edit_claims, hub, hub_users, launch, lms, unix_account  # noqa: F401 (fixtures: one hub here)

pytestmark = pytest.mark.slow


def test_a_roster_student_launched_from_the_lms_is_the_same_person_in_their_own_server(hub, lms):
    from waiting import wait_for

    session, answer = launch(hub, lms, "u-ada")
    assert answer.status_code == 302 and urlparse(answer.headers["Location"]).path == "/hub/spawn"
    session.get(f"{hub.url}/hub/spawn", timeout=120)
    wait_for(lambda: (hub.server("ada") or {}).get("ready"), 240, "ada's server after her LTI launch")
    assert hub.users["ada"] in hub_users(hub)
    model = hub.api("GET", f"users/{hub.users['ada']}").json()
    assert model["admin"] is False
    lab = session.get(f"{hub.url}/user/{hub.users['ada']}/lab", timeout=120)      # through the proxy, her cookie
    assert lab.status_code == 200 and "jupyter-config-data" in lab.text
    assert (hub.home("ada") / "lessons").is_dir()          # the roster's account and home, not a second one


def test_newcomers_get_an_account_and_the_role_the_lms_gave_them(hub, lms):
    for name, user_id, admin in (("eve", "u-eve", False), ("ted", "u-ted", True), ("tia", "u-tia", False)):
        assert not unix_account(hub.users[name])
        _, answer = launch(hub, lms, user_id)
        assert answer.status_code == 302, answer.text[:800]
        assert unix_account(hub.users[name])
        assert hub.api("GET", f"users/{hub.users[name]}").json()["admin"] is admin, name
    people = json.loads((hub.data / "lti" / "people.json").read_text())
    assert {people[hub.users[n]]["role"] for n in ("eve", "ted", "tia")} == {"student", "instructor", "ta"}
    assert (hub.home("ted") / "course" / "solutions").is_dir() and (hub.home("eve") / "lessons").is_dir()


def forged(claims, header, key):
    return claims, header, rsa.generate_private_key(public_exponent=65537, key_size=2048)


def unknown_kid(claims, header, key):
    return claims, {"kid": "not-in-the-key-set"}, rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.mark.parametrize("case, edit, form_edit, status, says", [
    ("forged signature", forged, None, 401, "its signature is not the LMS's"),
    ("unknown key id", unknown_kid, None, 401, "a key the LMS's key set does not have"),
    ("wrong audience", edit_claims(aud="another-tool"), None, 401, "the id_token is for another tool"),
    ("wrong deployment", edit_claims(**{LTI + "deployment_id": "deploy-other"}), None, 400, "deployment 'deploy-other' is not this course's"),
    ("expired", edit_claims(exp=int(time.time()) - 120, iat=int(time.time()) - 900), None, 401, "expired"),
    ("state mismatch", None, lambda form: {**form, "state": form["state"][:-4] + "AAAA"}, 400, "state mismatch"),
    ("missing roles", edit_claims(**{LTI + "roles": []}), None, 403, "no role in this course"),
    ("instructor of another course", edit_claims(**{
        LTI + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"],
        LTI + "context": {"id": "course-other", "label": "X", "title": "Another"}}), None, 403, "another course of the LMS"),
    ("list-valued nonce", lambda claims, header, key: ({**claims, "nonce": [claims["nonce"], "n-2"]}, header, key),
     None, 400, "nonce"),
])
def test_a_bad_launch_is_refused_with_a_clear_page_and_nothing_created(hub, lms, case, edit, form_edit, status, says):
    before = hub_users(hub)
    _, answer = launch(hub, lms, "u-bad", edit=edit, form_edit=form_edit)
    assert answer.status_code == status, (case, answer.status_code, answer.text[:800])
    page = html.unescape(answer.text)
    assert "This launch from the LMS was refused" in page and says in page and "Nothing was created" in page, page[:3000]
    assert hub_users(hub) == before and not unix_account(hub.users["bad"])


def test_a_replayed_launch_is_refused_even_with_its_cookies(hub, lms):
    session, answer = launch(hub, lms, "u-eve")
    assert answer.status_code == 302
    replay = session.post(f"{hub.url}/hub/lti13/oauth_callback", data=answer.form, timeout=60, allow_redirects=False)
    thief = requests.post(f"{hub.url}/hub/lti13/oauth_callback", data=answer.form, cookies=answer.sent_cookies, timeout=60,
                          allow_redirects=False)
    for refused in (replay, thief):
        assert refused.status_code == 400 and "This launch from the LMS was refused" in html.unescape(refused.text)
    assert "already used" in html.unescape(thief.text)


def test_the_key_set_and_tool_configuration_are_served_and_rotation_keeps_sessions(hub, lms):
    from coursekit.app.lti import keys

    jwks = requests.get(f"{hub.url}/hub/lti/jwks", timeout=60).json()
    stored = keys.load(hub.data / "lti" / "tool-keys.json")
    assert [k["kid"] for k in jwks["keys"]] == [stored["current"]] and "d" not in jwks["keys"][0]
    config = requests.get(f"{hub.url}/hub/lti/config", timeout=60).json()
    assert config["oidc_initiation_url"] == f"{hub.url}/hub/lti13/oauth_login"
    assert config["redirect_uris"] == [f"{hub.url}/hub/lti13/oauth_callback"]
    assert config["public_jwk_url"] == f"{hub.url}/hub/lti/jwks"
    session, answer = launch(hub, lms, "u-eve")
    rotated = keys.rotate(hub.data / "lti" / "tool-keys.json")
    served = [k["kid"] for k in requests.get(f"{hub.url}/hub/lti/jwks", timeout=60).json()["keys"]]
    assert served == [rotated["current"], stored["current"]]                 # the old kid stays
    me = session.get(f"{hub.url}/hub/api/user", timeout=60, headers={"Referer": f"{hub.url}/hub/home"})
    assert me.status_code == 200 and me.json()["name"] == hub.users["eve"]     # nobody logged out


def test_no_student_reads_the_tool_key_and_instructors_get_their_own_copy(hub, lms):
    from waiting import wait_for

    session, _ = launch(hub, lms, "u-ted")
    session.get(f"{hub.url}/hub/spawn", timeout=120)
    wait_for(lambda: (hub.server("ted") or {}).get("ready"), 240, "ted's server")
    copy = hub.home("ted") / "course" / "lti" / "tool-keys.json"
    assert copy.stat().st_mode & 0o777 == 0o600 and copy.stat().st_uid == __import__("pwd").getpwnam(hub.users["ted"]).pw_uid
    for path in (hub.data / "lti" / "tool-keys.json", copy):
        refused = hub.as_user("eve", "cat", str(path))
        assert refused.returncode != 0 and "Permission denied" in refused.stderr, path


def test_in_chromium_a_click_in_the_lms_lands_in_jupyterlab_and_a_forged_one_on_the_refusal_page(hub, lms, browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(240_000)
    page.goto(f"{lms.url}/course/u-eve")        # the course link in the LMS, through the real proxy to the hub
    page.wait_for_url(re.compile(rf"/user/{re.escape(hub.users['eve'])}/lab"))
    page.wait_for_selector(".jp-LabShell")
    context.close()
    context = browser.new_context()
    page = context.new_page()
    lms.launch_edit = forged
    page.goto(f"{lms.url}/course/u-bad")
    page.wait_for_selector("text=This launch from the LMS was refused")
    assert "its signature is not the LMS's" in page.content() and not unix_account(hub.users["bad"])
    context.close()



def test_a_launch_replayed_after_a_hub_restart_is_refused_and_creates_nothing(hub, lms):
    _, answer = launch(hub, lms, "u-eve")
    assert answer.status_code == 302
    hub.stop_hub()
    hub.start(timeout=360)
    people = (hub.data / "lti" / "people.json").read_text()
    before = hub_users(hub)
    thief = requests.post(f"{hub.url}/hub/lti13/oauth_callback", data=answer.form, cookies=answer.sent_cookies,
                          timeout=60, allow_redirects=False)
    page = html.unescape(thief.text)
    assert thief.status_code == 400 and "already used" in page and "Nothing was created" in page, page[:2000]
    assert not any(c.name.startswith("jupyterhub-") and "login" in c.name for c in thief.cookies)    # not logged in
    assert hub_users(hub) == before and (hub.data / "lti" / "people.json").read_text() == people


STUDENT_CLIENT = """
import json, sys
from pathlib import Path
from coursekit.app.lti import keys
from coursekit.app.lti.client import LmsClient, LmsError
from coursekit.app.lti.platform import load_platform

platform = load_platform(sys.argv[1])
mine = Path.home() / "my-lti" / "tool-keys.json"
keys.ensure(mine)                                   # a key of her own: the LMS does not trust it
client = LmsClient(platform, mine)
for what, call in (("read the roster", client.members),
                   ("post a grade", lambda: client.post_score(sys.argv[2], {
                       "userId": "u-ada", "scoreGiven": 0, "scoreMaximum": 6, "activityProgress": "Completed",
                       "gradingProgress": "FullyGraded", "timestamp": "2026-11-27T10:00:00+00:00", "comment": "x"}))):
    try:
        call()
        print(what, "ACCEPTED")
    except LmsError as error:
        print(what, "refused:", error.reason)
"""


def test_a_student_cannot_run_the_passback_post_or_read_grades_or_read_the_key(hub, lms):
    for person in ("u-eve", "u-ted"):
        assert launch(hub, lms, person)[1].status_code == 302
    hub.start_server("ted")          # its start hands ted his copy of the key and settings
    copy = hub.home("ted") / "course" / "lti"
    for path in (copy / "tool-keys.json", copy / "platform.json", hub.data / "lti" / "tool-keys.json"):
        refused = hub.as_user("eve", "python", "-c", "import sys; open(sys.argv[1]).read()", str(path))
        assert refused.returncode != 0 and "Permission denied" in refused.stderr, path
    # the passback command, in the instructor's course or with his files from her own: refused, nothing sent
    posts = len(lms.posts)
    done = hub.as_user("eve", "autograder", "--root", str(hub.home("ted") / "course"), "lms", "post", "toy-pipeline")
    assert done.returncode == 2 and "nbgrader_config.py: permission denied" in done.stderr, done.stdout + done.stderr
    done = hub.as_user("eve", "autograder", "lms", "post", "toy-pipeline", "--platform", str(copy / "platform.json"),
                       "--keys", str(copy / "tool-keys.json"))
    assert done.returncode == 2 and "platform.json: cannot read the LTI platform settings" in done.stderr \
        and "Permission denied" in done.stderr, done.stdout + done.stderr
    # with settings copied from the LMS and a key of her own: the LMS refuses her a token for anything
    mine = hub.home("eve") / "lms.json"
    mine.write_text(json.dumps(lms.platform_settings(context_id=lms.context_id)))
    __import__("os").chown(mine, __import__("pwd").getpwnam(hub.users["eve"]).pw_uid, -1)
    item = next(iter(lms.lineitems.values()), {"id": f"{lms.url}/ags/{lms.context_id}/lineitems/1"})["id"]
    done = hub.as_user("eve", "python", "-c", STUDENT_CLIENT, str(mine), item)
    assert done.returncode == 0, done.stderr
    for what in ("read the roster", "post a grade"):
        line = next(line for line in done.stdout.splitlines() if line.startswith(what))
        assert "refused: the LMS answered HTTP 401 to /token" in line and "in the tool's key set" in line, line
    assert len(lms.posts) == posts


def test_another_lms_person_claiming_a_taken_name_is_refused_and_the_admin_can_rebind_it(hub, lms):
    import subprocess
    import sys

    _, first = launch(hub, lms, "u-ada")                   # the roster's ada, from the LMS: bound to u-ada
    assert first.status_code == 302, first.text[:800]
    ada = hub.users["ada"]
    lms.enrol(ada.upper() + "@gmail.example", user_id="u-ada-2")    # another person whose claim maps to ada
    before = hub_users(hub)
    _, taken = launch(hub, lms, "u-ada-2")
    page = html.unescape(taken.text)
    assert taken.status_code == 403, page[:800]
    assert "belongs to another LMS person" in page and "'u-ada'" in page and "'u-ada-2'" in page, page[:3000]
    release = f"python -m coursekit.app.hub.lti.identities {hub.data} release {ada}"
    assert release in page and "Nothing was created" in page
    assert hub_users(hub) == before
    command = [sys.executable, "-m", "coursekit.app.hub.lti.identities", str(hub.data)]
    freed = subprocess.run(command + ["release", ada], capture_output=True, text=True, timeout=60, check=False)
    assert freed.returncode == 0, freed.stderr
    _, rebound = launch(hub, lms, "u-ada-2")             # the instructor confirmed: the new LMS account gets it
    assert rebound.status_code == 302, rebound.text[:800]
    _, old = launch(hub, lms, "u-ada")
    assert old.status_code == 403 and "'u-ada-2'" in html.unescape(old.text)
    subprocess.run(command + ["release", ada], capture_output=True, text=True, timeout=60, check=True)
    del lms.people["u-ada-2"]
    assert launch(hub, lms, "u-ada")[1].status_code == 302          # as the file's other tests expect


def test_behind_a_tls_proxy_the_lms_is_given_the_public_address(hub, lms):
    public = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "hub.example.edu"}
    config = requests.get(f"{hub.url}/hub/lti/config", headers=public, timeout=60).json()
    assert config["oidc_initiation_url"] == "https://hub.example.edu/hub/lti13/oauth_login"
    assert config["redirect_uris"] == ["https://hub.example.edu/hub/lti13/oauth_callback"]
    assert config["public_jwk_url"] == "https://hub.example.edu/hub/lti/jwks"
    assert "127.0.0.1" not in json.dumps(config)
    start = requests.post(f"{hub.url}/hub/lti13/oauth_login", headers=public, timeout=60, allow_redirects=False, data={
        "iss": lms.issuer, "login_hint": "u-eve", "target_link_uri": "https://hub.example.edu/hub/spawn",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id})
    assert start.status_code == 302
    from urllib.parse import parse_qs
    query = parse_qs(urlparse(start.headers["Location"]).query)
    assert query["redirect_uri"] == ["https://hub.example.edu/hub/lti13/oauth_callback"]
    cookies = start.raw.headers.getlist("Set-Cookie")          # state and nonce: sent back cross-site over https
    assert len(cookies) == 2 and all("Secure" in c and "SameSite=None" in c for c in cookies), cookies


def test_an_lms_student_whose_username_is_a_roster_instructors_is_refused_that_account(hub, lms):
    from coursekit.app.hub.lti.identities import Identities

    lms.enrol(hub.users["prof"].upper(), user_id="u-prof-student")       # a Learner whose login id maps to prof
    _, answer = launch(hub, lms, "u-prof-student")
    page = html.unescape(answer.text)
    assert answer.status_code == 403, page[:800]
    assert "is the roster's instructor, and the LMS says this person is a student" in page
    assert "Nothing was created" in page
    assert Identities(hub.data).owner(hub.users["prof"]) is None         # not bound to them either
    del lms.people["u-prof-student"]


def test_people_admitted_before_bindings_existed_are_bound_at_the_hubs_start(hub, lms):
    from coursekit.app.hub.lti.identities import Identities, identities_file

    assert launch(hub, lms, "u-eve")[1].status_code == 302
    identities_file(hub.data).unlink()        # as on a hub upgraded from before bindings: people.json alone
    hub.stop_hub()
    hub.start(timeout=360)
    assert Identities(hub.data).owner(hub.users["eve"]) == (lms.issuer, "u-eve")
    lms.enrol(hub.users["eve"] + "@gmail.example", user_id="u-eve-2")
    _, other = launch(hub, lms, "u-eve-2")
    assert other.status_code == 403 and "belongs to another LMS person" in html.unescape(other.text)
    del lms.people["u-eve-2"]

