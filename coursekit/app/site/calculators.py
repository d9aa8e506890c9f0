"""Calculators on the course website, each beside the lesson that teaches its model.

A calculator is a form (a slider and a number box per number, a <select> per choice) whose results
are the course's own formulas redone in JavaScript (static/calculators.js), because a static page has
no kernel. Everything the JavaScript reads (chips, models, prices, constants) is exported from
coursekit when the site is built (`calculator_data`), so no number is copied by hand into the script.
`reference(calc, inputs)` computes the same results with coursekit's functions; the tests hold the
JavaScript to it in node and in Chromium (tests/app/site/test_calculators.py, 1e-9 relative).

`add_calculators(nb, rel_path)` puts a lesson's calculator at the end of the section that teaches it,
as a MyST `{raw} html` block: the form, the data, the script and its style, nothing fetched.
"""
from __future__ import annotations

import html
import inspect
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from coursekit.calc import kvcache, levers, memory, roofline, serving_cost, tco
from coursekit.hardware import ALL_CHIPS
from coursekit.model_configs import ALL_MODELS
from coursekit import prices

STATIC = Path(__file__).parent / "static"
SCRIPT = STATIC / "calculators.js"
STYLE = STATIC / "calculators.css"

# Bytes per stored number of each format: their bit widths / 8.
# source: IEEE 754-2008 (binary32, binary16); Google's bfloat16 (16 bits); OCP 8-bit floating point
# specification (OFP8, 2023: E4M3 and E5M2 are 8 bits); INT8 and INT4 integer formats, 8 and 4 bits.
ELEMENT_BYTES = {"FP32": 4, "BF16 / FP16": 2, "FP8 / INT8": 1, "INT4": 0.5}
# Lab 4's dashboard looks for break-even within 30 years (coursekit/cost_dashboard.py, CostDashboard.compute)
# and plots the first 3 (its HORIZON_DAYS); the site's calculator does the same.
BREAK_EVEN_YEARS = 30
FIGURE_YEARS = 3
# levers.scenario's own defaults: the share of memory a server uses, and the KV cache's element size.
_SCENARIO = inspect.signature(levers.scenario).parameters
USABLE_FRACTION = _SCENARIO["usable_fraction"].default
KV_ELEMENT_BYTES = _SCENARIO["kv_bytes_per_element"].default


# --- what a calculator is made of ------------------------------------------------------------------

@dataclass(frozen=True)
class Number:
    """A slider and a number box that move together; `log` sliders step through powers of ten."""
    name: str
    label: str
    low: float
    high: float
    value: float
    step: float = 1
    log: bool = False
    integer: bool = True


@dataclass(frozen=True)
class Choice:
    name: str
    label: str
    options: tuple[tuple[str, str], ...]   # (value, text shown)
    value: str
    numeric: bool = False                  # the value is a number (a precision's bytes), not a name
    fills: str = ""                        # a Number this choice sets: a price picked, or the chip's price


@dataclass(frozen=True)
class Toggle:
    name: str
    label: str
    value: bool


@dataclass(frozen=True)
class Output:
    name: str
    label: str
    unit: str   # how calculators.js writes it: bytes, bytes_per_param, times, flops, intensity, text,
                # dollars, dollars_per_hour, tokens, tokens_per_second, count, day


@dataclass(frozen=True)
class Calculator:
    id: str
    lesson: str            # the lesson notebook, relative to the repository root
    after: str             # the "## " section it ends
    title: str
    intro: str
    fields: tuple
    outputs: tuple
    figure: str = ""       # what the drawn figure shows ("" for none)
    summary: str = ""      # the output read out first (the live sentence)
    cites: str = ""


def _models():
    return tuple((m.name, m.name) for m in ALL_MODELS)


def _precisions(names=tuple(ELEMENT_BYTES)):
    return tuple((repr(ELEMENT_BYTES[n]), f"{n} ({ELEMENT_BYTES[n]:g} byte{'' if ELEMENT_BYTES[n] == 1 else 's'})")
                 for n in names)


def _rental_label(p) -> str:
    return f"{p.chip}: ${p.dollars_per_hour:.2f}/hour ({p.date})"


def rental_prices() -> list:
    """Every dated on-demand price, newest list prices first (coursekit.prices)."""
    seen, out = set(), []
    for p in [*prices.CURRENT_RENTALS.values(), *prices.NEOCLOUD_H100, *prices.RENTALS.values()]:
        if id(p) not in seen:
            seen.add(id(p))
            out.append(p)
    return out


