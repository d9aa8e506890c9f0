"""The class's hub services end at once when the hub stops them, even when started with SIGINT ignored
(as from a background job or a test worker): the hub sends SIGINT, waits, then SIGTERM, and a service
that sat out that wait made a stopping hub trip over its own service health check (a traceback in its
log, tests/app/hub/test_hub_stop.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from waiting import wait_for

SERVICES = ("coursekit.app.hub.leaderboard", "coursekit.app.hub.tutor_service")


def _ignoring_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def started(module: str, data, port: int) -> subprocess.Popen:
    env = {"PATH": "/usr/bin:/bin", "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}",
           "JUPYTERHUB_SERVICE_PREFIX": "/services/x/", "JUPYTERHUB_API_TOKEN": "t",
           "JUPYTERHUB_API_URL": "http://127.0.0.1:9/hub/api", "JUPYTERHUB_CLIENT_ID": "service-x",
           "JUPYTERHUB_OAUTH_CALLBACK_URL": "/services/x/oauth_callback"}
    return subprocess.Popen([sys.executable, "-m", module, str(data)], env=env, preexec_fn=_ignoring_sigint,
                            stderr=subprocess.PIPE, text=True)


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("module", SERVICES)
def test_a_service_ends_on_the_hubs_first_signal(module, sig, tmp_path):
    (tmp_path / "hub.json").write_text(json.dumps({}))
    port = free_port()
    service = started(module, tmp_path, port)
    try:
        wait_for(lambda: listening(port) or service.poll() is not None, 120, f"{module} to listen")
        assert service.poll() is None, service.stderr.read()
        service.send_signal(sig)
        assert service.wait(timeout=60) == 0          # not SIGTERM's kill, nor a hang until SIGKILL
        assert "Traceback" not in service.stderr.read()
    finally:
        if service.poll() is None:
            service.kill()


# A stand-in hub: ignores SIGINT (as a background job does), starts a child in a session of its own (as
# JupyterHub starts services and the proxy) through coursekit.app.hub.bound, prints its pid, then waits.
HUB = """
import signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-m", "coursekit.app.hub.bound", "sleep", "600"], start_new_session=True)
print(child.pid, flush=True)
time.sleep(600)
"""


def running(pid: int) -> bool:
    """Alive and not a zombie (one reparented to this test process waits here to be reaped)."""
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def became_sleep(pid: int) -> bool:
    """The bound launcher has exec'd its command (same pid): the signals are set."""
    return open(f"/proc/{pid}/cmdline", "rb").read().startswith(b"sleep\0")


@pytest.fixture
def stand_in_hub():
    hub = subprocess.Popen([sys.executable, "-c", HUB], stdout=subprocess.PIPE, text=True)
    child = int(hub.stdout.readline())
    try:
        yield hub, child
    finally:
        for pid in (hub.pid, child):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        hub.wait()


def test_a_bound_child_is_the_command_itself_and_ends_on_sigint(stand_in_hub):
    hub, child = stand_in_hub
    wait_for(lambda: became_sleep(child), 30, "the exec into sleep")
    os.kill(child, signal.SIGINT)           # inherited as ignored from the hub, set back to default
    wait_for(lambda: not running(child), 30, "the bound child to end on SIGINT")
    assert hub.poll() is None


def test_a_bound_child_ends_when_its_hub_is_killed(stand_in_hub):
    hub, child = stand_in_hub
    wait_for(lambda: became_sleep(child), 30, "the exec into sleep")
    hub.kill()                              # no clean-up: only the kernel's parent-death signal reaches it
    wait_for(lambda: not running(child), 30, "the bound child to end with its hub")


def test_the_tutor_answers_the_hubs_health_check_at_its_own_address(tmp_path):
    """The hub asks for each service's URL at start: a 404 there was a stray error line in its log."""
    (tmp_path / "hub.json").write_text(json.dumps({}))
    port = free_port()
    service = started("coursekit.app.hub.tutor_service", tmp_path, port)
    try:
        wait_for(lambda: listening(port) or service.poll() is not None, 120, "the tutor to listen")
        import urllib.request

        for path in ("/services/tutor/", "/"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
                assert answer.status == 200 and b"tutor" in answer.read()
    finally:
        service.kill()
        service.wait()
    assert "404" not in service.stderr.read()
