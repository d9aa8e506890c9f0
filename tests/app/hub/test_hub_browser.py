"""A class day on `course hub`, in headless Chromium: an instructor and three students at once.

The instructor releases the toy lab through nbgrader's exchange; each student logs in, fetches it from
JupyterLab's Assignments panel, answers (right, partly right, blank) and submits there; the instructor
collects, runs `autograder grade`, and releases feedback; each student fetches their own feedback.
A fourth student tries to read another's submission and is refused. Then, mid-class, the hub goes
down and comes back: accounts, passwords, the running servers, every submission and grade are kept,
and a student can still submit.
"""
from __future__ import annotations

import json
import re

import nbformat
import pytest
import requests

from hub_server import (ANSWERS, CLASS_LAB as LAB, EXPECTED, PASSWORD, fill_answers, gradebook_totals, instructor,
                        own_pids, submission_files)
from waiting import wait_for

# `hub`: the class hub shared with tests/app/hub/test_hub.py (conftest.py); only this class day releases a lab
# there, and it clicks the buttons on LAB's own row of the Assignments panel all the same.


def log_in(browser, hub, name: str):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", hub.users[name])
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit")
    page.wait_for_url(re.compile(rf"/user/{re.escape(hub.users[name])}/lab"), timeout=240_000)
    page.wait_for_selector(".jp-LauncherCard, .jp-Launcher", timeout=240_000)
    return page


def formgrader_scores(hub) -> dict[str, float]:
    """LAB's scores as the instructor's formgrader lists them, through the hub's proxy."""
    listed = requests.get(f"{hub.url}/user/{hub.users['prof']}/formgrader/api/submissions/{LAB}",
                          headers={"Authorization": f"token {hub.user_token('prof')}"}, timeout=60)
    assert listed.status_code == 200, listed.text
    return {row["student"]: row["score"] for row in listed.json()}


def restart_mid_class(hub) -> None:
    """The hub goes down and comes back (SIGTERM; students' servers are not stopped with it)."""
    users = sorted(u["name"] for u in hub.api("GET", "users").json())
    servers = {name: own_pids(hub, name) for name in ("prof", *ANSWERS)}
    assert all(servers.values()), servers
    submissions, grades = submission_files(hub), gradebook_totals(hub, LAB)
    ben = hub.user_token("ben")
    hub.stop_hub()
    hub.start()
    assert sorted(u["name"] for u in hub.api("GET", "users").json()) == users
    assert {name: own_pids(hub, name) for name in servers} == servers       # the same servers kept running
    assert hub.server_api("ben", ben, "GET", "status").status_code == 200   # and are routed again
    assert submission_files(hub) == submissions and gradebook_totals(hub, LAB) == grades
    assert formgrader_scores(hub) == grades                                  # the instructor's view too
    hub.login("ben")                                          # the password set before the restart
    with pytest.raises(PermissionError):
        hub.login("ben", password="not-bens-password")
    # the class carries on: a submission made after the restart arrives beside the earlier ones
    assert hub.as_user("ada", "nbgrader", "submit", LAB).returncode == 0
    after = [f for f in submission_files(hub) if f.endswith(f"{LAB}.ipynb")]
    assert len(after) == len([f for f in submissions if f.endswith(f"{LAB}.ipynb")]) + 1


def open_assignments(page):
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    return page.locator("#nbgrader-assignment-list")


def lab_button(page, listing: str, text: str):
    """The `text` button on LAB's row of one list of the Assignments panel (not on another lab's)."""
    row = page.locator(f"#nbgrader-assignment-list #{listing} .list_item:not(.nested_list_item)", has_text=LAB)
    return row.locator("button", has_text=text)


