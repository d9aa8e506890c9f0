"""The JupyterLab that `course start` runs, as a student meets it at a laptop's 1280x800, on a fresh
git clone: a saved quiz reopens as "run this cell" (never "model not found"), opening and closing a
lesson or a lab copy leaves the clone clean, and student mode hides nbgrader's instructor tools
that `--instructor` shows."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from course_server import SCRATCH, clone_course, course_start, git_status
from coursekit.app.saving import QUIZ_NOTE, WIDGET_VIEW
from jupyterlab_ui import open_notebook, read_saved, run_all_cells
from waiting import wait_for
from quiz_ui import GOOD, QUIZ_ITEMS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "course/m1-training-vs-inference/01-what-each-does.ipynb"
LAB_COPY = "work/lab1-roofline/lab1-roofline.ipynb"   # made by `course start`
LAB_RELEASE = "labs/lab1-roofline/lab1-roofline.ipynb"   # read-only in student mode
READ_ONLY_LESSON = "course/m2-training-chips/01-training-silicon.ipynb"
CREATE_ASSIGNMENT = ".jp-SideBar .lm-TabBar-tab[data-id^='nbgrader-create_assign']"  # nbgrader spells its id "assignemnt"


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    base = tmp_path_factory.mktemp("course-start")
    return base, clone_course(base)


@pytest.fixture(scope="module")
def student_server(clone):
    base, root = clone
    with course_start(root, base, autosave_s=1) as server:   # autosave every second: it would show at once
        yield server


def api(server, path: str, method: str = "GET"):
    request = urllib.request.Request(server.url(path), method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
        return json.loads(body) if body else None


def shut_down_kernels(server) -> None:
    """What quitting JupyterLab does to the kernels: their widget models are gone with them."""
    for kernel in api(server, "api/kernels"):
        api(server, f"api/kernels/{kernel['id']}", method="DELETE")


def wait_kernel_idle(page, server, path: str) -> None:
    """The notebook's own kernel is up and idle, on the server and on the page. The page's indicator
    alone is no proof: it read "idle" before the tab had any session (a busy machine)."""
    wait_for(lambda: [s for s in api(server, "api/sessions")
                      if s["path"] == path and s["kernel"]["execution_state"] == "idle"],
             timeout=120, what=f"{path}'s kernel to start and go idle")
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-Notebook-ExecutionIndicator[data-status='idle']",
                           timeout=120_000, state="attached")


def close_current_tab(page) -> None:
    """File > Close Tab; a tab that needs saving asks first, and the dialog makes this fail."""
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Close Tab").first.click()
    page.wait_for_selector(".lm-DockPanel .lm-TabBar-tab .jp-NotebookPanel-tab, "
                           ".lm-DockPanel .lm-TabBar-tab[data-type='document-title']", state="detached",
                           timeout=30_000)
    assert not page.locator(".jp-Dialog").count(), page.locator(".jp-Dialog").inner_text()


def test_saved_quiz_reopens_as_run_this_cell(student_server, laptop_page, artifacts_dir):
    folder = student_server.root / SCRATCH
    shutil.copytree(GOOD, folder / "banks")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.cells = [nbformat.v4.new_markdown_cell("# A saved quiz"),
                nbformat.v4.new_code_cell(f"from coursekit.quiz import show_quiz\nshow_quiz('m9-l1', seed=3, "
                                          f"root={str(folder / 'banks')!r})")]
    path = folder / "saved-quiz.ipynb"
    nbformat.write(nb, path)

    page = laptop_page
    open_notebook(page, student_server, f"{SCRATCH}/saved-quiz.ipynb")
    run_all_cells(page, until=page.locator(QUIZ_ITEMS).first)

    def saved_outputs():
        """Save, then read the file: an autosave from before the quiz rendered can leave the tab clean
        with no outputs in the file (a shuffled run met it), so wait for the save that holds them."""
        page.keyboard.press("Control+s")
        saved = read_saved(path)
        return saved and saved["cells"][1]["outputs"]

    outputs = wait_for(saved_outputs, 60, "the saved file to hold the quiz's outputs", interval=1)
    assert all(WIDGET_VIEW not in o.get("data", {}) for o in outputs), outputs

    shut_down_kernels(student_server)
    open_notebook(page, student_server, f"{SCRATCH}/saved-quiz.ipynb")
    note = page.locator(".jp-OutputArea-output", has_text="run this cell to take the quiz")
    note.wait_for(timeout=30_000)
    assert note.inner_text().strip() == QUIZ_NOTE
    page.screenshot(path=str(artifacts_dir / "saved-quiz-reopened.png"))
    assert not page.get_by_text("Error displaying widget").count()


@pytest.mark.parametrize("notebook", [LESSON, LAB_COPY], ids=["lesson", "lab-copy"])
def test_opening_and_closing_leaves_the_course_clean(student_server, laptop_page, notebook):
    root = student_server.root
    before = (root / notebook).read_bytes()
    page = laptop_page
    open_notebook(page, student_server, notebook)
    wait_kernel_idle(page, student_server, notebook)
    tab = page.locator(".lm-DockPanel .lm-TabBar-tab.jp-mod-current")
    # JupyterLab marks a notebook dirty when opening changes it (a kernelspec, language_info)
    assert "jp-mod-dirty" not in (tab.get_attribute("class") or "")
    close_current_tab(page)
    assert (root / notebook).read_bytes() == before
    assert git_status(root) == ""


def nbgrader_menu(page) -> list[str]:
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").first.click()
    items = page.locator("#jp-mainmenu-nbgrader .lm-Menu-item:visible .lm-Menu-itemLabel")
    items.first.wait_for()
    labels = [t.strip() for t in items.all_inner_texts() if t.strip()]
    page.keyboard.press("Escape")
    return labels


def status_of(server, path: str) -> int:
    try:
        with urllib.request.urlopen(server.url(path), timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_student_mode_shows_only_student_tools(student_server, laptop_page):
    page = laptop_page
    open_notebook(page, student_server, LAB_COPY)
    labels = nbgrader_menu(page)
    assert "Assignment List" in labels, labels
    assert not [l for l in labels if "Formgrader" in l or "Course" in l], labels
    assert page.locator(".jp-NotebookPanel:visible .validate-button").count() == 1   # Validate stays
    assert not page.locator(CREATE_ASSIGNMENT).count()
    assert status_of(student_server, "formgrader") == 404


def test_no_news_prompt_and_long_code_lines_wrap(student_server, laptop_page):
    """JupyterLab's own defaults as `course start` sets them: no pop-up asking to fetch Jupyter news
    (a newcomer's first sight), and a code line longer than the 1280 px window wraps instead of
    running out of view."""
    notification = api(student_server, "lab/api/settings/@jupyterlab/apputils-extension:notification")
    defaults = {k: v.get("default") for k, v in notification["schema"]["properties"].items()}
    assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False, defaults
    page = laptop_page
    open_notebook(page, student_server, LAB_COPY)
    editor = page.locator(".jp-NotebookPanel:visible .jp-CodeCell .cm-content").first
    wait_for(lambda: "cm-lineWrapping" in (editor.get_attribute("class") or ""), timeout=30,
             what="code cells' lines wrapped")
    assert not page.locator(".jp-toast-container .jp-Notification-Toast-news, .Toastify__toast",
                            has_text="news").count()


SPLIT_NUMBERS = """
() => {
  const split = [], seen = [];
  for (const pre of document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output pre')) {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\\d+\\.\\d+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        seen.push(m[0]);
        if (lines.size > 1) split.push(m[0]);
      }
    }
  }
  return {seen: seen.length, split};
}
"""


def test_printed_output_wraps_between_words_never_inside_a_number(clone, student_server, laptop_page):
    """A check's red "Not yet: ... expected 0.428571, got 0.42" wrapped inside a number: JupyterLab breaks
    printed output at any character. The course's stylesheet (coursekit/app/jupyterlab-custom/custom.css)
    wraps it between words. Lines of every length put a number at every position of the line's end."""
    base, root = clone
    (root / SCRATCH).mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}   # as the course's kernel reports: opening leaves it clean
    nb.cells = [nbformat.v4.new_code_cell(
        "for n in range(60, 200):\n    print('Not yet: ' + 'x' * n + ' expected 0.428571428571, got 0.42')")]
    nbformat.write(nb, root / SCRATCH / "wrap.ipynb")
    page = laptop_page
    open_notebook(page, student_server, f"{SCRATCH}/wrap.ipynb")
    wait_kernel_idle(page, student_server, f"{SCRATCH}/wrap.ipynb")
    page.locator(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-OutputArea-output pre", timeout=60_000)
    style = page.evaluate("() => getComputedStyle(document.querySelector("
                          "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output pre')).wordBreak")
    assert style == "normal", style
    found = wait_for(lambda: (lambda r: r if r["seen"] >= 280 else None)(page.evaluate(SPLIT_NUMBERS)), timeout=60,
                     what="the 140 printed lines on the page")
    assert not found["split"], f"{len(found['split'])} numbers split across lines"


CLOSE_ICON_FILLS = """
(tab) => {
  const fill = (sel) => { const el = tab.querySelector('.lm-TabBar-tabCloseIcon ' + sel);
                          return el ? getComputedStyle(el).fill : 'missing'; };
  return {dirty: tab.classList.contains('jp-mod-dirty'), title: tab.getAttribute('title') || '',
          cross: fill('.jp-icon3[fill]'), dot: fill('.jp-icon-busy[fill]')};
}
"""


def test_a_read_only_tab_keeps_its_close_button_after_cells_run(student_server, laptop_page):
    """Running a lesson (read-only in student mode) marks it changed in JupyterLab, which showed the
    unsaved dot in place of the close button although there is nothing to save. The course's stylesheet
    keeps the close button on a read-only tab; a writable tab with unsaved work still shows the dot.
    A lesson no other test here runs: its kernel is shut down at the end, as the next test expects."""
    page = laptop_page
    open_notebook(page, student_server, READ_ONLY_LESSON)
    wait_kernel_idle(page, student_server, READ_ONLY_LESSON)
    page.locator(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    wait_for(lambda: "jp-mod-dirty" in (tab.get_attribute("class") or ""), timeout=60,
             what="the read-only lab's tab marked changed after a cell ran")
    shown = tab.evaluate(CLOSE_ICON_FILLS)
    assert "\nPath: course/" in shown["title"], shown
    assert shown["dot"] == "none" and shown["cross"] != "none", shown
    # the same rule leaves a writable document's dot alone: a tab of a learner's own copy keeps JupyterLab's look
    tab.evaluate("(t) => t.setAttribute('title', 'Name: x.ipynb\\nPath: work/x.ipynb\\nLast Saved: now')")
    shown = tab.evaluate(CLOSE_ICON_FILLS)
    assert shown["dot"] != "none" and shown["cross"] == "none", shown
    for session in api(student_server, "api/sessions"):
        if session["path"] == READ_ONLY_LESSON:
            api(student_server, f"api/sessions/{session['id']}", method="DELETE")


def test_instructor_mode_shows_the_instructor_tools(clone, laptop_page):
    base, root = clone
    with course_start(root, base / "instructor", "--instructor") as server:
        page = laptop_page
        open_notebook(page, server, LAB_COPY)
        labels = nbgrader_menu(page)
        assert "Assignment List" in labels and "Formgrader" in labels, labels
        assert page.locator(CREATE_ASSIGNMENT).count() == 1
        assert status_of(server, "formgrader") == 200


def test_start_page_lists_every_step_and_opens_a_lesson(student_server, laptop_page):
    """The start page's progress table at 1280x800: every lesson, lab and module test with its
    state, each module's share done, and its links open the notebook."""
    page = laptop_page
    open_notebook(page, student_server, "course/index.ipynb")
    table = page.locator(".jp-OutputArea-output .course-progress-table").first
    run_all_cells(page, until=table)
    # Run All leaves the view at the last cell, and JupyterLab hides cells far from the viewport (seven
    # modules put the table out of range): read the table's text, not what is painted now
    text = table.text_content()
    assert "Module 1: Training vs inference:" in text and "done (" in text
    lessons = len(list(student_server.root.glob("course/m*/[0-9]*.ipynb")))
    assert table.locator("a", has_text="Lesson").count() == lessons
    assert table.locator("a", has_text="Lab 1:").count() == 1 and "not started" in text
    assert table.locator(".course-progress-next").count() == 1   # where to go on, marked
    table.locator("a", has_text="Lesson 2:").first.click()
    page.wait_for_selector(".lm-TabBar-tab.jp-mod-current:has-text('02-memory-per-parameter')", timeout=60_000)


def test_start_page_opens_the_learners_own_lab_copy(student_server, laptop_page):
    """The start page's lab link and check command name work/, as `course start`, the README, `course
    work`, progress and the lessons' Next links do; labs/ is the release that updates replace."""
    page = laptop_page
    open_notebook(page, student_server, "course/index.ipynb")
    module1 = page.locator(".jp-MarkdownCell", has_text="Module 1:").first
    module1.scroll_into_view_if_needed()
    assert "course check work/lab1-roofline/lab1-roofline.ipynb" in module1.text_content()
    module1.locator("a[href*='lab1-roofline.ipynb']").click()
    page.wait_for_url("**/lab/tree/work/lab1-roofline/lab1-roofline.ipynb*", timeout=60_000)
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")


def listed_names(page) -> set[str]:
    items = page.locator(".jp-FileBrowser .jp-DirListing-item .jp-DirListing-itemText")
    items.first.wait_for()
    return {t.strip() for t in items.all_text_contents()}


def test_student_file_browser_hides_instructor_material(student_server, laptop_page):
    """Solutions, the grader and the hint and worked-answer texts are not one click away in student
    mode (`course start --instructor` lists them: tested below with the API the file browser reads)."""
    page = laptop_page
    open_notebook(page, student_server, "course/index.ipynb")
    page.locator(".jp-FileBrowser .jp-BreadCrumbs-home").first.click()
    page.wait_for_function("() => [...document.querySelectorAll('.jp-FileBrowser .jp-DirListing-itemText')]"
                           ".some(e => e.textContent.trim() === 'coursekit')")
    top = listed_names(page)
    assert {"course", "labs", "work", "coursekit"} <= top and not top & {"solutions", "autograder"}, top
    page.locator(".jp-FileBrowser .jp-DirListing-item", has_text="coursekit").first.dblclick()
    page.wait_for_function("() => [...document.querySelectorAll('.jp-FileBrowser .jp-DirListing-itemText')]"
                           ".some(e => e.textContent.trim() === 'hints.py')")
    assert "hint_texts.yaml" not in listed_names(page)


def test_instructor_mode_lists_the_instructor_material(clone):
    base, root = clone
    with course_start(root, base / "instructor-files", "--instructor") as server:
        names = {entry["name"] for entry in api(server, "api/contents")["content"]}
        assert {"solutions", "autograder"} <= names, names


def test_hint_text_reaches_the_page_only_when_revealed(student_server, laptop_page):
    folder = student_server.root / SCRATCH
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.cells = [nbformat.v4.new_code_cell("from coursekit.hints import hint_ladder\n"
                                          "hint_ladder('Why?', hints=['FIRST-' + 'RUNG-TEXT'], answer='WORKED-' + 'ANSWER-TEXT')")]
    nbformat.write(nb, folder / "hints.ipynb")
    page = laptop_page
    open_notebook(page, student_server, f"{SCRATCH}/hints.ipynb")
    button = page.locator(".course-hint-ladder button", has_text="Show hint 1")
    run_all_cells(page, until=button)
    assert "FIRST-RUNG-TEXT" not in page.content() and "WORKED-ANSWER-TEXT" not in page.content()
    button.click()
    page.locator(".course-hint-ladder", has_text="FIRST-RUNG-TEXT").wait_for()
    assert "WORKED-ANSWER-TEXT" not in page.content()


def course_check(server, notebook: str) -> str:
    """`course check NOTEBOOK` in a terminal beside the server (it asks the server what is open)."""
    env = dict(os.environ, COURSE_ROOT=str(server.root), COURSE_PROGRESS_DIR=str(server.progress_dir),
               JUPYTER_RUNTIME_DIR=str(server.log.parent / "runtime"))
    done = subprocess.run([str(Path(sys.executable).parent / "course"), "check", notebook], cwd=server.root,
                          env=env, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_course_check_compares_with_what_the_kernel_ran(student_server, laptop_page):
    """A kernel that only started (a reopened notebook after a server restart) ran nothing newer than the
    saved file: `course check` says nothing of unsaved work and records the check. Once a cell has run
    after the save, it warns and does not record. The released lab is used: it is read-only in student
    mode, so autosave never saves it between the run and the check."""
    page = laptop_page
    notebook = student_server.root / LAB_RELEASE
    os.utime(notebook, (time.time() - 600, time.time() - 600))   # saved ten minutes ago
    open_notebook(page, student_server, LAB_RELEASE)
    wait_kernel_idle(page, student_server, LAB_RELEASE)
    # the kernel has started once it keeps its record of runs (a busy machine starts it after the tab shows)
    runtime = student_server.log.parent / "runtime"
    wait_for(lambda: [s for s in api(student_server, "api/sessions") if s["path"] == LAB_RELEASE
                      and (runtime / f"course-ran-kernel-{s['kernel']['id']}.json").exists()],
             timeout=120, what="the lab's kernel to start and write its record of runs")
    said = course_check(student_server, LAB_RELEASE)
    assert "WARNING" not in said and "(progress recorded)" in said, said

    page.locator(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputPrompt:text-matches('\\\\[1\\\\]')")
    wait_kernel_idle(page, student_server, LAB_RELEASE)
    said = course_check(student_server, LAB_RELEASE)
    assert "its kernel ran code at" in said and "(progress not recorded" in said, said


def test_a_closed_tabs_kernel_is_culled_and_an_open_ones_stays(clone, laptop_page):
    """`course start` culls kernels no tab is connected to once idle (half an hour; seconds here)."""
    base, root = clone
    folder = root / SCRATCH
    folder.mkdir(exist_ok=True)
    for name in ("closed", "open"):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
        nb.metadata["language_info"] = {"name": "python"}   # as the course's kernel reports: opening leaves it clean
        nb.cells = [nbformat.v4.new_code_cell("1")]
        nbformat.write(nb, folder / f"{name}.ipynb")
    quick = ["--MappingKernelManager.cull_idle_timeout=3", "--MappingKernelManager.cull_interval=1"]
    with course_start(root, base / "culling", jupyter_args=quick) as server:
        page = laptop_page
        open_notebook(page, server, f"{SCRATCH}/closed.ipynb")
        closed = wait_for(lambda: kernels_of(server, "closed.ipynb"), timeout=60, what="the first tab's kernel")
        wait_kernel_idle(page, server, f"{SCRATCH}/closed.ipynb")
        close_current_tab(page)
        open_notebook(page, server, f"{SCRATCH}/open.ipynb")
        kept = wait_for(lambda: kernels_of(server, "open.ipynb"), timeout=60, what="the open tab's kernel")
        wait_for(lambda: not closed & {k["id"] for k in api(server, "api/kernels")}, timeout=60,
                 what="the closed tab's kernel to be culled")
        # the open tab's kernel, idle past the timeout and a culling round, stays: a tab is connected to it
        wait_for(lambda: idle_s(server, kept) > 5, timeout=60, what="the open tab's kernel to idle 5 s")
        assert kept <= {k["id"] for k in api(server, "api/kernels")}


def idle_s(server, ids: set[str]) -> float:
    from datetime import datetime

    last = [k["last_activity"] for k in api(server, "api/kernels") if k["id"] in ids]
    return time.time() - datetime.fromisoformat(last[0].replace("Z", "+00:00")).timestamp() if last else -1


def kernels_of(server, name: str) -> set[str]:
    return {s["kernel"]["id"] for s in api(server, "api/sessions") if s["path"] == f"{SCRATCH}/{name}"}
