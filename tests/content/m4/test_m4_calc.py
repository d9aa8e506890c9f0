"""Module 4's formulas (coursekit.calc.serving_cost, tco, levers) and price table (coursekit.prices),
checked against hand arithmetic and against the roofline of Module 1."""
from __future__ import annotations

import math

import pytest

from coursekit import hardware, prices
from coursekit.calc import levers, roofline, serving_cost, tco


def test_every_price_names_its_source_and_date_and_a_known_chip():
    for p in [*prices.RENTALS.values(), *prices.API_PRICES.values(), *prices.API_HISTORY]:
        assert p.source and any(ch.isdigit() for ch in p.date), p
    assert set(prices.RENTALS) <= set(hardware.BY_NAME)
    assert prices.AWS_P5_H100.dollars_per_hour == pytest.approx(12.29)   # $98.32 / 8 GPUs
    with pytest.raises(KeyError, match="no rental price"):
        prices.rental("NVIDIA B200")


def test_cost_per_million_tokens_counts_idle_hours():
    # $3.60 an hour, 1,000 tokens/s: 3.6M tokens an hour when always busy -> $1 per million
    assert serving_cost.cost_per_million_tokens(3.6, 1000, 1.0) == pytest.approx(1.0)
    assert serving_cost.cost_per_million_tokens(3.6, 1000, 0.25) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="utilization"):
        serving_cost.cost_per_million_tokens(3.6, 1000, 0.0)


def test_serving_bill_and_the_sources_thousandfold_slip():
    bill = serving_cost.serving_bill(1e9, 2.0)        # $0.002 per 1K = $2 per million
    assert bill == {"daily": 2000.0, "yearly": 730_000.0}
    assert bill["yearly"] == serving_cost.annual_cost(1e9, 0.002) == serving_cost.CLAIMED_ANNUAL_BILL / 1000


def test_break_even_day_flat_and_compounding():
    assert tco.break_even_day(50e6, 700e3) == math.ceil(50e6 / 700e3) == 72
    assert tco.break_even_day(100e6, 700e3) == 143
    assert tco.break_even_day(30e6, 1000, horizon_days=365) is None
    flat = tco.break_even_day(30e6, 100e3)
    assert tco.break_even_day(30e6, 100e3, growth=1.0) < flat < tco.break_even_day(30e6, 100e3, decline=0.3)
    assert tco.break_even_day(30e6, 20e3, decline=0.3) is None   # a falling price can keep serving below it forever
    # a year's daily costs compound to exactly the yearly factor on day 366
    days = tco.daily_costs(1.0, 366, growth=1.0, decline=0.5)
    assert days[0] == 1.0 and days[365] == pytest.approx(1.0)


def test_three_year_tco_by_hand():
    # 86.4M tokens/day = 1,000 tokens/s; 500 tokens/s per GPU at 100% -> 2 GPUs, flat demand
    out = tco.three_year_tco(86.4e6, 500, 1.0, rent_per_gpu_hour=2.0, purchase_per_gpu=30_000, kw_per_gpu=1.0,
                             electricity_per_kwh=0.1, pue=1.5, hosting_per_gpu_year=1000)
    assert out["gpus_per_year"] == [2, 2, 2]
    assert out["rent"] == pytest.approx(2 * 8760 * 2.0 * 3)
    power = 2 * 1.0 * 1.5 * 8760 * 0.1 * 3
    assert out["buy"] == pytest.approx(2 * 30_000 + power + 2 * 1000 * 3)   # 3 years old: no residual value
    grow = tco.three_year_tco(86.4e6, 500, 1.0, 2.0, 30_000, 1.0, 0.1, 1.5, 1000, growth=1.0, decline=0.5)
    assert grow["gpus_per_year"] == [2, 4, 8]
    assert grow["capex"] == pytest.approx(2 * 30_000 + 2 * 15_000 + 4 * 7_500)
    assert grow["residual"] == pytest.approx(2 * 15_000 / 3 + 4 * 7_500 * 2 / 3)


