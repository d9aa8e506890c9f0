"""The progress file is written down once (coursekit/progress.schema.json) and checked on both sides with
a well-kept validator: jsonschema in Python, the same schema compiled by ajv in the browser. Each bad file
is refused with the same learner's words by both, and a good store passes both."""
from __future__ import annotations

import json

import pytest

from coursekit import progress
from coursekit.progress_schema import problems, schema
from site_js import node

GOOD = {"schema": 1, "learner": "abc", "recovered": [],
        "quizzes": {"m1-l1": {"module": "m1", "attempts": [
            {"seed": "site-x-1", "shown": ["a", "b"], "items": {"a": {"tries": 2, "first_correct": False, "correct": True,
                                                                      "responses": [1, 2]}}}]}},
        "module_tests": {"m1": {"attempts": [{"bank": "m1-test", "score": 3, "total": 5, "passed": False}]}},
        "labs": {"lab1-roofline": {"module": "m1", "checks": [{"time": "t", "passed": 2, "total": 5}]}},
        "exercises": {"e": {"lesson": "m1-l1", "reveals": [{"time": "t", "prediction": 1, "answer": 2.5,
                                                             "off_pct": -60.0, "close": False}]}}}


def bad(change) -> dict:
    data = json.loads(json.dumps(GOOD))
    change(data)
    return data


def attempt(data):
    return data["quizzes"]["m1-l1"]["attempts"][0]


# (what is wrong, the file, what a learner is told): one case per `problem` in the schema, and each way to miss it
CASES = [
    ("a list", [1, 2], ["expected a JSON object (a course progress file), found list"]),
    ("a string", "progress", ["expected a JSON object (a course progress file), found str"]),
    ("null", None, ["expected a JSON object (a course progress file), found NoneType"]),
    ("another schema", bad(lambda d: d.update(schema=2)), ["schema: expected 1, found 2"]),
    ("a schema as text", bad(lambda d: d.update(schema="1")), ['schema: expected 1, found "1"']),
    ("no schema", bad(lambda d: d.pop("schema")), ["schema: expected 1, found null"]),
    ("no sections", {"schema": 2}, ["schema: expected 1, found 2", "quizzes: expected an object, found nothing",
                                    "module_tests: expected an object, found nothing",
                                    "labs: expected an object, found nothing"]),
    ("labs a list", bad(lambda d: d.update(labs=[])), ["labs: expected an object, found list"]),
    ("top level first", bad(lambda d: (d.update(labs=3), attempt(d).pop("seed"))), ["labs: expected an object, found int"]),
    ("exercises a list", bad(lambda d: d.update(exercises=[])), ["exercises: expected an object, found list"]),
    ("a quiz without attempts", bad(lambda d: d["quizzes"].update(q={})),
     ["quizzes.q: expected an object with a list of attempts"]),
    ("attempts not a list", bad(lambda d: d["quizzes"]["m1-l1"].update(attempts={})),
     ["quizzes.m1-l1: expected an object with a list of attempts"]),
    ("an attempt without a seed", bad(lambda d: attempt(d).pop("seed")),
     ["quizzes.m1-l1.attempts[0]: expected an object with a seed"]),
    ("a seed of true", bad(lambda d: attempt(d).update(seed=True)),
     ["quizzes.m1-l1.attempts[0]: expected an object with a seed"]),
    ("an attempt a number", bad(lambda d: d["quizzes"]["m1-l1"]["attempts"].append(7)),
     ["quizzes.m1-l1.attempts[1]: expected an object with a seed"]),
    ("no shown", bad(lambda d: attempt(d).pop("shown")), ["quizzes.m1-l1.attempts[0].shown: expected a list of question ids"]),
    ("shown numbers", bad(lambda d: attempt(d).update(shown=[1])),
     ["quizzes.m1-l1.attempts[0].shown: expected a list of question ids"]),
    ("items a list", bad(lambda d: attempt(d).update(items=[])), ["quizzes.m1-l1.attempts[0].items: expected an object"]),
    ("no tries", bad(lambda d: attempt(d)["items"]["a"].update(tries=0)),
     ["quizzes.m1-l1.attempts[0].items.a: expected tries (>= 1), first_correct, correct and responses"]),
    ("correct missing", bad(lambda d: attempt(d)["items"]["a"].pop("correct")),
     ["quizzes.m1-l1.attempts[0].items.a: expected tries (>= 1), first_correct, correct and responses"]),
    ("a test without attempts", bad(lambda d: d["module_tests"].update(m2=[])),
     ["module_tests.m2: expected an object with a list of attempts"]),
    ("a score above the total", bad(lambda d: d["module_tests"]["m1"]["attempts"][0].update(score=6)),
     ["module_tests.m1.attempts[0]: expected bank, score and total (0 <= score <= total) and passed"]),
    ("a negative score", bad(lambda d: d["module_tests"]["m1"]["attempts"][0].update(score=-1)),
     ["module_tests.m1.attempts[0]: expected bank, score and total (0 <= score <= total) and passed"]),
    ("passed as text", bad(lambda d: d["module_tests"]["m1"]["attempts"][0].update(passed="no")),
     ["module_tests.m1.attempts[0]: expected bank, score and total (0 <= score <= total) and passed"]),
    ("a lab without checks", bad(lambda d: d["labs"].update(lab2={"checks": None})),
     ["labs.lab2: expected an object with a list of checks"]),
    ("passed above total", bad(lambda d: d["labs"]["lab1-roofline"]["checks"][0].update(passed=6)),
     ["labs.lab1-roofline.checks[0]: expected passed and total (0 <= passed <= total)"]),
    ("passed as text", bad(lambda d: d["labs"]["lab1-roofline"]["checks"][0].update(passed="3")),
     ["labs.lab1-roofline.checks[0]: expected passed and total (0 <= passed <= total)"]),
    ("an exercise without its lesson", bad(lambda d: d["exercises"]["e"].pop("lesson")),
     ["exercises.e: expected an object with its lesson and a list of reveals"]),
    ("a prediction as text", bad(lambda d: d["exercises"]["e"]["reveals"][0].update(prediction="1")),
     ["exercises.e.reveals[0]: expected time, prediction, answer, off_pct and close"]),
    ("many at once, in the schema's order", bad(lambda d: (d["labs"]["lab1-roofline"]["checks"][0].update(total=1),
                                                           d["quizzes"].update(b={}, a={}), attempt(d).update(shown=3))),
     ["quizzes.a: expected an object with a list of attempts", "quizzes.b: expected an object with a list of attempts",
      "quizzes.m1-l1.attempts[0].shown: expected a list of question ids",
      "labs.lab1-roofline.checks[0]: expected passed and total (0 <= passed <= total)"]),
]


