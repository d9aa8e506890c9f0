"""Command 1's last step: `course start` serves JupyterLab with the start page as its default page."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import ROOT, free_port
from waiting import wait_for

pytestmark = pytest.mark.slow


def serve(tmp_path, *options: str) -> tuple[subprocess.Popen, int, str]:
    port, token = free_port(), "course-start-test"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path), "COURSE_PROGRESS_DIR": str(tmp_path / "p")}
    process = subprocess.Popen([sys.executable, "-m", "coursekit.app.cli", "start", "--no-browser", "--port", str(port),
                                *options, "--", f"--ServerApp.token={token}", "--ip=127.0.0.1"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return process, port, token


def test_course_start_serves_the_start_page(tmp_path):
    process, port, token = serve(tmp_path)
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


def test_course_start_opens_a_private_course_folder(tmp_path):
    """docs/AUTHORING.md: `course start --root DIR --instructor` on a folder with no start page."""
    private = tmp_path / "private-course"
    (private / "solutions" / "my-lab").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", private)
    process, port, token = serve(tmp_path, "--root", str(private), "--instructor")
    try:
        def listed():
            assert process.poll() is None, process.stdout.read()
            return _get(f"http://127.0.0.1:{port}/api/contents/solutions?token={token}")
        listing = wait_for(listed, 120, "course start --root to serve the private folder")
        assert [item["name"] for item in json.loads(listing)["content"]] == ["my-lab"]
        assert not (private / "work").exists()      # no learner's copies in an author's folder
    finally:
        process.terminate()
        process.wait(timeout=20)


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode()
    except OSError:             # not serving yet
        return None
