"""Shared fixtures: the repository root, course notebooks executed once per session, a real JupyterLab
server, and a headless Chromium page."""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from paths import ROOT
from run_once import built_once, run_folder

ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
# The suite runs several torch processes at once (kernels, grading workers, this one) on few cores;
# OpenMP's default is to spin while a thread waits, so each small op waits on a descheduled spinner
# (benchmarks/RESULTS.md, "Lab full runs after shrinking Labs 3 and 5"). Every process the tests start
# inherits this before it loads torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# The suite starts hundreds of Python processes (servers, kernels, graders). Where the environment sets
# PYTHONDONTWRITEBYTECODE (as on the course's build machines) none of them would write a bytecode
# cache, and each would compile its imports again (`import torch` 7.4 s instead of 2.4 s,
# benchmarks/RESULTS.md); the first import of a module writes it instead, as on a student's laptop.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-quic", "--no-first-run", "--disable-sync"]


@pytest.fixture(autouse=True)
def _course_root_kept():
    """`autograder`'s main sets COURSE_ROOT for the nbgrader apps it starts: a test that calls it in-process
    must not leave that course root to the tests after it in the same worker (`course start` read it)."""
    before = os.environ.get("COURSE_ROOT")
    yield
    if before is None:
        os.environ.pop("COURSE_ROOT", None)
    else:
        os.environ["COURSE_ROOT"] = before


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    base_url: str
    token: str
    root: Path                 # the folder JupyterLab serves (a copy of the course, so runs never dirty the repo)
    progress_dir: Path         # COURSE_PROGRESS_DIR the server's kernels see
    process: subprocess.Popen = field(repr=False)
    log: Path = field(repr=False)

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{sep}token={self.token}"


