"""Module 2 question banks: numbers that match the course's functions (the rules every module's banks follow are tests/content/test_module_banks.py)."""
from __future__ import annotations

import pytest

from coursekit.calc import roofline
from coursekit.quiz.engine import grade, instantiate
from bank_items import bank_item




def test_numbers_match_the_papers():
    # ZeRO: GPT-3's 12 bytes of optimizer state per parameter = 2.1 TB (the 2.8 TB is all 16 bytes)
    assert instantiate(bank_item("m2-l2-gpt3-state")).answer == pytest.approx(2.1)
    assert instantiate(bank_item("m2-l1-fp8-max")).answer == 448
    assert instantiate(bank_item("m2-l4-llama3")).answer == pytest.approx(54 * 24 / 419)
    for seed in range(6):
        q = instantiate(bank_item("m2-l2-bubble"), seed=seed)
        p, m = q.params["p"], q.params["m"]
        assert q.answer == pytest.approx(100 * (p - 1) / (m + p - 1))
        q = instantiate(bank_item("m2-l4-young"), seed=seed)
        assert q.answer == pytest.approx((2 * q.params["c"] * q.params["h"] * 3600) ** 0.5 / 60)
    for run in ["LLaMA 7B", "LLaMA 65B", "Llama 2 7B", "Llama 2 13B", "Llama 2 70B"]:
        # one published run per variant: size, tokens and GPU-hours from the same paper, so MFU is real
        seed = next(s for s in range(200) if instantiate(bank_item("m2-l1-mfu"), seed=s).params["run"] == run)
        q = instantiate(bank_item("m2-l1-mfu"), seed=seed)
        n, d, h = (roofline.published_run_value(run, f) for f in ("n_params", "train_tokens", "gpu_hours"))
        assert q.answer == pytest.approx(100 * 6 * n * d / (h * 3600 * 312e12), rel=1e-3)
        assert 30 < q.answer < 55, run


@pytest.mark.parametrize("seed", range(4))
def test_two_n_d_is_recognised_as_a_mistake(seed):
    q = instantiate(bank_item("m2-mt-days"), seed=seed)
    outcome = grade(q, q.answer / 3)
    assert not outcome.correct and "6 N D" in outcome.feedback
    assert grade(q, q.answer).correct
