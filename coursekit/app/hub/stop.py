"""`course hub stop`: end a class day in seconds: every person's server, then the hub, its services
(tutor, idle culler) and the proxy.

The hub alone is restartable mid-class (cleanup_servers is off: students' servers and kernels keep
running through a hub restart), so stopping the class stops the servers first, through the hub's REST
API with the `course-admin` token in the data folder, then asks the hub to shut down (POST /shutdown),
which stops its services and the proxy. Homes, the exchange, grades and the hub database stay: the
next `course hub` starts the class again.
"""
from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from coursekit.app.hub.classroom import Layout

SERVERS_TIMEOUT = 120       # seconds for every server to stop (each gets SIGTERM, then SIGKILL after 5 s)
HUB_TIMEOUT = 60            # seconds for the hub to stop its services and proxy once asked: 2 s in practice
                            # (benchmarks/RESULTS.md), since every service and the proxy end on the hub's first
                            # signal (coursekit/app/hub/bound.py, services.py)


class StopError(RuntimeError):
    pass


def _alive(pid: int | None, name: str) -> bool:
    """The process is running and is what the pid file says (a pid may be reused after a crash)."""
    if pid is None:
        return False
    try:
        return name in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _wait(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


class HubAPI:
    def __init__(self, layout: Layout):
        settings = layout.read_settings()
        self.base = f"http://127.0.0.1:{settings.hub_port}/hub/api"
        self.token = layout.admin_token.read_text().strip()

    def call(self, method: str, path: str):
        request = urllib.request.Request(self.base + path, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def running(self) -> list[tuple[str, str]]:
        """(user, server name) of every server that is running or starting, all pages."""
        found, offset = [], 0
        while True:
            page = self.call("GET", f"/users?state=active&offset={offset}&limit=200")
            found += [(user["name"], server) for user in page for server in (user.get("servers") or {})]
            if len(page) < 200:
                return found
            offset += 200

    def stop_server(self, user: str, server: str) -> None:
        path = f"/users/{user}/server" if server == "" else f"/users/{user}/servers/{server}"
        try:
            self.call("DELETE", path)
        except urllib.error.HTTPError as error:
            if error.code != 400:       # 400: already stopping or stopped
                raise


def _shut_down(api: HubAPI, hub_pid: int) -> None:
    """Through the REST API: JupyterHub's `stop` ends its periodic checks, then cleans up. A SIGTERM (what
    Ctrl+C sends) starts the same clean-up with the checks still running, so the minutely service health
    check can land on a half-removed service and log a traceback (`'NoneType' object has no attribute
    'proto'`; JupyterHub's shutdown_cancel_tasks, also reported in opendatahub-io/odh-manifests#684). A
    hub started before its admin role had the `shutdown` scope refuses the call and gets SIGTERM."""
    try:
        api.call("POST", "/shutdown")
    except (urllib.error.URLError, OSError):
        os.kill(hub_pid, signal.SIGTERM)


def stop(data: str | Path, say=print) -> int:
    layout = Layout(data)
    if not layout.settings.is_file():
        raise StopError(f"{layout.settings} not found: no class was set up with --data {layout.data}")
    hub_pid = _pid(layout.data / "jupyterhub.pid")
    if not _alive(hub_pid, "jupyterhub"):
        say(f"course hub stop: no hub is running for {layout.data} (start it with `course hub` to stop "
            "servers left from an earlier run)")
        return 0
    api = HubAPI(layout)
    try:
        servers = api.running()
        # at once: the hub answers a DELETE only once that server has stopped (5 to 8 s each here)
        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(lambda found: api.stop_server(*found), servers))
        if not _wait(lambda: not api.running(), SERVERS_TIMEOUT):
            left = ", ".join(user for user, _ in api.running())
            raise StopError(f"servers still running after {SERVERS_TIMEOUT} s: {left}; see the hub's log")
    except (urllib.error.URLError, OSError) as error:
        raise StopError(f"the hub at {api.base} did not answer ({error}); is it still starting?") from None
    say(f"course hub stop: stopped {len(servers)} server(s)")
    _shut_down(api, hub_pid)
    if not _wait(lambda: not _alive(hub_pid, "jupyterhub"), HUB_TIMEOUT):
        os.kill(hub_pid, signal.SIGKILL)
        say(f"course hub stop: the hub did not stop within {HUB_TIMEOUT} s; killed it")
    proxy_pid = _pid(layout.data / "proxy.pid")      # the hub stops its proxy; one left from a kill is stopped here
    if _alive(proxy_pid, "configurable-http-proxy"):
        os.kill(proxy_pid, signal.SIGTERM)
    say(f"course hub stop: the class is stopped (homes, exchange and grades kept in {layout.data})")
    return 0
