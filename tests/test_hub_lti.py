"""`course hub --roster CSV --lti-config FILE`: launches from the emulated LMS (tests/lms_emulator.py)
through the real proxy: OIDC login, a verified id_token, the person's own server; every bad launch refused
with a page saying why and nothing created; the key set and tool configuration served; the key private.

One hub for the module (a hub takes a minute or two to start on a loaded machine); its accounts are
cth<hex>-* and removed at the end (tests/hub_server.py).
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import time
from urllib.parse import urlparse

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from lms_emulator import LTI, EmulatedLMS
from quiz_course import QUIZ

pytestmark = pytest.mark.slow
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
    # their launch (tests/test_lti_sync.py tests the sync)
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


def edit_claims(**changes):
    def edit(claims, header, key):
        return {**claims, **changes}, header, key
    return edit


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
    from coursekit.app.hub.lti import keys

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


def deep_link(hub, lms, lab: str, stranger_too: bool = False) -> str:
    """ted adds `lab` as an assignment in the LMS's external-tool dialog; returns the LMS's new link id."""
    session, answer = launch(hub, lms, "u-ted", message_type="LtiDeepLinkingRequest")
    assert answer.status_code == 302 and "/hub/lti/deeplink?id=" in answer.headers["Location"], answer.text[:500]
    picker = session.get(f"{hub.url}{answer.headers['Location']}", timeout=60)
    assert picker.status_code == 200 and f'value="{lab}"' in picker.text, picker.text[:2000]
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', picker.text).group(1)
    if stranger_too:
        stranger = requests.get(f"{hub.url}{answer.headers['Location']}", timeout=60, allow_redirects=False)
        assert stranger.status_code == 302 and "/hub/login" in stranger.headers["Location"]     # not ted: no picker
    back = session.post(picker.url, data={"_xsrf": xsrf, "lab": lab}, timeout=60, headers={"Referer": picker.url})
    assert back.status_code == 200 and f'action="{lms.url}/deeplink-return"' in back.text, back.text[:500]
    signed = html.unescape(re.search(r'name="JWT" value="([^"]+)"', back.text).group(1))
    added = requests.post(f"{lms.url}/deeplink-return", data={"JWT": signed}, timeout=60)
    assert added.status_code == 200 and "1 assignment(s) added" in added.text, added.text
    return lms.links[-1]["id"]


def test_deep_linking_an_instructor_picks_a_lab_and_the_lms_gets_its_assignment_and_line_item(hub, lms):
    from hub_server import CLASS_LAB

    deep_link(hub, lms, CLASS_LAB, stranger_too=True)
    assert lms.links[-1]["custom"] == {"lab": CLASS_LAB}
    item = next(li for li in lms.lineitems.values() if li.get("tag") == CLASS_LAB)
    assert item["scoreMaximum"] == 6 and item["resourceLinkId"] == lms.links[-1]["id"]
    # a student cannot open the dialog
    _, refused = launch(hub, lms, "u-eve", message_type="LtiDeepLinkingRequest")
    assert refused.status_code == 403 and "only the course's instructors and TAs" in html.unescape(refused.text)


def opened(answer) -> str:
    """The notebook path a launch's redirect opens in JupyterLab (`/hub/spawn?next=/user/NAME/lab/tree/PATH`)."""
    from urllib.parse import parse_qs, unquote

    location = urlparse(answer.headers["Location"])
    assert location.path == "/hub/spawn", answer.headers["Location"]
    return unquote(parse_qs(location.query)["next"][0])


def test_a_launch_from_a_deep_linked_lab_or_module_test_opens_that_notebook_fetched_through_the_exchange(
        hub, lms, browser):
    from hub_server import CLASS_LAB, instructor

    lab_link, quiz_link = deep_link(hub, lms, CLASS_LAB), deep_link(hub, lms, QUIZ)
    assert next(li for li in lms.lineitems.values() if li["resourceLinkId"] == quiz_link)["scoreMaximum"] == 15
    _, early = launch(hub, lms, "u-eve", link=lab_link)           # not released yet: said so, nothing fetched
    assert early.status_code == 404 and f"{CLASS_LAB} has not been released to the class yet" in html.unescape(early.text)
    assert not (hub.home("eve") / CLASS_LAB).exists()
    instructor(hub, "autograder", "generate", CLASS_LAB)
    for lab in (CLASS_LAB, QUIZ):
        instructor(hub, "nbgrader", "release_assignment", lab)
    outbound = hub.data / "exchange" / "llm-train-vs-infer" / "outbound"

    context = browser.new_context()             # eve clicks the lab's assignment in the LMS
    page = context.new_page()
    page.set_default_timeout(240_000)
    page.goto(f"{lms.url}/link/{lab_link}/u-eve")
    page.wait_for_url(re.compile(rf"/user/{re.escape(hub.users['eve'])}/lab/tree/{CLASS_LAB}/{CLASS_LAB}\.ipynb"))
    page.locator(".jp-NotebookPanel-toolbar").first.wait_for()
    page.locator(".lm-TabBar-tab.jp-mod-current", has_text=f"{CLASS_LAB}.ipynb").wait_for()
    context.close()
    mine = hub.home("eve") / CLASS_LAB / f"{CLASS_LAB}.ipynb"
    assert mine.read_bytes() == (outbound / CLASS_LAB / f"{CLASS_LAB}.ipynb").read_bytes()
    assert mine.stat().st_uid == __import__("pwd").getpwnam(hub.users["eve"]).pw_uid      # fetched as eve

    # her work is kept: a second launch opens her copy, it fetches nothing over it
    nb = json.loads(mine.read_text())
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "eve's own notes"})
    mine.write_text(json.dumps(nb))
    _, again = launch(hub, lms, "u-eve", link=lab_link)
    assert opened(again) == f"/user/{hub.users['eve']}/lab/tree/{CLASS_LAB}/{CLASS_LAB}.ipynb"
    assert "eve's own notes" in mine.read_text()

    _, quiz = launch(hub, lms, "u-ada", link=quiz_link)           # the module test, for ada (in the roster)
    assert opened(quiz) == f"/user/{hub.users['ada']}/lab/tree/{QUIZ}/{QUIZ}.ipynb", quiz.text[:500]
    fetched = hub.home("ada") / QUIZ / f"{QUIZ}.ipynb"
    assert fetched.read_bytes() == (outbound / QUIZ / f"{QUIZ}.ipynb").read_bytes()
    _, teacher = launch(hub, lms, "u-ted", link=quiz_link)        # the instructor: the source, nothing fetched
    assert opened(teacher) == f"/user/{hub.users['ted']}/lab/tree/solutions/{QUIZ}"
    assert not (hub.home("ted") / QUIZ).exists()
    _, bad = launch(hub, lms, "u-eve", edit=edit_claims(**{LTI + "custom": {"username": hub.users["eve"], "lab": "../x"}}))
    assert bad.status_code == 400 and "no assignment id of the course" in html.unescape(bad.text)


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
from coursekit.app.hub.lti import keys
from coursekit.app.hub.lti.client import LmsClient, LmsError
from coursekit.app.hub.lti.platform import load_platform

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
