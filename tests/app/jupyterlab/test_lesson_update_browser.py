"""Using a lesson never blocks a course update: in `course start`'s student mode a lesson is served
read-only, so Run All and JupyterLab's autosave leave the tracked file as shipped, and `git pull` of a
changed lesson succeeds while its tab is still open (it used to abort: "Your local changes ... would be
overwritten")."""
from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request

import nbformat
import pytest

from course_server import SCRATCH, course_start, git_status
from coursekit.app.kernel import LANGUAGE_INFO
from coursekit.app.nbtools import KERNELSPEC
from jupyterlab_ui import click_run_all, open_notebook, read_saved, run_all_cells
from paths import ROOT
from quiz_ui import QUIZ_ITEMS
from waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "course/m1-training-vs-inference/01-what-each-does.ipynb"
PROBE = f"{SCRATCH}/autosave-probe.ipynb"   # a learner's own notebook: autosave writes it
GIT_USER = ["-c", "user.name=Course author", "-c", "user.email=author@example.org"]


def git(folder, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(folder), *GIT_USER, *args], capture_output=True, text=True)


def open_from_path(page, path: str) -> None:
    """File > Open from Path...: a second tab, without reloading the page (its open lesson stays)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Open from Path").first.click()
    page.locator(".jp-Dialog input").fill(path)
    page.locator(".jp-Dialog button.jp-mod-accept").click()
    page.wait_for_selector(f".lm-DockPanel .lm-TabBar-tab.jp-mod-current:has-text('{path.rsplit('/', 1)[-1]}')")


def autosaved_output(page, probe):
    """A condition: autosave has written the probe's output. If the tab shows no unsaved change yet the
    file lacks it, JupyterLab cleared the change mark of an output that arrived while a save was in
    flight (a busy machine met it once): the cell runs again (at most every 10 s), so autosave has a
    change to write."""
    tab = page.locator(".lm-DockPanel .lm-TabBar-tab.jp-mod-current")
    last_run = [time.monotonic()]

    def saved() -> bool:
        saved = read_saved(probe)
        if saved and "mine" in json.dumps(saved["cells"][0]["outputs"]):
            return True
        if "jp-mod-dirty" not in (tab.get_attribute("class") or "") and time.monotonic() - last_run[0] > 10:
            click_run_all(page)
            last_run[0] = time.monotonic()
        return False
    return saved


def save_through_api(server, path: str, notebook) -> urllib.error.HTTPError:
    """What Ctrl+S would send if JupyterLab tried: the server refuses it (an HTTPError returned)."""
    body = json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode()
    request = urllib.request.Request(server.url(f"api/contents/{path}"), data=body, method="PUT",
                                     headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as error:
        return error
    raise AssertionError(f"the server saved {path}")


def test_run_all_and_autosave_leave_the_lesson_and_git_pull_works(tmp_path, browser, artifacts_dir):
    upstream, student = tmp_path / "upstream", tmp_path / "student"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(upstream)], check=True)
    subprocess.run(["git", "clone", "--quiet", str(upstream), str(student)], check=True)
    with open(student / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write(f"/{SCRATCH}/\n")
    probe = nbformat.v4.new_notebook()
    # as the course's kernel reports them: opening leaves it clean, so its one change is the run's output
    probe.metadata["kernelspec"], probe.metadata["language_info"] = dict(KERNELSPEC), dict(LANGUAGE_INFO)
    probe.cells = [nbformat.v4.new_code_cell("print('mine')")]
    (student / SCRATCH).mkdir()
    nbformat.write(probe, student / PROBE)
    shipped = (student / LESSON).read_bytes()

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        with course_start(student, tmp_path / "server", autosave_s=1) as server:  # autosave every second
            open_notebook(page, server, LESSON)
            run_all_cells(page, until=page.locator(QUIZ_ITEMS).first)
            lesson_tab = page.locator(".lm-DockPanel .lm-TabBar-tab.jp-mod-current")
            assert "jp-mod-dirty" in (lesson_tab.get_attribute("class") or "")   # ran: autosave would write it

            # A learner's own notebook, opened after the lesson ran: once autosave has written it, the
            # lesson's autosave (same interval, started earlier) has had its turn too.
            open_from_path(page, PROBE)
            run_all_cells(page, until=page.locator(".jp-OutputArea-output:visible", has_text="mine").first)
            wait_for(autosaved_output(page, student / PROBE), timeout=180,
                     what="autosave to write the learner's own notebook")
            page.screenshot(path=str(artifacts_dir / "lesson-after-autosave.png"))
            assert not page.locator(".jp-Dialog").count(), page.locator(".jp-Dialog").inner_text()
            assert (student / LESSON).read_bytes() == shipped
            assert git_status(student) == ""
            refused = save_through_api(server, LESSON, nbformat.read(student / LESSON, as_version=4))
            # 403 from coursekit/app/contents.py; jupytext, when installed, re-raises it as a 500 with our message
            assert refused.code in (403, 500) and "is course material" in refused.read().decode()

            # The course changes upstream; the learner updates with the lesson's tab still open.
            changed = nbformat.read(upstream / LESSON, as_version=4)
            changed.cells.append(nbformat.v4.new_markdown_cell("An erratum added by a course update."))
            nbformat.write(changed, upstream / LESSON)
            assert git(upstream, "commit", "-qam", "lesson update").returncode == 0
            pulled = git(student, "pull", "--ff-only")
            assert pulled.returncode == 0, pulled.stderr
            assert "An erratum added by a course update." in (student / LESSON).read_text()
            assert git_status(student) == ""
    finally:
        context.close()
