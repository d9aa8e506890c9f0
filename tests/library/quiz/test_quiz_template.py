"""`course quiz new BANK` writes a bank with one item of every type that `course quiz check` accepts,
and the check still catches an author's edit that breaks it (docs/QUIZ-FORMAT.md)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from coursekit.quiz.bank import load_bank
from coursekit.quiz.selftest import check_banks
from coursekit.quiz.template import new_bank


def course(*args, cwd):
    return subprocess.run([sys.executable, "-m", "coursekit.app.cli", "quiz", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_template_bank_passes_the_check_through_the_command(tmp_path):
    made = course("new", "my-quiz", "--root", str(tmp_path / "banks"), "--module", "m9", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    bank = load_bank(tmp_path / "banks" / "my-quiz.yaml")
    assert bank.id == "my-quiz" and bank.module == "m9" and bank.kind == "lesson-quiz"
    assert {item.type for item in bank.items} == {"single", "multi", "numeric", "param"}
    assert all(item.id.startswith("my-quiz-") for item in bank.items)
    checked = course("check", "--root", str(tmp_path / "banks"), cwd=tmp_path)
    assert checked.returncode == 0 and "all 6 items pass their self-test" in checked.stdout, checked.stderr
    again = course("new", "my-quiz", "--root", str(tmp_path / "banks"), cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr


def test_an_edit_that_breaks_an_item_is_named_by_the_check(tmp_path):
    path = new_bank(tmp_path, "edited")
    text = path.read_text()
    # a mistake inside the tolerance would be marked correct; a single item losing its key
    text = text.replace("bytes_per_param: 4}, scale: 1.0e-9}", "bytes_per_param: 2.01}, scale: 1.0e-9}")
    text = text.replace("        correct: true\n        feedback: Right. Every weight", "        feedback: Right. Every weight")
    path.write_text(text)
    problems = [str(p) for p in check_banks(tmp_path)]
    assert any("edited-weights-7b" in p and "within tolerance" in p for p in problems), problems
    assert any("edited-decode-bound" in p and "exactly one correct option" in p for p in problems), problems


def test_new_refuses_an_unsafe_bank_id(tmp_path):
    with pytest.raises(ValueError, match="invalid bank id"):
        new_bank(tmp_path, "../up")
