"""Module 6 question banks: numeric keys recomputed independently
of the bank's own function calls (from the shapes, the chip table and the formulas by hand)."""
from __future__ import annotations

import math

import pytest

from coursekit import hardware, prices
from coursekit.calc import roofline, serving
from coursekit.quiz.engine import grade, instantiate
from bank_items import bank_item

KV_8B = 2 * 32 * 8 * 128 * 2                      # bytes per token: K and V, 32 layers, 8 KV heads of 128, BF16



def test_keys_by_hand():
    assert roofline.kv_bytes_per_token("Llama 3 8B") == KV_8B
    free = (0.9 * 80e9 - 2 * roofline.total_params("Llama 3 8B")) // (16 * KV_8B)
    assert instantiate(bank_item("m6-l2-blocks-free")).answer == free
    assert instantiate(bank_item("m6-l3-kv-transfer")).answer == pytest.approx(4096 * 2 * 80 * 8 * 128 * 2 / 50e9 * 1e3)
    for seed in range(6):
        q = instantiate(bank_item("m6-l1-tpot"), seed=seed)
        assert q.answer == pytest.approx((q.params["e2e"] - q.params["ttft"]) / (q.params["n"] - 1) * 1e3)
        q = instantiate(bank_item("m6-l3-swap"), seed=seed)
        assert q.answer == pytest.approx(2 * q.params["t"] * KV_8B / (q.params["gbs"] * 1e9) * 1e3)
        q = instantiate(bank_item("m6-l2-prefix"), seed=seed)
        n, p = q.params["n"], q.params["prefix"]
        alone, shared = math.ceil((p + 200) / 16), p // 16
        assert q.answer == pytest.approx(100 * (1 - (shared + n * (alone - shared)) / (n * alone)))
        q = instantiate(bank_item("m6-l4-measured"), seed=seed)
        assert q.answer == pytest.approx(q.params["price"] / (q.params["tps"] * q.params["u"] * 3600) * 1e6)
        q = instantiate(bank_item("m6-mt-blocks-for-request"), seed=seed)
        assert q.answer == math.ceil(q.params["n"] / q.params["b"])


def test_cost_item_uses_the_dated_price_and_rejects_full_utilization():
    q = instantiate(bank_item("m6-l4-cost-at-slo"))
    price = prices.current_dollars_per_hour(hardware.H100_SXM.name)
    assert f"${price:.2f}" in q.stem
    got = serving.cost_at_slo("Llama 2 70B", hardware.H100_SXM.name, 2048, 0.05, price, 0.6, 4)
    assert q.answer == pytest.approx(4 * price / (got["tokens_per_s"] * 0.6 * 3600) * 1e6)
    wrong = grade(q, f"{q.answer * 0.6:.4f}")
    assert not wrong.correct and "busy every paid hour" in wrong.feedback


def test_recompute_or_swap_key_is_the_direction_that_holds_on_every_link():
    """The keyed reasoning of m6-mt-recompute-or-swap: dropping GQA multiplies the swap (4x the bytes per token) and
    leaves the recompute (same FLOPs) alone, so the swap/recompute ratio moves toward recompute on any link and rate."""
    item = bank_item("m6-mt-recompute-or-swap")
    key = next(o.text for o in item.options if o.correct)
    assert key.startswith("Toward recompute") and "four times" in key
    assert roofline.kv_bytes_per_token("Llama 2 7B") == 4 * KV_8B
    for gbs in (32, 64):
        for mfu in (0.5, 1.0):
            ratio = {m: serving.swap_seconds(m, 2048, gbs) / serving.recompute_seconds(m, hardware.H100_SXM.name, 2048,
                                                                                       prefill_mfu=mfu)
                     for m in ("Llama 2 7B", "Llama 3 8B")}
            assert ratio["Llama 2 7B"] > 3 * ratio["Llama 3 8B"]
    # the explanation's numbers: PCIe Gen5 (64 GB/s each way), prefill at 50% of peak
    assert "about 34 ms against 57 ms" in item.explanation
    assert round(serving.swap_seconds("Llama 2 7B", 2048, hardware.PCIE5_X16.one_way_gbs) * 1e3) == 34
    assert round(serving.recompute_seconds("Llama 2 7B", hardware.H100_SXM.name, 2048, prefill_mfu=0.5) * 1e3) == 57


def test_decode_mfu_key_is_the_errata_number():
    q = instantiate(bank_item("m6-l3-decode-mfu"))
    step = roofline.decode_step("Llama 3 8B", 64, 1024, 989e12, 3.35e12)
    assert q.answer == pytest.approx(100 * step["flops"] / (step["seconds"] * 989e12))
    assert q.answer < 25        # far from "near 100%"


def test_ridge_batch_names_the_gpus_on_which_memory_caps_the_batch_first():
    """m6-l1-ridge-batch: "memory caps the batch first" holds on two to four H100s, not on an 8-GPU node."""
    from coursekit.calc import memory

    item, h100 = bank_item("m6-l1-ridge-batch"), hardware.H100_SXM.name
    ridge = instantiate(item).answer
    fits = {n: memory.users_per_replica("Llama 2 70B", h100, 1024, n) for n in (2, 4, 8)}
    assert "four H100s" in item.stem and ridge == 1008
    assert fits[2] < fits[4] < ridge < fits[8]
    correct = item.feedback["correct"]
    assert f"only {fits[4]} sessions" in correct and f"({fits[2]} on two)" in correct and f"{fits[8]:,}, past" in correct


def test_kv_transfer_items_say_one_gpus_link():
    item = bank_item("m6-l3-kv-transfer")
    assert "over one GPU's link" in item.stem and "eighth" in item.explanation