def calculators() -> dict[str, Calculator]:
    h100 = "NVIDIA H100 SXM"
    priced = [c.name for c in ALL_CHIPS if c.name in prices.CURRENT_RENTALS]
    return {c.id: c for c in [
        Calculator(
            "memory", "course/m1-training-vs-inference/02-memory-per-parameter.ipynb", "The terms that grow with tokens",
            "Calculator: memory for training and serving",
            "Pick a model, a precision and an optimizer: the bytes each parameter holds, the whole model's training "
            "state, its stored activations for one micro-batch, and what serving its weights takes.",
            (Choice("model", "Model", _models(), "Llama 2 7B"),
             Choice("weight_bytes", "Weight precision", _precisions(), "2", numeric=True),
             Choice("optimizer", "Optimizer", tuple((k, k) for k in memory.OPTIMIZER_STATES), "adamw"),
             Toggle("master_weights", "Keep FP32 master weights", True),
             Number("seq_len", "Sequence length (tokens)", 128, 131072, 4096, step=0.01, log=True),
             Number("batch", "Micro-batch (sequences)", 1, 64, 1),
             Toggle("flash", "FlashAttention (recompute the attention scores)", False),
             Choice("layer", "Layer counted", (("swiglu", "its own Llama-style SwiGLU layer"),
                                                ("gpt", "GPT-style layer (Korthikanti et al. 2022)")), "swiglu")),
            (Output("training_pp", "Training, bytes per parameter", "bytes_per_param"),
             Output("weights_pp", "of which weights", "bytes_per_param"),
             Output("grads_pp", "of which gradients", "bytes_per_param"),
             Output("master_pp", "of which FP32 master weights", "bytes_per_param"),
             Output("optimizer_pp", "of which optimizer states", "bytes_per_param"),
             Output("multiple", "Training state / weights", "times"),
             Output("serving_pp", "Serving, bytes per parameter", "bytes_per_param"),
             Output("training_state", "Training state (published parameter count)", "bytes"),
             Output("activations", "Stored activations, one micro-batch", "bytes"),
             Output("activations_pp", "Stored activations, bytes per parameter", "bytes_per_param"),
             Output("training_total", "Training state + activations", "bytes"),
             Output("serving_weights", "Serving: the weights", "bytes")),
            summary="training_total",
            cites="coursekit.calc.memory: training_breakdown, bytes_per_param, training_bytes, "
                  "training_activation_bytes, weight_bytes; model shapes from coursekit.model_configs"),
        Calculator(
            "roofline", "course/m1-training-vs-inference/03-compute-or-bandwidth.ipynb",
            "Prefill, decode and training on the roofline",
            "Calculator: the roofline of a chip",
            "Pick a chip and an arithmetic intensity: the FLOP/s a kernel of that intensity can reach at most, "
            "min(peak, bandwidth x intensity), and which ceiling binds.",
            (Choice("chip", "Chip", tuple((c.name, c.name) for c in ALL_CHIPS), h100),
             Number("intensity", "Arithmetic intensity (FLOP/byte)", 0.1, 10000, 1.0, step=0.01, log=True,
                    integer=False)),
            (Output("attainable", "Attainable", "flops"),
             Output("bound", "Bound", "text"),
             Output("share", "Share of the peak", "percent"),
             Output("ridge", "Ridge point", "intensity"),
             Output("peak", "Peak (dense BF16)", "flops"),
             Output("bandwidth", "Memory bandwidth", "bytes_per_second")),
            figure="the chip's roofline on log-log axes, with a dot at the chosen intensity",
            summary="attainable",
            cites="coursekit.calc.roofline: chip_ceilings, attainable_flops, chip_ridge_point, classify; "
                  "chips from coursekit.hardware"),
        Calculator(
            "kv", "course/m3-inference-chips/02-kv-cache.ipynb", "Why a cache",
            "Calculator: KV cache per token and per session",
            "Pick a model, a context length, a batch of sessions and the cache's precision.",
            (Choice("model", "Model", _models(), "Llama 2 70B"),
             Number("context", "Context length (tokens)", 1, 1048576, 4096, step=0.01, log=True),
             Number("batch", "Sessions (batch)", 1, 1024, 1, step=0.01, log=True),
             Choice("element_bytes", "Cache precision", _precisions(), "2", numeric=True),
             Toggle("gqa", "Use the model's own KV heads (GQA, or MLA's latent); off: one KV head per query head",
                    True)),
            (Output("per_token", "Per token", "bytes"),
             Output("per_session", "Per session", "bytes"),
             Output("session_gib", "Per session, GiB", "gib"),
             Output("per_batch", "All sessions", "bytes"),
             Output("batch_gib", "All sessions, GiB", "gib")),
            summary="per_batch",
            cites="coursekit.calc.kvcache: model_kv_bytes_per_token, model_kv_bytes_per_session, "
                  "model_kv_gib_per_session; model shapes from coursekit.model_configs"),
        Calculator(
            "cost", "course/m4-economics/02-cost-per-token.ipynb", "From an hourly price to a price per token",
            "Calculator: cost per million tokens",
            "An hourly price (pick a dated list price or type your own), the tokens per second the machine makes "
            "while busy, and the share of paid hours it is busy.",
            (Choice("preset", "Rental price", (("", "type your own"),) + tuple(
                (str(i), _rental_label(p)) for i, p in enumerate(rental_prices())),
                str(rental_prices().index(prices.current_rental(h100))), fills="price_per_hour"),
             Number("price_per_hour", "Price per accelerator-hour ($)", 0.1, 100, prices.current_dollars_per_hour(h100),
                    step=0.01, log=True, integer=False),
             Number("accelerators", "Accelerators", 1, 64, 1),
             Number("tokens_per_second", "Tokens per second while busy", 1, 1e6, 1000, step=0.01, log=True,
                    integer=False),
             Number("utilization_pct", "Utilization (% of paid hours busy)", 1, 100, 50)),
            (Output("cost_per_million", "Cost per million tokens", "dollars"),
             Output("per_hour", "Price of the machine per hour", "dollars_per_hour"),
             Output("tokens_per_paid_hour", "Tokens per paid hour", "tokens")),
            summary="cost_per_million",
            cites="coursekit.calc.serving_cost.cost_per_million_tokens; prices from coursekit.prices"),
        Calculator(
            "breakeven", "course/m4-economics/01-trained-once-served-forever.ipynb",
            "When demand grows and prices fall",
            "Calculator: when serving overtakes training",
            "Lab 4's inputs: a model served on rented chips (its decode speed from the roofline), a training bill, "
            "a daily demand, and how demand and prices move each year. Defaults: Lab 4's startup.",
            (Choice("model", "Model", _models(), "Llama 2 70B"),
             Choice("chip", "Chip (with its newest list price)", tuple((c, c) for c in priced), h100,
                    fills="price_per_hour"),
             Number("gpus", "Chips per replica", 1, 64, 4),
             Number("batch", "Batch (sequences)", 1, 512, 64),
             Number("context", "Context (tokens)", 128, 131072, 2048, step=0.01, log=True),
             Choice("bytes_per_weight", "Weight precision", _precisions(("BF16 / FP16", "FP8 / INT8", "INT4")), "2",
                    numeric=True),
             Number("price_per_hour", "Price per chip-hour ($)", 0.1, 100, prices.current_dollars_per_hour(h100),
                    step=0.01, log=True, integer=False),
             Number("utilization_pct", "Utilization (%)", 5, 100, 50),
             Number("training_musd", "Training bill ($ million)", 1, 200, 30),
             Number("demand_m", "Demand (million tokens per day)", 1, 1e6, 500, step=0.05, log=True, integer=False),
             Number("growth_pct", "Demand growth (% per year)", 0, 300, 0, step=10),
             Number("decline_pct", "Price decline (% per year)", 0, 60, 0, step=5)),
            (Output("break_even_day", "Serving overtakes training", "day"),
             Output("tokens_per_second", "Replica decode speed", "tokens_per_second"),
             Output("batch_served", "Batch used (the batch typed, or fewer if only fewer fit)", "count"),
             Output("cost_per_million", "Cost per million tokens", "dollars"),
             Output("daily", "Serving bill, day 1", "dollars"),
             Output("three_year_serving", f"Serving, first {FIGURE_YEARS} years", "dollars")),
            figure=f"cumulative serving cost over the first {FIGURE_YEARS} years against the one-time training bill",
            summary="break_even_day",
            cites="coursekit.calc.levers: scenario, batch_that_fits, decode_tokens_per_second; "
                  "coursekit.calc.serving_cost: cost_per_million_tokens, serving_bill; coursekit.calc.tco: "
                  "break_even_day, daily_costs; prices from coursekit.prices, chips from coursekit.hardware"),
    ]}


