"""`course hub`: the roster, one Unix account and one JupyterLab per person, private homes, restarts.

The hub tests run the real JupyterHub and configurable-http-proxy on loopback as root (they create
accounts named cth<hex>-*, removed at the end; see tests/hub_server.py).
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from coursekit.app.hub.roster import RosterError, load_roster
from hub_server import own_pids


# -- the roster -----------------------------------------------------------------------------------

def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(text)
    return path


def test_roster_loads_instructors_and_students(tmp_path):
    roster = load_roster(write(tmp_path, "username,role,name\nprof,instructor,P\nada,student,Ada\n\nben,Student,\n"))
    assert roster.instructors == ["prof"] and roster.students == ["ada", "ben"]


@pytest.mark.parametrize("text, message", [
    ("username,role\nprof,instructor\nada,student\nada,student\n", ":4: duplicate username 'ada' (first on line 3)"),
    ("username,role\nprof,instructor\nAda Lovelace,student\n", ":3: invalid username 'Ada Lovelace'"),
    ("username,role\nprof,instructor\n../etc,student\n", ":3: invalid username '../etc'"),
    ("username,role\nprof,teacher\n", ":2: role 'teacher' for 'prof' must be one of instructor, student"),
    ("username,role\nprof,instructor,extra\n", ":2: expected 2 columns, found 3"),
    ("name,email\nprof,p@x\n", ":1: the header must name the columns username and role"),
    ("username,role\nada,student\n", ": no instructor"),
])
def test_bad_roster_is_refused_with_the_line_named(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(RosterError) as error:
        load_roster(path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)


def test_course_hub_refuses_a_bad_roster_before_touching_anything(tmp_path):
    path = write(tmp_path, "username,role\nprof,instructor\nzed-one,student\nzed-one,student\n")
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "--roster", str(path),
                           "--data", str(tmp_path / "data")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"{path}:4: duplicate username 'zed-one'" in done.stderr
    assert not (tmp_path / "data").exists()
    assert subprocess.run(["id", "zed-one"], capture_output=True).returncode != 0   # no account made


# -- a running hub ----------------------------------------------------------------------------------
# `hub`: the class hub these tests share with tests/app/hub/test_hub_browser.py (conftest.py, tests/hub_server.py).


@pytest.mark.slow
def test_each_person_gets_their_own_server_as_their_own_user(hub):
    hub.login("ada")
    hub.login("mallory")
    for name in ("ada", "mallory"):
        hub.start_server(name)
        home = hub.home(name)
        mode = home.stat()
        assert stat.S_IMODE(mode.st_mode) == 0o700 and mode.st_uid == hub_uid(hub, name)
    ada_token, mallory_token = hub.user_token("ada"), hub.user_token("mallory")
    saved = hub.server_api("ada", ada_token, "PUT", "contents/notes.txt",
                           json={"type": "file", "format": "text", "content": "ada's notes"})
    assert saved.status_code in (200, 201), saved.text
    notes = hub.home("ada") / "notes.txt"
    assert notes.read_text() == "ada's notes" and notes.stat().st_uid == hub_uid(hub, "ada")
    # through the hub: mallory's token does not open ada's server
    assert hub.server_api("ada", mallory_token, "GET", "contents/notes.txt").status_code == 403
    # on the machine: mallory cannot read or write in ada's home, nor in the instructor's
    refused = hub.as_user("mallory", "cat", str(notes))
    assert refused.returncode != 0 and "Permission denied" in refused.stderr
    refused = hub.as_user("mallory", "touch", str(hub.home("ada") / "planted"))
    assert refused.returncode != 0 and "Permission denied" in refused.stderr
    refused = hub.as_user("mallory", "ls", str(hub.home("prof") / "course" / "solutions"))
    assert refused.returncode != 0 and "Permission denied" in refused.stderr


def hub_uid(hub, name: str) -> int:
    import pwd

    return pwd.getpwnam(hub.users[name]).pw_uid


@pytest.mark.slow
def test_a_dead_student_server_is_restarted_with_the_files_kept(hub):
    import signal

    from waiting import wait_for

    session = hub.sessions.get("ada") or hub.login("ada")
    hub.start_server("ada")
    token = hub.user_token("ada")
    hub.server_api("ada", token, "PUT", "contents/kept.txt", json={"type": "file", "format": "text", "content": "kept"})
    for pid in own_pids(hub, "ada"):
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: hub.server("ada") is None, 60, "the hub to notice ada's server died")
    session.get(f"{hub.url}/hub/spawn", timeout=60)           # ada's next visit: the hub starts a new one
    wait_for(lambda: (hub.server("ada") or {}).get("ready"), 180, "ada's new server")
    assert own_pids(hub, "ada")
    assert hub.server_api("ada", token, "GET", "contents/kept.txt").json()["content"] == "kept"


@pytest.mark.slow
def test_progress_is_per_student_in_their_own_home(hub):
    record = "from coursekit import progress; progress.record_lab_check('lab1-roofline', 3, 4)"
    assert hub.as_user("cai", "python", "-c", record).returncode == 0
    cai = hub.as_user("cai", "course", "progress")
    mallory = hub.as_user("mallory", "course", "progress")
    assert cai.returncode == 0 and mallory.returncode == 0, (cai.stderr, mallory.stderr)
    assert str(hub.home("cai") / ".local/share/llm-course/progress.json") in cai.stdout
    assert "3 of 4 tasks pass their visible tests" in lab_line(cai.stdout, "lab1-roofline")    # in cai's store only
    assert "not started" in lab_line(mallory.stdout, "lab1-roofline")
    assert str(hub.home("mallory")) in mallory.stdout


def lab_line(progress: str, lab: str) -> str:
    """The lab's row of `course progress` (which lists every lab, started or not)."""
    return next(line for line in progress.splitlines() if f"({lab})" in line)


