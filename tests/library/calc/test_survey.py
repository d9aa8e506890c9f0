"""One model on how many chips (coursekit.calc.survey), checked by hand for the 2024-2026 silicon."""
from __future__ import annotations

import math

import pytest

from coursekit import hardware
from coursekit.calc import survey


def test_training_state_and_days_by_hand():
    r = survey.training_row(hardware.MI355X, 70e9, 2e12, 1024, 0.4)
    assert r["min_chips_state"] == math.ceil(70e9 * 16 / 288e9) == 4
    assert r["days"] == pytest.approx(6 * 70e9 * 2e12 / (1024 * 2500e12 * 0.4) / 86400)
    assert survey.training_row(hardware.TPU_V5P, 70e9, 2e12, 1024)["min_chips_state"] == math.ceil(1120 / (95 * 2**30 / 1e9)) == 11
    # Ironwood and GB200 have about 2.3-2.5x the dense BF16 of an H100: the same run takes ~2.4x fewer days
    h100 = survey.training_days("NVIDIA H100 SXM", 70e9, 2e12, 1024)
    assert 2.2 < h100 / survey.training_days("Google TPU7x (Ironwood)", 70e9, 2e12, 1024) < 2.6
    with pytest.raises(ValueError, match="survey.py"):
        survey.training_row(hardware.H100_SXM, 70e9, 2e12, 0)


def test_serving_one_70b_model():
    # 140 GB of BF16 weights: one MI325X/MI355X/Ironwood/GB200 GPU holds it; an H100 needs 2; a TPU v6e 5
    for chip, n in [("AMD Instinct MI325X", 1), ("Google TPU7x (Ironwood)", 1), ("NVIDIA H100 SXM", 2),
                    ("Google TPU v6e (Trillium)", 5), ("AWS Inferentia2", 5), ("Cerebras WSE-3", 4)]:
        assert survey.chips_to_serve(chip, "Llama 2 70B") == n, chip
    # an HBM chip's batch-1 decode is bandwidth-bound: chips x bandwidth / weight bytes
    r = survey.serving_row("Google TPU7x (Ironwood)", "Llama 2 70B")
    assert r["decode_bound_tps"] == r["bandwidth_bound_tps"] == pytest.approx(7.2e12 / (2 * 68.98e9), rel=0.01)
    # SRAM designs need hundreds of chips (Groq) or a few wafers (Cerebras), and their roofline bound is far
    # above any measured speed: the bound stops being the constraint
    groq = survey.serving_row(hardware.GROQ_LPU, "Llama 2 70B")
    assert groq["chips"] > 500 and groq["decode_bound_tps"] > 100 * r["decode_bound_tps"]
    wse = survey.serving_row(hardware.CEREBRAS_WSE3, "Llama 2 70B")
    assert wse["decode_bound_tps"] > 10_000
    # adding sessions' KV caches raises the chip count
    assert survey.serving_row("NVIDIA H100 SXM", "Llama 2 70B", sessions=64, context=4096)["chips"] > 2


def test_survey_lists_cover_the_new_chips():
    names = {c.name for c in survey.TRAINING_SILICON + survey.INFERENCE_SILICON}
    assert {c.name for c in hardware.CURRENT_CHIPS} <= names


def test_every_training_platform_has_its_own_mfu_with_a_range_and_a_stated_measurement():
    for chip in survey.TRAINING_SILICON:
        m = survey.assumed_mfu(chip)
        assert 0 < m.low <= m.assumed <= m.high < 1 and m.measured, chip.name
        r = survey.training_row(chip, 70e9, 2e12, 1024)
        assert r["mfu"] == m.assumed and r["days_best"] <= r["days"] <= r["days_worst"]
    # Not one MFU for every vendor: then the days would be a ratio of datasheet peaks
    assert len({survey.assumed_mfu(c).assumed for c in survey.TRAINING_SILICON}) > 2
    # An explicit MFU still wins (the quiz banks pass one)
    assert survey.training_row(hardware.MI300X, 70e9, 2e12, 1024, mfu=0.4)["days"] == pytest.approx(
        survey.training_days("AMD Instinct MI300X", 70e9, 2e12, 1024, 0.4))
    with pytest.raises(KeyError, match="no MFU assumption"):
        survey.training_row(hardware.L40S, 70e9, 2e12, 8)


def test_the_mi300x_assumption_is_the_h100s_delivered_rate():
    # "matching the H100's delivered rate is 40% x 989 / 1,307 = 30% MFU"
    h100 = survey.MFU_BY_PLATFORM[hardware.H100_SXM.name].assumed * hardware.H100_SXM.bf16_tflops
    assert round(h100 / hardware.MI300X.bf16_tflops, 2) == survey.MFU_BY_PLATFORM[hardware.MI300X.name].assumed
