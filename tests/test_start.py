"""Command 1's last step: `course start` serves JupyterLab with the start page as its default page."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import free_port

pytestmark = pytest.mark.slow


def test_course_start_serves_the_start_page(tmp_path):
    port, token = free_port(), "course-start-test"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path), "COURSE_PROGRESS_DIR": str(tmp_path / "p")}
    process = subprocess.Popen([sys.executable, "-m", "coursekit.app.cli", "start", "--no-browser", "--port", str(port),
                                "--", f"--ServerApp.token={token}", "--ip=127.0.0.1"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    try:
        while True:
            assert process.poll() is None, process.stdout.read()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={token}", timeout=2) as response:
                    final_url, body = response.geturl(), response.read().decode()
                break
            except OSError:
                assert time.monotonic() - started < 120, "course start did not serve within two minutes"
                time.sleep(0.5)
        assert final_url.split("?")[0].endswith("/lab/tree/course/index.ipynb"), final_url
        assert "JupyterLab" in body
    finally:
        process.terminate()
        process.wait(timeout=20)