# -- idle servers and kernels are stopped, files kept ------------------------------------------------

CULL_TEST_TIMEOUT = 10      # seconds: `course hub --cull-timeout` (default an hour)


@pytest.fixture
def culling_hub(tmp_path):
    """A hub of its own with a 10 s cull timeout (the shared class hub keeps the default hour)."""
    from hub_server import make_hub

    (tmp_path / "course").mkdir()
    running = make_hub(["dee"], tmp_path / "course", options=("--cull-timeout", str(CULL_TEST_TIMEOUT)))
    try:
        running.start()
        yield running
    finally:
        running.cleanup()


@pytest.mark.slow
def test_idle_kernels_then_idle_servers_are_stopped_and_come_back_with_the_files(culling_hub):
    from waiting import wait_for

    hub = culling_hub
    session = hub.login("dee")
    hub.start_server("dee")
    token = hub.user_token("dee")
    saved = hub.server_api("dee", token, "PUT", "contents/work.txt",
                           json={"type": "file", "format": "text", "content": "dee's work"})
    assert saved.status_code in (200, 201), saved.text
    kernel = hub.server_api("dee", token, "POST", "kernels", json={"name": "python3"}).json()["id"]

    def kernels() -> list:       # a request through the proxy: it also keeps the server active
        answer = hub.server_api("dee", token, "GET", "kernels")
        assert answer.status_code == 200, f"dee's server is gone before its idle kernel: {answer.status_code}"
        return answer.json()

    wait_for(lambda: kernel not in {k["id"] for k in kernels()}, 120, "the server to cull dee's idle kernel")
    assert (hub.server("dee") or {}).get("ready"), "dee's server stopped while in use"
    # nobody uses the server now: the hub's idle culler stops it, and every process of dee's with it
    wait_for(lambda: hub.server("dee") is None, 120, "the idle culler to stop dee's server")
    wait_for(lambda: not user_processes(hub, "dee"), 60, "dee's server and kernel processes to exit")
    assert "Culling server" in hub.log.read_text(), hub.log_tail()
    # dee comes back: a new server, the same files
    session.get(f"{hub.url}/hub/spawn", timeout=60)
    wait_for(lambda: (hub.server("dee") or {}).get("ready"), 180, "dee's new server")
    assert hub.server_api("dee", token, "GET", "contents/work.txt").json()["content"] == "dee's work"