def test_renting_pays_busy_hours_so_utilization_decides():
    # 2 GPUs' worth of work; at 25% utilization the owned fleet (sized for peaks) is 8 GPUs, the rented one
    # still pays 2 GPU-years of busy hours: renting gains on owning as utilization falls
    args = dict(tokens_per_day=86.4e6, tokens_per_second_per_gpu=500, rent_per_gpu_hour=2.0, purchase_per_gpu=30_000,
                kw_per_gpu=1.0, electricity_per_kwh=0.1, pue=1.5, hosting_per_gpu_year=1000)
    busy, idle = tco.three_year_tco(utilization=1.0, **args), tco.three_year_tco(utilization=0.25, **args)
    assert idle["gpus_per_year"] == [8, 8, 8] and idle["rent"] == pytest.approx(busy["rent"])
    assert idle["buy"] == pytest.approx(4 * busy["buy"])
    assert idle["rent"] / idle["buy"] < busy["rent"] / busy["buy"] / 3.9
    # a trickle of demand still keeps the minimum fleet (one GPU) rented all year
    tiny = tco.three_year_tco(utilization=0.5, **{**args, "tokens_per_day": 1e6})
    assert tiny["rented_gpu_hours"] == [8760, 8760, 8760] and tiny["rent"] == pytest.approx(3 * 8760 * 2.0)
    assert tco.rented_gpu_hours(86.4e6, 500, min_rented_gpus=4) == 4 * 8760


def test_owning_is_priced_per_gpu_of_a_server():
    assert prices.H100_SERVER_PER_GPU > prices.H100_PURCHASE          # the server's share exceeds the bare GPU
    assert prices.H100_SERVER_KW_PER_GPU > prices.H100_SXM_KW         # so does its power (CPUs, fans, NICs)


def test_tornado_sorts_by_swing():
    rows = tco.tornado(lambda a, b: 10 * a + b, {"a": 1.0, "b": 1.0}, {"a": (0.5, 2.0), "b": (0.0, 3.0)})
    assert [r["input"] for r in rows] == ["a", "b"] and rows[0]["swing"] == pytest.approx(15.0)


def test_levers_follow_the_roofline():
    s = levers.scenario("Llama 2 70B", "NVIDIA H100 SXM", 4, 1, 2048, prices.AWS_P5_H100.dollars_per_hour, 1.0)
    peak, bw = roofline.chip_ceilings("NVIDIA H100 SXM")
    # batch 1 is bandwidth-bound: one token per pass over the weights (plus one sequence's KV cache)
    expected = 1 / ((s["params"] * 2 + 2048 * s["kv_bytes_per_token"]) / (4 * bw))
    assert levers.decode_tokens_per_second(s) == pytest.approx(expected)
    assert levers.decode_tokens_per_second({**s, "bytes_per_weight": 1}) > 1.9 * levers.decode_tokens_per_second(s) * 0.99
    big = {**s, "batch": 100_000}
    assert levers.batch_that_fits(big) < 100_000
    ranked = levers.rank_levers({**s, "batch": 64}, {"baseline": {}, "batch 8": {"batch": 8}, "INT4": {"bytes_per_weight": 0.5}})
    assert [r["lever"] for r in ranked] == ["INT4", "baseline", "batch 8"]
    # prefill of long prompts is compute-bound: 2 FLOPs per parameter per token at the peak
    assert levers.prefill_tokens_per_second({**s, "batch": 8}, 2048) == pytest.approx(4 * peak / (2 * s["params"]))
    with pytest.raises(ValueError, match="do not fit"):
        levers.decode_tokens_per_second({**s, "gpus": 1})


def test_yearly_price_factor_compounds_over_the_dates():
    # GPT-4 (14 March 2023, $60/M out) to GPT-4o (13 May 2024, $15/M out): 4x over 1.17 years
    years = (prices.price_date(prices.HISTORY["GPT-4o"]) - prices.price_date(prices.HISTORY["GPT-4 (8K)"])).days / 365.25
    factor = prices.yearly_price_factor("GPT-4 (8K)", "GPT-4o")
    assert factor ** years == pytest.approx(4.0)
    with pytest.raises(ValueError, match="not later"):
        prices.yearly_price_factor("GPT-4o", "GPT-4 (8K)")


def test_renting_with_imperfect_autoscaling_pays_for_idle_rented_hours():
    busy = tco.rented_gpu_hours(500e6, 1200.0)
    assert tco.rented_gpu_hours(500e6, 1200.0, rented_utilization=0.5) == pytest.approx(2 * busy)
    common = dict(tokens_per_day=500e6, tokens_per_second_per_gpu=1200.0, utilization=0.6, rent_per_gpu_hour=6.88,
                  purchase_per_gpu=prices.H100_SERVER_PER_GPU, kw_per_gpu=prices.H100_SERVER_KW_PER_GPU,
                  electricity_per_kwh=prices.ELECTRICITY_PER_KWH, pue=prices.PUE, hosting_per_gpu_year=3000)
    perfect, real = tco.three_year_tco(**common), tco.three_year_tco(**common, rented_utilization=0.7)
    assert real["rent"] == pytest.approx(perfect["rent"] / 0.7) and real["buy"] == perfect["buy"]
    with pytest.raises(ValueError, match="rented_utilization"):
        tco.rented_gpu_hours(500e6, 1200.0, rented_utilization=0)
