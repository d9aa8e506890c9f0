"""Hostile and broken submissions through the real engine: each gets the right score, reason and flags.

The catalog (tests/fixtures/autograder/submissions.py) states for every submission what it must
get. One warm pool grades them all, as an instructor's batch would: one bad submission must not
disturb the others.
"""
from __future__ import annotations

import ast
import json
import socket
import uuid
from pathlib import Path

import pytest

from autograder.judge.engine import GradingPool, Limits
from autograder.sandbox.confine import UID_BASE, processes_of
from autograder.spec import load_spec

from marks import needs_root
from paths import ROOT
from toy_lab import catalog

SECRET = b"adversarial-suite-secret"
# Short limits keep the suite quick; a busy loop reaches 2 CPU-seconds well before the wall clock,
# even on a loaded 2-core machine (a third of a core for 6 s is enough). The memory limit leaves a
# child about 600 MB beyond the ~650 MB of address space it inherits from the warm worker, so
# filling it stays well inside those 2 CPU-seconds.
LIMITS = Limits(wall_s=15, cpu_s=2, memory_mb=1280, output_kb=64)


def _course(folder: Path) -> tuple[str, tuple[Path, ...]]:
    """Instructor files beside the submissions, as a real course has them: an instructor secret (hidden
    the way the pipeline hides course paths) and a gradebook. Returns the secret and the extra hidden paths."""
    secret = f"instructor-secret-{uuid.uuid4().hex}"
    (folder / "instructor-secret").write_text(secret + "\n")
    (folder / "gradebook.db").write_text("gradebook rows " * 100)
    return secret, (folder / "instructor-secret",)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    folder = tmp_path_factory.mktemp("adversarial")
    secret, hide = _course(folder)
    # A port the test process listens on, outside the sandbox: the network submission must not reach it.
    listener = socket.create_server(("127.0.0.1", 0))
    spec = load_spec(catalog.SPEC_FILE)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COURSE_GRADING_SECRET", secret)     # the grader's environment must not reach students
        with GradingPool(2, LIMITS, hide=hide) as pool:
            paths = catalog.write_all(folder, jobs=str(pool._jobs), port=str(listener.getsockname()[1]))
            honest_before = paths["honest"].read_bytes()
            futures = {name: pool.submit(path, spec, student_id=name, secret=SECRET) for name, path in paths.items()}
            results = {name: future.result() for name, future in futures.items()}
            uids = pool.worker_uids
    with listener:
        yield {"uids": uids, "folder": folder, "paths": paths, "results": results, "honest_before": honest_before,
               "secret": secret, "listener": listener}


@pytest.mark.slow
@needs_root
@pytest.mark.parametrize("submission", catalog.CATALOG, ids=lambda s: s.name)
def test_submission_gets_its_grade_reason_and_flags(batch, submission):
    result = batch["results"][submission.name]
    assert result.status == submission.status, (result.reason, result.flags)
    assert result.score == submission.score, [t.message for t in result.tasks]
    assert result.max_score == catalog.FULL
    if submission.status == "failed":
        assert result.reason and submission.reason in result.reason
        assert result.tasks == []
    else:
        assert result.reason is None
        assert len(result.tasks) == 3 and result.score == sum(t.points for t in result.tasks)
    for flag in submission.flags:
        assert any(flag in f for f in result.flags), f"no flag like {flag!r} in {result.flags}"
    if submission.no_flags:
        assert result.flags == []
    messages = " | ".join(t.message for t in result.tasks)
    for text in submission.messages:
        assert text in messages


def _seen(result) -> list:
    """What a reading submission got back for each path, from its RuntimeError message."""
    message = next(t.message for t in result.tasks if t.grade_id == "test_intensity")
    text = message.split("RuntimeError: ", 1)[-1]
    try:
        return ast.literal_eval(text[:text.rindex("]") + 1])
    except (ValueError, SyntaxError):
        return [message]                     # cut short by file contents: the caller's check shows it


@pytest.mark.slow
@needs_root
def test_nothing_secret_was_read_and_nothing_outside_was_written(batch):
    seen = _seen(batch["results"]["read_secret"])
    *files, env = seen
    # every protected file gave an error or nothing (/dev/null over hidden files), the environment no secret
    assert all(item in (b"", "FileNotFoundError", "PermissionError", "IsADirectoryError") for item in files), seen
    assert env is None
    assert not (ROOT / "hacked-by-student.txt").exists()
    assert not Path("/etc/hacked-by-student").exists()
    assert batch["paths"]["honest"].read_bytes() == batch["honest_before"]


@pytest.mark.slow
@needs_root
def test_secrets_never_reach_a_student(batch):
    """Whatever a submission tried, no text it could send back holds the instructor secret."""
    real = ROOT / "autograder" / "instructor-secret"
    secrets = [batch["secret"], SECRET.decode()] + ([real.read_text().strip()] if real.exists() else [])
    for name, result in batch["results"].items():
        text = json.dumps(result.to_json())
        assert not any(secret in text for secret in secrets), name


@pytest.mark.slow
@needs_root
def test_git_history_gradebook_and_job_files_are_out_of_reach(batch):
    # solution notebooks are tracked in git: .git/objects would hand out their blobs
    seen = _seen(batch["results"]["read_git"])
    assert (ROOT / ".git").exists()
    assert all(item in (b"", [], "FileNotFoundError", "PermissionError") for item in seen), seen


@pytest.mark.slow
@needs_root
def test_network_is_unreachable_from_the_sandbox(batch):
    listener = batch["listener"]
    listener.setblocking(False)
    with pytest.raises(BlockingIOError):
        listener.accept()                    # nobody connected from inside the sandbox
    with socket.create_connection(listener.getsockname(), timeout=5):
        listener.setblocking(True)
        listener.accept()[0].close()         # while a connection from outside it does arrive


@pytest.mark.slow
@needs_root
def test_no_process_outlives_its_submission(batch):
    # fork bombs, orphans that called setsid and sleepers are all gone once the pool is closed
    assert len(batch["uids"]) == 2 and all(uid >= UID_BASE for uid in batch["uids"])
    assert [processes_of(uid) for uid in batch["uids"]] == [[], []]


@pytest.mark.slow
@needs_root
def test_results_are_deterministic(batch, tmp_path):
    names = ["honest", "partial", "visible_only", "rigged_eq", "tensor_subclass", "not_json", "missing_cell",
             "read_secret", "env_sniff", "patch_asserts", "os_exit", "memory_hog"]
    _, hide = _course(tmp_path)
    paths = catalog.write_all(tmp_path, names)
    spec = load_spec(catalog.SPEC_FILE)
    with GradingPool(2, LIMITS, hide=hide) as pool:
        again = {n: pool.submit(p, spec, student_id=n, secret=SECRET).result() for n, p in paths.items()}
    for name in names:
        first, second = batch["results"][name].to_json(), again[name].to_json()
        first.pop("seconds"), second.pop("seconds")
        assert first == second, name