def _wait_until_up(server: LabServer, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited early; log:\n{server.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(server.url("api/status"), timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"JupyterLab did not answer within {timeout}s; log:\n{server.log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def executed_notebooks(tmp_path_factory):
    """`executed_notebooks.get(path)`: the notebook executed once per session, shared by every test."""
    from notebook_runner import ExecutedNotebooks

    shared = run_folder(tmp_path_factory)
    return ExecutedNotebooks(tmp_path_factory.mktemp("executed"), shared and shared / "executed-notebooks")


# Session fixtures that several modules use are defined here, and only here (their helpers are in
# tests/pipeline_course.py, tests/quiz_course.py and tests/hub_server.py): a fixture imported into a test
# module is registered once per importing module, so a "session" fixture imported into six modules ran
# six times.

@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> Path:
    """The pipeline tests' toy course with its lab generated once per run (nbgrader generate is slow)."""
    from pipeline_course import generate_course

    return built_once(tmp_path_factory, "template", generate_course)


@pytest.fixture
def course(generated, tmp_path) -> Path:
    """A fresh copy of `generated` for one test: tests that grade, collect or break things own it."""
    from pipeline_course import copy_course

    return copy_course(generated, tmp_path)


@pytest.fixture(scope="module")
def solution(request):
    """The solution notebook's functions for the test module's `LAB` (solutions/LAB/LAB.ipynb), run once."""
    from autograder.judge.reference import solution_namespace

    lab = request.module.LAB
    return solution_namespace(ROOT / "solutions" / lab / f"{lab}.ipynb")


@pytest.fixture(scope="session")
def quiz_template(tmp_path_factory) -> Path:
    """The fixture quiz bank released as a graded quiz once per run; tests work on copies
    (quiz_course.copy_course)."""
    from quiz_course import release

    return built_once(tmp_path_factory, "quiz-template", release)


@pytest.fixture(scope="session")
def lab6_class(tmp_path_factory) -> Path:
    """Lab 6 handed in by two students and graded for real once per run (tests/lab6_class.py): its folder,
    holding `course` (graded; tests that change it work on a copy) and `ungraded` (before grading)."""
    from lab6_class import build

    return built_once(tmp_path_factory, "lab6-class", build)


@pytest.fixture(scope="session")
def hub(tmp_path_factory):
    """One `course hub` (hub, proxy, a server per person as it is needed) for tests/app/hub/test_hub.py and
    tests/app/hub/test_hub_browser.py; stopped, its accounts removed, after the last test that uses it."""
    from hub_server import STUDENTS, class_course, make_hub

    running = make_hub(list(STUDENTS), class_course(tmp_path_factory.mktemp("hub-course")))
    _RELEASE["hub"] = running.cleanup
    try:
        running.start()
        yield running
    finally:
        running.cleanup()


@pytest.fixture(scope="session")
def site(executed_notebooks) -> Path:
    """The course website built into build/site once per worker (tests/site_build.py); its html folder.
    Only the files of SITE_FILES (below) use it, so one worker builds it."""
    from site_build import build_site

    return build_site(executed_notebooks)


@pytest.fixture(scope="session")
def site_url(site):
    """The built website served over HTTP, as a reader gets it."""
    from site_build import serve

    with serve(site) as url:
        yield url


# A test that needs one of these start-ups (a website build, a hub, a JupyterLab server, the lesson
# notebooks executed, a real Lab 6 grading) takes minutes the first time in a worker, whatever it
# asserts: it is slow by what it uses, so `-m "not slow"` never pays for one (tests/house/test_scheduling.py
# checks the tier).
SLOW_FIXTURES = frozenset({"site", "site_url", "hub", "lab_server", "executed_notebooks", "lab6_class"})


def pytest_itemcollected(item):
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.slow)


# A session fixture named here is released right after the last collected test that uses it, not at
# the end of the run: the hub's servers would otherwise idle through every later test.
_RELEASE: dict = {}         # fixture name -> its clean-up (idempotent), once it is set up
_LAST_USER: dict = {}       # fixture name -> the last collected test that uses it


@pytest.hookimpl(trylast=True)      # after deselection and any reordering
def pytest_collection_modifyitems(items):
    for item in items:
        for name in ("hub",):
            if name in getattr(item, "fixturenames", ()):
                _LAST_USER[name] = item


def pytest_runtest_teardown(item, nextitem):
    for name, last in _LAST_USER.items():
        if item is last and name in _RELEASE:
            _RELEASE.pop(name)()


# pytest-xdist (`-n auto --dist loadfile` in pyproject.toml) hands each worker whole test files, so a
# file's module fixtures run once; the two files that share the class hub are one unit (HUB_FILES), so
# one hub serves them. Units start longest first, by the seconds each file took in a full run
# (tests/durations.py, tests/durations.json), so no worker is left running a long one alone at the end.
# (xdist_group marks cannot do this: pytest 9 ignores the node-id suffix they rely on,
# pytest-dev/pytest-xdist#1386.) The files that build the website into build/site are one unit too
# (SITE_FILES), so two workers never build it at once.
HUB_FILES = ("tests/app/hub/test_hub.py", "tests/app/hub/test_hub_browser.py",
             "tests/app/hub/test_hub_grading_sandbox.py")
SITE_FILES = ("tests/app/site/test_site.py", "tests/app/site/test_calculators_browser.py",
              "tests/app/site/test_site_quiz_browser.py", "tests/app/site/test_site_layout_browser.py")
# (tests/house/test_scheduling.py checks that every file these lists and the durations table name exists)


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its file, "hub" for the files that share the class hub, or "site"
    for the files that build the website."""
    path = nodeid.split("::", 1)[0]
    return "hub" if path in HUB_FILES else "site" if path in SITE_FILES else path


class LongestFirst:
    """Registered as a plugin of its own: a conftest has one `pytest_collection_modifyitems`, and this
    one must run first (every worker sorts the same way, as xdist requires)."""
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items):
        from durations import load, longest_first

        rank = {nodeid: n for n, nodeid in enumerate(longest_first([i.nodeid for i in items], load(), unit_of))}
        items.sort(key=lambda item: rank[item.nodeid])


class StoreDurations:
    """`--store-durations`: each test file's seconds in this run, merged into tests/durations.json (or
    `--durations-table FILE`). Under xdist the controller sees every worker's reports; the workers write nothing."""
    def __init__(self, table: Path) -> None:
        self.table, self.reports = table, []

    def pytest_runtest_logreport(self, report):
        self.reports.append(report)

    def pytest_sessionfinish(self, session):
        from durations import merge, per_file

        tests = sum(r.when == "setup" for r in self.reports)
        merge(per_file(self.reports), ROOT, Path(self.table),
              note=f"./course.sh test --store-durations: {tests} tests, {time.strftime('%Y-%m-%d')}")


def pytest_addoption(parser):
    from durations import TABLE

    parser.addoption("--store-durations", action="store_true",
                     help="merge each test file's seconds in this run into the durations table (the run's order)")
    parser.addoption("--durations-table", default=str(TABLE), metavar="FILE",
                     help="the durations table --store-durations writes (default tests/durations.json)")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Whatever `--dist` says, a worker gets one unit (`unit_of`) at a time, in collection order."""
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ByUnit(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker per core, at most 4 (COURSE_TEST_WORKERS overrides). Each worker starts its
    own JupyterLab and Chromium when it needs them, so more workers than cores only adds start-ups."""
    return int(os.environ.get("COURSE_TEST_WORKERS") or min(os.cpu_count() or 1, 4))


class Leftovers:
    """The suite leaves nothing running: a process a test started that outlives the session fails the run,
    named with its command line, and is killed (tests/leftovers.py). Checked where the tests run (each
    xdist worker, or this process with -n 0); under xdist the controller gathers the workers' findings."""
    def __init__(self, runs_tests: bool) -> None:
        self.runs_tests, self.found = runs_tests, {}
        if runs_tests:
            from leftovers import become_subreaper

            self.runs_tests = become_subreaper()

    def pytest_sessionfinish(self, session):
        if self.runs_tests:
            from leftovers import leftovers

            self.found.update({str(pid): line for pid, line in leftovers().items()})
            if hasattr(session.config, "workeroutput"):
                session.config.workeroutput["leftovers"] = self.found
        if self.found and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        self.found.update(getattr(node, "workeroutput", {}).get("leftovers", {}))

    def pytest_terminal_summary(self, terminalreporter):
        if self.found:
            terminalreporter.section("processes the tests started outlived the session (killed now)", red=True)
            for pid, line in sorted(self.found.items()):
                terminalreporter.line(f"{pid}: {line[:300]}", red=True)


def pytest_configure(config):
    config.pluginmanager.register(LongestFirst(), "course-longest-first")
    controller = getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput")
    config.pluginmanager.register(Leftovers(runs_tests=not controller), "course-leftovers")
    # an xdist worker has `workerinput` (its environment variable is inherited by a pytest a test starts)
    if config.getoption("--store-durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(StoreDurations(config.getoption("--durations-table")), "course-durations")


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory) -> LabServer:
    """A real JupyterLab (free port, random token, --allow-root when root) serving a copy of the course."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "served"
    for folder in ("course", "labs", "quizzes"):
        if (ROOT / folder).exists():
            shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    progress_dir = base / "progress"
    progress_dir.mkdir()
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, COURSE_PROGRESS_DIR=str(progress_dir), JUPYTER_RUNTIME_DIR=str(base / "runtime"),
               COURSE_ROOT=str(ROOT), MPLBACKEND="module://matplotlib_inline.backend_inline",
               # theme switches and workspaces stay in this run, never in the user's own settings
               JUPYTERLAB_SETTINGS_DIR=str(base / "user-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"))
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
               f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}",
               ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    with serve(command, env, base / "jupyterlab.log", port, token, root, progress_dir) as server:
        yield server


@contextlib.contextmanager
def serve(command, env, log: Path, port: int, token: str, root: Path, progress_dir: Path):
    """Run a JupyterLab `command` (in `root`, output to `log`) until it answers; stop it afterwards."""
    with open(log, "w") as log_handle:
        process = subprocess.Popen(command, cwd=root, env=env, stdout=log_handle, stderr=subprocess.STDOUT)
    server = LabServer(f"http://127.0.0.1:{port}", token, root, progress_dir, process, log)
    try:
        _wait_until_up(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright (never Playwright's own downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: run ./course.sh test (it installs Debian's chromium) "
                    "or set COURSE_CHROMIUM to a Chromium binary")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request, artifacts_dir):
    """A fresh page; on failure a screenshot named after the test lands in tests/artifacts/."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        page.screenshot(path=str(artifacts_dir / f"FAILED-{request.node.name}.png"), full_page=True)
    context.close()


@pytest.fixture
def laptop_page(browser):
    """A fresh page at a laptop's 1280x800 (the quiz layout and `course start` tests)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.rep_call = report