# --- the data the script reads ---------------------------------------------------------------------

def calculator_data() -> dict:
    """Everything calculators.js computes with, exported from coursekit (never typed into the script)."""
    models = [{"name": m.name, "n_params": m.n_params, "n_layers": m.n_layers, "d_model": m.d_model,
               "n_heads": m.n_heads, "n_kv_heads": m.n_kv_heads, "head_dim": m.head_dim, "d_ff": m.d_ff,
               "kv_elements": m.kv_elements_per_token_per_layer,
               "matmul_params": float(roofline.matmul_params(m)), "source": m.source} for m in ALL_MODELS]
    chips = []
    for c in ALL_CHIPS:
        peak, bandwidth = roofline.chip_ceilings(c)
        chips.append({"name": c.name, "peak_flops": peak, "bandwidth": bandwidth, "memory_gb": c.memory_gb,
                      "source": c.source, "date": c.date})
    rentals = [{"chip": p.chip, "dollars_per_hour": p.dollars_per_hour, "date": p.date, "source": p.source}
               for p in rental_prices()]
    return {
        "models": models, "chips": chips, "rentals": rentals,
        "current_price": {chip: p.dollars_per_hour for chip, p in prices.CURRENT_RENTALS.items()},
        "optimizer_states": dict(memory.OPTIMIZER_STATES), "fp32_bytes": memory.FP32_BYTES,
        "gib": kvcache.GIB, "seconds_per_hour": serving_cost.SECONDS_PER_HOUR, "days_per_year": tco.DAYS_PER_YEAR,
        "usable_fraction": USABLE_FRACTION, "kv_element_bytes": KV_ELEMENT_BYTES,
        "break_even_days": BREAK_EVEN_YEARS * tco.DAYS_PER_YEAR, "figure_days": FIGURE_YEARS * tco.DAYS_PER_YEAR,
        "bound": {"compute": roofline.COMPUTE_BOUND, "bandwidth": roofline.BANDWIDTH_BOUND},
    }


