"""Module 1 question banks: schema, self-test, pool sizes, and numbers that match the course's functions."""
from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.quiz.bank import load_all_banks, pool
from coursekit.quiz.engine import grade, instantiate
from coursekit.quiz.selftest import check_bank

ROOT = Path(__file__).resolve().parent.parent
BANKS = load_all_banks(ROOT / "quizzes")
M1 = {k: v for k, v in BANKS.items() if v.module == "m1"}


def test_module_has_four_lesson_quizzes_and_a_module_test():
    lessons = sorted(k for k, b in M1.items() if b.kind == "lesson-quiz")
    assert lessons == ["m1-l1", "m1-l2", "m1-l3", "m1-l4"]
    test = M1["m1-module-test"]
    assert (test.kind, test.show, test.pass_mark) == ("module-test", 15, 0.8)
    assert len(pool(test, BANKS)) >= 25


@pytest.mark.parametrize("bank_id", sorted(M1))
def test_bank_passes_self_test(bank_id):
    bank = M1[bank_id]
    assert check_bank(bank, BANKS) == []
    if bank.kind == "lesson-quiz":
        assert bank.show >= 3 and len(bank.items) >= 6
    for item in bank.items:
        assert item.id.startswith("m1-") and item.source and item.explanation


def _item(item_id):
    return next(i for b in M1.values() for i in b.items if i.id == item_id)


def test_numbers_match_the_course_functions():
    # 70B in BF16 = 140 GB; mixed-precision AdamW = 16 bytes/param
    assert instantiate(_item("m1-l2-weights-70b")).answer == pytest.approx(140)
    for seed in range(5):
        q = instantiate(_item("m1-l2-training-gb"), seed=seed)
        assert q.answer == pytest.approx(16 * q.params["n"])
        q = instantiate(_item("m1-l3-ridge"), seed=seed)
        assert q.answer == pytest.approx(q.params["tflops"] / q.params["tbs"])
        q = instantiate(_item("m1-l2-kv-per-user"), seed=seed)
        if q.params["model"] == "Llama 2 7B":
            assert q.answer == pytest.approx(q.params["context"] / 2048)   # 1 GiB per 2048 tokens


@pytest.mark.parametrize("seed", range(6))
def test_seed004_count_is_recognised_as_a_mistake(seed):
    q = instantiate(_item("m1-l2-training-gb"), seed=seed)
    outcome = grade(q, q.answer * 12 / 16)
    assert not outcome.correct and "master" in outcome.feedback
    assert grade(q, q.answer).correct
