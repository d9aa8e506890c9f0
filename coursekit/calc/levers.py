"""Cost levers through the roofline (Module 4): a serving replica as plain numbers, and what each lever
(batch size, narrower weights, another chip, a shorter context) does to its tokens/s and its cost.

A *scenario* is a dict:
    params             parameters read per token (all of them for a dense model)
    bytes_per_weight   2 for BF16, 1 for INT8, 0.5 for INT4 weights
    kv_bytes_per_token KV-cache bytes one token of context takes (at the cache's own precision)
    batch, context     sequences decoded together, and the context each has reached
    gpus               accelerators in the replica (their memory, FLOP/s and bandwidth add up)
    peak_flops, bandwidth, memory_bytes   one accelerator's dense peak, bytes/s and usable memory
    price_per_hour, utilization           $ per accelerator-hour, busy fraction of paid hours

Decode is modelled as Module 1 does (the roofline of one step) with two simplifications students can
do by hand: 2 FLOPs per parameter per token (attention's own FLOPs are left out) and no activation
traffic. The batch is capped by what fits in memory beside the weights.
"""
from __future__ import annotations

import math

from coursekit.calc.roofline import chip_ceilings, kv_bytes_per_token, matmul_params, resolve_model
from coursekit.calc.serving_cost import cost_per_million_tokens
from coursekit.hardware import BY_NAME


def batch_that_fits(s: dict) -> int:
    """Sequences whose KV cache fits beside the weights; the requested batch if more fit."""
    free = s["gpus"] * s["memory_bytes"] - s["params"] * s["bytes_per_weight"]
    fits = math.floor(free / (s["context"] * s["kv_bytes_per_token"]))
    if fits < 1:
        raise ValueError(f"coursekit/calc/levers.py: the weights plus one sequence of {s['context']} tokens "
                         f"do not fit in {s['gpus']} x {s['memory_bytes'] / 1e9:.0f} GB")
    return min(s["batch"], fits)


def decode_tokens_per_second(s: dict) -> float:
    """Tokens/s the whole replica generates: batch / roofline time of one decode step."""
    b = batch_that_fits(s)
    flops = b * 2 * s["params"]
    step_bytes = s["params"] * s["bytes_per_weight"] + b * s["context"] * s["kv_bytes_per_token"]
    seconds = max(flops / (s["gpus"] * s["peak_flops"]), step_bytes / (s["gpus"] * s["bandwidth"]))
    return b / seconds


def prefill_tokens_per_second(s: dict, prompt_tokens: int) -> float:
    """Prompt tokens/s of one prefill per sequence of the batch: compute-bound once prompts are long."""
    tokens = s["batch"] * prompt_tokens
    seconds = max(tokens * 2 * s["params"] / (s["gpus"] * s["peak_flops"]),
                  (s["params"] * s["bytes_per_weight"] + tokens * s["kv_bytes_per_token"]) / (s["gpus"] * s["bandwidth"]))
    return tokens / seconds


def decode_cost_per_million(s: dict) -> float:
    return cost_per_million_tokens(s["gpus"] * s["price_per_hour"], decode_tokens_per_second(s), s["utilization"])


def prefill_cost_per_million(s: dict, prompt_tokens: int) -> float:
    return cost_per_million_tokens(s["gpus"] * s["price_per_hour"], prefill_tokens_per_second(s, prompt_tokens),
                                   s["utilization"])


def rank_levers(s: dict, levers: dict[str, dict]) -> list[dict]:
    """Apply each lever (a dict of scenario overrides) alone; rows sorted by decode cost, cheapest first."""
    rows = []
    for name, overrides in levers.items():
        changed = {**s, **overrides}
        rows.append({"lever": name, "tokens_per_second": decode_tokens_per_second(changed),
                     "cost_per_million": decode_cost_per_million(changed)})
    return sorted(rows, key=lambda r: r["cost_per_million"])


def scenario(model: str, chip: str, gpus: int, batch: int, context: int, price_per_hour: float,
             utilization: float, bytes_per_weight: float = 2, kv_bytes_per_element: float = 2,
             usable_fraction: float = 0.9) -> dict:
    """A scenario for a published model (coursekit.model_configs) on a published chip (coursekit.hardware)."""
    config, spec = resolve_model(model), BY_NAME[chip]
    peak, bandwidth = chip_ceilings(chip)
    return {"params": float(matmul_params(config)), "bytes_per_weight": bytes_per_weight,
            "kv_bytes_per_token": kv_bytes_per_token(config, kv_bytes_per_element), "batch": batch,
            "context": context, "gpus": gpus, "peak_flops": peak, "bandwidth": bandwidth,
            "memory_bytes": spec.memory_gb * 1e9 * usable_fraction, "price_per_hour": price_per_hour,
            "utilization": utilization}


def chip_overrides(chip: str, price_per_hour: float, gpus: int, usable_fraction: float = 0.9) -> dict:
    """The overrides that move a scenario onto another chip at its price."""
    peak, bandwidth = chip_ceilings(chip)
    return {"peak_flops": peak, "bandwidth": bandwidth, "gpus": gpus, "price_per_hour": price_per_hour,
            "memory_bytes": BY_NAME[chip].memory_gb * 1e9 * usable_fraction}


def decode_cost_for(model: str, chip: str, gpus: int, batch: int, context: int, utilization: float,
                    bytes_per_weight: float = 2) -> float:
    """$ per million decode tokens for a named model on a named chip at its list price (coursekit.prices)."""
    from coursekit.prices import dollars_per_hour

    return decode_cost_per_million(scenario(model, chip, gpus, batch, context, dollars_per_hour(chip), utilization,
                                            bytes_per_weight))