# --- the same results from coursekit's functions ---------------------------------------------------

def _memory(x: dict) -> dict:
    model = roofline.resolve_model(x["model"])
    w, opt, master = float(x["weight_bytes"]), x["optimizer"], bool(x["master_weights"])
    parts = memory.training_breakdown(w, opt, master)
    state = memory.training_bytes(model.n_params, w, opt, master)
    act = memory.training_activation_bytes(model, int(x["seq_len"]), int(x["batch"]),
                                           stores_attention_matrix=not x["flash"], layer=x["layer"])
    return {"training_pp": memory.bytes_per_param("training", w, opt, master),
            "weights_pp": parts["weights"], "grads_pp": parts["grads"], "master_pp": parts["master"],
            "optimizer_pp": parts["optimizer"], "multiple": memory.training_multiple_of_weights(w, opt, master),
            "serving_pp": memory.bytes_per_param("inference", w), "training_state": state, "activations": act,
            "activations_pp": act / model.n_params,
            "training_total": state + act, "serving_weights": memory.weight_bytes(model.n_params, w)}


def _roofline(x: dict) -> dict:
    peak, bandwidth = roofline.chip_ceilings(x["chip"])
    attainable = roofline.attainable_flops(float(x["intensity"]), peak, bandwidth)
    return {"attainable": attainable, "bound": roofline.classify(float(x["intensity"]), peak, bandwidth),
            "share": attainable / peak, "ridge": roofline.chip_ridge_point(x["chip"]), "peak": peak,
            "bandwidth": bandwidth}


def _kv(x: dict) -> dict:
    m, e, gqa, ctx, batch = x["model"], float(x["element_bytes"]), bool(x["gqa"]), int(x["context"]), int(x["batch"])
    per_batch = kvcache.model_kv_bytes_per_session(m, ctx, e, gqa, batch)
    return {"per_token": kvcache.model_kv_bytes_per_token(m, e, gqa),
            "per_session": kvcache.model_kv_bytes_per_session(m, ctx, e, gqa),
            "session_gib": kvcache.model_kv_gib_per_session(m, ctx, e, gqa),
            "per_batch": per_batch, "batch_gib": per_batch / kvcache.GIB}


