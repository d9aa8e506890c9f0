"""Speculative decoding arithmetic (Leviathan, Kalman & Matias 2023, "Fast Inference from
Transformers via Speculative Decoding", ICML, arXiv:2211.17192, section 3).

A draft model proposes k tokens; the target scores all k (+1) positions in one forward pass and
keeps the longest agreeing prefix plus one token of its own. With each draft token accepted
independently with probability a (the acceptance rate), one verification step yields
(1 - a^(k+1)) / (1 - a) tokens on average (their eq. 1). If a draft forward costs c target forwards,
the wall-time speedup over plain decoding is that divided by (k c + 1) (their Theorem 3.8).
"""
from __future__ import annotations


def _check(a: float, k: int) -> None:
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"coursekit/calc/speculative.py: acceptance rate must be in [0, 1], got {a}")
    if k < 0 or int(k) != k:
        raise ValueError(f"coursekit/calc/speculative.py: draft length k must be a whole number >= 0, got {k}")


def expected_tokens_per_step(a: float, k: int) -> float:
    """Mean tokens produced per target verification step: 1 + a + a^2 + ... + a^k."""
    _check(a, k)
    if a == 1.0:
        return float(k + 1)  # the limit of the geometric sum: every draft token kept, plus one
    return (1.0 - a ** (k + 1)) / (1.0 - a)


def speedup(a: float, k: int, c: float) -> float:
    """Wall-time speedup over target-only decoding: tokens per step / cost of a step in target
    forwards (k draft forwards at c each, one target forward)."""
    if c < 0:
        raise ValueError(f"coursekit/calc/speculative.py: draft cost ratio c must be >= 0, got {c}")
    return expected_tokens_per_step(a, k) / (k * c + 1.0)


def best_draft_length(a: float, c: float, k_max: int = 32) -> int:
    """The k in 0..k_max with the largest speedup (k = 0 means: do not speculate)."""
    return max(range(k_max + 1), key=lambda k: speedup(a, k, c))


def compute_ratio(a: float, k: int, c_flops: float) -> float:
    """Total FLOPs relative to plain decoding (Leviathan et al., Theorem 3.11): every step runs
    k + 1 target positions and k draft forwards (c_flops = draft/target FLOPs) yet keeps only
    tokens_per_step tokens. Above 1, speculation buys latency with extra compute."""
    return (k * c_flops + k + 1.0) / expected_tokens_per_step(a, k)


def acceptance_rate_from_counts(accepted: int, rejected: int) -> float:
    """Estimate a from verification outcomes: each draft token checked is one Bernoulli trial.
    Tokens after the first rejection in a step are never checked, so they are not trials."""
    trials = accepted + rejected
    if trials == 0:
        raise ValueError("coursekit/calc/speculative.py: no draft tokens were verified")
    return accepted / trials
