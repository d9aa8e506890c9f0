"""The tutor in a real JupyterLab (headless Chromium, 1280x800): a learner's lab with a wrong function,
its check failing, the tutor's panel opened under it, a question typed, and the answer streamed in from
a real model server (`transformers serve`, tests/tutor_model.py) through the course's client."""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sys

import pytest

from conftest import ROOT, free_port, serve
from jupyterlab_ui import open_notebook
from tutor_endpoint import RecordingEndpoint
from tutor_model import build_model, model_server
from waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LAB = "lab1-roofline"
SAYS = ("Your check failed on the case 'NVIDIA H100 SXM'. Which of the two arguments should be on top of "
        "the fraction, and what unit does the ridge point have?")
WRONG = "def ridge_point(peak_flops, bandwidth):\n    return bandwidth / peak_flops\n"
ASK_CELLS = ["from coursekit.checks import check_here\ncheck_here()", "from coursekit.tutor import tutor\ntutor()"]


def learners_lab(root):
    """work/<lab>/<lab>.ipynb: the released lab, a wrong ridge_point, and after its test cell a check and the tutor."""
    notebook = json.loads((ROOT / "labs" / LAB / f"{LAB}.ipynb").read_text())
    cells = notebook["cells"]
    where = next(i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("grade_id") == "impl_ridge")
    cells[where]["source"] = WRONG
    added = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": s} for s in ASK_CELLS]
    cells[where + 2:where + 2] = added
    path = root / "work" / LAB / f"{LAB}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(notebook))
    return where


@pytest.fixture(scope="module")
def tutor_lab(tmp_path_factory, artifacts_dir):
    base = tmp_path_factory.mktemp("tutor-lab")
    model = build_model(base / "model", says=SAYS)
    root = base / "served"
    for folder in ("course", "labs"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    where = learners_lab(root)
    with model_server(artifacts_dir / "tutor-browser-model.log") as url, RecordingEndpoint(upstream=url) as endpoint:
        config = base / "class-tutor.json"
        config.write_text(json.dumps({"endpoint": endpoint.url, "model": str(model), "max_tokens": 120}))
        port, token = free_port(), secrets.token_hex(16)
        progress = base / "progress"
        progress.mkdir()
        env = dict(os.environ, COURSE_ROOT=str(root), COURSE_PROGRESS_DIR=str(progress), COURSE_TUTOR_CONFIG=str(config),
                   JUPYTER_RUNTIME_DIR=str(base / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(base / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"))
        for name in ("COURSE_GRADING_SECRET",):
            env.pop(name, None)
        command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
                   f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}"]
        if os.geteuid() == 0:
            command.append("--allow-root")
        with serve(command, env, base / "jupyterlab.log", port, token, root, progress) as server:
            yield server, endpoint, where


def run_cell(page, index: int, until) -> None:
    """Select cell `index`, run it (Shift+Enter) until `until` shows; accepts the kernel chooser if asked."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    accept = page.locator(".jp-Dialog button.jp-mod-accept")

    def ran() -> bool:
        if until.count() and until.first.is_visible():
            return True
        if accept.count() and accept.first.is_visible():
            accept.first.click()
        if not page.locator(".jp-CodeCell .jp-InputPrompt:visible", has_text="*").count():
            cell.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")
        return False

    wait_for(ran, 150, f"cell {index} to show its output", interval=2)


def test_ask_the_tutor_about_a_failing_check_and_see_it_stream(tutor_lab, browser, artifacts_dir):
    server, endpoint, where = tutor_lab
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_notebook(page, server, f"work/{LAB}/{LAB}.ipynb")
        # ran: its prompt shows an execution count ("[ ]:" shows before it runs)
        run_cell(page, where, page.locator(f".jp-Cell:nth-child({where + 1}) .jp-InputPrompt", has_text=re.compile(r"\[\d+\]")))
        failing = page.locator(".jp-OutputArea-output", has_text="FAIL  Task (ridge point)")
        run_cell(page, where + 2, failing)
        assert "expected 295.224, got 0.00338726" in failing.first.inner_text()
        panel = page.locator(".course-tutor")
        run_cell(page, where + 3, panel)
        page.evaluate("""() => {            // every distinct text the reply shows, as it streams in
            window.tutorReplies = [];
            new MutationObserver(() => {
                const reply = document.querySelector('.course-tutor-reply');
                const text = reply ? reply.innerText : '';
                if (text && window.tutorReplies[window.tutorReplies.length - 1] !== text) window.tutorReplies.push(text);
            }).observe(document.querySelector('.course-tutor'), {subtree: true, childList: true, characterData: true});
        }""")
        panel.locator(".course-tutor-question textarea").fill("Why does my ridge point check fail?")
        panel.locator(".course-tutor-ask").click()
        page.locator(".course-tutor-done").wait_for(timeout=120_000)
        reply = panel.locator(".course-tutor-reply").inner_text()
        page.screenshot(path=str(artifacts_dir / "tutor-panel-1280x800.png"))
        assert reply.strip() == SAYS
        shown = page.evaluate("window.tutorReplies")
        assert len(shown) >= 3 and all(SAYS.startswith(s.strip()) for s in shown)    # it grew, piece by piece
    finally:
        context.close()
    assert len(endpoint.requests) == 1
    context_sent = endpoint.requests[0].body["messages"][1]["content"]
    assert "Task (ridge point)" in context_sent and "return bandwidth / peak_flops" in context_sent
    assert "expected 295.224, got 0.00338726" in context_sent and "check_here()" in context_sent
