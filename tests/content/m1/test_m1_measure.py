"""coursekit.calc.measure: small real measurements on CPU (the lab's full sizes run in its notebook)."""
from __future__ import annotations

import time

import pytest

torch = pytest.importorskip("torch")

from coursekit.calc import measure  # noqa: E402 - only once torch is known to import


def test_matmul_rows_report_consistent_intensity_and_rate():
    rows = measure.measure_matmul([32, 64], device="cpu", repeats=2)
    assert [r["n"] for r in rows] == [32, 64]
    for r in rows:
        assert r["dtype"] == "float32"
        assert r["intensity"] == pytest.approx(2 * r["n"] / (3 * 4))
        assert r["flops_per_s"] == pytest.approx(r["flops"] / r["seconds"])
        assert r["seconds"] > 0


def test_copy_bandwidth_counts_read_and_write():
    copy = measure.measure_bandwidth(4 * 2**20, device="cpu", repeats=2)
    assert copy["bytes_moved"] == 2 * copy["buffer_bytes"] == 2 * 4 * 2**20
    assert copy["bytes_per_s"] > 1e8     # any machine copies more than 100 MB/s


def test_roofline_summary_uses_the_best_matmul():
    r = measure.measure_roofline([32, 64], 2**20, device="cpu", repeats=1)
    assert r["peak_flops"] == max(row["flops_per_s"] for row in r["matmuls"])
    assert r["ridge_point"] == pytest.approx(r["peak_flops"] / r["bandwidth"])


def test_time_call_synchronizes_and_rejects_zero_repeats(monkeypatch):
    calls = []
    monkeypatch.setattr(measure, "synchronize", lambda device: calls.append(device))
    assert measure.time_call(lambda: None, "cpu", repeats=2, warmup=1, min_seconds=0, budget_seconds=0) >= 0
    assert len(calls) == 4                    # after warmup, calibration, and each timed block
    calls.clear()
    measure.time_call(lambda: time.sleep(0.001), "cpu", repeats=1, min_seconds=0, budget_seconds=1, max_blocks=5)
    assert len(calls) == 2 + 5                # a budget keeps timing up to max_blocks
    with pytest.raises(ValueError, match="measure.py"):
        measure.time_call(lambda: None, "cpu", repeats=0)


def test_default_dtypes():
    assert measure.default_dtype("cpu") == torch.float32
    assert measure.default_dtype("cuda") == torch.bfloat16
