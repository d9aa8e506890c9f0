"""The engine's building blocks: secrets, hidden cases, references, visible checks, parsing, judging."""
from __future__ import annotations

import json
import math
import os
import shutil
import stat
from pathlib import Path

import nbformat
import pytest

from autograder.judge import engine, verdict
from autograder.judge import reference
from autograder.judge import secrets
from autograder.release.visible_cases import run_visible
from autograder.judge.engine import GradingPool, Limits, SubmissionResult, TaskResult, judge_task, read_cells
from autograder.judge.flags import scan_source
from autograder.judge.hidden import check_task, hidden_cases
from autograder.spec import Case, load_spec

from paths import ROOT
from toy_lab import FIXTURES, catalog

SPEC = load_spec(catalog.SPEC_FILE)


@pytest.fixture
def solution_ns():
    return reference.solution_namespace(SPEC.solution_path())


def test_load_spec_by_path_and_by_id(tmp_path):
    assert SPEC.lab_id == "toy-lab" and SPEC.origin == str(catalog.SPEC_FILE)
    assert load_spec(str(catalog.SPEC_FILE)) is SPEC
    shutil.copytree(FIXTURES / "toy-lab", tmp_path / "solutions" / "toy-lab")   # a course root: one folder per lab
    by_id = load_spec("toy-lab", root=tmp_path)
    assert by_id.origin == str(tmp_path / "solutions" / "toy-lab" / "spec.py")
    assert [t.grade_id for t in by_id.tasks] == [t.grade_id for t in SPEC.tasks]
    with pytest.raises(ModuleNotFoundError, match="no spec for lab 'no-such-lab'"):
        load_spec("no-such-lab", root=tmp_path)
    assert SPEC.solution_path() == (FIXTURES / "toy-lab" / "toy-lab.ipynb").resolve()


