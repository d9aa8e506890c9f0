"""A terminal opened in the JupyterLab that `course start` runs finds `course` and `autograder`,
and `course doctor` says so (or says why not)."""
from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import free_port
from coursekit.app.doctor import check_terminal_commands
from coursekit.app.terminal import resolve_in_terminal, scripts_dir

SCRIPTS = scripts_dir()


def outside_env(tmp_path: Path) -> dict[str, str]:
    """A student's shell that never activated the venv: its scripts folder is not on PATH."""
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != SCRIPTS)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return {**env, "PATH": path, "SHELL": "/bin/bash", "HOME": str(tmp_path / "home"),
            "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "COURSE_PROGRESS_DIR": str(tmp_path / "p")}


def test_course_terminal_resolves_both_commands(tmp_path):
    found = resolve_in_terminal(outside_env(tmp_path))
    assert found == {name: str(SCRIPTS / name) for name in ("course", "autograder")}


def test_doctor_flags_a_shell_that_resets_path(tmp_path, monkeypatch):
    # a shell whose start-up files reset PATH, as /etc/profile does for a login shell
    shell = tmp_path / "resetting-sh"
    shell.write_text('#!/bin/sh\nPATH=/usr/bin:/bin; export PATH\nshift\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    monkeypatch.setenv("SHELL", str(shell))
    check = check_terminal_commands()
    assert not check.ok
    assert "course -> not found" in check.detail and "autograder -> not found" in check.detail
    monkeypatch.setenv("SHELL", "/bin/bash")
    check = check_terminal_commands()
    assert check.ok, check.detail
    assert "source" in check.detail and str(SCRIPTS / "activate") in check.detail


def terminal_output(base: str, token: str, command: str, until: str, timeout: float = 60) -> str:
    """Open a terminal through JupyterLab's REST API, type `command`, return the output up to `until`."""
    import websocket  # websocket-client, a dependency of jupyter_server

    request = urllib.request.Request(f"{base}/api/terminals?token={token}", method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=10) as response:
        name = json.load(response)["name"]
    ws = websocket.create_connection(f"{base.replace('http', 'ws', 1)}/terminals/websocket/{name}?token={token}",
                                     timeout=timeout)
    try:
        ws.send(json.dumps(["stdin", command + "\r"]))
        output, deadline = "", time.monotonic() + timeout
        while until not in output:
            assert time.monotonic() < deadline, f"no {until!r} in the terminal within {timeout}s:\n{output}"
            message = json.loads(ws.recv())
            if message[0] == "stdout":
                output += message[1]
        return output
    finally:
        ws.close()


@pytest.mark.slow
def test_terminal_from_course_start_finds_the_commands(tmp_path):
    port, token = free_port(), "course-terminal-test"
    process = subprocess.Popen([str(SCRIPTS / "course"), "start", "--no-browser", "--port", str(port),
                                "--", f"--ServerApp.token={token}", "--ip=127.0.0.1"],
                               env=outside_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)  # stdout is a pipe, not a tty: JupyterLab's login-shell case
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, process.stdout.read()
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "course start did not serve within two minutes"
                time.sleep(0.5)
        output = terminal_output(base, token, "which course autograder; course --help | head -1; echo END-$((6*7))",
                                 until="END-42")
        assert f"{SCRIPTS / 'course'}\r\n{SCRIPTS / 'autograder'}" in output, output
        assert "usage: course" in output, output
        assert "command not found" not in output, output
    finally:
        process.terminate()
        process.wait(timeout=20)

