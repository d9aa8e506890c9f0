"""Compounding arithmetic for the forum debate (the Whetstone Forum thread): "training efficiency improves ~4x a year,
inference only 20-30% a year". A yearly factor f compounds to f**years; its doubling time is
ln 2 / ln f years. Rates are given as yearly *factors* (4.0 for 4x, 1.25 for +25%).
"""
from __future__ import annotations

import math


def _factor(annual_factor: float) -> float:
    if not annual_factor > 0:
        raise ValueError(f"coursekit/calc/growth.py: a yearly factor must be positive, got {annual_factor!r}")
    return annual_factor


def factor_from_percent(percent_per_year: float) -> float:
    """+25 %/yr -> 1.25x per year."""
    return _factor(1.0 + percent_per_year / 100.0)


def compound(annual_factor: float, years: float) -> float:
    """Total improvement after `years` years of a constant yearly factor."""
    return _factor(annual_factor) ** years


def compound_percent(percent_per_year: float, years: float) -> float:
    """Total improvement after `years` years at `percent_per_year` % a year."""
    return compound(factor_from_percent(percent_per_year), years)


def doubling_time_years(annual_factor: float) -> float:
    """Years for the quantity to double at this yearly factor (infinite when it does not grow)."""
    f = _factor(annual_factor)
    return math.inf if f <= 1.0 else math.log(2.0) / math.log(f)


def doubling_time_percent(percent_per_year: float) -> float:
    """Doubling time in years of a gain of `percent_per_year` % a year."""
    return doubling_time_years(factor_from_percent(percent_per_year))


def annual_factor_from_halving_months(months: float) -> float:
    """A cost that halves every `months` months falls by this factor a year (8 months -> ~2.83x)."""
    if not months > 0:
        raise ValueError(f"coursekit/calc/growth.py: halving time must be positive, got {months!r}")
    return 2.0 ** (12.0 / months)


def years_to_reach(target_factor: float, annual_factor: float) -> float:
    """Years a constant yearly factor needs to compound to `target_factor`."""
    f = _factor(annual_factor)
    if f <= 1.0:
        raise ValueError(f"coursekit/calc/growth.py: a factor of {f} a year never reaches {target_factor}")
    return math.log(target_factor) / math.log(f)


def gap_after(fast_factor: float, slow_factor: float, years: float) -> float:
    """How many times further the fast curve has gone than the slow one after `years` years."""
    return compound(fast_factor, years) / compound(slow_factor, years)
