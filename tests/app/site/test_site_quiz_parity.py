"""The website checks answers with the same rules as JupyterLab: for every item of every bank, every
variant the site exports, and a table of answers (the key, wrong answers, each option and mistake,
numbers just inside and just outside the tolerance, thousands separators, decimal commas, units, scale
words, currency signs, malformed text), the JavaScript engine (coursekit/app/site/static/quiz-engine.js,
run in node) gives the Python engine's verdict, feedback, explanation and "Read your answer as ..."
line, or its refusal message word for word. The progress report and the import merge are held to
coursekit/progress_report.py and coursekit/app/progress_transfer.py the same way.
"""
from __future__ import annotations

import itertools
import json
import shutil

import pytest

from coursekit import progress
from coursekit.progress_report import course_report
from coursekit.app.progress_transfer import merge, problems, read_export
from coursekit.quiz.bank import load_all_banks
from coursekit.quiz.engine import grade, outside_tolerance
from coursekit.quiz.numbers import UnreadableNumber, read_number
from coursekit.quiz.widgets import REPEATED_VERDICT
from coursekit.app.site.quizzes import export_item, lab_modules, outline
from site_js import MALFORMED, node

from paths import ROOT, TESTS
from coursekit.quiz.engine import correct_response

FIXTURES = TESTS / "fixtures" / "quiz"


def number_answers(q) -> list[str]:
    """Typed answers for a numeric question: the key in many spellings, the edges of its tolerance,
    each mistake, a wrong answer and malformed text."""
    a, units, tol = q.answer, q.item.units, q.item.tolerance
    width = tol["abs"] if "abs" in tol else tol["rel"] * abs(a)
    values = [a, outside_tolerance(a, tol), -a, a * 10, a / 10, 0.0,
              a + 0.999 * width, a - 0.999 * width, a + 1.001 * width, a - 1.001 * width,
              a * 100, a / 100, *[m for m, _ in q.mistakes]]      # x100: percent for fraction and the reverse
    texts = [f"{a * 100:g}%", f"{a * 100:g} percent"]
    for v in values:
        texts += [repr(v), f"{v:,.10g}", f"{v:.4g}", f"{v:,.2f}", f"{v:,.2f}".replace(",", " ").replace(".", ","),
                  f"{v:.3f}".replace(".", ","), f"{v:,.0f}", f"{v:.6e}"]
        if units:
            texts += [f"{v:,.10g} {units}", f"{v:g}{units}", f"{v:g} {units.upper()}", f"{v:,.0f} {units}s"]
        texts += [f"${v:,.10g}", f"{v / 1e3:g}k", f"{v / 1e3:g} thousand", f"{v / 1e6:g}M", f"{v / 1e6:g} million",
                  f"{v / 1e9:g} bn"]
    return texts + MALFORMED


def choice_answers(q) -> list:
    n = len(q.item.options)
    if q.type == "single":
        return list(range(n))
    key = sorted(correct_response(q))
    subsets = [list(c) for r in range(0, min(n, 3) + 1) for c in itertools.combinations(range(n), r)]
    return subsets + [key, list(range(n)), key[1:]]


def python_verdict(q, kind: str, response) -> dict:
    how = ""
    if kind == "text":
        try:
            reading = read_number(response, q.item.units)
        except UnreadableNumber as exc:
            return {"unreadable": str(exc)}
        response, how = reading.value, reading.how
    outcome = grade(q, response)
    shown = REPEATED_VERDICT.sub("", outcome.feedback, count=1) if outcome.correct else outcome.feedback
    return {"correct": outcome.correct, "feedback": outcome.feedback, "explanation": outcome.explanation,
            "how": how, "shown": f"{'Correct.' if outcome.correct else 'Not quite.'} {shown}"}


@pytest.fixture(scope="module")
def banks():
    return load_all_banks(ROOT / "quizzes")


def test_a_module_test_is_exported_with_the_jupyterlab_draw_and_pass_mark(banks):
    """15 drawn from the whole pool (its own items and its lessons'), passed at the bank's 80%, as
    ModuleTestView does; a lesson quiz draws its bank's `show`; every item keeps its feedback."""
    from coursekit.quiz.bank import MODULE_TEST_SHOW, pool
    from coursekit.app.site.quizzes import export_bank

    for bank in banks.values():
        data = export_bank(bank, banks)
        assert data["pool"] == [it.id for it in pool(bank, banks)]
        if bank.kind == "module-test":
            assert (data["show"], data["pass_mark"]) == (MODULE_TEST_SHOW, 0.8) and len(data["pool"]) >= 25
        else:
            assert (data["show"], data["pass_mark"]) == (bank.show, None)
        for item in data["items"]:
            for v in item["variants"]:
                assert v["stem"] and v["explanation"] and v["key"]
                assert all(o["feedback"] for o in v.get("options", [])), item["id"]


