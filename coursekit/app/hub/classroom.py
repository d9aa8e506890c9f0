"""The hub's data folder, and preparing it from a roster: accounts, homes, the nbgrader exchange.

    <data>/hub.json                 settings `course hub` was started with (read by jupyterhub_config.py)
    <data>/jupyterhub.sqlite        users, servers, tokens (JupyterHub's database)
    <data>/passwords.dbm            first-login passwords (FirstUseAuthenticator, hashed)
    <data>/exchange/                nbgrader's exchange: the only folder everyone shares
    <data>/jupyter-config/          what every server reads: nbgrader_config.py (exchange root, course id),
                                    jupyter_server_config.json (idle kernels culled)
    <data>/jupyter-config/student/  students' servers only: formgrader and create-assignment switched off
    <data>/home/<username>/         each person's home, mode 0700
    <data>/instructor-secret        the grading secret, readable by root, handed to instructors' servers
    <data>/admin-token              API token of the `course-admin` service (root only): scripts, benchmarks
    <data>/tutor.json               the class's tutor, if the instructor set one up (`course tutor setup
                                    --class-config`): students' servers get it as COURSE_TUTOR_CONFIG
    <data>/lti/                     with --lti-config (root only, 0700): tool-keys.json (the tool's private
                                    keys), people.json (who arrived from the LMS, and as what)
    <data>/tutor-asks/              opt-in counts of questions per task (never their text): students write
                                    their own file, list nothing (1733); `course tutor counts` reads it

Everything a class needs to carry on after a restart lives here; nothing is in the repository.
"""
from __future__ import annotations

import csv
import io
import json
import os
import pwd
import secrets
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from coursekit.app.hub.accounts import AccountError, ensure_account, make_reachable, seed, shell_path, write_in_home
from coursekit.app.hub.roster import Roster
from coursekit.paths import course_root

COURSE_ID = "llm-train-vs-infer"
INSTRUCTOR_COURSE = "course"     # ~/course: the instructor's nbgrader course directory
COURSE_ENTRIES = ("nbgrader_config.py", "solutions", "labs")   # what that copy holds
# the class's roster in each instructor's ~/course, kept current: `autograder export --format canvas`
# fills Canvas's login column with its usernames (autograder/record/export.py reads the same name)
CLASS_ROSTER = "class-roster.csv"
STUDENT_LESSONS = "lessons"      # ~/lessons: a student's own copy of the lesson notebooks
CULL_TIMEOUT = 3600              # seconds idle before a server (hub) or a kernel (in its server) is stopped


def service_port(data: Path, port_file: str) -> int:
    """A hub service's loopback port, chosen once and kept in <data>/port_file, so a hub restart mid-class
    does not strand the students' servers that still point at it."""
    path = Path(data) / port_file
    if not path.is_file():
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            path.write_text(f"{probe.getsockname()[1]}\n")
    return int(path.read_text())


