"""A real `course hub` (JupyterHub + configurable-http-proxy) on loopback, for the hub tests and benchmark.

Its Unix accounts are made for the run with a unique prefix (`cth<hex>-`), and removed at the end with
their processes and the data folder; nothing of the machine's own users is touched.

tests/app/hub/test_hub.py and tests/app/hub/test_hub_browser.py share one class hub (the `hub` session fixture in
conftest.py, serving `class_course`); only the class day (tests/app/hub/test_hub_browser.py) releases,
collects and grades CLASS_LAB there.
"""
from __future__ import annotations

import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import requests

from conftest import ROOT, free_port
from coursekit.app.hub.classroom import Layout
from coursekit.app.hub.config import server_environment
from waiting import wait_for

PASSWORD = "class-password-1"
PIPELINE = ROOT / "tests" / "fixtures" / "pipeline"
CLASS_LAB = "toy-pipeline"      # the class day in Chromium (tests/app/hub/test_hub_browser.py)
STUDENTS = ("ada", "ben", "cai", "mallory")
ANSWERS = {   # student -> function bodies (None: left blank)
    "ada": {"impl_add": "return a + b", "impl_scale": "return [x * k for x in xs]", "impl_mean": "return sum(xs) / len(xs)"},
    "ben": {"impl_add": "return a - b", "impl_scale": "return [x * k for x in xs]", "impl_mean": "return sum(xs) / len(xs)"},
    "cai": None,
}
EXPECTED = {"ada": 6.0, "ben": 5.0, "cai": 0.0}     # points: add 1, scale 2, mean 3


