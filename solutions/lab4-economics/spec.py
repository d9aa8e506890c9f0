"""Spec of Lab 4 (economics): cost per token, serving bills, break-even, 3-year rent vs buy, levers.

Every input is plain numbers. Visible `expected` values are computed by the course's own formulas in
coursekit.calc (serving_cost, tco, levers); tests/content/m4/test_m4_lab.py checks that they equal the solution
notebook's reference on every case. Hidden cases draw consistent, realistic inputs: prices of a few
cents to $15 an hour, utilizations of 10-100%, demands of 1M to 10B tokens a day.
"""
from __future__ import annotations

import math
import random

from autograder.spec import Case, LabSpec, Task
from coursekit import hardware, prices
from coursekit.checks.lab4_economics import compare_ranking, encode_rows, pick_tco
from coursekit.calc import levers, serving_cost, tco

LAB = "lab4-economics"
H100 = prices.AWS_P5_H100.dollars_per_hour


# --- cost per token and bills --------------------------------------------------------------------

def _cost_visible():
    rows = [((H100, 1000.0, 1.0), "an H100 at its AWS list price, busy every hour: $/hour / tokens per hour x 1e6"),
            ((H100, 1000.0, 0.5), "busy half the time: you pay for idle hours too, so the price per token doubles"),
            ((prices.GCP_TPU_V5E.dollars_per_hour, 500.0, 0.8), "tokens per hour = tokens/s x 3600 x utilization")]
    return tuple(Case(f"${a[0]:.2f}/h, {a[1]:g} tokens/s, {a[2]:.0%} busy", args=a, hint=h,
                      expected=serving_cost.cost_per_million_tokens(*a)) for a, h in rows)


def _cost_hidden(rng: random.Random) -> Case:
    return Case("random price, speed and utilization",
                args=(round(rng.uniform(0.5, 15.0), 2), round(10 ** rng.uniform(1, 4.3), 1), round(rng.uniform(0.1, 1.0), 2)))


def _bill_visible():
    rows = [((500e6, 5.0), "the startup: 500M tokens a day; daily = tokens/1e6 x $ per million, yearly = 365 x daily"),
            ((1e9, 2.0), "1 billion tokens a day at $0.002 per thousand (= $2 per million): $2,000 a day, not $2 million")]
    return tuple(Case(f"{a[0]:.0e} tokens/day at ${a[1]:g}/M", args=a, hint=h, expected=serving_cost.serving_bill(*a))
                 for a, h in rows)


def _bill_hidden(rng: random.Random) -> Case:
    return Case("random demand and price", args=(round(10 ** rng.uniform(6, 10), -3), round(rng.uniform(0.05, 60.0), 2)))


def _break_even_visible():
    rows = [((50e6, 700e3, 0.0, 0.0, 3650), "ChatGPT's reported $700K/day against a $50M training bill: the cumulative "
                                           "sum first reaches $50M on day ceil(50e6 / 700e3)"),
            ((100e6, 700e3, 0.0, 0.0, 3650), "the upper training estimate, $100M"),
            ((30e6, 3000.0, 0.0, 0.0, 3650), "serving that never catches up within the horizon returns None"),
            ((30e6, 20e3, 1.0, 0.3, 3650), "day k costs daily x ((1 + growth) x (1 - decline)) ** ((k - 1) / 365)")]
    return tuple(Case(f"${a[0] / 1e6:g}M training, ${a[1]:,.0f}/day, growth {a[2]:g}, decline {a[3]:g}", args=a, hint=h,
                      expected=tco.break_even_day(*a)) for a, h in rows)


def _break_even_hidden(rng: random.Random) -> Case:
    return Case("random bills and trends", args=(round(10 ** rng.uniform(6, 8.3), -3), round(10 ** rng.uniform(3, 6), 0),
                                                 rng.choice([0.0, 0.5, 1.0, 2.0]), rng.choice([0.0, 0.1, 0.3, 0.5]),
                                                 rng.choice([365, 1095, 3650])))