def test_secret_from_env_then_file(tmp_path, monkeypatch):
    monkeypatch.setenv(secrets.SECRET_ENV, "from-env")
    assert secrets.load_secret(path=tmp_path / "s") == b"from-env"
    monkeypatch.delenv(secrets.SECRET_ENV)
    path = tmp_path / "instructor-secret"
    with pytest.raises(FileNotFoundError, match="no instructor secret"):
        secrets.load_secret(create=False, path=path)
    first = secrets.load_secret(path=path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(first) == 64
    assert secrets.load_secret(path=path) == first


def test_hidden_cases_depend_on_secret_lab_and_task_only():
    task = SPEC.task("test_kv")
    a, b = hidden_cases(SPEC, task, b"one"), hidden_cases(SPEC, task, b"one")
    assert a == b and len(a) == task.n_hidden
    assert hidden_cases(SPEC, task, b"two") != a
    assert len({c.args for c in a}) == len(a)        # each index gets its own seed
    assert secrets.case_seed(b"k", "lab", "t", 0) != secrets.case_seed(b"k", "lab", "t", 1)
    assert secrets.case_seed(b"k", "la", "bt", 0) != secrets.case_seed(b"k", "lab", "t", 0)


def test_reference_runs_only_solution_cells(solution_ns):
    assert callable(solution_ns["arithmetic_intensity"]) and callable(solution_ns["softmax"])
    assert "n" not in solution_ns                    # the measurement cell did not run
    assert "run_visible" not in solution_ns          # nor did the test cells
    assert "torch" in solution_ns                    # the setup cell's imports did


def test_visible_expected_values_equal_the_reference():
    for task in SPEC.tasks:
        for case in task.visible:
            if case.expected is not None:
                assert task.compare(case.expected, reference.reference_output(SPEC, task, case)) is None


def test_run_visible_teaches(capsys, solution_ns):
    assert run_visible(str(catalog.SPEC_FILE), "test_kv", solution_ns["kv_cache_bytes"]) == 1
    assert capsys.readouterr().out == "ok tiny\n"
    with pytest.raises(AssertionError) as failure:
        run_visible(str(catalog.SPEC_FILE), "test_kv", lambda *args: 4095)
    assert "case 'tiny'" in str(failure.value) and "expected 4096, got 4095" in str(failure.value)
    assert "Hint: 2 (K and V)" in str(failure.value)

    def stub(*args):
        raise NotImplementedError("impl_kv")
    with pytest.raises(AssertionError, match="not implemented yet"):
        run_visible(str(catalog.SPEC_FILE), "test_kv", stub)
    # a case without `expected` is compared with the reference
    import torch
    with pytest.raises(AssertionError, match="expected shape"):
        run_visible(str(catalog.SPEC_FILE), "test_softmax", lambda x: torch.zeros(3))


def test_check_task_names_the_hidden_case(monkeypatch, solution_ns):
    monkeypatch.setenv(secrets.SECRET_ENV, "k")
    check_task(str(catalog.SPEC_FILE), "test_softmax", solution_ns)
    wrong = dict(solution_ns, softmax=lambda x: x.exp())
    with pytest.raises(AssertionError, match=r"hidden case 1/3 \(random logits\)"):
        check_task(str(catalog.SPEC_FILE), "test_softmax", wrong)
    with pytest.raises(AssertionError, match="define a function named 'softmax'"):
        check_task(str(catalog.SPEC_FILE), "test_softmax", {})


def _notebook(tmp_path, edit=None) -> Path:
    notebook = nbformat.read(catalog.SOLUTION, as_version=4)
    if edit:
        edit(notebook)
    path = tmp_path / "sub.ipynb"
    nbformat.write(notebook, path)
    return path


def test_read_cells_skips_test_cells_and_keeps_the_rest(tmp_path):
    cells = read_cells(_notebook(tmp_path), SPEC)
    sources = "\n".join(source for _, source in cells)
    assert "run_visible" not in sources and "check_task" not in sources
    assert "def softmax" in sources and "import torch" in sources     # softmax reads torch
    # the lab's own measurement cell binds nothing a graded function reads: it is not run (autograder.judge.thin)
    assert "n = 64 if quick_mode() else 4096" not in sources and "measurement size" not in sources
    assert "import math" not in sources


def test_an_instructor_statement_a_graded_function_reads_is_run(tmp_path):
    def edit(notebook):      # the student's softmax reads the measurement cell's n
        cell = next(c for c in notebook.cells if "def softmax" in c.source)
        cell.source = cell.source.replace("def softmax(x):", "def softmax(x):\n    assert n > 0")
    sources = "\n".join(source for _, source in read_cells(_notebook(tmp_path, edit), SPEC))
    assert "n = 64 if quick_mode() else 4096" in sources and "from coursekit.labs import quick_mode" in sources
    assert "measurement size" not in sources                          # its print still does not run


def test_an_edited_instructor_cell_runs_whole(tmp_path):
    def edit(notebook):
        for cell in notebook.cells:
            if "measurement size" in cell.source:
                cell.source += "\nprint('mine')"
    sources = "\n".join(source for _, source in read_cells(_notebook(tmp_path, edit), SPEC))
    assert "measurement size" in sources and "print('mine')" in sources


@pytest.mark.parametrize("raw, reason", [
    (b"", r"invalid JSON \(line 1, column 1"),
    (b"{}", "no list of cells"),
    (json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]}).encode(), "missing graded cells"),
])
def test_read_cells_refuses_broken_files(tmp_path, raw, reason):
    path = tmp_path / "broken.ipynb"
    path.write_bytes(raw)
    with pytest.raises(engine._Failed, match=reason):
        read_cells(path, SPEC)


def test_static_scan_is_quiet_on_honest_code_and_names_tricks():
    honest = [source for _, source in read_cells(catalog.SOLUTION, SPEC)]
    assert scan_source([engine._python(s) for s in honest]) == []
    flags = scan_source([
        "import numpy as np\nnp.testing.assert_allclose = print",
        "import unittest\nsetattr(unittest.TestCase, 'assertTrue', print)",
        "class T:\n    def __eq__(self, o):\n        return True",
        "import os\nx = os.environ.get('NBGRADER_EXECUTION')",
        "open('/work/main/solutions/x.ipynb')",
        "import sys\nsys.excepthook = None",
        "def broken(:\n    pass",                      # syntax errors are reported by the run, not here
    ])
    assert flags == sorted([
        "tamper: patches np.testing.assert_allclose", "tamper: patches unittest.TestCase.assertTrue",
        "tamper: class T overrides __eq__", "env: reads NBGRADER_EXECUTION",
        "files: names a protected path (solutions)", "tamper: custom exception handler (sys.excepthook)",
    ])


