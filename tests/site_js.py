"""Run the course website's quiz code (coursekit/app/site/static/*.js) in node, for the parity tests."""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

RUNNER = Path(__file__).parent / "site_js" / "run.js"
# Typed answers of every kind, readable or not, that both engines must read alike.
MALFORMED = ["abc", "", "   ", "1e999", "-1e999", "1,2,3", "12 apples", "--5", "five", "1..5", "1,5,0", "3 4",
             "$$5", "∞", "nan", "inf", "1e", "0x10", "1/2", "½", "x" * 101, "١٢٣", "٧٣٠ GB", "7_000", "−5",
             "36 500", "1.234.567", "1.234,5", "1,234.5", "0,075", "2,5", "3.2 x 10^9", "3.2e9", "US$ 1.5",
             "-$5", "$730k", "730 thousand", "2 B", "7B", "1.5 bn", "12 percent", "4 milliseconds",
             "1,250 per day", "$1,250 a day", "73,000 thousand dollars", "$73M", "100 GiB", "5 users",
             "1e3k", " 7 ", "'quoted'", 'say "x"', "tab\there", "1\u00a0000", "1\u202f000", "12,5 %",
             "٧٣٠٫٥", "٠٫٠٧٥", "1,234٫5", "1٫2٫3", "1.2٫3", "1٫234,5", "٫5", "12٫5 %"]


@functools.cache
def validator() -> Path:
    """The browser's progress validator, compiled from the schema as a site build does (once per run)."""
    from coursekit.app.site.progress_validator import write_validator

    return write_validator(Path(tempfile.mkdtemp(prefix="progress-validator-")))


def types_script() -> Path:
    """Every registered item type's browser code, assembled as a site build does (for each call: a test
    may have registered a type of its own)."""
    from coursekit.app.site.quizzes import write_types_script

    return write_types_script(Path(tempfile.mkdtemp(prefix="quiz-item-types-")))


def node(request: dict):
    """Send one request to tests/site_js/run.js; its JSON answer."""
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node not found: the site's quiz parity tests run its JavaScript in node (Debian's nodejs, "
                    "installed by ./course.sh test)")
    done = subprocess.run([exe, str(RUNNER)], input=json.dumps(request), capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COURSE_PROGRESS_VALIDATOR": str(validator()),
                               "COURSE_QUIZ_TYPES": str(types_script())})
    assert done.returncode == 0, f"node failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)
