"""The session's check that nothing it started outlives it (tests/leftovers.py, conftest's Leftovers): an
orphan (its parent gone, as a hub's service whose hub was killed) is still found below the test process."""
from __future__ import annotations

import os
import signal
import subprocess

from leftovers import descendants, reap


def test_an_orphan_of_a_test_is_found_below_the_session():
    # `sh` starts sleep in the background and exits: the orphan is handed to this (subreaper) process
    shell = subprocess.run(["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True)
    orphan = int(shell.stdout)
    try:
        assert "sleep 300" in descendants().get(orphan, ""), descendants()
    finally:
        os.kill(orphan, signal.SIGKILL)
        reap()
    assert orphan not in descendants()
