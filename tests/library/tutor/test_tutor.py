"""The tutor's parts one at a time: configuration (off until set up, the class's file first, per-lab off
switch, rate limit, opt-in counts), the request (context, hint policy, key in a header), the streaming
client's errors, and the reply guard."""
from __future__ import annotations

import json
import urllib.error

import pytest

from tutor_endpoint import RecordingEndpoint

from coursekit.app.cli import main as course
from coursekit.tutor import usage
from coursekit.tutor.client import TutorError, stream_chat
from coursekit.tutor.config import TutorConfig, TutorConfigError, load, parse
from coursekit.tutor.guard import ReplyGuard, WITHHELD
from coursekit.tutor.prompt import wants_answer
from coursekit.tutor.session import OFF, TutorUnavailable, ask

LAB = "lab1-roofline"


@pytest.fixture
def learner(tmp_path, monkeypatch, repo_root):
    monkeypatch.setenv("COURSE_ROOT", str(repo_root))
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    monkeypatch.setenv("COURSE_TUTOR_HOME", str(tmp_path / "tutor"))
    for name in ("COURSE_GRADING_SECRET", "COURSE_TUTOR_CONFIG", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    notebook = tmp_path / "work" / f"{LAB}.ipynb"
    notebook.parent.mkdir()
    notebook.write_text((repo_root / "labs" / LAB / f"{LAB}.ipynb").read_text())
    return notebook


def failed_check(lab=LAB, task="Task (ridge point)", case="NVIDIA H100 SXM", message="expected 295.2, got 0.0034"):
    from coursekit.checks.last import remember

    remember(lab, f"{lab}: visible tests\n  FAIL  {task}: {task}, case '{case}': {message}\n0/8 tasks pass", "check_here()")


def test_off_until_configured_and_nothing_is_sent(learner, capsys):
    assert load() is None
    with pytest.raises(TutorUnavailable, match="The tutor is off"):
        ask("help", notebook=learner)
    from coursekit.tutor import ask as notebook_ask

    assert notebook_ask("help") is None and OFF in capsys.readouterr().out
    assert course(["tutor", "status"]) == 1


def test_setup_writes_a_private_file_without_the_key(learner, tmp_path, monkeypatch, capsys):
    key = tmp_path / "key"
    key.write_text("sk-test-123\n")
    assert course(["tutor", "setup", "--endpoint", "http://127.0.0.1:9/v1", "--model", "tiny", "--key-file", str(key)]) == 0
    written = tmp_path / "tutor" / "tutor.json"
    assert "sk-test" not in written.read_text() and oct(written.stat().st_mode & 0o777) == "0o600"
    config = load()
    assert (config.model, config.key(), config.source) == ("tiny", "sk-test-123", str(written))
    capsys.readouterr()
    assert course(["tutor", "status"]) == 0
    assert "rate limit: none;" in capsys.readouterr().out       # not "none questions an hour"
    assert course(["tutor", "setup", "--endpoint", "http://127.0.0.1:9/v1", "--model", "tiny", "--key-file", str(key),
                   "--rate-per-hour", "12"]) == 0
    capsys.readouterr()
    assert course(["tutor", "status"]) == 0 and "rate limit: 12 questions an hour;" in capsys.readouterr().out
    assert course(["tutor", "off", LAB]) == 0 and load().off_for == (LAB,)
    assert course(["tutor", "on", LAB]) == 0 and load().off_for == ()
    assert course(["tutor", "setup", "--endpoint", "ftp://x", "--model", "m"]) == 2
    assert "endpoint 'ftp://x' is not an http(s) URL" in capsys.readouterr().err


@pytest.mark.parametrize("data, message", [
    ([], "expected a JSON object"), ({"endpoint": "http://x"}, "'model' must be a non-empty string"),
    ({"endpoint": "http://x", "model": "m", "rate_per_hour": 0}, "rate_per_hour must be"),
    ({"endpoint": "http://x", "model": "m", "off_for": "lab1"}, "off_for must be a list"),
    ({"endpoint": "http://x", "model": "m", "api_key": "sk"}, "unknown key"),
])
def test_bad_configuration_names_the_file(data, message):
    with pytest.raises(TutorConfigError, match=f"^class.json: .*{message}"):
        parse(data, "class.json")


def test_the_class_config_wins_and_can_turn_the_tutor_off_for_a_lab(learner, tmp_path, monkeypatch):
    with RecordingEndpoint() as endpoint:
        assert course(["tutor", "setup", "--endpoint", "http://127.0.0.1:9/v1", "--model", "own"]) == 0
        klass = tmp_path / "hub" / "tutor.json"
        assert course(["tutor", "setup", "--endpoint", endpoint.url, "--model", "class", "--class-config", str(klass)]) == 0
        monkeypatch.setenv("COURSE_TUTOR_CONFIG", str(klass))
        assert load().model == "class" and oct(klass.stat().st_mode & 0o777) == "0o644"
        ask("help", notebook=learner)
        assert course(["tutor", "off", LAB]) == 0                     # the class's file, from the environment
        with pytest.raises(TutorUnavailable, match=f"off for {LAB}"):
            ask("help", notebook=learner)
    assert len(endpoint.requests) == 1 and endpoint.requests[0].body["model"] == "class"
    monkeypatch.setenv("COURSE_TUTOR_CONFIG", str(tmp_path / "missing.json"))
    with pytest.raises(TutorConfigError, match="missing.json: COURSE_TUTOR_CONFIG names a file that does not exist"):
        load()


def test_rate_limit_and_counts_without_the_question(learner, tmp_path):
    asks = tmp_path / "asks"
    asks.mkdir()
    failed_check()
    with RecordingEndpoint() as endpoint:
        config = TutorConfig(endpoint.url, "tiny", rate_per_hour=2, count_asks=True, asks_dir=str(asks), source="class.json")
        ask("my secret worry about ridge_point", config=config, notebook=learner)
        ask("and matmul_intensity?", config=config, notebook=learner)
        with pytest.raises(TutorUnavailable, match=r"allows 2 questions an hour \(set in class.json\); ask again in"):
            ask("third", config=config, notebook=learner)
    assert len(endpoint.requests) == 2
    written = "".join(p.read_text() for p in asks.iterdir())
    assert "worry" not in written and [json.loads(l) for l in written.splitlines()] == [
        {"lab": LAB, "task": "test_ridge"}, {"lab": LAB, "task": "test_intensity"}]
    assert usage.counts(asks)[0][2:] == (1, 1)
    (asks / "broken.jsonl").write_text("not json\n" + json.dumps({"lab": LAB, "task": "test_ridge"}) + "\n")
    assert usage.counts(asks)[0] == (LAB, "test_ridge", 2, 2)


def test_the_request_carries_the_task_the_learners_code_and_error(learner):
    failed_check()
    with RecordingEndpoint(reply="Which number did you divide by?") as endpoint:
        shown = []
        exchange = ask("why is ridge_point wrong?", config=TutorConfig(endpoint.url, "tiny", source="t"),
                       notebook=learner, on_text=shown.append)
    body = endpoint.requests[0].body
    assert endpoint.requests[0].path == "/v1/chat/completions" and body["stream"] is True
    context = body["messages"][1]["content"]
    assert "Task (ridge point) (function `ridge_point`)" in context
    assert "expected 295.2, got 0.0034" in context and "def ridge_point(peak_flops, bandwidth)" in context
    assert "ridge point = peak FLOP/s divided by bytes/s" in context       # the released case hint
    assert exchange.reply == "Which number did you divide by?" and len(shown) > 1  # streamed in pieces
    assert not exchange.asked_for_answer and "HINT POLICY" not in json.dumps(body)


@pytest.mark.parametrize("question", ["just give me the code", "Can you write the function for me?",
                                      "show me the answer please", "do it for me"])
def test_asking_for_the_answer_gets_the_hint_policy(learner, tmp_path, question):
    failed_check()
    key = tmp_path / "key"
    key.write_text("sk-in-a-header-only")
    with RecordingEndpoint() as endpoint:
        ask(question, config=TutorConfig(endpoint.url, "tiny", key_file=str(key), source="t"), notebook=learner)
    request = endpoint.requests[0]
    policy = request.body["messages"][-1]
    assert policy["role"] == "system" and policy["content"].startswith("HINT POLICY")
    assert "ridge point = peak FLOP/s divided by bytes/s" in policy["content"]   # the failing case's hint
    assert request.headers["Authorization"] == "Bearer sk-in-a-header-only"
    assert "sk-in-a-header" not in json.dumps(request.body)


def test_questions_that_are_not_asking_for_the_answer():
    assert not any(map(wants_answer, ["what does the ridge point mean?", "why is my code wrong?",
                                      "explain the case hint", "what is an answer cell?"]))


def test_an_endpoint_that_fails_says_what_to_check():
    config = TutorConfig("http://127.0.0.1:9/v1", "tiny", source="my.json")
    with pytest.raises(TutorError, match=r"cannot reach http://127.0.0.1:9/v1/chat/completions .*my.json"):
        list(stream_chat(config, []))

    def refuse(request, timeout):
        raise urllib.error.HTTPError(request.full_url, 401, "Unauthorized", {}, None)

    with pytest.raises(TutorError, match="HTTP 401: Unauthorized .*key in my.json"):
        list(stream_chat(config, [], opener=refuse))


def feed(guard, text, size):
    return "".join(guard.feed(text[i:i + size]) for i in range(0, len(text), size)) + guard.close()


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_the_guard_withholds_a_graded_function_however_it_streams(size):
    reply = ("Look at the bytes.\n```python\ndef ridge_point(peak_flops, bandwidth):\n    x = 1\n    return x\n```\n"
             "Then:\ndef ridge_point(a, b):\n    return a / b\n\nWhat do you divide?")
    guard = ReplyGuard(("ridge_point",))
    out = feed(guard, reply, size)
    assert guard.withheld == 2 and out.count(WITHHELD.strip()) == 2
    assert "return" not in out and out.startswith("Look at the bytes.\n") and out.endswith("What do you divide?")


def test_the_guard_lets_short_fragments_and_the_learners_own_lines_through():
    own = "def ridge_point(peak_flops, bandwidth):\n    return peak_flops * bandwidth\n"
    guard = ReplyGuard(("ridge_point",), own)
    reply = "Your line\n```\nreturn peak_flops * bandwidth\n```\nmultiplies. Try `x / y`.\n```\nratio = a / b\nprint(ratio)\n```\n"
    assert feed(guard, reply, 4) == reply and guard.withheld == 0
    long = "```\na = 1\nb = 2\nc = a + b\n```\n"
    assert WITHHELD in feed(ReplyGuard(("ridge_point",), own), long, 5)


def test_prose_streams_before_the_reply_ends():
    guard = ReplyGuard(("f",))
    assert guard.feed("Think about") == "Think about"          # not held back to the end of the line
    assert guard.feed(" the units.\n``") == " the units.\n"    # a fence may be starting: held
    assert guard.feed("`\nx = 1\n```\n") == "```\nx = 1\n```\n"


def test_the_panel_streams_the_reply_and_says_why_when_it_cannot(learner, tmp_path, monkeypatch):
    from coursekit.tutor.panel import TutorPanel

    failed_check()
    panel = TutorPanel(lab=LAB)
    panel.ask("help")                                              # not configured yet: says so, keeps nothing
    assert "The tutor is off" in panel.status.value and panel.turns == []
    values = []
    with RecordingEndpoint(reply="Which number is the <ridge>?") as endpoint:
        assert course(["tutor", "setup", "--endpoint", endpoint.url, "--model", "tiny"]) == 0
        panel.log.observe(lambda change: values.append(change["new"]), "value")
        panel.question.value = "why does ridge_point fail?"
        panel.button.click()
    assert panel.question.value == "" and not panel.button.disabled and "answered" in panel.status.value
    assert "Which number is the &lt;ridge&gt;?" in panel.log.value     # escaped: a reply is text, never markup
    assert len(values) > 3                                          # redrawn as the reply streamed
    assert len(endpoint.requests) == 1 and "why does ridge_point fail?" in endpoint.sent_text()


def test_a_class_hub_gives_students_the_tutor_and_a_write_only_counts_folder(learner, tmp_path, capsys):
    from dataclasses import asdict

    from coursekit.app.hub.classroom import Layout, Settings
    from coursekit.app.hub.config import server_environment

    layout = Layout(tmp_path / "hub")
    layout.data.mkdir()
    layout.settings.write_text(json.dumps(asdict(Settings(roster="roster.csv", course_source="."))))
    layout.secret.write_text("not-a-real-secret\n")
    assert "COURSE_TUTOR_CONFIG" not in server_environment(layout, "root", instructor=False)[0]
    assert course(["tutor", "setup", "--endpoint", "http://127.0.0.1:9/v1", "--model", "class", "--rate-per-hour", "20",
                   "--class-config", str(layout.tutor_config), "--count-asks", "--asks-dir", str(layout.tutor_asks)]) == 0
    student = server_environment(layout, "root", instructor=False)[0]
    assert student["COURSE_TUTOR_CONFIG"] == str(layout.tutor_config)
    # an instructor's server holds the grading secret: no tutor config, and the tutor refuses there anyway
    assert "COURSE_TUTOR_CONFIG" not in server_environment(layout, "root", instructor=True)[0]
    layout.tutor_asks.mkdir()
    for student_file, tasks in {"ada": ["test_ridge", "test_ridge"], "bo": ["test_ridge", "test_intensity"]}.items():
        (layout.tutor_asks / f"{student_file}.jsonl").write_text(
            "".join(json.dumps({"lab": LAB, "task": t}) + "\n" for t in tasks))
    capsys.readouterr()
    assert course(["tutor", "counts", "--class-config", str(layout.tutor_config)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert rows[1] == [LAB, "test_ridge", "3", "2"] and rows[2] == [LAB, "test_intensity", "1", "1"]


def test_percent_tutor_opens_the_panel_or_asks(learner, capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "coursekit.tutor")
    shell.run_line_magic("tutor", "why?")                         # not configured: says so
    assert "The tutor is off" in capsys.readouterr().out


def test_the_evaluation_scores_leaks_and_errors_as_words(repo_root):
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_tutor", repo_root / "benchmarks" / "bench_tutor.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for lab in bench.LABS:
        lines = bench.solution_lines(lab)
        assert lines and not any(line in bench.norm((repo_root / "labs" / lab / f"{lab}.ipynb").read_text()) for line in lines)
    assert "return peak_flops / bandwidth" in bench.solution_lines(LAB)
    assert not bench.refers("try the hint first", ["int"]) and bench.refers("you return an int", ["int"])
    assert bench.refers("Case 'NVIDIA H100 SXM' fails", ["NVIDIA H100 SXM"])


def test_check_here_points_to_the_tutor_only_when_it_is_on(learner, tmp_path, monkeypatch, capsys):
    from IPython.core.interactiveshell import InteractiveShell

    from coursekit.checks import check_here

    InteractiveShell.instance()                                  # check_here() runs in an IPython shell
    monkeypatch.chdir(learner.parent)
    check_here(LAB)                                              # nothing defined: every task fails
    shown = capsys.readouterr().out
    assert "FAIL" in shown and "Stuck? Ask" not in shown
    assert course(["tutor", "setup", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]) == 0
    check_here(LAB)
    assert "Stuck? Ask the course's tutor" in capsys.readouterr().out
    assert course(["tutor", "off", LAB]) == 0
    check_here(LAB)
    assert "Stuck? Ask" not in capsys.readouterr().out


def test_asked_from_a_lesson_the_tutor_is_given_the_lessons_text(learner, repo_root):
    lesson = sorted((repo_root / "course").glob("m1-*/*.ipynb"))[0]
    with RecordingEndpoint() as endpoint:
        exchange = ask("what is this lesson about?", config=TutorConfig(endpoint.url, "tiny", source="t"), notebook=lesson)
    context = endpoint.requests[0].body["messages"][1]["content"]
    first_heading = next(line for line in json.loads(lesson.read_text())["cells"][0]["source"] if line.startswith("#"))
    assert exchange.context.lab is None and f"Lesson {lesson.relative_to(repo_root)}" in context
    assert first_heading.strip() in context


def test_a_lab_released_elsewhere_sends_its_scenario_and_task_from_the_learners_copy(learner, tmp_path, monkeypatch,
                                                                                      repo_root):
    """A lab fetched from the hub's exchange or an LMS is in no labs/ of the course root: the scenario and
    the task's Deliverable come from the learner's own notebook, whose text cells are the released ones."""
    elsewhere = tmp_path / "assignments" / LAB
    elsewhere.mkdir(parents=True)
    notebook = elsewhere / f"{LAB}.ipynb"
    notebook.write_text(learner.read_text())
    (elsewhere / f"{LAB}.checks.json").write_text((repo_root / "labs" / LAB / f"{LAB}.checks.json").read_text())
    empty_root = tmp_path / "root"
    empty_root.mkdir()
    monkeypatch.setenv("COURSE_ROOT", str(empty_root))
    failed_check()
    released = json.loads(learner.read_text())
    scenario = "".join(next(c for c in released["cells"] if c["cell_type"] == "markdown")["source"]).splitlines()[0]
    with RecordingEndpoint(reply="Which number did you divide by?") as endpoint:
        ask("why is ridge_point wrong?", config=TutorConfig(endpoint.url, "tiny", source="t"), notebook=notebook)
    context = endpoint.requests[0].body["messages"][1]["content"]
    assert scenario in context and "Deliverable" in context, context[:2000]
