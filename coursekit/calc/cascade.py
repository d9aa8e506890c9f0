"""Cost of a small-default / big-fallback cascade against sending every call to the big model.

Every call first goes to the small model; a fraction `escalation` is re-run on the big model, so
escalated calls pay for both. Per-token prices are blended $ per million tokens (input and output
averaged with the call's mix). When both models see the same tokens, the cascade's cost relative
to the naive choice is small_price / big_price + escalation: it pays only when the fallback is much
pricier per token than the default AND escalations are rare.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Price:
    name: str
    input_per_m: float    # $ per million input tokens
    output_per_m: float   # $ per million output tokens
    source: str = ""

    def per_call(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.input_per_m + output_tokens * self.output_per_m) / 1e6


# The source's default: a 7B fine-tune self-hosted with vLLM at $0.30 per million tokens (one price
# for input and output). Sanity check in lesson 3: $3/h H100 serving ~2,800 tokens/s gives $0.30/M.
SMALL_7B = Price("7B fine-tune (self-hosted)", 0.30, 0.30, source="the co-design textbook section, customer-support scenario")
# Fallbacks, list prices at the time of writing (per million tokens, input / output).
LLAMA31_70B_HOSTED = Price(
    "Llama 3.1 70B (hosted API)", 0.88, 0.88,
    source="Together AI pricing page, Llama 3.1 70B Instruct Turbo, $0.88 per 1M tokens (2024)")
FRONTIER_API = Price(
    "Frontier API (Claude 3.5 Sonnet)", 3.00, 15.00,
    source="Anthropic API pricing page, Claude 3.5 Sonnet: $3 / MTok input, $15 / MTok output (2024)")


@dataclass(frozen=True)
class Workload:
    calls_per_day: float = 100_000     # the co-design textbook section's scenario
    input_tokens: float = 1_500        # assumption: system prompt + retrieved policy text + chat history
    output_tokens: float = 300         # assumption: a few short replies per conversation
    escalation: float = 0.05           # the co-design textbook section: 5% of conversations escalate
    source: str = "the co-design textbook section (calls/day, 5% escalation); token counts are the course's stated assumptions"


def naive_daily_cost(w: Workload, big: Price) -> float:
    """Every call goes to the big model."""
    return w.calls_per_day * big.per_call(w.input_tokens, w.output_tokens)


def cascade_daily_cost(w: Workload, small: Price, big: Price) -> float:
    """Every call runs on the small model; escalated calls are re-run on the big one."""
    small_cost = w.calls_per_day * small.per_call(w.input_tokens, w.output_tokens)
    big_cost = w.escalation * w.calls_per_day * big.per_call(w.input_tokens, w.output_tokens)
    return small_cost + big_cost


def cascade_ratio(w: Workload, small: Price, big: Price) -> float:
    """Cascade cost as a fraction of the naive cost (the source claims 0.1)."""
    if not 0.0 <= w.escalation <= 1.0:
        raise ValueError(f"coursekit/calc/cascade.py: escalation must be a fraction in [0, 1], got {w.escalation}")
    return cascade_daily_cost(w, small, big) / naive_daily_cost(w, big)


def ratio_from_prices(small_per_m: float, big_per_m: float, escalation: float) -> float:
    """Same ratio with one blended price per model: small/big + escalation."""
    if big_per_m <= 0:
        raise ValueError(f"coursekit/calc/cascade.py: big model price must be > 0, got {big_per_m}")
    return small_per_m / big_per_m + escalation


def min_price_ratio_for(target_ratio: float, escalation: float) -> float:
    """How many times pricier per token the fallback must be for the cascade to cost at most
    target_ratio of the naive bill: big/small >= 1 / (target - escalation)."""
    slack = target_ratio - escalation
    if slack <= 0:
        return float("inf")  # escalations alone already cost the target: no price gap suffices
    return 1.0 / slack


def self_hosted_price_per_m(gpu_dollars_per_hour: float, tokens_per_second: float) -> float:
    """$ per million tokens of a GPU kept busy at `tokens_per_second` (aggregate, all users)."""
    return gpu_dollars_per_hour / (tokens_per_second * 3600.0) * 1e6


def break_even_escalation(small_per_m: float, big_per_m: float) -> float:
    """Escalation rate above which the cascade costs more than sending everything to the big model."""
    return 1.0 - small_per_m / big_per_m


def daily_cost(calls_per_day: float, tokens_per_call: float, price_per_m: float) -> float:
    """$ per day at one blended price per million tokens."""
    return calls_per_day * tokens_per_call * price_per_m / 1e6