def test_static_scan_flags_the_environment_reached_around_os_environ():
    """Issue 36: the raw dict under os.environ, the C module's copy and /proc's environ files, however
    named; honest uses of the environment stay quiet."""
    flags = scan_source(["import os\nraw = os.environ._data", "from os import environ\nkeys = vars(environ)",
                         "import posix\nfirst = posix.environ", "import glob\nglob.glob('/proc/[0-9]*/environ')"])
    assert flags == ["env: names processes' environments (/proc/[0-9]*/environ)",
                     "env: reads the raw environment (os.environ._data)", "env: reads the raw environment (posix.environ)",
                     "env: reads the raw environment (vars(environ))"]
    assert scan_source(["import os\nhome = os.environ.get('HOME', '/tmp')\ndata = {'_data': 1}\nx = data['_data']",
                        "import os\nos.environ.setdefault('OMP_NUM_THREADS', '1')\nprint(open('/proc/cpuinfo').read(9))"]) == []


def test_judge_fails_odd_child_data_without_crashing():
    task = SPEC.task("test_intensity")
    cases = [Case("a", (10, 5)), Case("b", (9, 3))]
    labels = ["case 'a'", "hidden case 1/1 (b)"]
    judge = lambda report: judge_task(task, labels, cases, [2.0, 3.0], report, [])
    assert judge({"defined": True, "outputs": [{"value": 2.0}, {"value": 3.0 + 1e-12}]}).passed
    odd_reports = [None, {"defined": True}, {"defined": True, "outputs": [1, 2]},
                   {"defined": True, "outputs": [{"value": 2.0}]},
                   {"defined": True, "outputs": [{"value": {"shape": 1}}, {"value": 3.0}]},
                   {"defined": True, "outputs": [{"value": math.nan}, {"value": 3.0}]},
                   {"defined": True, "outputs": [{"value": True}, {"value": 3.0}]},
                   {"defined": True, "outputs": [{"value": 2.0}, {"error": "ValueError: no"}]}]
    for report in odd_reports:
        result = judge(report)
        assert not result.passed and result.points == 0 and result.message.startswith(task.title)
    assert "hidden case 1/1 (b): arithmetic_intensity raised ValueError: no" in judge(odd_reports[-1]).message


def test_memory_is_named_when_it_ended_the_run():
    from autograder.sandbox.protocol import OUT_OF_MEMORY

    limits = Limits(memory_mb=1280, cpu_s=10)
    died = {"exit_code": None, "cpu_s": 0.5, "start_vm_mb": 650}     # the child inherits 650 MB: 630 MB of room
    reason = lambda **reply: verdict.failure_reason({**died, **reply}, limits)
    assert reason(signal=11, rss_mb=600).startswith("memory: the notebook's process died from SIGSEGV")
    assert reason(signal=9, rss_mb=600).startswith("memory: the notebook's process died from SIGKILL")
    assert reason(signal=6, rss_mb=500).startswith("memory:")
    assert reason(signal=11, rss_mb=50) == "crash: the notebook's process died from signal 11"
    assert reason(signal=9, rss_mb=50).startswith("killed by SIGKILL")
    assert reason(signal=9, rss_mb=600, cpu_s=10).startswith("cpu time limit")
    assert reason(signal=None, exit_code=OUT_OF_MEMORY).startswith("memory: out of memory (limit 1280 MB)")


def test_pool_and_benchmark_size_themselves_to_the_usable_cores(monkeypatch):
    import ast

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)             # the host's cores, not ours to use
    assert engine.usable_cores() == 3
    # the benchmark compares against the engine's default, so it must count cores the same way
    source = (ROOT / "benchmarks" / "bench_grading.py").read_text()
    calls = {ast.unparse(node.func) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)}
    assert "usable_cores" in calls and "os.cpu_count" not in calls


