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


# ---- the sampling acceptance rule (Leviathan et al. 2023, section 2.3; Chen et al. 2023, Algorithm 2) ----

def _distribution(name: str, probs: list[float]) -> list[float]:
    if not probs or any(x < 0 for x in probs) or abs(sum(probs) - 1) > 1e-9:
        raise ValueError(f"coursekit/calc/speculative.py: {name} must be probabilities summing to 1, got {probs!r}")
    return list(probs)


def acceptance_probability(p: list[float], q: list[float]) -> float:
    """Chance that one draft token x ~ q is accepted with probability min(1, p(x) / q(x)): the sum over x of
    min(p(x), q(x)), which is 1 minus the total-variation distance between target p and draft q."""
    return sum(min(a, b) for a, b in zip(_distribution("p", p), _distribution("q", q)))


def residual_distribution(p: list[float], q: list[float]) -> list[float]:
    """What the target samples from after a rejection: max(0, p - q), normalised (p itself if p == q)."""
    excess = [max(0.0, a - b) for a, b in zip(_distribution("p", p), _distribution("q", q))]
    total = sum(excess)
    return [x / total for x in excess] if total > 0 else list(p)


def speculative_output_distribution(p: list[float], q: list[float]) -> list[float]:
    """The exact distribution of the token the rule emits: q(x) min(1, p(x)/q(x)) + (1 - beta) r(x), with beta
    the acceptance probability and r the residual. The derivation in Module 6's Lesson 4 shows it is p."""
    beta, r = acceptance_probability(p, q), residual_distribution(p, q)
    return [min(a, b) + (1 - beta) * rx for a, b, rx in zip(p, q, r)]


def speculative_sample(p: list[float], q: list[float], rng) -> tuple[int, bool]:
    """One draft token drawn from q, then verified against p: (emitted token, whether the draft was accepted).
    `rng` is a random.Random, so a run is reproducible."""
    p, q = _distribution("p", p), _distribution("q", q)
    x = rng.choices(range(len(q)), weights=q)[0]
    if rng.random() < min(1.0, p[x] / q[x]):
        return x, True
    return rng.choices(range(len(p)), weights=residual_distribution(p, q))[0], False
