"""Leaderboard names (issue 51): read from one line as text, so no notebook can stop the board for the
class, and never ambiguous when two learners choose the same name."""
from __future__ import annotations

import subprocess
import sys

import pytest

from pipeline_course import LAB, generate_course
from test_leaderboard import hand_in, speed

DEEP_SUM = "total = " + " + ".join(["1"] * 10_000)             # ast.parse: RecursionError
DEEP_UNARY = "x = " + "-" * 200_000 + "1"                       # ast.parse: MemoryError or RecursionError


@pytest.mark.parametrize("source, name", [
    ('LEADERBOARD_NAME = "Ada L."', "Ada L."),
    ("LEADERBOARD_NAME='Bob'  # my name", "Bob"),
    (f'LEADERBOARD_NAME = "Eve"\n{DEEP_SUM}\n', "Eve"),
    (f'{DEEP_UNARY}\nLEADERBOARD_NAME = "Fay"', "Fay"),
    ('LEADERBOARD_NAME = "caf\\u00e9"', "café"),
    ('LEADERBOARD_NAME = f"{secret}"', ""),                      # not a plain literal: no name
    ('LEADERBOARD_NAME = "a" + "b"', ""),
    ('if True:\n    LEADERBOARD_NAME = "Gus"', ""),              # only a line of its own at the top level
    ('LEADERBOARD_NAME = "' + "x" * 5000 + '"', ""),             # longer than any name: not read
])
def test_the_name_is_read_from_its_line_never_by_parsing_the_cell(source, name):
    from autograder.leaderboard.board import name_in

    assert name_in(source) == name


def test_two_learners_with_one_name_are_told_apart_and_anonymous_stays():
    from autograder.leaderboard.board import Standing, disambiguate

    board = [Standing("s2", "Ada", 6, 12, {"t": 1.0}), Standing("s1", "ADA", 6, 12, {"t": 2.0}),
             Standing("s3", "anonymous", 6, 12, {"t": 1.0}), Standing("s4", "anonymous", 6, 12, {"t": 1.0}),
             Standing("s5", "Ben", 6, 12, {"t": 1.0})]
    names = {s.student_id: s.name for s in disambiguate(board)}
    assert names == {"s1": "ADA [1]", "s2": "Ada [2]", "s3": "anonymous", "s4": "anonymous", "s5": "Ben"}


@pytest.mark.slow
def test_a_notebook_that_ast_cannot_parse_never_stops_the_board(tmp_path):
    root = generate_course(tmp_path)
    hand_in(root, "ada", 6, speed(1.8), name="Ada")
    hand_in(root, "bob", 6, speed(1.2), name="Ada")
    hand_in(root, "eve", 6, speed(1.0), claims=f'LEADERBOARD_NAME = "Eve"\n{DEEP_SUM}')
    hand_in(root, "fay", 6, speed(0.9), claims=f'LEADERBOARD_NAME = "Fay"\n{DEEP_UNARY}')
    out = tmp_path / "board"
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(root), "leaderboard", LAB,
                           "--rerun", "0", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for shown in ("Ada [1]", "Ada [2]", "Eve", "Fay"):
        assert shown in done.stdout, done.stdout
    assert (out / f"{LAB}.html").read_text().count("<tr>") == 5