def test_submission_result_round_trips_through_json():
    result = SubmissionResult("s1", "toy-lab", "graded", None, [TaskResult("t", 1.0, 2.0, False, "m")],
                              ["exit: x"], 1.0, 2.0, 0.5)
    data = json.loads(json.dumps(result.to_json()))
    assert SubmissionResult.from_json(data) == result


@pytest.mark.slow
def test_pool_grades_in_parallel_and_agrees_with_check_task(tmp_path, monkeypatch):
    paths = catalog.write_all(tmp_path, ["honest", "partial", "unimplemented"])
    with GradingPool(2, Limits(wall_s=60)) as pool:
        results = {n: pool.submit(p, SPEC, student_id=n, secret=b"k").result() for n, p in paths.items()}
    assert {n: r.score for n, r in results.items()} == {"honest": 7.0, "partial": 4.0, "unimplemented": 0.0}
    # nbgrader's in-kernel hidden check fails exactly the tasks the trusted engine fails
    monkeypatch.setenv(secrets.SECRET_ENV, "k")
    for name, path in paths.items():
        namespace: dict = {}
        for _, source in read_cells(path, SPEC):
            try:
                exec(engine._python(source), namespace)
            except Exception:                        # noqa: BLE001 - a cell error, as in a kernel
                pass
        for task in results[name].tasks:
            try:
                run_visible(str(catalog.SPEC_FILE), task.grade_id, namespace.get(SPEC.task(task.grade_id).function))
                check_task(str(catalog.SPEC_FILE), task.grade_id, namespace)
                in_kernel = True
            except AssertionError:
                in_kernel = False
            assert in_kernel == task.passed, (name, task.grade_id)


@pytest.mark.slow
def test_degraded_mode_still_judges_and_says_what_is_missing(tmp_path):
    paths = catalog.write_all(tmp_path, ["honest", "partial"])
    result = engine.grade_submission(paths["honest"], SPEC, student_id="h", secret=b"k",
                                     limits=Limits(wall_s=60, isolate=False))
    assert result.score == 7.0 and result.status == "graded"
    assert any(f.startswith("sandbox: isolation disabled") for f in result.flags)
    assert any(f.startswith("sandbox: runs as the grader's own uid") for f in result.flags)
    # without a private /tmp each child still gets a fresh folder of its own, removed afterwards
    writer = catalog.add("open('left-behind.txt', 'w').write('answers')", base=catalog._same)
    looker = catalog.define(impl_kv="import os\ndef kv_cache_bytes(*a):\n    raise RuntimeError(str(os.listdir('.')))")
    for name, edit in (("writer", writer), ("looker", looker)):
        path = tmp_path / name / "toy-lab.ipynb"
        path.parent.mkdir()
        path.write_text(nbformat.writes(edit(nbformat.read(catalog.SOLUTION, as_version=4))))
    with GradingPool(1, Limits(wall_s=60, isolate=False)) as pool:
        first = pool.submit(tmp_path / "writer" / "toy-lab.ipynb", SPEC, student_id="w", secret=b"k").result()
        second = pool.submit(tmp_path / "looker" / "toy-lab.ipynb", SPEC, student_id="l", secret=b"k").result()
    assert first.score == 7.0
    assert "RuntimeError: []" in second.tasks[2].message


def test_default_hidden_paths_cover_course_and_siblings(tmp_path):
    from autograder.sandbox.policy import default_hidden

    notebook = tmp_path / "course" / "submitted" / "alice" / "lab" / "lab.ipynb"
    hidden_paths = dict(default_hidden(Path("/repo"), notebook, Path("/repo/solutions/lab/lab.ipynb")))
    assert hidden_paths[str(tmp_path / "course" / "submitted")] == "submissions"
    assert hidden_paths[str(tmp_path / "course" / "gradebook.db")] == "gradebook"
    assert hidden_paths["/repo/solutions/lab"] == "solutions"
    assert hidden_paths["/repo/autograder/instructor-secret"] == "instructor secret"
    assert hidden_paths["/repo/instructor-secret"] == "instructor secret"


