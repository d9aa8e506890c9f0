"""Lab 4's live cost model: ipywidgets sliders that redraw three plots from the functions a student wrote.

The graded functions stay pure; this module only calls them. `CostDashboard(...)` takes them as
arguments, so the same dashboard runs on the solution's functions and on a student's. Every redraw
stores its numbers in `dashboard.state` and its figure in `dashboard.figure` (tests read both).
"""
from __future__ import annotations

import re
from typing import Callable

import ipywidgets as widgets
from IPython.display import Javascript, display
from matplotlib.figure import Figure

from coursekit.calc.tco import DAYS_PER_YEAR, cumulative, daily_costs, tornado
from coursekit.figures import HATCHES, PALETTE, REFERENCE, figure_output

HORIZON_DAYS = 3 * DAYS_PER_YEAR
TORNADO_LABELS = {"tokens_per_day_m": "demand (/2, x2)", "growth": "demand growth", "decline": "price decline",
                  "utilization": "utilization", "batch": "batch (/4, x4)"}


class CostDashboard:
    """Sliders for the startup's inputs; on every change, recompute and redraw.

    `scenario` is a coursekit.calc.levers scenario (the serving replica), `levers` maps a lever's name to
    its scenario overrides. Functions: cost_per_million(dollars_per_hour, tokens_per_second, utilization),
    break_even_day(training, daily, growth, decline, horizon_days), decode_tokens_per_second(scenario),
    rank_levers(scenario, levers).
    """

    def __init__(self, scenario: dict, levers: dict[str, dict], training_cost: float, tokens_per_day: float,
                 cost_per_million: Callable, break_even_day: Callable, decode_tokens_per_second: Callable,
                 rank_levers: Callable):
        self.base, self.levers = dict(scenario), levers
        self.fns = dict(cost=cost_per_million, break_even=break_even_day, tps=decode_tokens_per_second,
                        rank=rank_levers)
        style, layout = {"description_width": "190px"}, widgets.Layout(width="520px")

        def slider(cls, description, value, low, high, step, **kw):
            return cls(value=value, min=low, max=high, step=step, description=description, style=style,
                       layout=layout, continuous_update=False, **kw)

        self.sliders = {
            "training_musd": slider(widgets.FloatSlider, "training bill ($M)", round(training_cost / 1e6, 6), 1, 200, 1),
            "tokens_per_day_m": slider(widgets.FloatLogSlider, "demand (M tokens/day)", tokens_per_day / 1e6,
                                       0, 6, 0.05, base=10),
            "growth_pct": slider(widgets.IntSlider, "demand growth (%/year)", 0, 0, 300, 10),
            "decline_pct": slider(widgets.IntSlider, "price decline (%/year)", 0, 0, 60, 5),
            "utilization_pct": slider(widgets.IntSlider, "utilization (%)", round(scenario["utilization"] * 100),
                                      5, 100, 5),
            "batch": slider(widgets.IntSlider, "batch (sequences)", scenario["batch"], 1, 512, 1),
        }
        self.summary = widgets.HTML()
        self.output = widgets.Output()
        self.figure = None
        self.state: dict = {}
        for s in self.sliders.values():
            s.observe(lambda _change: self.redraw(), names="value")
        self.redraw()

    def current_scenario(self) -> dict:
        v = {k: s.value for k, s in self.sliders.items()}
        return {**self.base, "batch": int(v["batch"]), "utilization": v["utilization_pct"] / 100}

    def compute(self) -> dict:
        v = {k: s.value for k, s in self.sliders.items()}
        s = self.current_scenario()
        tps = self.fns["tps"](s)
        per_m = self.fns["cost"](s["gpus"] * s["price_per_hour"], tps, s["utilization"])
        daily = v["tokens_per_day_m"] * per_m
        growth, decline = v["growth_pct"] / 100, v["decline_pct"] / 100
        training = v["training_musd"] * 1e6
        days = daily_costs(daily, HORIZON_DAYS, growth, decline)

        def three_year_serving(tokens_per_day_m, growth, decline, utilization, batch):
            changed = {**s, "utilization": utilization, "batch": batch}
            cost = self.fns["cost"](s["gpus"] * s["price_per_hour"], self.fns["tps"](changed), utilization)
            return sum(daily_costs(tokens_per_day_m * cost, HORIZON_DAYS, growth, decline))

        base = dict(tokens_per_day_m=v["tokens_per_day_m"], growth=growth, decline=decline,
                    utilization=s["utilization"], batch=s["batch"])
        swings = {"tokens_per_day_m": (base["tokens_per_day_m"] / 2, base["tokens_per_day_m"] * 2),
                  "growth": (0.0, max(1.0, 2 * growth)), "decline": (0.0, max(0.3, min(0.9, 2 * decline))),
                  "utilization": (max(0.05, s["utilization"] / 2), min(1.0, s["utilization"] * 1.5)),
                  "batch": (max(1, s["batch"] // 4), s["batch"] * 4)}
        return {"tokens_per_second": tps, "cost_per_million": per_m, "daily": daily, "training": training,
                "cumulative": cumulative(days), "growth": growth, "decline": decline,
                "break_even_day": self.fns["break_even"](training, daily, growth, decline, 30 * DAYS_PER_YEAR),
                "levers": self.fns["rank"](s, self.levers),
                "tornado": tornado(three_year_serving, base, swings)}

    def redraw(self) -> None:
        self.state = st = self.compute()
        be = st["break_even_day"]
        when = f"day {be:,} ({be / DAYS_PER_YEAR:.1f} years)" if be is not None else "not within 30 years"
        self.summary.value = (f"<b>{st['tokens_per_second']:,.0f} tokens/s</b> per replica; "
                              f"<b>${st['cost_per_million']:.2f}</b> per million tokens; "
                              f"serving <b>${st['daily']:,.0f}</b> on day 1; "
                              f"serving overtakes training on <b>{when}</b>")
        self.figure = Figure(figsize=(15, 4))
        left, right, sens = self.figure.subplots(1, 3)
        years = [(d + 1) / DAYS_PER_YEAR for d in range(HORIZON_DAYS)]
        left.plot(years, [c / 1e6 for c in st["cumulative"]], color=PALETTE[0], linestyle="-", marker="None",
                  label="serving, cumulative")
        left.axhline(st["training"] / 1e6, color=PALETTE[1], linestyle="--", label="training (one-time)")
        if be is not None and be <= HORIZON_DAYS:
            left.plot([be / DAYS_PER_YEAR], [st["training"] / 1e6], "kD", label=f"break-even, day {be:,}")
        left.set(xlabel="years in service", ylabel="$ million", title="Training vs cumulative serving cost")
        left.legend(fontsize=8)
        names = [r["lever"] for r in st["levers"]]
        right.barh(names[::-1], [r["cost_per_million"] for r in st["levers"]][::-1], color=PALETTE[2])
        right.set(xlabel="$ per million decode tokens", title="Levers, each alone, cheapest on top")
        rows = st["tornado"][::-1]
        for i, r in enumerate(rows):
            low, high = sorted((r["low"] / 1e6, r["high"] / 1e6))
            sens.barh(i, high - low, left=low, color=PALETTE[3], hatch=HATCHES[1])
        sens.set_yticks(range(len(rows)), [TORNADO_LABELS[r["input"]] for r in rows])
        sens.axvline(sum(daily_costs(st["daily"], HORIZON_DAYS, st["growth"], st["decline"])) / 1e6, color=REFERENCE, lw=1,
                     label="3-year serving cost at the current inputs")
        sens.set(xlabel="3-year serving cost, $ million", title="Sensitivity (each input low/high)")
        self.figure.tight_layout()
        # A PNG with its text alternative (no pyplot needed); the summary line above repeats the key numbers.
        self.figure_output = figure_output(self.figure, "Lab 4 cost dashboard at the current slider values: "
                                           + re.sub("<[^>]+>", "", self.summary.value), dpi=80)
        with self.output:
            self.output.clear_output(wait=True)
            display(self.figure_output)

    def show(self) -> None:
        display(widgets.VBox([*self.sliders.values(), self.summary, self.output]))
        display(Javascript(NAME_SLIDERS))


# ipywidgets draws a slider as a noUiSlider handle (role="slider") that its visible label is not linked to
# and offers no way to name (axe: aria-input-field-name). This names every handle after its widget's label,
# now and whenever JupyterLab draws one again (a re-render, a scrolled-in cell). It runs wherever the
# dashboard's output is live: in JupyterLab once the cell has run (a trusted output).
NAME_SLIDERS = """
(function () {
  if (window.__courseNamesSliders) return;
  window.__courseNamesSliders = true;
  function name(root) {
    root.querySelectorAll('.widget-slider').forEach(function (slider) {
      var label = slider.querySelector('.widget-label');
      var text = label && label.textContent.trim();
      slider.querySelectorAll('.noUi-handle').forEach(function (handle) {
        if (text && handle.getAttribute('aria-label') !== text) handle.setAttribute('aria-label', text);
      });
    });
  }
  name(document);
  new MutationObserver(function () { name(document); })
    .observe(document.body, {childList: true, subtree: true});
})();
"""