def cull_every(timeout: int) -> int:
    """How often the cullers look, and how often activity reaches the hub: a quarter of the timeout, at
    most 5 minutes (JupyterHub's own activity interval), so an active person is never seen as idle."""
    return max(1, min(300, timeout // 4))


@dataclass(frozen=True)
class Settings:
    roster: str
    course_source: str           # nbgrader course directory copied into the instructor's home
    ip: str = "127.0.0.1"
    port: int = 8000
    hub_port: int = 8081         # the hub's internal API
    proxy_api_port: int = 8001
    python: str = sys.executable
    cull_timeout: int = CULL_TIMEOUT     # 0: never stop idle servers or kernels
    lti_config: str = ""         # the LMS's platform settings: LTI 1.3 launches (coursekit/app/hub/lti/)
    lti_sync_every: int = 3600   # seconds between roster syncs from the LMS (NRPS), with memberships_url
    public_url: str = ""         # https://hub.example.edu: the address advertised to the LMS (a TLS proxy in front)


class Layout:
    def __init__(self, data: str | Path):
        self.data = Path(data).resolve()

    settings = property(lambda self: self.data / "hub.json")
    db = property(lambda self: self.data / "jupyterhub.sqlite")
    cookie_secret = property(lambda self: self.data / "jupyterhub_cookie_secret")
    passwords = property(lambda self: self.data / "passwords.dbm")
    proxy_token = property(lambda self: self.data / "proxy-token")
    exchange = property(lambda self: self.data / "exchange")
    jupyter_config = property(lambda self: self.data / "jupyter-config")
    secret = property(lambda self: self.data / "instructor-secret")
    admin_token = property(lambda self: self.data / "admin-token")
    homes = property(lambda self: self.data / "home")
    tutor_config = property(lambda self: self.data / "tutor.json")
    tutor_asks = property(lambda self: self.data / "tutor-asks")

    def home(self, username: str) -> Path:
        return self.homes / username

    def read_settings(self) -> Settings:
        return Settings(**json.loads(self.settings.read_text()))

    def config_path(self, home: Path, instructor: bool) -> str:
        """JUPYTER_CONFIG_PATH for a person: their server's and their own shells' (ssh) alike, so that
        nbgrader finds the class's exchange and course id however they come in. An instructor's own
        course folder comes first (its nbgrader_config.py), then what instructors' servers add."""
        folders = ([str(Path(home) / INSTRUCTOR_COURSE), str(self.jupyter_config / "instructor")] if instructor
                   else [str(self.jupyter_config / "student")])
        return os.pathsep.join([*folders, str(self.jupyter_config)])


def _private_token(path: Path) -> None:
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")


def _copy_secret(secret: Path, target: Path, account) -> None:
    if secret.is_file() and not target.exists():      # none yet: an LTI roster sync before the hub's first start
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secret.read_text())
        os.chown(target, account.pw_uid, account.pw_gid)


# Server extensions a student's server does without (benchmarks/bench_server_memory.py measures the
# saving): nbgrader's instructor tools, language servers (none installed, and JupyterLab's LSP client is
# off by default), the Notebook 7 interface and its shim (the hub opens /lab), jupytext's text notebooks
# (the lessons and labs are .ipynb). Kept: jupyterlab, terminals, nbgrader's assignment list and validate.
STUDENT_SERVER_EXTENSIONS_OFF = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list",
                                 "jupyter_lsp", "notebook", "notebook_shim", "jupyterlab_jupytext")
# their JupyterLab sides (a plugin that calls a switched-off server extension would show errors)
STUDENT_LAB_PLUGINS_OFF = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                           "@jupyter/nbgrader:course-list", "@jupyter-notebook/lab-extension", "jupyterlab-jupytext")


def kernel_culling(timeout: int) -> dict:
    """jupyter_server's own culler: a kernel idle for `timeout` s is shut down even with a browser tab
    still open on it (an open tab keeps the server itself active), never while it runs a cell."""
    if timeout <= 0:
        return {}
    return {"MappingKernelManager": {"cull_idle_timeout": timeout, "cull_interval": cull_every(timeout),
                                     "cull_connected": True, "cull_busy": False}}


SAFE_HTML_CONFIG = (
    "c.HTMLExporter.sanitize_html = True\n"
    "c.HTMLExporter.filters = {'markdown2html': 'autograder.record.safe_html.Markdown2Html',\n"
    "                          'strip_files_prefix': 'autograder.record.safe_html.strip_files_prefix',\n"
    "                          'clean_html': 'autograder.record.safe_html.clean_html'}\n")


def write_server_config(folder: Path, exchange: Path | str, cull_timeout: int = CULL_TIMEOUT) -> None:
    """What every person's server reads (JUPYTER_CONFIG_PATH): the exchange root, course id and kernel
    culling in `folder`, and in `folder/student` what `jupyter server extension disable` and `jupyter
    labextension disable` would write for students (STUDENT_SERVER_EXTENSIONS_OFF, STUDENT_LAB_PLUGINS_OFF). The Kubernetes
    image (deploy/Dockerfile) writes the same into /etc/course."""
    folder = Path(folder)
    (folder / "student" / "labconfig").mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821  (written by `course hub`)\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\n")
    # Instructors' servers only: formgrader shows what students wrote inert (autograder/record/safe_html.py),
    # also where ~/course/nbgrader_config.py was copied before these lines were in the course's own config.
    (folder / "instructor").mkdir(exist_ok=True)
    (folder / "instructor" / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821  (written by `course hub`)\n" + SAFE_HTML_CONFIG)
    (folder / "jupyter_server_config.json").write_text(json.dumps(kernel_culling(cull_timeout), indent=1))
    (folder / "student" / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {name: False for name in STUDENT_SERVER_EXTENSIONS_OFF}}}, indent=1))
    (folder / "student" / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {name: True for name in STUDENT_LAB_PLUGINS_OFF}}, indent=1))