def test_default_hidden_paths_include_git_metadata(tmp_path):
    """Solution notebooks are tracked in git, so the course's .git (and a worktree's real git dirs) are hidden."""
    from autograder.sandbox.policy import default_hidden

    course, main = tmp_path / "course", tmp_path / "main"
    (course / ".git" / "objects").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    notebook = tmp_path / "wt" / "submitted" / "alice" / "lab" / "lab.ipynb"
    hidden_paths = dict(default_hidden(course, notebook, course / "solutions" / "lab" / "lab.ipynb"))
    for git in (course / ".git", tmp_path / "wt" / ".git", main / ".git" / "worktrees" / "wt", main / ".git"):
        assert hidden_paths[str(git)] == "git repository", git
    checkout = ROOT
    if (checkout / ".git").is_dir():                 # the code checkout's own history too
        assert hidden_paths[str(checkout / ".git")] == "git repository"


def _worker_pids() -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and int(open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[1]) == os.getpid() \
                    and b"autograder.sandbox.worker" in open(f"/proc/{name}/cmdline", "rb").read():
                pids.append(int(name))
        except (OSError, IndexError, ValueError):
            continue
    return pids


@pytest.mark.slow
def test_a_dead_worker_fails_one_submission_and_the_batch_goes_on(tmp_path):
    import signal

    from autograder.sandbox.confine import processes_of
    from waiting import wait_for

    paths = catalog.write_all(tmp_path, ["hang", "honest"])
    with GradingPool(1, Limits(wall_s=60)) as pool:
        assert pool.submit(paths["honest"], SPEC, student_id="warm", secret=b"k").result().score == 7.0
        hung = pool.submit(paths["hang"], SPEC, student_id="hang", secret=b"k")
        wait_for(lambda: processes_of(pool.worker_uids[0]), 120, "the hanging notebook to run as the sandbox user", 0.05)
        [worker] = _worker_pids()
        os.kill(worker, signal.SIGKILL)
        result = hung.result(timeout=120)
        assert result.status == "failed" and "grading worker died" in result.reason
        after = pool.submit(paths["honest"], SPEC, student_id="after", secret=b"k").result()
        assert after.status == "graded" and after.score == 7.0
        assert len(pool.worker_uids) == 2 and processes_of(pool.worker_uids[0]) == []


def _read_each(paths: dict) -> dict:
    """Each file's text, or the name of the error reading it raised (what a confined child can see)."""
    seen = {}
    for name, path in paths.items():
        try:
            seen[name] = path.read_text()
        except OSError as error:
            seen[name] = type(error).__name__
    return seen