# --- rent vs buy ---------------------------------------------------------------------------------

def _tco_kwargs(**overrides) -> dict:
    base = dict(tokens_per_day=500e6, tokens_per_second_per_gpu=1200.0, utilization=0.5, rent_per_gpu_hour=H100,
                purchase_per_gpu=prices.H100_SERVER_PER_GPU, kw_per_gpu=prices.H100_SERVER_KW_PER_GPU,
                electricity_per_kwh=prices.ELECTRICITY_PER_KWH, pue=prices.PUE, hosting_per_gpu_year=3000.0,
                growth=0.0, decline=0.0)
    return {**base, **overrides}



def _tco_visible():
    rows = [("flat demand, H100 list prices", _tco_kwargs(),
             "size the owned fleet with ceil(tokens/day / 86400 / (tokens/s x utilization)); rent pays only busy hours: "
             "tokens/day x 365 / (tokens/s x 3600) GPU-hours, at least 8760 (one GPU all year)"),
            ("demand doubling yearly, prices falling 30%", _tco_kwargs(growth=1.0, decline=0.3),
             "buy only the GPUs you lack each year, at that year's price; residual = price x (1 - age / 3) at the end"),
            ("cheap rental ($2/h), little demand", _tco_kwargs(tokens_per_day=20e6, rent_per_gpu_hour=2.0),
             "power = owned GPUs x kW x PUE x 8760 h x $/kWh, plus hosting per owned GPU, every year"),
            ("a trickle of demand, busy 20%", _tco_kwargs(tokens_per_day=2e6, utilization=0.2),
             "renting never drops below one GPU rented all year (8760 GPU-hours), however small the demand")]
    return tuple(Case(name, kwargs=kw, hint=h, expected=pick_tco(tco.three_year_tco(**kw))) for name, kw, h in rows)


def _tco_hidden(rng: random.Random) -> Case:
    return Case("random fleet", kwargs=_tco_kwargs(
        tokens_per_day=round(10 ** rng.uniform(7, 10), -3), tokens_per_second_per_gpu=round(rng.uniform(200, 5000)),
        utilization=round(rng.uniform(0.2, 1.0), 2), rent_per_gpu_hour=round(rng.uniform(1.0, 13.0), 2),
        purchase_per_gpu=rng.choice([10_000.0, 25_000.0, 33_750.0]), kw_per_gpu=rng.choice([0.35, 0.7, 1.275]),
        electricity_per_kwh=round(rng.uniform(0.05, 0.3), 3), pue=rng.choice([1.1, 1.3, 1.58]),
        hosting_per_gpu_year=rng.choice([1000.0, 3000.0, 6000.0]), growth=rng.choice([0.0, 0.5, 1.0, 2.0]),
        decline=rng.choice([0.0, 0.15, 0.3])))


# --- the roofline levers -------------------------------------------------------------------------

def _h100_70b(**overrides) -> dict:
    return {**levers.scenario("Llama 2 70B", "NVIDIA H100 SXM", 4, 64, 2048, H100, 0.5), **overrides}


def _throughput_visible():
    rows = [("Llama 2 70B on 4 H100s, batch 64, context 2048", _h100_70b(),
             "seconds per step = max(batch x 2 x params / (gpus x peak), (weight bytes + batch x context x KV bytes) / (gpus x bandwidth))"),
            ("the same at batch 1", _h100_70b(batch=1), "at batch 1 the weights dominate the bytes: bandwidth-bound"),
            ("batch 4096 requested", _h100_70b(batch=4096),
             "cap the batch at floor((gpus x memory - weight bytes) / (context x KV bytes per token))"),
            ("INT4 weights", _h100_70b(bytes_per_weight=0.5), "weight bytes = params x bytes_per_weight")]
    return tuple(Case(name, args=(s,), hint=h, expected=levers.decode_tokens_per_second(s)) for name, s, h in rows)