def user_processes(hub, name: str) -> list[str]:
    return subprocess.run(["ps", "-u", hub.users[name], "-o", "pid=,args="], capture_output=True,
                          text=True).stdout.splitlines()


# -- a student's server runs what students use, nothing more ----------------------------------------

@pytest.mark.slow
def test_a_student_server_keeps_the_assignments_and_widgets_and_drops_what_students_never_use(hub):
    import json
    import re

    from coursekit.app.hub.classroom import COURSE_ID, STUDENT_LAB_PLUGINS_OFF

    import requests

    hub.start_server("ada")
    token = hub.user_token("ada")

    def get(path: str, **kwargs) -> requests.Response:       # what ada's browser asks her server
        return requests.get(f"{hub.url}/user/{hub.users['ada']}/{path}", headers={"Authorization": f"token {token}"},
                            timeout=60, **kwargs)

    listed = get("assignments", params={"course_id": COURSE_ID})
    assert listed.status_code == 200 and listed.json()["success"], listed.text[:300]    # the Assignments panel
    for gone in ("formgrader", "lsp/status", "tree"):      # instructor tools, language servers, Notebook 7
        assert get(gone).status_code == 404, gone
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  get("lab").text, re.S).group(1))
    assert set(STUDENT_LAB_PLUGINS_OFF) <= set(config["disabledExtensions"])
    shipped = {extension["name"] for extension in config["federated_extensions"]}
    assert {"@jupyter-widgets/jupyterlab-manager", "@jupyter/nbgrader"} <= shipped      # quizzes' widgets, nbgrader
    assert not {"@jupyter-widgets/jupyterlab-manager", "@jupyter/nbgrader"} & set(config["disabledExtensions"])


# -- the class's leaderboards --------------------------------------------------------------------

@pytest.mark.slow
def test_a_published_leaderboard_is_on_the_hub_for_everyone_logged_in_and_only_an_instructors_page(hub):
    import pwd

    import requests

    from coursekit.app.hub.classroom import COURSE_ID
    from hub_server import CLASS_LAB, instructor

    shown = instructor(hub, "autograder", "leaderboard", CLASS_LAB, "--rerun", "0", "--publish", "--no-progress")
    assert f"the class sees it on the hub at /services/leaderboard/{CLASS_LAB}" in shown, shown
    folder = hub.data / "exchange" / COURSE_ID / "leaderboard"
    assert (folder / f"{CLASS_LAB}.html").stat().st_uid == hub_uid(hub, "prof")

    ada = hub.login("ada")
    home = ada.get(f"{hub.url}/hub/home", timeout=60)
    assert "/services/leaderboard" in home.text              # in the menu's Services list
    listed = ada.get(f"{hub.url}/services/leaderboard/", timeout=60)      # through the hub's OAuth
    assert listed.status_code == 200 and f'href="/services/leaderboard/{CLASS_LAB}"' in listed.text, listed.text[:500]
    assert 'href="/hub/home">Back to the hub' in listed.text
    page = ada.get(f"{hub.url}/services/leaderboard/{CLASS_LAB}", timeout=60)
    assert page.status_code == 200 and f"{CLASS_LAB} leaderboard" in page.text
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]

    # not logged in: the hub's login page, not the board
    stranger = requests.get(f"{hub.url}/services/leaderboard/{CLASS_LAB}", timeout=60)
    assert "/hub/login" in stranger.url and f"{CLASS_LAB} leaderboard" not in stranger.text

    # mallory cannot write into the instructor's folder; a page that is not an instructor's is not shown
    planted = hub.as_user("mallory", "touch", str(folder / "fake.html"))
    assert planted.returncode != 0 and "Permission denied" in planted.stderr
    mallory = pwd.getpwnam(hub.users["mallory"])
    (folder / "fake.html").write_text("<h1>fake leaderboard</h1>")
    os.chown(folder / "fake.html", mallory.pw_uid, mallory.pw_gid)
    try:
        assert ada.get(f"{hub.url}/services/leaderboard/fake", timeout=60).status_code == 404
        assert "fake" not in ada.get(f"{hub.url}/services/leaderboard/", timeout=60).text
    finally:
        (folder / "fake.html").unlink()