def _confine_in_child(probe, refused=frozenset(), **settings):
    """Fork a child that confines itself as a grading child would (refusing the named kernel calls),
    then report `probe()` and the flags over a pipe; run in the parent, return that report."""
    import errno

    from autograder.sandbox import child
    from autograder.sandbox import confine as sandbox

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            real = sandbox._call
            sandbox._call = lambda name, *args: errno.EPERM if name in refused else real(name, *args)
            conf = sandbox.Confinement(wall_s=5, cpu_s=5, memory_mb=4096, max_procs=64, file_bytes=2**20,
                                       network=False, isolate=True, uid=sandbox.UID_BASE + os.getpid(),
                                       **settings)
            flags = child.enter(conf, os.getppid())
            os.write(write, json.dumps({"flags": flags, "probe": probe(conf)}).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as handle:
        report = json.loads(handle.read())
    os.waitpid(pid, 0)
    shutil.rmtree(sandbox.shared_workdir(pid), ignore_errors=True)   # where a child without private /tmp worked
    return report


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to reach the namespace calls")
@pytest.mark.parametrize("refused, expected", [
    ({"unshare"}, ["sandbox: no network namespace (Operation not permitted)",
                   "sandbox: no IPC namespace (Operation not permitted)",
                   "sandbox: no mount namespace (Operation not permitted): hidden paths stay visible"]),
    ({"mount"}, ["sandbox: cannot make mounts private: hidden paths stay visible"]),
    (set(), []),
])
def test_sandbox_reports_each_missing_protection(refused, expected):
    """In a forked child, refuse some kernel calls and check the flags name exactly what is missing."""
    report = _confine_in_child(lambda conf: os.getuid() == conf.uid, refused=refused)
    assert report == {"flags": expected, "probe": True}


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to reach the namespace calls")
def test_a_course_and_venv_under_tmp_stay_visible_in_the_private_tmp(tmp_path):
    """CI may clone the course (and its .venv) under /tmp, which each child covers with its own tmpfs:
    the trees it needs come back, their hidden parts stay hidden, and nothing else under /tmp shows."""
    assert str(tmp_path).startswith("/tmp/")
    checkout, venv, other = tmp_path / "clone", tmp_path / "clone" / ".venv", tmp_path / "other-student"
    for folder in (checkout / "solutions", venv / "lib", other):
        folder.mkdir(parents=True)
    (checkout / "coursekit.py").write_text("code")
    (checkout / "solutions" / "lab.ipynb").write_text("answers")
    (venv / "lib" / "pygments.py").write_text("package")
    (other / "lab.ipynb").write_text("someone else's work")
    probes = {"code": checkout / "coursekit.py", "package": venv / "lib" / "pygments.py",
              "solution": checkout / "solutions" / "lab.ipynb", "other": other / "lab.ipynb"}

    report = _confine_in_child(lambda conf: _read_each(probes), hide=((str(checkout / "solutions"), "solutions"),),
                               read_only=(str(checkout),), keep=(str(venv),))
    assert report["flags"] == []
    assert report["probe"] == {"code": "code", "package": "package",
                               "solution": "FileNotFoundError", "other": "FileNotFoundError"}


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to reach the namespace calls")
def test_the_allowlist_root_keeps_a_course_under_tmp(tmp_path):
    """A fresh clone under /tmp (as CI may place it): the child's scratch /tmp must not cover the allowed
    trees that live there, while their siblings (solutions, another student) stay absent."""
    assert str(tmp_path).startswith("/tmp/")
    checkout, other = tmp_path / "clone", tmp_path / "other-student"
    for folder in (checkout / "coursekit", checkout / "solutions", other):
        folder.mkdir(parents=True)
    (checkout / "coursekit" / "calc.py").write_text("code")
    (checkout / "solutions" / "lab.ipynb").write_text("answers")
    (other / "lab.ipynb").write_text("someone else's work")
    probes = {"code": checkout / "coursekit" / "calc.py", "solution": checkout / "solutions" / "lab.ipynb",
              "other": other / "lab.ipynb"}

    report = _confine_in_child(lambda conf: _read_each(probes), allow=(str(checkout / "coursekit"),))
    assert report["probe"] == {"code": "code", "solution": "FileNotFoundError", "other": "FileNotFoundError"}, report


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to reach the namespace calls")
def test_the_allowlist_root_shows_a_stand_in_instead_of_the_course_file(tmp_path):
    """Confinement.overlay: the child opens the stand-in at the course file's own path; without an
    allowlist root the real file stays, and the flags say so."""
    checkout, jobs = tmp_path / "clone", tmp_path / "jobs"
    for folder in (checkout / "coursekit", jobs):
        folder.mkdir(parents=True)
    (checkout / "coursekit" / "calc.py").write_text("the reference")
    (jobs / "stand-in.py").write_text("a stand-in")
    overlay = ((str(checkout / "coursekit" / "calc.py"), str(jobs / "stand-in.py")),)
    probes = {"code": checkout / "coursekit" / "calc.py", "jobs": jobs / "stand-in.py"}

    report = _confine_in_child(lambda conf: _read_each(probes), allow=(str(checkout / "coursekit"),), overlay=overlay)
    assert report == {"flags": [], "probe": {"code": "a stand-in", "jobs": "FileNotFoundError"}}, report
    report = _confine_in_child(lambda conf: _read_each(probes), read_only=(str(checkout),), overlay=overlay)
    assert report["probe"]["code"] == "the reference"
    assert any("reference code is replaced in the grading process only" in f for f in report["flags"]), report


def test_a_report_the_grader_cannot_parse_is_the_submissions_failure(tmp_path):
    from autograder.sandbox.protocol import MALFORMED, read_report, streamed_flags

    for text in ("[" * 100_000 + "]" * 100_000, "{not json", "[1, 2]"):
        (tmp_path / "result.json").write_text(text)
        assert read_report(tmp_path / "result.json") is MALFORMED
    (tmp_path / "empty.json").write_text("")
    assert read_report(tmp_path / "empty.json") is None
    flags, ended = streamed_flags({"streamed_flags": "network: tried to connect\nnot a flag\nend of flags\n"})
    assert flags == {"network: tried to connect"} and ended
    assert streamed_flags({"streamed_flags": "fork: os.fork at runtime\n"}) == ({"fork: os.fork at runtime"}, False)


SHIPPED_SPECS = sorted((ROOT / "solutions").glob("lab*/spec.py"))
assert SHIPPED_SPECS, "no lab specs found under solutions/"   # an empty list would skip the test silently


@pytest.mark.slow
@pytest.mark.parametrize("spec_file", SHIPPED_SPECS, ids=lambda p: p.parent.name)
def test_each_solution_keeps_to_its_tasks_forbidden_list(spec_file):
    """A task's `forbidden` list (default spec.DEFAULT_FORBIDDEN) must let its own solution through:
    a lab whose solution calls a course calculator inside a graded function declares what it may call."""
    from coursekit.checks.reach import call_watched
    from autograder.judge.reference import solution_namespace

    spec = load_spec(spec_file)
    namespace = solution_namespace(spec.solution_path())
    for task in spec.tasks:
        for case in task.visible:
            args, kwargs = task.prepare(case)
            _, reached = call_watched(namespace[task.function], args, kwargs, task.forbids)
            assert reached is None, f"{spec.lab_id}/{task.grade_id}: the solution calls {reached}"


@pytest.mark.slow
def test_a_grader_started_with_sigint_ignored_still_sees_a_notebook_ignore_it(tmp_path):
    """A grader run in the background of a shell without job control inherits SIGINT ignored; the
    child starts from Python's own handlers, so a notebook that ignores SIGINT is still seen doing it."""
    import signal

    paths = catalog.write_all(tmp_path, ["ignore_signals_then_finish"])
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)      # the workers inherit it across exec
    try:
        result = engine.grade_submission(paths["ignore_signals_then_finish"], SPEC, student_id="s",
                                         secret=b"k", limits=Limits(wall_s=60))
    finally:
        signal.signal(signal.SIGINT, before)
    assert "signals: changes the SIGINT handler" in result.flags, result.flags