def _cost(x: dict) -> dict:
    per_hour = int(x["accelerators"]) * float(x["price_per_hour"])
    tps, u = float(x["tokens_per_second"]), x["utilization_pct"] / 100
    return {"cost_per_million": serving_cost.cost_per_million_tokens(per_hour, tps, u), "per_hour": per_hour,
            "tokens_per_paid_hour": tps * u * serving_cost.SECONDS_PER_HOUR}


def _breakeven(x: dict) -> dict:
    gpus, price, u = int(x["gpus"]), float(x["price_per_hour"]), x["utilization_pct"] / 100
    s = levers.scenario(x["model"], x["chip"], gpus, int(x["batch"]), int(x["context"]), price, u,
                        bytes_per_weight=float(x["bytes_per_weight"]))
    try:
        batch = levers.batch_that_fits(s)
    except ValueError as exc:
        return {"error": str(exc)}
    tps = levers.decode_tokens_per_second(s)
    per_m = serving_cost.cost_per_million_tokens(gpus * price, tps, u)
    daily = serving_cost.serving_bill(x["demand_m"] * 1e6, per_m)["daily"]
    growth, decline = x["growth_pct"] / 100, x["decline_pct"] / 100
    training = x["training_musd"] * 1e6
    return {"break_even_day": tco.break_even_day(training, daily, growth, decline, BREAK_EVEN_YEARS * tco.DAYS_PER_YEAR),
            "tokens_per_second": tps, "batch_served": batch, "cost_per_million": per_m, "daily": daily,
            "three_year_serving": sum(tco.daily_costs(daily, FIGURE_YEARS * tco.DAYS_PER_YEAR, growth, decline)),
            "training": training}


REFERENCES = {"memory": _memory, "roofline": _roofline, "kv": _kv, "cost": _cost, "breakeven": _breakeven}


def reference(calc: str, inputs: dict) -> dict:
    """A calculator's results from coursekit's own functions (what the page must show)."""
    if calc not in REFERENCES:
        raise KeyError(f"coursekit/app/site/calculators.py: no calculator {calc!r}; known: {sorted(REFERENCES)}")
    return REFERENCES[calc](inputs)


def defaults(calc: Calculator) -> dict:
    """The inputs a calculator opens with, as the script reads them."""
    out = {}
    for f in calc.fields:
        if isinstance(f, Choice):
            out[f.name] = float(f.value) if f.numeric and f.value else f.value
        else:
            out[f.name] = f.value
    return out


# --- the HTML --------------------------------------------------------------------------------------

def _fmt(value: float) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _field_html(calc: Calculator, f) -> str:
    fid = f"ck-{calc.id}-{f.name}"
    e = html.escape
    if isinstance(f, Choice):
        fills = f' data-fills="{f.fills}"' if f.fills else ""
        opts = "".join(f'<option value="{e(v)}"{" selected" if v == f.value else ""}>{e(t)}</option>'
                       for v, t in f.options)
        return (f'<div class="ck-field"><label for="{fid}">{e(f.label)}</label>'
                f'<select id="{fid}" name="{f.name}"{" data-numeric" if f.numeric else ""}'
                f'{fills}>{opts}</select></div>')
    if isinstance(f, Toggle):
        return (f'<div class="ck-field ck-toggle"><input type="checkbox" id="{fid}" name="{f.name}"'
                f'{" checked" if f.value else ""}><label for="{fid}">{e(f.label)}</label></div>')
    if f.log:
        lo, hi, val = math.log10(f.low), math.log10(f.high), math.log10(f.value)
    else:
        lo, hi, val = f.low, f.high, f.value
    box_step = "1" if f.integer else "any"
    return (f'<div class="ck-field ck-number"><label for="{fid}" id="{fid}-label">{e(f.label)}</label>'
            f'<input type="range" id="{fid}-slider" data-for="{f.name}" min="{_fmt(lo)}" max="{_fmt(hi)}" '
            f'step="{_fmt(f.step)}" value="{_fmt(val)}" aria-label="{e(f.label)}, slider"'
            f'{" data-log" if f.log else ""}>'
            f'<input type="number" id="{fid}" name="{f.name}" min="{_fmt(f.low)}" max="{_fmt(f.high)}" '
            f'step="{box_step}" value="{_fmt(f.value)}"{" data-integer" if f.integer else ""} inputmode="decimal">'
            f'</div>')


