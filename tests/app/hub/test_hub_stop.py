"""A class's own hub, for what ends its day: the instructor grading from a shell of their own (as over
ssh, without the JupyterLab server's environment), then `course hub stop` ending the class.

Its own hub (not the shared class hub of tests/app/hub/test_hub.py): the last test stops it for good.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from hub_server import RunningHub, class_course, kill_user_processes, make_hub, own_pids
from waiting import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def class_hub(tmp_path_factory):
    running = make_hub(["ada", "ben"], class_course(tmp_path_factory.mktemp("stop-course")))
    try:
        running.start()
        yield running
    finally:
        running.cleanup()


def login_shell(hub: RunningHub, name: str, script: str) -> subprocess.CompletedProcess:
    """A login shell as that person, with nothing of the server's environment (what ssh gives)."""
    return subprocess.run(["runuser", "-l", hub.users[name], "-c", script], capture_output=True, text=True,
                          timeout=300)


def test_the_instructor_grades_from_a_shell_of_their_own(class_hub):
    done = login_shell(class_hub, "prof", "cd ~/course && autograder generate toy-pipeline "
                                          "&& nbgrader release_assignment toy-pipeline "
                                          "&& autograder grade toy-pipeline --no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    # released into the class's exchange (the profile's lines), and a student's ssh shell lists it there
    assert (class_hub.data / "exchange" / "llm-train-vs-infer" / "outbound" / "toy-pipeline").is_dir()
    listed = login_shell(class_hub, "ada", "nbgrader list")
    assert listed.returncode == 0 and "llm-train-vs-infer toy-pipeline" in listed.stderr, listed.stderr
    assert "Traceback" not in done.stderr, done.stderr
    # the class's secret, the one JupyterLab's terminal grades with: the same hidden cases either way
    secret = class_hub.home("prof") / "course" / "instructor-secret"
    assert secret.read_text() == (class_hub.data / "instructor-secret").read_text()
    assert oct(secret.stat().st_mode & 0o777) == "0o600"
    # outside any course folder: one line saying what to do, no traceback
    lost = login_shell(class_hub, "prof", "cd / && autograder grade toy-pipeline")
    assert lost.returncode == 2 and "Traceback" not in lost.stderr, lost.stderr
    assert len(lost.stderr.strip().splitlines()) == 1 and "--root" in lost.stderr, lost.stderr
    # students' shells find `course` too
    assert login_shell(class_hub, "ada", "course progress").returncode == 0


def test_course_hub_stop_ends_the_class(class_hub):
    for name in ("prof", "ada", "ben"):
        class_hub.start_server(name)
    # by the way: a class server has the course's JupyterLab defaults, as `course start` (no news pop-up)
    settings = requests.get(f"{class_hub.url}/user/{class_hub.users['ada']}/lab/api/settings/"
                            "@jupyterlab/apputils-extension:notification",
                            headers={"Authorization": f"token {class_hub.user_token('ada')}"}, timeout=60)
    assert settings.json()["schema"]["properties"]["fetchNews"]["default"] == "false", settings.text[:500]
    hub_process = class_hub.process
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "stop", "--data", str(class_hub.data)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stopped 3 server(s)" in done.stdout and "the class is stopped" in done.stdout, done.stdout
    assert "killed" not in done.stdout, done.stdout       # the hub stopped on its own once asked
    wait_for(lambda: hub_process.poll() is not None, 30, "the hub's process to be reaped")
    for name in ("prof", "ada", "ben"):
        assert own_pids(class_hub, name) == [], f"{name}'s server still runs"
    with pytest.raises(requests.ConnectionError):        # the proxy is gone: nothing serves the class's address
        requests.get(class_hub.url, timeout=5)
    log = class_hub.log.read_text()
    assert "Traceback" not in log and "AttributeError" not in log, class_hub.log_tail()
    assert "404 GET /services/tutor" not in log, class_hub.log_tail()     # the hub's check finds the tutor
    # asked through the API, which ends the hub's periodic checks before its clean-up (coursekit/app/hub/stop.py)
    assert "202 POST /hub/api/shutdown" in log, class_hub.log_tail()
    again = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "stop", "--data", str(class_hub.data)],
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "no hub is running" in again.stdout, again.stdout + again.stderr
    for username in class_hub.users.values():
        kill_user_processes(username)


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children_of(parent: int) -> dict[int, str]:
    """pid -> command line of the live children of `parent`."""
    found = {}
    for entry in Path("/proc").iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else None
        if fields and int(fields[1]) == parent and fields[0] != "Z":
            try:
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                pass
    return found


def test_a_killed_hub_takes_its_services_and_proxy_with_it(class_hub):
    """However the hub ends (here SIGKILL: no clean-up of its own), nothing it started for itself outlives it
    (coursekit/app/hub/bound.py); a proxy and an idle culler once ran on for hours after theirs."""
    class_hub.stop_hub()                          # stopped already by the test before, unless run alone
    class_hub.start()
    hub_pid = class_hub.process.pid               # `course hub` execs JupyterHub: the same process
    kinds = ("configurable-http-proxy", "jupyterhub_idle_culler", "tutor_service", "hub.leaderboard")
    started = wait_for(lambda: (lambda c: c if all(any(k in line for line in c.values()) for k in kinds) else None)(
        children_of(hub_pid)), 120, "the hub's proxy and services")
    os.kill(hub_pid, signal.SIGKILL)
    class_hub.process.wait(timeout=30)
    wait_for(lambda: all((_stat(pid) or ["Z"])[0] == "Z" for pid in started), 60,
             f"the hub's children to end with it: {started}")
