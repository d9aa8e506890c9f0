"""Money over time (Module 4): when serving overtakes a training bill, and renting vs buying for 3 years.

Conventions. Demand grows by `growth` a year (1.0 doubles it), prices fall by `decline` a year (0.3 cuts
them by 30%), both compounding smoothly day by day, so day k (k = 1, 2, ...) of serving costs
daily_cost * ((1 + growth) * (1 - decline)) ** ((k - 1) / 365). A year is 365 days.
"""
from __future__ import annotations

import math

DAYS_PER_YEAR = 365
HOURS_PER_YEAR = 24 * DAYS_PER_YEAR
SECONDS_PER_DAY = 86400


def _fraction(name: str, value: float, low: float = 0.0, high: float = math.inf) -> float:
    if not low <= value < high:
        raise ValueError(f"coursekit/calc/tco.py: {name} must be in [{low}, {high}), got {value!r}")
    return value


def daily_costs(daily_cost: float, days: int, growth: float = 0.0, decline: float = 0.0) -> list[float]:
    """Serving cost of each of the first `days` days."""
    rate = (1 + _fraction("growth", growth, -1.0)) * (1 - _fraction("decline", decline, 0.0, 1.0))
    return [daily_cost * rate ** (k / DAYS_PER_YEAR) for k in range(days)]


def break_even_day(training_cost: float, daily_cost: float, growth: float = 0.0, decline: float = 0.0,
                   horizon_days: int = 10 * DAYS_PER_YEAR) -> int | None:
    """First day on which cumulative serving cost reaches the training bill; None if not within the horizon."""
    total = 0.0
    for day, cost in enumerate(daily_costs(daily_cost, horizon_days, growth, decline), start=1):
        total += cost
        if total >= training_cost:
            return day
    return None


def cumulative(values: list[float]) -> list[float]:
    out, total = [], 0.0
    for v in values:
        total += v
        out.append(total)
    return out


def gpus_needed(tokens_per_day: float, tokens_per_second_per_gpu: float, utilization: float) -> int:
    """GPUs that serve a daily demand when each delivers tokens/s while busy and is busy `utilization` of the time."""
    if not tokens_per_second_per_gpu > 0 or not 0 < utilization <= 1:
        raise ValueError("coursekit/calc/tco.py: tokens/s per GPU must be > 0 and utilization in (0, 1], "
                         f"got {tokens_per_second_per_gpu!r}, {utilization!r}")
    return math.ceil(tokens_per_day / SECONDS_PER_DAY / (tokens_per_second_per_gpu * utilization))


def three_year_tco(tokens_per_day: float, tokens_per_second_per_gpu: float, utilization: float,
                   rent_per_gpu_hour: float, purchase_per_gpu: float, kw_per_gpu: float,
                   electricity_per_kwh: float, pue: float, hosting_per_gpu_year: float,
                   growth: float = 0.0, decline: float = 0.0, years: int = 3, life_years: float = 3.0) -> dict:
    """Rent vs buy for `years` years of serving a growing demand.

    Each year the fleet is sized for that year's demand. Renting pays every GPU-hour at the year's
    price. Buying purchases the GPUs the fleet lacks at that year's price, pays power (kW x PUE, all
    year, at rated power) and hosting per owned GPU, and gets back the straight-line residual value
    (over `life_years`) of what it owns at the end: the purchase minus depreciation.
    """
    rent = buy_capex = power = hosting = residual = 0.0
    owned, fleet, purchases = 0, [], []
    for year in range(years):
        price_factor = (1 - decline) ** year
        need = gpus_needed(tokens_per_day * (1 + growth) ** year, tokens_per_second_per_gpu, utilization)
        fleet.append(need)
        rent += need * HOURS_PER_YEAR * rent_per_gpu_hour * price_factor
        bought = max(0, need - owned)
        purchases.append((year, bought, purchase_per_gpu * price_factor))
        buy_capex += bought * purchase_per_gpu * price_factor
        owned += bought
        power += owned * kw_per_gpu * pue * HOURS_PER_YEAR * electricity_per_kwh
        hosting += owned * hosting_per_gpu_year
    for year, count, price in purchases:
        residual += count * price * max(0.0, 1 - (years - year) / life_years)
    buy = buy_capex + power + hosting - residual
    return {"rent": rent, "buy": buy, "capex": buy_capex, "power": power, "hosting": hosting,
            "residual": residual, "gpus_per_year": fleet, "cheaper": "buy" if buy < rent else "rent"}


def tornado(fn, base: dict, swings: dict[str, tuple[float, float]]) -> list[dict]:
    """One-at-a-time sensitivity: fn(**base) with each input set to its low and high value in turn.

    Returns rows {input, low, high, swing} sorted by swing (|high - low|), largest first: the order of
    the bars of a tornado chart.
    """
    rows = []
    for name, (low, high) in swings.items():
        lo, hi = fn(**{**base, name: low}), fn(**{**base, name: high})
        rows.append({"input": name, "low": lo, "high": hi, "swing": abs(hi - lo)})
    return sorted(rows, key=lambda r: r["swing"], reverse=True)


def own_cost_per_year(purchase: float, kw: float, pue: float, electricity_per_kwh: float, hosting_per_year: float,
                      life_years: float = 3.0) -> float:
    """Yearly cost of one owned accelerator: straight-line depreciation, power with cooling, hosting."""
    return purchase / life_years + kw * pue * HOURS_PER_YEAR * electricity_per_kwh + hosting_per_year


def own_cost_per_hour(purchase: float, kw: float, pue: float, electricity_per_kwh: float, hosting_per_year: float,
                      life_years: float = 3.0) -> float:
    """The rental price per hour at which renting all year costs as much as owning."""
    return own_cost_per_year(purchase, kw, pue, electricity_per_kwh, hosting_per_year, life_years) / HOURS_PER_YEAR