@pytest.mark.slow     # about 150,000 answers, graded by both engines: 20 s on a loaded machine
def test_every_item_of_every_bank_gets_the_same_verdict_and_feedback_in_the_browser(banks):
    from coursekit.quiz.engine import instantiate
    from coursekit.app.site.quizzes import variant_seeds

    items, cases, expected = [], [], []
    for bank in banks.values():
        for item in bank.items:
            items.append(export_item(item))
            for index, seed in enumerate(variant_seeds(item)):
                q = instantiate(item, seed)
                if q.type in ("single", "multi"):
                    answers = [("choice", r) for r in choice_answers(q)]
                else:
                    answers = [("text", t) for t in number_answers(q)]
                for kind, response in answers:
                    cases.append([len(items) - 1, index, kind, response])
                    expected.append(python_verdict(q, kind, response))
    got = node({"op": "grade", "items": items, "cases": cases})
    assert len(got) == len(cases)
    differ = [(items[c[0]]["id"], c[1], c[3], e, g) for c, e, g in zip(cases, expected, got) if e != g]
    counts = {"items": len(items), "cases": len(cases), "unreadable": sum("unreadable" in e for e in expected),
              "correct": sum(e.get("correct", False) for e in expected)}
    assert not differ, f"{len(differ)} of {len(cases)} answers differ ({counts}); first ones:\n" + "\n".join(
        f"{i} variant {v} answer {r!r}:\n  python {e}\n  js     {g}" for i, v, r, e, g in differ[:8])
    # the table exercised every path: right, wrong, a mistake's own feedback, and refusals
    assert counts["items"] == sum(len(b.items) for b in banks.values())
    assert counts["correct"] > 1000 and counts["unreadable"] > 1000


def test_python_float_formatting_is_the_same_in_the_browser():
    """format(x, ',.10g') and ',.4g' (how numbers are read back) for awkward values: ties, exponents."""
    values = [0.0, -0.0, 1.0, 0.5, 12345678905.0, 1234567890.5, 0.0001234, 0.00001234, 1e21, 1.5e-7, 123456789.0,
              9999999999.5, 99999.99995, 2.675, 1e16, 1 / 3, 2 / 3, 1e-320, 1.7976931348623157e308, 73000.0, 0.075]
    cases = [[s * v, p, c] for v in values for s in (1, -1) for p in (4, 10) for c in (True, False)]
    want = [format(x, f"{',' if c else ''}.{p}g") for x, p, c in cases]
    assert node({"op": "format", "cases": cases}) == want


def test_report_and_merge_match_course_progress(tmp_path, monkeypatch):
    """The start page's table says what `course progress` says for the same store, and an import merges
    to the same store in the browser as in `course progress --import`."""
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path))
    progress.record_quiz("m1-l1", module="m1", seed=1, shown=["a", "b"], item_id="a", response=1, correct=False)
    progress.record_quiz("m1-l1", module="m1", seed=1, shown=["a", "b"], item_id="a", response=2, correct=True)
    progress.record_quiz("m1-l1", module="m1", seed=1, shown=["a", "b"], item_id="b", response=3, correct=True)
    progress.record_quiz("m1-l2", module="m1", seed=5, shown=["c", "d"], item_id="c", response=3, correct=True)
    progress.record_module_test("m1", bank_id="m1-test", student="s", seed=3,
                                items={f"i{n}": {"response": n, "correct": n < 11} for n in range(15)}, pass_mark=0.8)
    progress.record_lab_check("lab1-roofline", 3, 5)
    progress.record_lab_check("lab2-parallelism", 4, 4)
    progress.record_exercise("m1-l1-mfu-70b", lesson="m1-l1", prediction=0.4, answer=0.43, off_pct=-7.0, close=True)
    data = progress.load()
    want = [{"title": m.title, "items": [[i.title, i.state, i.detail, i.next] for i in m.items]}
            for m in course_report(ROOT, data)]
    assert "exercises: 1 of 3 answered and revealed" in want[0]["items"][0][2]
    assert node({"op": "report", "outline": outline(ROOT), "data": data}) == want

    incoming = json.loads(json.dumps(data))
    incoming["quizzes"]["m1-l2"]["attempts"][0]["items"]["d"] = {"tries": 2, "first_correct": False, "correct": True,
                                                                 "responses": [1, 2]}
    incoming["quizzes"]["m1-l3"] = {"module": "m1", "attempts": [{"seed": "site-x-1", "source": "site", "shown": ["e"],
                                    "items": {}, "started": "2026-01-01T00:00:00+00:00", "score": 0, "total": 1}]}
    incoming["module_tests"]["m1"]["attempts"].append({**data["module_tests"]["m1"]["attempts"][0], "time": "2027"})
    incoming["labs"]["lab1-roofline"]["checks"].append({"time": "2027", "passed": 5, "total": 5})
    incoming["exercises"]["m1-l1-mfu-70b"]["reveals"].append(
        {"time": "2027", "prediction": 0.5, "answer": 0.43, "off_pct": 16.279, "close": False})
    incoming["exercises"]["m1-l2-x"] = {"lesson": "m1-l2", "reveals": [
        {"time": "2027", "prediction": 1.0, "answer": 2.0, "off_pct": -50.0, "close": False}]}
    # a lab record without its module is filed where the outline lists the lab (its name's number when unlisted)
    incoming["labs"]["lab3-kv-cache"] = {"checks": [{"time": "2027", "passed": 1, "total": 2}]}
    incoming["labs"]["lab9-unlisted"] = {"checks": [{"time": "2027", "passed": 0, "total": 2}]}
    mine = json.loads(json.dumps(data))
    added = merge(mine, incoming)
    got = node({"op": "merge", "data": data, "incoming": incoming, "lab_modules": lab_modules(ROOT)})
    assert (got["added"], got["data"]) == (added, mine) and added == 7
    assert (mine["labs"]["lab3-kv-cache"]["module"], mine["labs"]["lab9-unlisted"]["module"]) == ("m3", "m9")
    # the browser asks the outline the site was built from, not the lab's name
    moved = node({"op": "merge", "data": data, "incoming": incoming, "lab_modules": {"lab3-kv-cache": "m7"}})
    assert moved["data"]["labs"]["lab3-kv-cache"]["module"] == "m7"
    assert len(mine["exercises"]["m1-l1-mfu-70b"]["reveals"]) == 2
    assert mine["quizzes"]["m1-l2"]["attempts"][0]["items"]["d"]["correct"] is True