@pytest.mark.parametrize("what, data, told", CASES, ids=[c[0] for c in CASES])
def test_python_tells_each_problem(what, data, told):
    assert problems(data) == told


def test_the_browser_tells_the_same_problems_in_the_same_words():
    assert node({"op": "problems-of", "cases": [data for _, data, _ in CASES]}) == [told for _, _, told in CASES]


def test_a_good_store_passes_both():
    empty = json.loads(json.dumps(progress._empty()))
    assert problems(GOOD) == problems(empty) == []
    assert node({"op": "problems-of", "cases": [GOOD, empty]}) == [[], []]


def test_an_integer_is_never_a_float_in_python():
    """1.0 tries: Python can tell it from 1 (and refuses it, as before the schema); the browser cannot."""
    data = bad(lambda d: attempt(d)["items"]["a"].update(tries=2.0))
    assert problems(data) == ["quizzes.m1-l1.attempts[0].items.a: expected tries (>= 1), first_correct, correct "
                              "and responses"]


def test_every_place_a_learner_is_told_about_is_tested():
    """Each `problem` the schema gives is the answer of some case above: a new one comes with its test."""
    def texts(node):
        if isinstance(node, dict):
            yield from ([node["problem"]] if "problem" in node else [])
            for value in node.values():
                yield from texts(value)
    told = " ".join(t for _, _, found in CASES for t in found)
    untested = [t for t in texts(schema()) if t.split("{")[0].strip() not in told]
    assert list(texts(schema())) and not untested, untested


def test_a_site_built_before_npm_ci_says_how_to_get_its_validator(tmp_path):
    from coursekit.app.site.progress_validator import validator_js

    with pytest.raises(RuntimeError, match=r"ajv not found.*progress validator.*\./course\.sh site.*npm ci"):
        validator_js(node_modules=tmp_path / "node_modules")


def test_the_compiled_validator_stands_alone(tmp_path):
    """What the page loads needs no ajv and fetches nothing: no require(), no import, no network call."""
    from coursekit.app.site.progress_validator import write_validator

    text = write_validator(tmp_path).read_text(encoding="utf-8")
    assert "CourseProgressValidator" in text and "ajv" in text.splitlines()[1]
    for word in ("require(", "import(", "fetch(", "XMLHttpRequest", "eval("):
        assert word not in text, word
