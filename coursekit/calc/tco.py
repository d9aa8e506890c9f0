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


def rented_gpu_hours(tokens_per_day: float, tokens_per_second_per_gpu: float, min_rented_gpus: int = 1,
                     rented_utilization: float = 1.0) -> float:
    """GPU-hours a year an autoscaled rented fleet pays for: the busy hours (the demand's work at full speed)
    / `rented_utilization`, but never fewer than `min_rented_gpus` GPUs kept up all year to take traffic.

    rented_utilization = 1.0 (the default) is perfect autoscaling: every rented hour busy. Real fleets keep
    headroom for bursts, wait for instances to start and stop, and rent in whole instances, so a rented
    fleet idles too; pass the share of rented hours that are busy."""
    _fraction("rented_utilization", rented_utilization, 1e-9, 1.0 + 1e-12)
    busy = tokens_per_day * DAYS_PER_YEAR / (tokens_per_second_per_gpu * 3600)
    return max(busy / rented_utilization, min_rented_gpus * HOURS_PER_YEAR)


def three_year_tco(tokens_per_day: float, tokens_per_second_per_gpu: float, utilization: float,
                   rent_per_gpu_hour: float, purchase_per_gpu: float, kw_per_gpu: float,
                   electricity_per_kwh: float, pue: float, hosting_per_gpu_year: float,
                   growth: float = 0.0, decline: float = 0.0, years: int = 3, life_years: float = 3.0,
                   min_rented_gpus: int = 1, rented_utilization: float = 1.0) -> dict:
    """Rent vs buy for `years` years of serving a growing demand.

    Each year the owned fleet is sized for that year's peak: the busy GPUs / `utilization` (the average
    share of the time a GPU is busy). Buying purchases the GPUs the fleet lacks at that year's price, pays
    power (kW x PUE, all year, at rated power) and hosting per owned GPU, and gets back the straight-line
    residual value (over `life_years`) of what it owns at the end. Renting follows demand: an autoscaled
    fleet pays the busy GPU-hours / `rented_utilization` (`rented_gpu_hours`; 1.0, the default, is perfect
    autoscaling, an optimistic assumption), never fewer than `min_rented_gpus` all year. So utilization
    decides: owning pays for idle hours, renting pays for fewer of them. For a like-for-like comparison
    pass the owning side per GPU *of a server* (its share of the server's price and power, as
    coursekit.prices.H100_SERVER_PER_GPU does), since a cloud's hourly price covers the whole server.
    """
    rent = buy_capex = power = hosting = residual = 0.0
    owned, fleet, rented, purchases = 0, [], [], []
    for year in range(years):
        price_factor = (1 - decline) ** year
        demand = tokens_per_day * (1 + growth) ** year
        need = gpus_needed(demand, tokens_per_second_per_gpu, utilization)
        fleet.append(need)
        hours = rented_gpu_hours(demand, tokens_per_second_per_gpu, min_rented_gpus, rented_utilization)
        rented.append(hours)
        rent += hours * rent_per_gpu_hour * price_factor
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
            "residual": residual, "gpus_per_year": fleet, "rented_gpu_hours": rented,
            "cheaper": "buy" if buy < rent else "rent"}


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


def break_even_utilization(rent_per_gpu_hour: float, step: float = 0.01, **tco_args) -> float | None:
    """Lowest fleet utilization (on a grid of `step`) at which buying costs less than renting the busy
    hours over three_year_tco's horizon; None if renting wins even at 100%."""
    n = round(1 / step)
    for k in range(1, n + 1):
        out = three_year_tco(utilization=k / n, rent_per_gpu_hour=rent_per_gpu_hour, **tco_args)
        if out["buy"] < out["rent"]:
            return k / n
    return None