def _random_scenario(rng: random.Random) -> dict:
    # any chip of the table (2020-2026, HBM and SRAM), with enough of them that the weights and one sequence fit
    chip = rng.choice([c.name for c in hardware.ALL_CHIPS])
    model = rng.choice(["Llama 2 7B", "Mistral 7B", "Llama 3 8B", "Llama 2 70B"])
    gpus = rng.choice([1, 2, 4]) if "70B" not in model else 8
    s = levers.scenario(model, chip, gpus, rng.choice([1, 8, 32, 128, 512]), rng.choice([256, 1024, 4096]),
                        round(rng.uniform(1.0, 13.0), 2), round(rng.uniform(0.2, 1.0), 2),
                        bytes_per_weight=rng.choice([2, 1, 0.5]))
    need = s["params"] * 2 + s["context"] * s["kv_bytes_per_token"]      # so every lever (BF16 at worst) fits too
    return {**s, "gpus": max(s["gpus"], math.ceil(need / s["memory_bytes"]))}


def _lever_set(s: dict) -> dict:
    return {"baseline": {}, "batch x 4": {"batch": s["batch"] * 4}, "INT8 weights": {"bytes_per_weight": 1},
            "INT4 weights": {"bytes_per_weight": 0.5}, "context / 4": {"context": max(1, s["context"] // 4)},
            "utilization 0.9": {"utilization": 0.9},
            "TPU v5e x 16": levers.chip_overrides("Google TPU v5e", prices.GCP_TPU_V5E.dollars_per_hour, 16)}



def _levers_visible():
    s = _h100_70b()
    return (Case("Llama 2 70B on 4 H100s: seven levers", args=(s, _lever_set(s)),
                 hint="apply each lever's overrides to a copy of the scenario, alone; cost uses gpus x price_per_hour",
                 expected=encode_rows(levers.rank_levers(s, _lever_set(s)))),)


def _levers_hidden(rng: random.Random) -> Case:
    s = _random_scenario(rng)
    s["batch"] = min(s["batch"], levers.batch_that_fits(s))
    return Case("random replica", args=(s, _lever_set(s)))


def _safe_levers_hidden(rng: random.Random) -> Case:
    """Redraw until every lever's scenario fits in memory (the INT8/context levers only ever shrink bytes)."""
    while True:
        case = _levers_hidden(rng)
        s, lever_set = case.args
        try:
            for overrides in lever_set.values():
                levers.batch_that_fits({**s, **overrides})
            return case
        except ValueError:
            continue


def _safe_throughput_hidden(rng: random.Random) -> Case:
    while True:
        s = _random_scenario(rng)
        free = s["gpus"] * s["memory_bytes"] - s["params"] * s["bytes_per_weight"]
        if math.floor(free / (s["context"] * s["kv_bytes_per_token"])) >= 1:
            return Case("random model, chip and batch", args=(s,))


SPEC = LabSpec(
    lab_id=LAB,
    notebook="lab4-economics.ipynb",
    tasks=(
        Task("test_cost", "Task (cost per million tokens)", 2, "cost_per_million_tokens",
             visible=_cost_visible(), hidden=_cost_hidden),
        Task("test_bill", "Task (serving bill)", 1, "serving_bill",
             visible=_bill_visible(), hidden=_bill_hidden),
        Task("test_break_even", "Task (break-even day)", 2, "break_even_day",
             visible=_break_even_visible(), hidden=_break_even_hidden, n_hidden=8),
        Task("test_tco", "Task (rent or buy)", 3, "three_year_tco",
             visible=_tco_visible(), hidden=_tco_hidden, encode=pick_tco),
        Task("test_throughput", "Task (decode throughput)", 2, "decode_tokens_per_second",
             visible=_throughput_visible(), hidden=_safe_throughput_hidden),
        Task("test_levers", "Task (lever ranking)", 2, "rank_levers",
             visible=_levers_visible(), hidden=_safe_levers_hidden, encode=encode_rows, compare=compare_ranking),
    ),
)