@dataclass
class RunningHub:
    url: str
    data: Path
    roster: Path
    course: Path
    users: dict[str, str]          # short name (ada) -> Unix username (cth1a2b-ada)
    command: list[str]
    env: dict
    process: subprocess.Popen | None = None
    log: Path | None = None
    sessions: dict = field(default_factory=dict)
    cleaned: bool = False

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self, timeout: float = 300) -> None:
        """Start `course hub` and wait until its API answers. The environment is byte-compiled at set-up
        (coursekit/app/precompile.py), so this is accounts and the proxy: under a minute alone, several
        on a 2-core machine at load 8-10, which this budget allows."""
        self.log = self.data.parent / "hub.log"
        with open(self.log, "a") as handle:
            self.process = subprocess.Popen(self.command, env=self.env, stdout=handle, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        wait_for(self._up, timeout, f"the hub at {self.url} (log: {self.log})")

    def _up(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(f"course hub exited {self.process.returncode}:\n{self.log.read_text()[-4000:]}")
        try:
            return requests.get(f"{self.url}/hub/api/", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    def stop_hub(self) -> None:
        """SIGTERM to the hub only: with cleanup_servers off, students' servers keep running."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def log_tail(self, chars: int = 4000) -> str:
        return f"hub log ({self.log}):\n" + self.log.read_text()[-chars:]

    # -- REST API ------------------------------------------------------------------------------
    @property
    def admin_token(self) -> str:
        return (self.data / "admin-token").read_text().strip()

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"token {self.admin_token}"}
        return requests.request(method, f"{self.url}/hub/api/{path.lstrip('/')}", headers=headers, timeout=30, **kwargs)

    def login(self, name: str, password: str = PASSWORD) -> requests.Session:
        """The login form, through the proxy, as a browser would (first login sets the password)."""
        session = requests.Session()
        page = session.get(f"{self.url}/hub/login", timeout=30)
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text)
        data = {"username": self.users[name], "password": password}
        if xsrf:
            data["_xsrf"] = xsrf.group(1)
        answer = session.post(f"{self.url}/hub/login?next=", data=data, allow_redirects=False, timeout=30)
        if answer.status_code != 302:
            raise PermissionError(f"login of {name} refused ({answer.status_code})")
        self.sessions[name] = session
        return session

    def user_token(self, name: str) -> str:
        answer = self.api("POST", f"users/{self.users[name]}/tokens", json={"note": "tests", "expires_in": 3600})
        answer.raise_for_status()
        return answer.json()["token"]

    def start_server(self, name: str, timeout: float = 180) -> dict:
        username = self.users[name]
        answer = self.api("POST", f"users/{username}/server")
        if answer.status_code not in (201, 202, 400):    # 400: already running
            raise RuntimeError(f"starting {username}'s server: {answer.status_code} {answer.text}\n{self.log_tail()}")
        try:
            return wait_for(lambda: self.server(name) if (self.server(name) or {}).get("ready") else None,
                            timeout, f"{username}'s server to be ready")
        except TimeoutError as error:
            raise TimeoutError(f"{error}\n{self.log_tail()}") from None

    def server(self, name: str) -> dict | None:
        model = self.api("GET", f"users/{self.users[name]}").json()
        return (model.get("servers") or {}).get("")

    def server_api(self, name: str, token: str, method: str, path: str, **kwargs) -> requests.Response:
        """A call to a user's own JupyterLab server, through the proxy."""
        return requests.request(method, f"{self.url}/user/{self.users[name]}/api/{path.lstrip('/')}",
                                headers={"Authorization": f"token {token}"}, timeout=60, **kwargs)

    # -- as a person on the machine ------------------------------------------------------------
    def home(self, name: str) -> Path:
        return Path(pwd.getpwnam(self.users[name]).pw_dir)

    def as_user(self, name: str, *command: str, cwd: Path | None = None, env: dict | None = None,
                timeout: float = 300) -> subprocess.CompletedProcess:
        """Run a command as that person (what they would type in their JupyterLab terminal)."""
        home = self.home(name)
        base = {"HOME": str(home), "USER": self.users[name], "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
                "JUPYTER_CONFIG_PATH": str(self.data / "jupyter-config"), "COURSE_ROOT": str(ROOT)}
        full_env = {**base, **(env or {})}
        return subprocess.run(["runuser", "-u", self.users[name], "--", "env", "-i",
                               *[f"{k}={v}" for k, v in full_env.items()], *command],
                              cwd=cwd or home, capture_output=True, text=True, timeout=timeout)

    def cleanup(self) -> None:
        """Stop everything and remove the accounts; a second call does nothing."""
        if self.cleaned:
            return
        self.cleaned = True
        for name, username in self.users.items():
            try:
                self.api("DELETE", f"users/{username}/server")
            except (requests.RequestException, OSError):    # a hub that never came up has no admin token
                pass
        self.stop_hub()
        for username in self.users.values():
            kill_user_processes(username)
            subprocess.run(["userdel", username], capture_output=True)
        shutil.rmtree(self.data.parent, ignore_errors=True)


def kill_user_processes(username: str) -> None:
    found = subprocess.run(["ps", "-u", username, "-o", "pid="], capture_output=True, text=True).stdout.split()
    for pid in found:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def make_hub(students: list[str], course: Path, instructor: str = "prof", options: tuple[str, ...] = ()) -> RunningHub:
    """Write a roster with prefixed names and prepare (not start) a hub serving `course`, started with
    `course hub`'s own options plus `options`."""
    prefix = f"cth{secrets.token_hex(2)}-"
    users = {instructor: prefix + instructor, **{s: prefix + s for s in students}}
    base = Path(tempfile.mkdtemp(prefix="course-hub-", dir="/tmp"))
    os.chmod(base, 0o711)           # homes inside must be reachable by their owners
    roster = base / "roster.csv"
    roster.write_text("username,role,name\n" + f"{users[instructor]},instructor,Prof\n"
                      + "".join(f"{users[s]},student,{s.title()}\n" for s in students))
    port = free_port()
    command = [sys.executable, "-m", "coursekit.app.cli", "hub", "--roster", str(roster), "--data", str(base / "data"),
               "--course", str(course), "--port", str(port), "--hub-port", str(free_port()),
               "--proxy-api-port", str(free_port()), *options]
    env = dict(os.environ, COURSE_QUICK="1")
    return RunningHub(f"http://127.0.0.1:{port}", base / "data", roster, course, users, command, env)


def class_course(course: Path) -> Path:
    """The instructor's course for the shared hub: the pipeline tests' toy lab as CLASS_LAB."""
    shutil.copytree(PIPELINE / "solutions", course / "solutions")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    # what an instructor keeps beside a solution: never released (tests/app/hub/test_hub_browser.py looks)
    (course / "solutions" / CLASS_LAB / "notes.txt").write_text("hidden cases: see the spec\n")
    return course


def instructor(hub: RunningHub, *command: str) -> str:
    """What the instructor types in their JupyterLab terminal (same environment as their server)."""
    env, folder = server_environment(Layout(hub.data), hub.users["prof"], instructor=True)
    done = hub.as_user("prof", *command, cwd=Path(folder), env=env)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def fill_answers(nb, name: str) -> None:
    """The student's answers (ANSWERS) typed into their notebook's solution cells."""
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if ANSWERS[name] and grade_id in ANSWERS[name]:
            cell.source = f"{cell.source.splitlines()[0]}\n    {ANSWERS[name][grade_id]}"


def own_pids(hub: RunningHub, name: str) -> list[int]:
    """Pids of the person's own JupyterLab server (jupyterhub-singleuser running as their account)."""
    out = subprocess.run(["ps", "-ww", "-u", hub.users[name], "-o", "pid=,args="], capture_output=True,
                         text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if "jupyterhub-singleuser" in line]


def submission_files(hub: RunningHub) -> list[str]:
    inbound = hub.data / "exchange" / "llm-train-vs-infer" / "inbound"
    return sorted(str(p.relative_to(inbound)) for p in inbound.rglob("*"))


def gradebook_totals(hub: RunningHub, lab: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{hub.home('prof') / 'course' / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        return {s.student.id: s.score for s in gb.assignment_submissions(lab)}
