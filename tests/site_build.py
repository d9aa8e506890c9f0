"""The course website as the site tests get it: `course site` run once into build/site, its cache seeded
with the session's executed notebooks, and the result served over HTTP. The `site` and `site_url`
session fixtures in conftest.py call these; conftest.py's SITE_FILES keeps every file that uses them on
one xdist worker, so two workers never build into build/site at once."""
from __future__ import annotations

import contextlib
import functools
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat

from coursekit.app.site.build import site_modules
from coursekit.app.site.execute import HASH_KEY, code_fingerprint, is_current, source_hash
from paths import ROOT, TESTS

PAGES = [page for module in site_modules(ROOT) for page in module.pages]
BOARDS = TESTS / "fixtures" / "leaderboard"      # a class's published board, built into the site
# The one notebook `course site` executes itself here; every other page comes from the session's
# executed notebooks (tests/notebook_runner.py), which the lesson and lab tests run anyway.
SITE_EXECUTES = "course/m1-training-vs-inference/01-what-each-does.ipynb"
BUILD_LOG: dict[str, str] = {}   # the `course site` run's stderr, for the warning test


def seed_site_cache(executed_notebooks) -> None:
    """Put the session's executed copies where `course site` keeps its cache, stamped as current."""
    fingerprint, cache = code_fingerprint(ROOT), ROOT / "build" / "site" / "executed"
    for rel in PAGES:
        copy = cache / rel
        if not rel.endswith(".ipynb") or rel == SITE_EXECUTES:
            continue
        wanted = source_hash(ROOT / rel, fingerprint)
        if is_current(copy, wanted):
            continue
        nb = executed_notebooks.get(ROOT / rel, allow_errors=rel.startswith("labs/"))
        nb.metadata[HASH_KEY] = wanted
        copy.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, copy)
    (cache / SITE_EXECUTES).unlink(missing_ok=True)


def build_site(executed_notebooks) -> Path:
    """`course site --leaderboard` on the checkout; the built html folder."""
    seed_site_cache(executed_notebooks)
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "site", "--leaderboard", str(BOARDS)], cwd=ROOT,
                          capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, f"course site failed:\n{done.stderr[-3000:]}"
    assert f"executed {SITE_EXECUTES}" in done.stdout, done.stdout      # its own execution path ran
    html = ROOT / "build" / "site" / "html"
    assert str(html / "index.html") in done.stdout
    BUILD_LOG["stderr"] = done.stderr
    return html


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(folder: Path):
    """`folder` over HTTP on a free loopback port, until the block ends; yields its URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


def html_path(page: str) -> str:
    return page.rsplit(".", 1)[0] + ".html"