def calculator_html(calc: Calculator) -> str:
    """The form, its results and its figure; calculators.js brings them to life."""
    e = html.escape
    fields = "".join(_field_html(calc, f) for f in calc.fields)
    rows = "".join(f'<dt>{e(o.label)}</dt><dd data-output="{o.name}" data-unit="{o.unit}">&#8230;</dd>'
                   for o in calc.outputs)
    figure = (f'<figure class="ck-figure"><svg data-figure="{calc.id}" role="img" aria-label="{e(calc.figure)}" '
              f'viewBox="0 0 560 300"></svg>'
              f'<figcaption>Figure: {e(calc.figure)}.</figcaption></figure>') if calc.figure else ""
    return (f'<section class="ck-calc" data-calculator="{calc.id}" data-summary="{calc.summary}" '
            f'aria-labelledby="ck-{calc.id}-title">'
            f'<h3 id="ck-{calc.id}-title">{e(calc.title)}</h3><p>{e(calc.intro)}</p>'
            f'<form class="ck-form" novalidate>{fields}</form>'
            f'<p class="ck-source" data-source></p>'
            f'<div class="ck-results"><p class="ck-summary" aria-live="polite" data-live></p>'
            f'<p class="ck-error" role="alert" data-error hidden></p><dl>{rows}</dl></div>{figure}'
            f'<p class="ck-cites">Computed in your browser with the formulas of {e(calc.cites)}; the course\'s tests '
            f'check the page against those functions.</p>'
            f'<noscript><p>This calculator needs JavaScript; the cells above compute the same numbers.</p></noscript>'
            f'</section>')


def _json_for_script(data) -> str:
    # "<" escaped so that no string can close the <script> element early.
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def page_block(calc: Calculator) -> str:
    """The raw HTML a page gets: style, form, data and script, all inline (the site fetches nothing)."""
    script = SCRIPT.read_text(encoding="utf-8")
    for name, text in (("calculators.js", script), ("calculators.css", STYLE.read_text(encoding="utf-8"))):
        if "</" in text and re.search(r"</(script|style)", text, re.IGNORECASE):
            raise ValueError(f"coursekit/app/site/static/{name}: must not contain a closing script/style tag")
    return (f'<style>{STYLE.read_text(encoding="utf-8")}</style>{calculator_html(calc)}'
            f'<script type="application/json" id="ck-calculator-data">{_json_for_script(calculator_data())}</script>'
            f'<script>{script}</script>')


def _heading_lines(source: str) -> list[int]:
    return [i for i, line in enumerate(source.splitlines()) if re.match(r"#{1,2}\s", line)]


def add_calculators(nb: nbformat.NotebookNode, rel_path: str) -> list[str]:
    """Insert the calculators of this lesson at the end of the section each names; return their ids.

    The section ends where the next "#" or "##" heading starts (a markdown cell holding one mid-way is
    split there). A lesson that lost the section is an error, so a renamed heading cannot drop a calculator.
    """
    placed = []
    for calc in calculators().values():
        if calc.lesson != rel_path:
            continue
        start = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
                      and re.search(rf"^##\s+{re.escape(calc.after)}\s*$", c.source, re.MULTILINE)), None)
        if start is None:
            raise ValueError(f"{rel_path}: no section '## {calc.after}' for the {calc.id} calculator "
                             f"(coursekit/app/site/calculators.py names it)")
        block = nbformat.v4.new_markdown_cell(f"``````{{raw}} html\n{page_block(calc)}\n``````")
        at, split = len(nb.cells), None
        for i in range(start, len(nb.cells)):
            cell = nb.cells[i]
            if cell.cell_type != "markdown":
                continue
            heads = [n for n in _heading_lines(cell.source) if i > start or n > _heading_line(cell.source, calc.after)]
            if heads:
                at, split = i, heads[0]
                break
        if split:
            lines = nb.cells[at].source.splitlines()
            nb.cells[at].source = "\n".join(lines[:split])
            nb.cells.insert(at + 1, nbformat.v4.new_markdown_cell("\n".join(lines[split:])))
            at += 1
        nb.cells.insert(at, block)
        placed.append(calc.id)
    return placed


def _heading_line(source: str, title: str) -> int:
    lines = source.splitlines()
    return next(i for i, line in enumerate(lines) if re.match(rf"##\s+{re.escape(title)}\s*$", line))
