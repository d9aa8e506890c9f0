"""Decode at large batch, per part (weights vs attention) against the course's single max over the step."""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import chips, roofline
from coursekit.calc.kvcache import model_kv_bytes_per_session
from coursekit.model_configs import LLAMA2_70B

H100 = hardware.H100_SXM


def _parts(batch, context, n_chips=8):
    kv = model_kv_bytes_per_session(LLAMA2_70B.name, context)
    return chips.decode_step_seconds_per_part(LLAMA2_70B.n_params, 2, kv, batch, H100.bf16_tflops, H100.memory_tbs, n_chips)


def test_per_part_equals_the_single_max_while_the_step_is_bandwidth_bound():
    for batch in (1, 16, 64):
        r = _parts(batch, 2048)
        assert r["seconds"] == pytest.approx(r["single_max_s"], rel=1e-9)


def test_per_part_is_slower_once_the_weight_matmuls_turn_compute_bound():
    r = _parts(512, 512)
    weights_compute = 2 * LLAMA2_70B.n_params * 512 / (8 * H100.bf16_tflops * 1e12)
    assert r["weights_s"] == pytest.approx(weights_compute)            # compute-bound part
    assert r["seconds"] == pytest.approx(r["weights_s"] + r["attention_s"])
    assert r["seconds"] / r["single_max_s"] > 1.3                      # the KV reads no longer hide
    for batch in (1, 64, 256, 512, 1024):                               # never faster than the single max
        p = _parts(batch, 512)
        assert p["seconds"] >= p["single_max_s"] * (1 - 1e-12)


def test_roofline_decode_step_reports_both():
    d = roofline.decode_step(LLAMA2_70B.name, 512, 512, 8 * H100.bf16_tflops * 1e12, 8 * H100.memory_tbs * 1e12)
    assert d["seconds_per_part"] > 1.2 * d["seconds"]
    small = roofline.decode_step(LLAMA2_70B.name, 8, 2048, 8 * H100.bf16_tflops * 1e12, 8 * H100.memory_tbs * 1e12)
    assert small["seconds_per_part"] == pytest.approx(small["seconds"], rel=1e-6)