def prepare(layout: Layout, roster: Roster, settings: Settings) -> list[Path]:
    """Idempotent: a second run adds new roster members and keeps everything else. Returns the folders
    it had to make traversable for the class accounts (see accounts.make_reachable)."""
    opened = make_reachable(Path(sys.base_prefix) / "bin") + make_reachable(Path(settings.python).parent)
    opened += make_reachable(course_root() / "coursekit")
    layout.data.mkdir(parents=True, exist_ok=True)
    os.chmod(layout.data, 0o711)      # people reach their homes and the exchange, list nothing
    layout.homes.mkdir(exist_ok=True)
    os.chmod(layout.homes, 0o711)
    # nbgrader's permission model: the exchange root is world-writable with the sticky bit; release
    # makes inbound/ write-only (2733) and feedback/ unlistable (711) for students.
    layout.exchange.mkdir(exist_ok=True)
    os.chmod(layout.exchange, 0o1777)
    write_server_config(layout.jupyter_config, layout.exchange, settings.cull_timeout)
    layout.tutor_asks.mkdir(exist_ok=True)
    os.chmod(layout.tutor_asks, 0o1733)   # like nbgrader's inbound: write your own file, read no one's
    for path in (layout.cookie_secret, layout.proxy_token, layout.secret, layout.admin_token):
        _private_token(path)
    source = Path(settings.course_source)
    # on a shared machine the answers are root's (and, in their own copies, instructors') only: the
    # instructor's course and the checkout students' servers read lessons from (COURSE_ROOT) alike
    for answers in {source / "solutions", course_root() / "solutions"}:
        if answers.is_dir():
            os.chmod(answers, 0o700)
    for member in roster.members:
        admit(layout, settings, member.username, member.role)
    for username in roster.instructors:
        write_class_roster(roster, pwd.getpwnam(username))
    layout.settings.write_text(json.dumps(asdict(settings), indent=2) + "\n")
    return opened


def write_class_roster(roster: Roster, account) -> None:
    """The roster's people (username,role,name) in the instructor's ~/course, where their tools read them,
    theirs (the roster `course hub` was given may be root's alone)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["username", "role", "name"])
    writer.writerows([m.username, m.role, m.name] for m in roster.members)
    try:
        write_in_home(Path(account.pw_dir) / INSTRUCTOR_COURSE / CLASS_ROSTER, out.getvalue(), account)
    except AccountError as error:
        print(f"course hub: {error}", file=sys.stderr)


def admit(layout: Layout, settings: Settings, username: str, role: str) -> None:
    """One person's account and home: the course's copy for an instructor (or an LTI TA), lessons for a
    student. Idempotent; also called by the LTI authenticator for someone who first arrives from the LMS."""
    account = ensure_account(username, layout.home(username))
    home = Path(account.pw_dir)
    teaching = role in ("instructor", "ta")
    shell_path(account, Path(settings.python).parent, layout.config_path(home, teaching))
    if teaching:
        (home / INSTRUCTOR_COURSE).mkdir(exist_ok=True)
        os.chown(home / INSTRUCTOR_COURSE, account.pw_uid, account.pw_gid)
        for entry in COURSE_ENTRIES:
            seed(Path(settings.course_source) / entry, home / INSTRUCTOR_COURSE / entry, account)
        # the class's secret where `autograder` looks in a shell without the server's environment
        # (ssh): the same hidden cases as grading from JupyterLab, which gets it as COURSE_GRADING_SECRET
        _copy_secret(layout.secret, home / INSTRUCTOR_COURSE / "instructor-secret", account)
    else:
        seed(course_root() / "course", home / STUDENT_LESSONS, account)