def test_a_labs_spec_module_counts_as_the_graders_own_code():
    """A lab's spec.py is loaded as autograder_spec_<hash> (autograder.spec): calling its helpers from a
    graded function is reaching `autograder`, like any other grader code."""
    import types

    from coursekit.checks.cases import DEFAULT_FORBIDDEN
    from coursekit.checks.reach import call_watched

    spec = types.ModuleType("autograder_spec_0123456789ab")
    exec("def expected(x):\n    return 2 * x\n", spec.__dict__)
    assert call_watched(lambda x: spec.expected(x), (3,), {}, DEFAULT_FORBIDDEN) == \
        (6, "autograder_spec_0123456789ab.expected")
    assert call_watched(lambda x: 2 * x, (3,), {}, DEFAULT_FORBIDDEN) == (6, None)


def test_the_child_wall_limit_stretches_with_load_up_to_its_cap():
    """Issue 36: a child sharing its core gets the wall-clock time its CPU work takes there; cpu_s still
    bounds the work, and the stretch has a cap. A timeout names the limit it met."""
    from autograder.judge.engine import child_wall_s
    from autograder.judge.verdict import failure_reason as _failure_reason

    limits = Limits(wall_s=120, wall_stretch=4)
    assert [child_wall_s(limits, load, cores=2) for load in (0.5, 2, 6, 40)] == [120, 120, 360, 480]
    assert child_wall_s(Limits(wall_s=120, wall_stretch=1), 40, cores=2) == 120
    # the reason reads the same however busy the machine was (a result never depends on load)
    for stretched in (120.0, 360.0):
        assert _failure_reason({"timed_out": True, "wall_limit_s": stretched}, limits) == (
            "timeout: still running at the wall-clock limit (120 s; up to 4x that on a busy machine)")
    assert _failure_reason({"timed_out": True}, Limits(wall_s=120, wall_stretch=1)) == (
        "timeout: still running at the wall-clock limit (120 s)")
