"""Serving bills in dollars: tokens per day x price per token, and how long serving takes to match a
one-time training bill (Module 1, Lesson 1).

API prices are quoted per 1,000 tokens (OpenAI's 2023 price lists) or per million tokens (most lists
since 2024): a factor of 1,000 that is easy to drop. Every function here takes the price per 1,000
tokens; `per_1k_from_per_million` converts. A year is 365 days.
"""
from __future__ import annotations

DAYS_PER_YEAR = 365

# source: OpenAI, "Introducing ChatGPT and Whisper APIs" (1 March 2023): gpt-3.5-turbo at $0.002 per 1K tokens.
GPT35_TURBO_PER_1K = 0.002
# source: OpenAI API pricing at the GPT-4 launch (14 March 2023): gpt-4 (8K context) $0.03 per 1K prompt
# tokens and $0.06 per 1K completion tokens.
GPT4_8K_PROMPT_PER_1K = 0.03
GPT4_8K_COMPLETION_PER_1K = 0.06
# source: OpenAI, "Hello GPT-4o" (13 May 2024): API at $5 per 1M input tokens and $15 per 1M output tokens.
GPT4O_INPUT_PER_M = 5.0
GPT4O_OUTPUT_PER_M = 15.0

# The “Two Modes, Two Hardware Philosophies” course text, lesson 4 ("The Economics of Split Infrastructure"): the worked example and its claims.
# source: the “Two Modes, Two Hardware Philosophies” course text (1 billion daily tokens at $0.002 per thousand tokens; "approximately $730 million";
# "$73 million in annual savings" from a 10% cut; a GPT-4-class training run "an estimated $50-100 million"
# that "becomes economically insignificant within two months"; ChatGPT's reported "$700,000 per day").
EXAMPLE_TOKENS_PER_DAY = 1e9                  # the worked example's daily volume
EXAMPLE_PRICE_PER_1K = 0.002                  # and its price, $ per 1,000 tokens
CLAIMED_ANNUAL_BILL = 730e6                   # the yearly bill the text states for that example (1,000x too large)
CLAIMED_ANNUAL_SAVINGS = 73e6                 # the savings it states for a 10% cheaper token
CLAIMED_GPT4_TRAINING_COST = (50e6, 100e6)    # its range for a GPT-4-class training run, $
REPORTED_CHATGPT_COST_PER_DAY = 700e3         # the reported ChatGPT serving cost it quotes, $ per day


def _check(name: str, value: float) -> float:
    if not value >= 0:
        raise ValueError(f"coursekit/calc/serving_cost.py: {name} must be >= 0, got {value!r}")
    return value


def per_1k_from_per_million(price_per_m: float) -> float:
    """$ per 1,000 tokens from $ per million tokens."""
    return _check("price per million tokens", price_per_m) / 1000.0


def daily_cost(tokens_per_day: float, price_per_1k: float) -> float:
    """$ per day for serving `tokens_per_day` tokens at `price_per_1k` dollars per 1,000 tokens."""
    return _check("tokens per day", tokens_per_day) / 1000.0 * _check("price per 1K tokens", price_per_1k)


def annual_cost(tokens_per_day: float, price_per_1k: float) -> float:
    """$ per year (365 days) at a constant daily volume and price."""
    return daily_cost(tokens_per_day, price_per_1k) * DAYS_PER_YEAR


def annual_savings(tokens_per_day: float, price_per_1k: float, cut_fraction: float) -> float:
    """$ a year saved by cutting the price per token by `cut_fraction` (0.1 for 10%)."""
    if not 0.0 <= cut_fraction <= 1.0:
        raise ValueError(f"coursekit/calc/serving_cost.py: cut_fraction must be in [0, 1], got {cut_fraction!r}")
    return annual_cost(tokens_per_day, price_per_1k) * cut_fraction


def days_to_match(one_time_cost: float, tokens_per_day: float, price_per_1k: float) -> float:
    """Days of serving whose bill adds up to a one-time cost such as a training run (inf if serving is free)."""
    per_day = daily_cost(tokens_per_day, price_per_1k)
    return float("inf") if per_day == 0 else _check("one-time cost", one_time_cost) / per_day


def tokens_per_day_to_match(one_time_cost: float, days: float, price_per_1k: float) -> float:
    """Daily volume at which `days` of serving cost as much as `one_time_cost`."""
    if not days > 0 or not price_per_1k > 0:
        raise ValueError(f"coursekit/calc/serving_cost.py: days and price must be positive, got {days!r}, {price_per_1k!r}")
    return _check("one-time cost", one_time_cost) / days / price_per_1k * 1000.0


def tokens_per_day_for_bill(dollars_per_day: float, price_per_1k: float) -> float:
    """Daily volume that a daily bill buys at a price per 1,000 tokens."""
    if not price_per_1k > 0:
        raise ValueError(f"coursekit/calc/serving_cost.py: price must be positive, got {price_per_1k!r}")
    return _check("dollars per day", dollars_per_day) / price_per_1k * 1000.0


# ---- From the hardware side (Module 4): what a token costs the one who runs the GPUs -----------------
SECONDS_PER_HOUR = 3600


def cost_per_million_tokens(dollars_per_hour: float, tokens_per_second: float, utilization: float) -> float:
    """$ per million tokens from a machine's hourly price, its tokens/s while busy and the fraction of
    paid hours it is busy (idle hours are paid for too, so they raise the price of every token)."""
    if not tokens_per_second > 0 or not 0 < utilization <= 1:
        raise ValueError("coursekit/calc/serving_cost.py: tokens_per_second must be > 0 and utilization in (0, 1], "
                         f"got {tokens_per_second!r}, {utilization!r}")
    tokens_per_hour = tokens_per_second * utilization * SECONDS_PER_HOUR
    return _check("dollars per hour", dollars_per_hour) / tokens_per_hour * 1e6


def serving_bill(tokens_per_day: float, cost_per_million: float) -> dict:
    """Daily and yearly (365-day) bill for a constant demand at a cost per million tokens."""
    daily = _check("tokens per day", tokens_per_day) / 1e6 * _check("cost per million", cost_per_million)
    return {"daily": daily, "yearly": daily * DAYS_PER_YEAR}
