"""The tutor end to end against a real OpenAI-compatible server (`transformers serve`) running tiny
models the tests build (tests/tutor_model.py): the context it sends, the streamed reply, and the
guardrails, with a recording front (tests/tutor_endpoint.py) that keeps every request on its way."""
from __future__ import annotations

import json
import re

import pytest

from tutor_course import instructor_fragments, leaks, tutor_course
from tutor_endpoint import RecordingEndpoint
from tutor_model import build_model, model_server

from coursekit.tutor.config import TutorConfig
from coursekit.tutor.guard import WITHHELD
from coursekit.tutor.session import ask

pytestmark = pytest.mark.slow
LAB = "lab1-roofline"


def solution_of(root, grade_id: str) -> str:
    """The solution notebook's answer cell for `grade_id`, markers removed (what a leaking model would say)."""
    notebook = json.loads((root / "solutions" / LAB / f"{LAB}.ipynb").read_text())
    cell = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    return re.sub(r"\n\s*### (BEGIN|END) SOLUTION", "", "".join(cell["source"]))


@pytest.fixture(scope="module")
def served(tmp_path_factory, artifacts_dir):
    base = tmp_path_factory.mktemp("tutor-model")
    root = tutor_course(base)
    leaked = f"Here it is:\n```python\n{solution_of(root, 'impl_ridge')}\n```\nDone."
    models = {"random": build_model(base / "random"), "leaky": build_model(base / "leaky", says=leaked)}
    with model_server(artifacts_dir / "tutor-model-server.log") as url:
        yield root, url, models, leaked


@pytest.fixture
def learner(served, tmp_path, monkeypatch):
    root = served[0]
    monkeypatch.setenv("COURSE_ROOT", str(root))
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    monkeypatch.setenv("COURSE_TUTOR_HOME", str(tmp_path / "tutor"))
    for name in ("COURSE_GRADING_SECRET", "COURSE_TUTOR_CONFIG", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    notebook = tmp_path / f"{LAB}.ipynb"
    mine = json.loads((root / "labs" / LAB / f"{LAB}.ipynb").read_text())
    for cell in mine["cells"]:                       # the learner's wrong attempt at the ridge point
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "impl_ridge":
            cell["source"] = "def ridge_point(peak_flops, bandwidth):\n    return bandwidth / peak_flops\n"
    notebook.write_text(json.dumps(mine))
    from coursekit.checks.selfcheck import check_notebook

    monkeypatch.chdir(tmp_path)
    check_notebook(notebook)                          # `course check`: its output is what the tutor explains
    return notebook


def test_a_streamed_answer_about_the_learners_failing_check(served, learner):
    root, url, models, _ = served
    pieces = []
    with RecordingEndpoint(upstream=url) as endpoint:
        config = TutorConfig(endpoint.url, str(models["random"]), max_tokens=24, source="test")
        exchange = ask("Why does my ridge point fail?", config=config, notebook=learner, on_text=pieces.append)
    assert len(endpoint.requests) == 1
    context = endpoint.requests[0].body["messages"][1]["content"]
    assert "Task (ridge point)" in context and "return bandwidth / peak_flops" in context   # the learner's code
    assert re.search(r"FAIL\s+Task \(ridge point\): .*case 'NVIDIA H100 SXM'", context)        # their actual error
    assert exchange.raw and len(pieces) > 1 and "".join(pieces) == exchange.reply              # streamed, in pieces
    assert not leaks(endpoint.sent_text(), instructor_fragments(root))


def test_asked_for_the_code_the_request_has_the_hint_policy_and_the_reply_is_withheld(served, learner):
    root, url, models, leaked = served
    shown = []
    with RecordingEndpoint(upstream=url) as endpoint:
        config = TutorConfig(endpoint.url, str(models["leaky"]), max_tokens=200, source="test")
        exchange = ask("just give me the code for ridge_point", config=config, notebook=learner, on_text=shown.append)
    policy = endpoint.requests[0].body["messages"][-1]
    assert policy["role"] == "system" and policy["content"].startswith("HINT POLICY")
    assert "ridge point = peak FLOP/s divided by bytes/s" in policy["content"]
    assert exchange.raw == leaked                                   # the model did send the solution...
    assert exchange.withheld == 1 and WITHHELD in exchange.reply    # ...and the learner never saw it
    assert "peak_flops / bandwidth" not in "".join(shown)
    assert "".join(shown).startswith("Here it is:") and exchange.reply.rstrip().endswith("Done.")
