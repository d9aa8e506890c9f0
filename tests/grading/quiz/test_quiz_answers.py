"""The answers cell read as data (autograder/quiz/answers.py): what is accepted, and the reason given
for each thing that is refused. Fast; the same cases run through the commands in test_quiz_adversarial."""
from __future__ import annotations

import re

import pytest

from autograder.quiz.answers import AnswersError, Unreadable, parse_answers, read_answers


def test_a_plain_dict_with_comments_is_read():
    source = '# my answers\nanswers = {\n    1: "B",  # one letter\n    "2": ["A", "C"],\n    3: 36500,\n    4: None,\n}'
    assert parse_answers(source) == {1: "B", 2: ["A", "C"], 3: 36500, 4: None}


@pytest.mark.parametrize("source, reason", [
    ("answers = {1: 'A'}\nimport os", "only `answers = {...}` is allowed"),
    ("answers = {1: 'A'}\nanswers = {1: 'B'}", "expected exactly one"),
    ("x = 1", "expected exactly one"),
    ("answers = {1: __import__('os').getcwd()}", "not a plain dict of values"),
    ("answers = {1: f'{2 + 2}'}", "not a plain dict of values"),
    ("answers = ('A', 'B')", "is a tuple, not a dict"),
    ("answers = {1: [[['A']]]}", "nested deeper than 3"),
    ("answers = {1: " + "(" * 400 + "1" + ")" * 400 + "}", "not valid Python"),
    ("answers = {" + ", ".join(f"{n}: 1" for n in range(1, 300)) + "}", "entries"),
    ("answers = {1: 'A' * 3}", "not a plain dict of values"),
    ("answers = {1: 1" + "0" * 20_000 + "}", "too large"),
    ("answers = {1: ", "not valid Python"),
])
def test_anything_else_is_refused_with_a_reason(source, reason):
    with pytest.raises(AnswersError, match=re.escape(reason)):
        parse_answers(source)


@pytest.mark.parametrize("source, reason, stray", [
    ("answers = {1: 'A', 2: '" + "x" * 201 + "', 3: 'C'}", "an answer longer than 200 characters", []),
    ("answers = {1: 'A', 2: [" + "'B', " * 27 + "], 3: 'C'}", "27 choices (at most 26)", []),
    ("answers = {1: 'A', '²': 'B', 3: 'C'}", None, ["key '²' is not a question number"]),
    ("answers = {1: 'A', 2.0: 'B', 'first': 'C', 3: 'C'}", None,
     ["key 2.0 is not a question number", "key 'first' is not a question number"]),
])
def test_one_bad_entry_costs_only_itself(source, reason, stray):
    """An answer over a limit stays in its slot as Unreadable; a key that is no question number is set
    aside with its reason, never guessed; every other answer is read as written (issue 36)."""
    answers = parse_answers(source)
    assert answers[1] == "A" and answers[3] == "C" and answers.stray == stray
    if reason is None:
        assert 2 not in answers
    else:
        assert answers[2] == Unreadable(reason)


def test_notebook_level_problems_name_the_problem(tmp_path):
    with pytest.raises(AnswersError, match="missing notebook"):
        read_answers(tmp_path / "absent.ipynb")
    bad = tmp_path / "bad.ipynb"
    bad.write_text('{"cells": 5}')
    with pytest.raises(AnswersError, match="invalid notebook"):
        read_answers(bad)
    bad.write_text('{"cells": [{"cell_type": "code", "source": "answers = {1: \'A\'}", "metadata": {}}]}')
    with pytest.raises(AnswersError, match="missing answers cell"):
        read_answers(bad)
