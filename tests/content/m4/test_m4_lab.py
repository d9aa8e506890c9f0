"""Lab 4 (economics), what only this lab has: the checks reject classic money mistakes and the live
sliders (driven from Python) recompute and redraw. The contract every lab keeps is in
tests/content/test_labs_contract.py."""
from __future__ import annotations

import pytest


LAB = "lab4-economics"


def test_grader_rejects_cost_that_ignores_idle_hours(solution):
    from autograder.release.visible_cases import run_visible

    with pytest.raises(AssertionError, match="cost per million"):
        run_visible(LAB, "test_cost", lambda price, tps, utilization: price / (tps * 3600) * 1e6)


def test_grader_rejects_a_bill_priced_per_thousand(solution):
    """The source's own slip: a price per million used as if it were per thousand tokens (1,000x)."""
    from autograder.release.visible_cases import run_visible

    def per_thousand(tokens_per_day, cost_per_million):
        daily = tokens_per_day / 1e3 * cost_per_million
        return {"daily": daily, "yearly": 365 * daily}

    with pytest.raises(AssertionError, match="serving bill"):
        run_visible(LAB, "test_bill", per_thousand)


def test_grader_rejects_break_even_that_ignores_growth(solution):
    import math

    from autograder.release.visible_cases import run_visible

    def flat(training, daily, growth, decline, horizon):
        day = math.ceil(training / daily)
        return day if day <= horizon else None

    with pytest.raises(AssertionError, match="break-even"):
        run_visible(LAB, "test_break_even", flat)


def test_grader_rejects_buying_a_fresh_fleet_every_year(solution):
    from autograder.release.visible_cases import run_visible

    def rebuy(*args):
        out = solution["three_year_tco"](*args)
        return {**out, "buy": out["buy"] * 1.5}

    with pytest.raises(AssertionError, match="rent or buy"):
        run_visible(LAB, "test_tco", rebuy)


def test_grader_rejects_throughput_without_the_memory_cap(solution):
    from autograder.release.visible_cases import run_visible

    def uncapped(s):
        step_bytes = s["params"] * s["bytes_per_weight"] + s["batch"] * s["context"] * s["kv_bytes_per_token"]
        seconds = max(s["batch"] * 2 * s["params"] / (s["gpus"] * s["peak_flops"]), step_bytes / (s["gpus"] * s["bandwidth"]))
        return s["batch"] / seconds

    with pytest.raises(AssertionError, match="decode throughput"):
        run_visible(LAB, "test_throughput", uncapped)


def test_grader_rejects_an_unsorted_ranking(solution):
    from autograder.release.visible_cases import run_visible

    def unsorted(scenario, levers):
        return sorted(solution["rank_levers"](scenario, levers), key=lambda r: r["lever"])

    with pytest.raises(AssertionError, match="cheapest first"):
        run_visible(LAB, "test_levers", unsorted)


def test_sliders_recompute_and_redraw(solution):
    """Moving a slider from Python changes the numbers, the break-even marker and the plotted curve."""
    from coursekit import prices
    from coursekit.calc import levers
    from coursekit.cost_dashboard import CostDashboard

    replica = levers.scenario("Llama 2 70B", "NVIDIA H100 SXM", 4, 64, 2048, prices.AWS_P5_H100.dollars_per_hour, 0.5)
    lever_set = {"baseline": {}, "INT8 weights": {"bytes_per_weight": 1}, "batch 256": {"batch": 256}}
    dash = CostDashboard(replica, lever_set, 30e6, 500e6, solution["cost_per_million_tokens"],
                         solution["break_even_day"], solution["decode_tokens_per_second"], solution["rank_levers"])
    before, figure = dict(dash.state), dash.figure
    computed = CostDashboard(replica, lever_set, 0.1 * 3e8, 500e6, solution["cost_per_million_tokens"],
                             solution["break_even_day"], solution["decode_tokens_per_second"], solution["rank_levers"])
    assert repr(computed.sliders["training_musd"].value) == "30.0"   # a computed $30M reads 30, not 30.000000000000004
    curve = list(figure.axes[0].lines[0].get_ydata())
    assert before["break_even_day"] > 10 * 365       # the startup: serving takes decades to match $30M
    dash.sliders["tokens_per_day_m"].value = 100_000  # 100B tokens a day
    after = dash.state
    assert after["daily"] == pytest.approx(before["daily"] * 200)
    assert after["break_even_day"] == solution["break_even_day"](30e6, after["daily"], 0.0, 0.0, 30 * 365)
    assert dash.figure is not figure and list(dash.figure.axes[0].lines[0].get_ydata()) != curve
    assert "break-even" in [line.get_label().split(",")[0] for line in dash.figure.axes[0].lines]
    dash.sliders["batch"].value = 8                   # a smaller batch: fewer tokens/s, dearer tokens
    assert dash.state["tokens_per_second"] < after["tokens_per_second"]
    assert dash.state["cost_per_million"] > after["cost_per_million"]
    assert f"${dash.state['cost_per_million']:.2f}" in dash.summary.value
    bars = [t.get_text() for t in dash.figure.axes[1].get_yticklabels()]
    assert set(bars) == set(lever_set) and len(dash.state["tornado"]) == len(dash.figure.axes[2].patches)
    # The redrawn figure's text alternative follows the sliders: the summary's numbers, each lever's bar.
    alt = dash.figure_output.alt
    assert f"${dash.state['cost_per_million']:.2f}" in alt and "Levers, each alone, cheapest on top" in alt
    assert all(f"{name}: " in alt for name in lever_set) and dash.figure_output.problems == []