BAD_FILES = [("not json {", "a.json"), ("[]", "b.json"), ('{"schema": 2}', "c.json"),
             ('{"schema": 1, "quizzes": {}, "module_tests": {}, "labs": []}', "d.json"),
             ('{"schema": 1, "quizzes": {"q": {"attempts": [{"seed": 1, "shown": [1], "items": {}}]}}, '
              '"module_tests": {"m1": {"attempts": [{"bank": "b", "score": 16, "total": 15, "passed": true}]}}, '
              '"labs": {"lab1": {"checks": [{"passed": "3", "total": 5}]}}}', "e.json"),
             ('{"schema": 1, "quizzes": {}, "module_tests": {}, "labs": {}, "exercises": {"x": {"lesson": "m1-l1", '
              '"reveals": [{"time": "t", "prediction": "1", "answer": 2, "off_pct": 1, "close": true}]}, "y": []}}', "f.json")]


def test_a_renamed_module_test_counts_the_attempts_under_its_former_id_in_the_browser(tmp_path, monkeypatch):
    """The site's module test (quiz.js, through progress.js) finds a learner's attempts as
    progress.module_test_attempts does: those recorded under a former id, exported with the bank, count;
    another bank's and another learner's do not."""
    from coursekit.app.site.quizzes import export_bank

    renamed = tmp_path / "banks"
    shutil.copytree(FIXTURES / "good", renamed)
    test_file = renamed / "m9" / "module-test.yaml"
    test_file.write_text(test_file.read_text().replace("id: m9-module-test\n",
                                                       "id: m9-test\nformerly: [m9-module-test]\n", 1))
    banks = load_all_banks(renamed)
    bank = banks["m9-test"]
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    for n, (bank_id, student) in enumerate([("m9-module-test", "site-b1"), ("m9-test", "site-b1"),
                                            ("m9-other", "site-b1"), ("m9-module-test", "site-b2")], 1):
        progress.record_module_test("m9", bank_id=bank_id, student=student, seed=n, pass_mark=0.8, attempt=n,
                                    items={"m9-l1-kv": {"response": 1, "correct": True}})
    want = progress.module_test_attempts("m9", bank.id, "site-b1", formerly=bank.formerly)
    assert [a["bank"] for a in want] == ["m9-module-test", "m9-test"]
    exported = export_bank(bank, banks)
    assert (exported["id"], exported["formerly"]) == ("m9-test", ["m9-module-test"])
    data = progress.load()
    assert node({"op": "module-test-attempts", "data": data, "bank": exported, "student": "site-b1"}) == want


def test_a_bad_progress_file_is_refused_with_its_name_and_problem():
    messages = []
    for text, name in BAD_FILES:
        with pytest.raises(ValueError) as caught:
            read_export(text, name)
        messages.append(str(caught.value))
        assert str(caught.value).startswith(f"{name}: not a course progress file: ")
    js = node({"op": "problems", "files": BAD_FILES})
    # the same problems found by both (the JSON parser's own wording aside)
    assert js[0].startswith("a.json: not a course progress file: not valid JSON")
    assert js[1:] == messages[1:]
    assert "quizzes.q.attempts[0].shown" in messages[4] and "module_tests.m1.attempts[0]" in messages[4]
    assert "labs.lab1.checks[0]" in messages[4]
    assert "exercises.x.reveals[0]: expected time, prediction" in messages[5] and "exercises.y:" in messages[5]
    assert problems(json.loads(json.dumps(progress._empty()))) == []
