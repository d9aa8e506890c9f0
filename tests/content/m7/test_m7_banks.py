"""Module 7 question banks: numeric keys recomputed independently of the bank's own function calls
(from the alpha-beta model, ZeRO's byte counts and the published figures, by hand)."""
from __future__ import annotations

import math

import pytest
from bank_items import bank_item

from coursekit.quiz.engine import grade, instantiate


def test_lesson1_keys_by_hand():
    for seed in range(6):
        q = instantiate(bank_item("m7-l1-ring-time"), seed=seed)
        n, m = q.params["n"], q.params["mb"] * 1e6
        assert q.answer == pytest.approx((2 * (n - 1) * 5e-6 + 2 * (n - 1) / n * m / 50e9) * 1e3)
        q = instantiate(bank_item("m7-l1-tree-time"), seed=seed)
        n, m = q.params["n"], q.params["mb"] * 1e6
        assert q.answer == pytest.approx(2 * math.log2(n) * (5e-6 + m / 50e9) * 1e3)
    assert instantiate(bank_item("m7-l1-bucket-count")).answer == math.ceil(8.03e9 * 4 / (25 * 2 ** 20))


def test_ring_item_names_the_tree_mistake():
    q = instantiate(bank_item("m7-l1-ring-time"), seed=1)
    n, m = q.params["n"], q.params["mb"] * 1e6
    tree = 2 * math.ceil(math.log2(n)) * (5e-6 + m / 50e9) * 1e3
    wrong = grade(q, f"{tree:.6f}")
    assert not wrong.correct and "binomial tree" in wrong.feedback


def test_lesson2_keys_by_hand():
    per_rank = {1: lambda p, n: 4 * p + 12 * p / n, 2: lambda p, n: 2 * p + 14 * p / n, 3: lambda p, n: 16 * p / n}
    for seed in range(8):
        q = instantiate(bank_item("m7-l2-stage-memory"), seed=seed)
        psi = q.params["b"] * 1e9
        assert q.answer == pytest.approx(per_rank[q.params["stage"]](psi, q.params["n"]) / 1e9)
        q = instantiate(bank_item("m7-l2-min-ranks"), seed=seed)
        need = 16 * q.params["b"] * 1e9 / (q.params["gb"] * 1e9)
        assert q.answer == 2 ** math.ceil(math.log2(need))
        q = instantiate(bank_item("m7-l2-fsdp-peak"), seed=seed)
        n = q.params["n"]
        assert q.answer == pytest.approx((16 * 70e9 / n + 2 * 70e9 / 80 * 2 * (n - 1) / n) / 1e9)
    assert instantiate(bank_item("m7-l2-comm-stage3")).answer == pytest.approx(1.5)


def test_lesson3_and_4_keys_by_hand():
    for seed in range(8):
        q = instantiate(bank_item("m7-l3-bubble"), seed=seed)
        p, m = q.params["p"], q.params["m"]
        assert q.answer == pytest.approx(100 * (p - 1) / (m + p - 1))
        q = instantiate(bank_item("m7-l3-1f1b-memory"), seed=seed)
        assert q.answer == min(q.params["p"], q.params["m"])
        q = instantiate(bank_item("m7-l3-tp-mb"), seed=seed)
        t = q.params["t"]
        assert q.answer == pytest.approx(4 * 2 * (t - 1) / t * 4096 * q.params["h"] * 2 / 1e6)
        q = instantiate(bank_item("m7-l4-interval"), seed=seed)
        assert q.answer == pytest.approx(math.sqrt(2 * q.params["c"] * q.params["h"] * 3600) / 60)
        q = instantiate(bank_item("m7-l4-mfu"), seed=seed)
        assert q.answer == pytest.approx(100 * q.params["t"] / 989)


def test_module_test_keys_by_hand():
    for seed in range(8):
        q = instantiate(bank_item("m7-mt-allgather-time"), seed=seed)
        n, m = q.params["n"], q.params["mb"] * 1e6
        assert q.answer == pytest.approx(((n - 1) * 5e-6 + (n - 1) / n * m / 50e9) * 1e3)
        q = instantiate(bank_item("m7-mt-interleave"), seed=seed)
        bubble = (q.params["p"] - 1) / q.params["v"]
        assert q.answer == pytest.approx(100 * bubble / (q.params["m"] + bubble))
        wrong = grade(q, f"{100 * (q.params['p'] - 1) / (q.params['m'] + q.params['p'] - 1):.6f}")
        assert not wrong.correct and "interleaving" in wrong.feedback
    per_token = 6 * 540.35e9 + 12 * 118 * 48 * 256 * 2048
    assert instantiate(bank_item("m7-mt-mfu-palm")).answer == pytest.approx(100 * 238.3e3 * per_token / (6144 * 275e12))
