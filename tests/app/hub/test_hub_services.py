"""The class's hub services end at once when the hub stops them, even when started with SIGINT ignored
(as from a background job or a test worker): the hub sends SIGINT, waits, then SIGTERM, and a service
that sat out that wait made a stopping hub trip over its own service health check (a traceback in its
log, tests/app/hub/test_hub_stop.py)."""
from __future__ import annotations

import json
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