def answer(hub, name: str, token: str) -> None:
    """Save the student's answers into their fetched notebook (what typing in the editor and saving does)."""
    path = f"{LAB}/{LAB}.ipynb"
    model = hub.server_api(name, token, "GET", f"contents/{path}").json()
    nb = nbformat.from_dict(model["content"])
    fill_answers(nb, name)
    saved = hub.server_api(name, token, "PUT", f"contents/{path}",
                           json={"type": "notebook", "format": "json", "content": json.loads(nbformat.writes(nb))})
    assert saved.status_code == 200, saved.text


@pytest.mark.slow
@pytest.mark.browser
def test_a_class_day_instructor_and_three_students_at_once_through_a_hub_restart(hub, browser, artifacts_dir):
    instructor(hub, "autograder", "generate", LAB)
    instructor(hub, "nbgrader", "release_assignment", LAB)
    # the exchange gets the release allowlist only: not the notes beside the solution (tests/hub_server.py)
    outbound = hub.data / "exchange" / "llm-train-vs-infer" / "outbound" / LAB
    assert sorted(p.name for p in outbound.rglob("*")) == sorted([f"{LAB}.ipynb", f"{LAB}.checks.json"])
    hub.login("prof")
    hub.api("POST", f"users/{hub.users['prof']}/server")     # the instructor's JupyterLab, for the formgrader
    pages = {}
    try:
        for name in ANSWERS:                     # three students logged in at the same time
            hub.login(name)                      # first login sets the password; the browser logs in again
            pages[name] = log_in(browser, hub, name)
        for name, page in pages.items():
            open_assignments(page)
            lab_button(page, "released_assignments_list", "Fetch").click()
            lab_button(page, "fetched_assignments_list", "Submit").wait_for()
            assert (hub.home(name) / LAB / f"{LAB}.ipynb").exists()
        for name, page in pages.items():
            answer(hub, name, hub.user_token(name))
            lab_button(page, "fetched_assignments_list", "Submit").click()
            lab_button(page, "submitted_assignments_list", "Fetch Feedback").wait_for()

        instructor(hub, "nbgrader", "collect", LAB)
        graded = instructor(hub, "autograder", "grade", LAB, "--no-progress")
        instructor(hub, "autograder", "feedback", LAB)
        instructor(hub, "nbgrader", "release_feedback", LAB)

        # the grades autograder wrote are the ones the instructor's formgrader shows
        hub.start_server("prof")
        scores = formgrader_scores(hub)
        assert scores == {hub.users[n]: EXPECTED[n] for n in ANSWERS}, (scores, graded)
        assert gradebook_totals(hub, LAB) == scores

        for name, page in pages.items():
            page.reload()
            open_assignments(page)
            lab_button(page, "submitted_assignments_list", "Fetch Feedback").click()
            feedback = wait_for(lambda: sorted((hub.home(name) / LAB / "feedback").glob(f"*/{LAB}.html")), 60,
                                f"{name}'s feedback")
            text = feedback[-1].read_text()
            assert f"Score: {EXPECTED[name]:.1f} / 6.0" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)) \
                or f"{EXPECTED[name]:g} / 6" in text, f"{name}'s feedback lacks their score"
            # only their own: no other student's feedback came to them
            assert len(list((hub.home(name) / LAB / "feedback").glob("*/*.html"))) == 1
    finally:
        for name, page in pages.items():
            page.screenshot(path=str(artifacts_dir / f"hub-{name}.png"))
            page.context.close()

    # the fourth student: the exchange's inbound cannot be listed, and ada's copy is in her private home
    inbound = hub.data / "exchange" / "llm-train-vs-infer" / "inbound"
    refused = hub.as_user("mallory", "ls", str(inbound))
    assert refused.returncode != 0 and "Permission denied" in refused.stderr
    refused = hub.as_user("mallory", "cat", str(hub.home("ada") / LAB / f"{LAB}.ipynb"))
    assert refused.returncode != 0 and "Permission denied" in refused.stderr
    refused = hub.as_user("mallory", "nbgrader", "collect", LAB)
    assert "llm-train-vs-infer" not in refused.stdout or refused.returncode != 0

    restart_mid_class(hub)
