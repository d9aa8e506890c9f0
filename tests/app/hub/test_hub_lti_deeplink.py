"""Assignments by Deep Linking, through the real hub and proxy (tests/lti_hub.py): an instructor picks a lab
or a graded module test in the LMS's external-tool dialog and the LMS gets its resource link and line
item; a student's launch from that assignment opens that notebook in their own server (in Chromium),
fetched for them through nbgrader's exchange; a student cannot open the dialog.
"""
from __future__ import annotations

import html
import json
import re
from urllib.parse import urlparse

import pytest
import requests

from lms_emulator import LTI
from lti_hub import edit_claims, hub, launch, lms  # noqa: F401 (fixtures: one hub for this file)
from quiz_course import QUIZ

pytestmark = pytest.mark.slow


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
    for lab in (CLASS_LAB, QUIZ):                # generate first: a release the gradebook does not know is refused
        instructor(hub, "autograder", "generate", lab)
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
