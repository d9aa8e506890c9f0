"""Lab 4 (economics): how the rent-vs-buy and lever-ranking answers become plain data and are compared.
Used by the student's visible checks and by the grader alike."""
from __future__ import annotations

from .cases import approx

TCO_KEYS = ("rent", "buy", "gpus_per_year", "cheaper")


def pick_tco(out):
    if not isinstance(out, dict) or not set(TCO_KEYS) <= set(out):
        raise TypeError(f"three_year_tco must return a dict with keys {', '.join(TCO_KEYS)}")
    return {"rent": float(out["rent"]), "buy": float(out["buy"]), "gpus_per_year": [int(g) for g in out["gpus_per_year"]],
            "cheaper": str(out["cheaper"])}


def encode_rows(out):
    if not isinstance(out, (list, tuple)) or not all(isinstance(r, dict) for r in out):
        raise TypeError("rank_levers must return a list of dicts")
    try:
        return [{"lever": str(r["lever"]), "tokens_per_second": float(r["tokens_per_second"]),
                 "cost_per_million": float(r["cost_per_million"])} for r in out]
    except KeyError as missing:
        raise TypeError(f"each row of rank_levers needs the keys lever, tokens_per_second, cost_per_million; missing {missing}")


def compare_ranking(got, want):
    """Same levers with the same numbers, listed cheapest first (ties may come in either order)."""
    if not isinstance(got, list) or sorted(r["lever"] for r in got) != sorted(r["lever"] for r in want):
        return f"expected one row per lever: {[r['lever'] for r in want]}"
    numbers = approx(rel=1e-6)
    by_name = {r["lever"]: r for r in got}
    for row in want:
        message = numbers(by_name[row["lever"]], row, f"lever {row['lever']!r}")
        if message:
            return message
    costs = [r["cost_per_million"] for r in got]
    if any(a > b * (1 + 1e-9) for a, b in zip(costs, costs[1:])):
        return f"rows must be sorted by cost_per_million, cheapest first; got {[r['lever'] for r in got]}"
    return None
