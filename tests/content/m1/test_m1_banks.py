"""Module 1 question banks: numbers that match the course's functions (the rules every module's banks
follow are tests/content/test_module_banks.py)."""
from __future__ import annotations

import pytest

from coursekit.quiz.engine import grade, instantiate
from bank_items import bank_item




def test_numbers_match_the_course_functions():
    # 70B in BF16 = 140 GB; mixed-precision AdamW = 16 bytes/param
    assert instantiate(bank_item("m1-l2-weights-70b")).answer == pytest.approx(140)
    for seed in range(5):
        q = instantiate(bank_item("m1-l2-training-gb"), seed=seed)
        assert q.answer == pytest.approx(16 * q.params["n"])
        q = instantiate(bank_item("m1-l3-ridge"), seed=seed)
        assert q.answer == pytest.approx(q.params["tflops"] / q.params["tbs"])
        q = instantiate(bank_item("m1-l2-kv-per-user"), seed=seed)
        if q.params["model"] == "Llama 2 7B":
            assert q.answer == pytest.approx(q.params["context"] / 2048)   # 1 GiB per 2048 tokens


@pytest.mark.parametrize("seed", range(6))
def test_seed004_count_is_recognised_as_a_mistake(seed):
    q = instantiate(bank_item("m1-l2-training-gb"), seed=seed)
    outcome = grade(q, q.answer * 12 / 16)
    assert not outcome.correct and "master" in outcome.feedback
    assert grade(q, q.answer).correct
