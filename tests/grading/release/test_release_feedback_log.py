"""`nbgrader release_feedback` under the course's config (autograder/release/exchange.py) logs the page a
student fetches, not nbgrader's temporary `-tmp.html`, which it has already moved away."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from paths import ROOT


def test_the_log_names_the_released_page_that_exists(tmp_path):
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    page = tmp_path / "feedback" / "ada" / "lab1"
    page.mkdir(parents=True)
    (page / "lab1.html").write_text("<html><body>feedback</body></html>")
    (page / "timestamp.txt").write_text("2026-11-20 10:00:00 UTC")
    (page / "submission_secret.txt").write_text("secret")
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o1777)
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "release_feedback", "lab1",
                           f"--Exchange.root={exchange}"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    named = re.findall(r"Feedback released to: (\S+)", done.stderr)
    assert len(named) == 1 and "-tmp" not in named[0], done.stderr
    assert Path(named[0]).read_text() == "<html><body>feedback</body></html>"
