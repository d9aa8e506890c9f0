"""The hub's proxy is installed once even when two hubs start at once (a class hub and an LMS hub, two
test workers): they share the install under a lock, and an install that never finished is redone. Two
unlocked installs into one folder once left a node_modules the proxy could not start from."""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from coursekit.app.hub.proxy import PROXY_PACKAGE, ensure_proxy


@pytest.mark.slow
def test_two_hubs_starting_at_once_get_one_working_proxy(tmp_path):
    folder = tmp_path / "proxy"
    (folder / "node_modules" / ".bin").mkdir(parents=True)          # an install cut off half way
    (folder / "node_modules" / ".bin" / "configurable-http-proxy").write_text("#!/bin/sh\nexit 1\n")
    with ThreadPoolExecutor(2) as pool:
        found = list(pool.map(lambda _: ensure_proxy(folder), range(2)))
    assert found[0] == found[1] and (folder / f".installed-{PROXY_PACKAGE}").exists()
    version = subprocess.run([str(found[0]), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == PROXY_PACKAGE.rsplit("@", 1)[1], version
