"""The chip table (coursekit.hardware): every entry cites a dated source and names its variant, dense and
sparse peaks stay apart, derived quantities (ridge point, one-way link, per-system totals) are sane."""
from __future__ import annotations

import re

import pytest

from coursekit import hardware

CHIPS = hardware.ALL_CHIPS
YEAR = re.compile(r"\b20[12]\d\b")


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c.name)
def test_every_chip_has_a_source_and_a_date(chip):
    assert len(chip.source) > 40, f"{chip.name}: no source"
    assert YEAR.search(chip.date), f"{chip.name}: date {chip.date!r} names no year"
    assert YEAR.search(chip.source), f"{chip.name}: the source names no year"


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c.name)
def test_dense_and_sparse_peaks_are_kept_apart(chip):
    for dense, sparse in [(chip.bf16_tflops, chip.bf16_sparse_tflops), (chip.fp8_tflops, chip.fp8_sparse_tflops),
                          (chip.fp4_tflops, chip.fp4_sparse_tflops)]:
        if dense is not None and sparse is not None:
            assert 1.9 <= sparse / dense <= 4.0, f"{chip.name}: sparse {sparse} vs dense {dense}"
    if chip.fp8_tflops is not None:          # FP8 never slower than BF16, never more than 2x
        assert chip.bf16_tflops * 0.99 <= chip.fp8_tflops <= 2.05 * chip.bf16_tflops, chip.name
    if chip.fp4_tflops is not None:          # 2x FP8 on Blackwell and MI355X; Blackwell Ultra raised FP4 alone, to 3x
        assert 2 * chip.fp8_tflops * 0.99 <= chip.fp4_tflops <= 3 * chip.fp8_tflops * 1.01, chip.name


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c.name)
def test_ridge_point_is_sane(chip):
    ridge = chip.ridge_point
    assert ridge == pytest.approx(chip.bf16_tflops / chip.memory_tbs)
    if chip.kind in ("sram-lpu", "wafer-sram"):
        assert 1 < ridge < 10, f"{chip.name}: on-chip SRAM should put the ridge near a few FLOP/byte, got {ridge:.1f}"
    else:
        assert 100 < ridge < 700, f"{chip.name}: an HBM/GDDR chip's ridge should be in the hundreds, got {ridge:.1f}"


@pytest.mark.parametrize("chip", [c for c in CHIPS if c.interconnect_gbs], ids=lambda c: c.name)
def test_scale_up_link_one_way_is_half_of_both_ways(chip):
    assert chip.interconnect_one_way_gbs == pytest.approx(chip.interconnect_gbs / 2)


def test_the_issue_s_chips_are_all_in_the_table_with_their_variant_named():
    names = set(hardware.BY_NAME)
    for want in ["AMD Instinct MI300X", "AMD Instinct MI325X", "AMD Instinct MI355X", "Google TPU v4", "Google TPU v5p",
                 "Google TPU v6e (Trillium)", "Google TPU7x (Ironwood)", "AWS Trainium2", "Cerebras WSE-3",
                 "NVIDIA GB200 NVL72 (one Blackwell GPU)"]:
        assert want in names
    for chip in hardware.CURRENT_CHIPS:
        assert chip.link, f"{chip.name}: name the scale-up link"
    assert len(hardware.BY_NAME) == len(hardware.ALL_CHIPS), "two chips share a name"


@pytest.mark.parametrize("system", hardware.SYSTEMS, ids=lambda s: s.name)
def test_system_totals_agree_with_what_the_vendor_prints(system):
    assert system.source and YEAR.search(system.date)
    for key, printed in system.printed.items():
        assert getattr(system, key) == pytest.approx(printed, rel=0.03), f"{system.name}: {key}"


def test_cerebras_roof_is_its_sram():
    wse = hardware.CEREBRAS_WSE3
    # Batch-1 decode does ~1 FLOP per byte of weights: below both ridges, so both are bandwidth-bound, but
    # the wafer's roof is 21 PB/s against the H100's 3.35 TB/s, and prefill turns compute-bound ~50x sooner.
    assert wse.ridge_point < 10 < hardware.H100_SXM.ridge_point
    assert wse.memory_tbs / hardware.H100_SXM.memory_tbs > 6000
    assert 70e9 * 2 / (wse.memory_gb * 1e9) > 3      # a 70B BF16 model needs more than three wafers
