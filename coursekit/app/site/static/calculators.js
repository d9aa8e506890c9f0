/* Calculators on the course website. coursekit/app/site/calculators.py writes the forms and exports the
   data (chips, models, prices, constants) from coursekit; this script only computes and draws.
   Each formula is coursekit's, in the same order of operations, so the numbers agree to rounding:
   tests/app/site/test_calculators.py runs these functions in node over random inputs and the built pages in
   Chromium, against coursekit's own functions. */
(function () {
  "use strict";

  function find(list, name, what) {
    const item = list.find((x) => x.name === name);
    if (!item) throw new Error("unknown " + what + " \"" + name + "\"");
    return item;
  }

  function positive(name, value) {
    if (!(value > 0)) throw new Error(name + " must be positive, got " + value);
    return value;
  }

  // tco.daily_costs: day k (k = 0, 1, ...) costs daily * ((1 + growth)(1 - decline)) ** (k / 365).
  function dailyCosts(data, daily, days, growth, decline) {
    if (!(growth >= -1)) throw new Error("growth must be at least -100%, got " + growth);
    if (!(decline >= 0 && decline < 1)) throw new Error("decline must be in [0%, 100%), got " + decline);
    const rate = (1 + growth) * (1 - decline);
    const out = new Array(days);
    for (let k = 0; k < days; k++) out[k] = daily * rate ** (k / data.days_per_year);
    return out;
  }

  // serving_cost.cost_per_million_tokens
  function costPerMillion(data, dollarsPerHour, tokensPerSecond, utilization) {
    if (!(tokensPerSecond > 0) || !(utilization > 0 && utilization <= 1)) {
      throw new Error("tokens per second must be > 0 and utilization in (0, 100%]");
    }
    if (!(dollarsPerHour >= 0)) throw new Error("the price must be >= 0");
    const tokensPerHour = tokensPerSecond * utilization * data.seconds_per_hour;
    return dollarsPerHour / tokensPerHour * 1e6;
  }

  const formulas = {
    // memory.training_breakdown, bytes_per_param, training_bytes, training_activation_bytes, weight_bytes
    memory(data, x) {
      const m = find(data.models, x.model, "model");
      const w = Number(x.weight_bytes);
      const states = data.optimizer_states[x.optimizer];
      if (states === undefined) throw new Error("unknown optimizer \"" + x.optimizer + "\"");
      const master = x.master_weights && w < data.fp32_bytes ? data.fp32_bytes : 0;
      const optimizer = states * data.fp32_bytes;
      const perParam = 0 + w + w + master + optimizer;        // Python's sum() over the four parts
      const seq = x.seq_len, batch = x.batch, stores = !x.flash;
      let perLayer;
      if (x.layer === "gpt") {   // memory.activation_bytes_per_layer (Korthikanti et al. 2022, eq. 1)
        const width = 34.0 + (stores ? 5.0 * m.n_heads * seq / m.d_model : 0.0);
        perLayer = seq * batch * m.d_model * width;
      } else if (x.layer === "swiglu") {   // memory.swiglu_activation_bytes_per_layer
        const hKv = Math.floor(m.d_model / m.n_heads) * m.n_kv_heads;
        let values = 6 * m.d_model + 2 * hKv + 4 * m.d_ff;
        if (stores) values += m.n_heads * seq;
        perLayer = 2.0 * seq * batch * values;
      } else {
        throw new Error("layer must be swiglu or gpt, got " + x.layer);
      }
      const state = m.n_params * perParam;
      const activations = m.n_layers * perLayer;
      return {
        training_pp: perParam, weights_pp: w, grads_pp: w, master_pp: master, optimizer_pp: optimizer,
        multiple: perParam / w, serving_pp: w, training_state: state, activations: activations,
        activations_pp: activations / m.n_params,
        training_total: state + activations, serving_weights: m.n_params * w,
      };
    },

    // roofline.chip_ceilings, attainable_flops, chip_ridge_point, classify
    roofline(data, x) {
      const chip = find(data.chips, x.chip, "chip");
      const peak = chip.peak_flops, bandwidth = chip.bandwidth, intensity = x.intensity;
      positive("intensity", intensity);
      const attainable = Math.min(peak, bandwidth * intensity);
      const ridge = peak / bandwidth;
      return {
        attainable: attainable, share: attainable / peak, ridge: ridge, peak: peak, bandwidth: bandwidth,
        bound: intensity >= ridge ? data.bound.compute : data.bound.bandwidth,
      };
    },

    // kvcache.model_kv_bytes_per_token, model_kv_bytes_per_session, model_kv_gib_per_session
    kv(data, x) {
      const m = find(data.models, x.model, "model");
      const e = Number(x.element_bytes);
      positive("bytes per element", e);
      if (!(x.context >= 0) || !(x.batch >= 0)) throw new Error("context and batch must be >= 0");
      const perToken = x.gqa ? m.n_layers * m.kv_elements * e : 2 * m.n_layers * m.n_heads * m.head_dim * e;
      const perSession = perToken * x.context * 1;
      const perBatch = perToken * x.context * x.batch;
      return {
        per_token: perToken, per_session: perSession, session_gib: perSession / data.gib,
        per_batch: perBatch, batch_gib: perBatch / data.gib,
      };
    },

    // serving_cost.cost_per_million_tokens for a machine of `accelerators` at a price each
    cost(data, x) {
      const perHour = x.accelerators * x.price_per_hour;
      const u = x.utilization_pct / 100;
      return {
        cost_per_million: costPerMillion(data, perHour, x.tokens_per_second, u), per_hour: perHour,
        tokens_per_paid_hour: x.tokens_per_second * u * data.seconds_per_hour,
      };
    },

    // levers.scenario, batch_that_fits, decode_tokens_per_second; serving_cost.serving_bill; tco.break_even_day
    breakeven(data, x) {
      const m = find(data.models, x.model, "model");
      const chip = find(data.chips, x.chip, "chip");
      const gpus = x.gpus, price = x.price_per_hour, u = x.utilization_pct / 100;
      const params = m.matmul_params, bpw = Number(x.bytes_per_weight);
      const kvPerToken = m.n_layers * m.kv_elements * data.kv_element_bytes;
      const memoryBytes = chip.memory_gb * 1e9 * data.usable_fraction;
      const free = gpus * memoryBytes - params * bpw;
      const fits = Math.floor(free / (x.context * kvPerToken));
      if (fits < 1) {
        return { error: "the weights plus one sequence of " + x.context.toLocaleString("en-US") + " tokens do not fit in " +
                        gpus + " x " + chip.name + ": add chips, shorten the context or narrow the weights" };
      }
      const b = Math.min(x.batch, fits);
      const flops = b * 2 * params;
      const stepBytes = params * bpw + b * x.context * kvPerToken;
      const seconds = Math.max(flops / (gpus * chip.peak_flops), stepBytes / (gpus * chip.bandwidth));
      const tps = b / seconds;
      const perMillion = costPerMillion(data, gpus * price, tps, u);
      const daily = x.demand_m * 1e6 / 1e6 * perMillion;
      const growth = x.growth_pct / 100, decline = x.decline_pct / 100, training = x.training_musd * 1e6;
      const days = dailyCosts(data, daily, data.break_even_days, growth, decline);
      let total = 0.0, day = null;
      const cumulative = [];
      for (let k = 0; k < days.length; k++) {
        total += days[k];
        if (k < data.figure_days) cumulative.push(total);
        if (day === null && total >= training) day = k + 1;
        if (day !== null && k >= data.figure_days) break;
      }
      let threeYears = 0;
      for (let k = 0; k < data.figure_days; k++) threeYears += days[k];
      return {
        break_even_day: day, tokens_per_second: tps, batch_served: b, cost_per_million: perMillion, daily: daily,
        three_year_serving: threeYears, training: training, cumulative: cumulative,
      };
    },
  };

  // --- writing numbers ---------------------------------------------------------------------------

  const PREFIXES = [[1e18, "E"], [1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];

  function sig(v, digits) {
    if (v === 0) return "0";
    const abs = Math.abs(v);
    const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(abs)));
    return v.toLocaleString("en-US", { maximumFractionDigits: Math.min(decimals, 6), minimumFractionDigits: 0 });
  }

  function si(v, unit) {
    for (const [size, prefix] of PREFIXES) {
      if (Math.abs(v) >= size) return sig(v / size, 3) + " " + prefix + unit;
    }
    return sig(v, 3) + " " + unit;
  }

  function format(unit, v, data) {
    if (v === null || v === undefined) {
      return unit === "day" ? "not within " + data.break_even_days / data.days_per_year + " years" : "\u2014";
    }
    switch (unit) {
      case "bytes": return si(v, "B");
      case "bytes_per_second": return si(v, "B/s");
      case "bytes_per_param": return sig(v, 3) + (v === 1 ? " byte" : " bytes");
      case "times": return sig(v, 3) + "x";
      case "flops": return si(v, "FLOP/s");
      case "intensity": return sig(v, 3) + " FLOP/byte";
      case "percent": return sig(v * 100, 3) + "%";
      case "gib": return sig(v, 3) + " GiB";
      case "dollars": return "$" + (Math.abs(v) >= 1000 ? Math.round(v).toLocaleString("en-US") : sig(v, 3));
      case "dollars_per_hour": return "$" + sig(v, 4) + " per hour";
      case "tokens": return Math.abs(v) >= 1e9 ? sig(v / 1e9, 3) + " billion" : Math.abs(v) >= 1e6 ? sig(v / 1e6, 3) + " million"
        : Math.round(v).toLocaleString("en-US");
      case "tokens_per_second": return sig(v, 4) + " tokens/s";
      case "count": return v.toLocaleString("en-US");
      case "day": return "day " + v.toLocaleString("en-US") + " (" + sig(v / data.days_per_year, 2) + " years)";
      default: return String(v);
    }
  }

  // --- the page ----------------------------------------------------------------------------------

  const SVG = "http://www.w3.org/2000/svg";

  function el(parent, name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    parent.appendChild(node);
    return node;
  }

  // The drawing is as wide as its place on the page (300 to 560 px), so its text keeps its size on a phone.
  function frame(svg) {
    const width = Math.round(Math.max(300, Math.min(560, svg.getBoundingClientRect().width || 560)));
    svg.setAttribute("viewBox", "0 0 " + width + " 300");
    return { left: 70, right: 24, top: 14, bottom: 46, width: width, height: 300 };
  }

  function axes(svg, BOX, xTicks, yTicks, xLabel, yLabel) {
    const g = el(svg, "g", { class: "ck-axes" });
    const bottom = BOX.height - BOX.bottom;
    el(g, "line", { x1: BOX.left, y1: bottom, x2: BOX.width - BOX.right, y2: bottom });
    el(g, "line", { x1: BOX.left, y1: BOX.top, x2: BOX.left, y2: bottom });
    for (const [x, text] of xTicks) {
      el(g, "line", { x1: x, y1: bottom, x2: x, y2: bottom + 5 });
      el(g, "text", { x: x, y: bottom + 18, "text-anchor": "middle" }, text);
    }
    for (const [y, text] of yTicks) {
      el(g, "line", { x1: BOX.left - 5, y1: y, x2: BOX.left, y2: y });
      el(g, "text", { x: BOX.left - 8, y: y + 4, "text-anchor": "end" }, text);
    }
    el(g, "text", { x: (BOX.left + BOX.width - BOX.right) / 2, y: BOX.height - 6, "text-anchor": "middle" }, xLabel);
    el(g, "text", { x: 14, y: (BOX.top + bottom) / 2, "text-anchor": "middle",
                    transform: "rotate(-90 14 " + (BOX.top + bottom) / 2 + ")" }, yLabel);
  }

  const figures = {
    roofline(svg, data, x, r, slider) {
      const BOX = frame(svg);
      const chip = find(data.chips, x.chip, "chip");
      const lo = Number(slider.min), hi = Number(slider.max);   // log10 of the intensity range
      const yLo = Math.floor(Math.log10(chip.bandwidth * 10 ** lo)), yHi = Math.ceil(Math.log10(chip.peak_flops * 1.5));
      const px = (i) => BOX.left + (Math.log10(i) - lo) / (hi - lo) * (BOX.width - BOX.left - BOX.right);
      const py = (f) => BOX.height - BOX.bottom - (Math.log10(f) - yLo) / (yHi - yLo) * (BOX.height - BOX.top - BOX.bottom);
      const xTicks = [], yTicks = [];
      for (let e = Math.ceil(lo); e <= hi; e++) xTicks.push([px(10 ** e), e >= 3 ? sig(10 ** (e - 3), 1) + "k" : sig(10 ** e, 1)]);
      for (let e = yLo; e <= yHi; e++) yTicks.push([py(10 ** e), si(10 ** e, "")]);
      axes(svg, BOX, xTicks, yTicks, "arithmetic intensity (FLOP/byte, log scale)", "FLOP/s (log scale)");
      const ridge = Math.min(Math.max(r.ridge, 10 ** lo), 10 ** hi);
      const roof = [[10 ** lo, Math.min(chip.peak_flops, chip.bandwidth * 10 ** lo)], [ridge, Math.min(chip.peak_flops, chip.bandwidth * ridge)],
                    [10 ** hi, Math.min(chip.peak_flops, chip.bandwidth * 10 ** hi)]];
      el(svg, "polyline", { class: "ck-roof", points: roof.map(([i, f]) => px(i) + "," + py(f)).join(" ") });
      if (r.ridge >= 10 ** lo && r.ridge <= 10 ** hi) {
        el(svg, "line", { class: "ck-ridge", x1: px(r.ridge), x2: px(r.ridge), y1: py(chip.peak_flops), y2: BOX.height - BOX.bottom });
        el(svg, "text", { x: px(r.ridge) + 4, y: py(chip.peak_flops) - 4 }, "ridge " + sig(r.ridge, 3));
      }
      const dot = el(svg, "circle", { class: "ck-dot", cx: px(x.intensity), cy: py(r.attainable), r: 6,
                                      "data-x": String(x.intensity), "data-y": String(r.attainable) });
      dot.setAttribute("data-marker", "");
      svg.setAttribute("aria-label", "Roofline of the " + chip.name + ": FLOP/s rise with intensity along the memory " +
        "bandwidth (" + si(chip.bandwidth, "B/s") + ") up to the ridge point at " + sig(r.ridge, 3) + " FLOP/byte, then stay at the " +
        "peak of " + si(chip.peak_flops, "FLOP/s") + ". The dot: at " + sig(x.intensity, 3) + " FLOP/byte a kernel reaches at most " +
        si(r.attainable, "FLOP/s") + " (" + r.bound + ").");
    },

    breakeven(svg, data, x, r) {
      const BOX = frame(svg);
      const days = data.figure_days, years = days / data.days_per_year;
      const top = Math.max(r.training, r.three_year_serving) * 1.1;
      const step = niceStep(top / 1e6 / 5);
      const yMax = Math.ceil(top / 1e6 / step) * step;
      const px = (day) => BOX.left + day / days * (BOX.width - BOX.left - BOX.right);
      const py = (m) => BOX.height - BOX.bottom - m / yMax * (BOX.height - BOX.top - BOX.bottom);
      const xTicks = [], yTicks = [];
      for (let y = 0; y <= years; y += 0.5) xTicks.push([px(y * data.days_per_year), sig(y, 2)]);
      for (let v = 0; v <= yMax + step / 2; v += step) yTicks.push([py(v), sig(v, 3)]);
      axes(svg, BOX, xTicks, yTicks, "years in service", "$ million");
      const points = [];
      for (let k = 0; k < days; k += 5) points.push(px(k + 1) + "," + py(r.cumulative[k] / 1e6));
      points.push(px(days) + "," + py(r.cumulative[days - 1] / 1e6));
      el(svg, "polyline", { class: "ck-roof", points: points.join(" ") });
      el(svg, "line", { class: "ck-ridge", x1: px(0), x2: px(days), y1: py(r.training / 1e6), y2: py(r.training / 1e6) });
      el(svg, "text", { x: BOX.width - BOX.right - 4, y: py(r.training / 1e6) - 6, "text-anchor": "end" }, "training bill " + format("dollars", r.training, data));
      if (r.break_even_day !== null && r.break_even_day <= days) {
        const cx = px(r.break_even_day), cy = py(r.training / 1e6);
        el(svg, "polygon", { class: "ck-dot", points: [[cx, cy - 7], [cx + 7, cy], [cx, cy + 7], [cx - 7, cy]].join(" "),
                             "data-marker": "", "data-day": String(r.break_even_day) });
      }
      svg.setAttribute("aria-label", "Cumulative serving cost over the first " + sig(years, 2) + " years (solid) reaches " +
        format("dollars", r.three_year_serving, data) + ", against a training bill of " + format("dollars", r.training, data) +
        " (dashed); serving overtakes training on " + format("day", r.break_even_day, data) + ".");
    },
  };

  function niceStep(raw) {
    const base = 10 ** Math.floor(Math.log10(raw));
    for (const m of [1, 2, 5, 10]) if (m * base >= raw) return m * base;
    return 10 * base;
  }

  function boxValue(box) {
    const text = box.value.trim();
    const v = Number(text);
    const low = Number(box.min), high = Number(box.max);
    const whole = box.hasAttribute("data-integer");
    if (text === "" || !Number.isFinite(v) || v < low || v > high || (whole && !Number.isInteger(v))) {
      return { error: (whole ? "a whole number" : "a number") + " from " + low.toLocaleString("en-US") + " to " +
                      high.toLocaleString("en-US") };
    }
    return { value: v };
  }

  function sliderToValue(slider, box) {
    let v = slider.hasAttribute("data-log") ? 10 ** Number(slider.value) : Number(slider.value);
    if (box.hasAttribute("data-integer")) v = Math.round(v);
    else if (slider.hasAttribute("data-log")) v = Number(v.toPrecision(4));
    return Math.min(Math.max(v, Number(box.min)), Number(box.max));
  }

  function mount(section, data) {
    const id = section.getAttribute("data-calculator");
    const form = section.querySelector("form");
    const live = section.querySelector("[data-live]"), error = section.querySelector("[data-error]");
    const source = section.querySelector("[data-source]");
    const svg = section.querySelector("svg[data-figure]");
    const boxes = [...form.querySelectorAll("input[type=number]")];
    const lastValid = {};
    const sliderOf = (box) => form.querySelector("input[type=range][data-for=\"" + box.name + "\"]");

    function describeSlider(box) {
      const slider = sliderOf(box);
      if (slider) slider.setAttribute("aria-valuetext", Number(box.value).toLocaleString("en-US", { maximumFractionDigits: 6 }));
    }

    // Outputs that come out the same whatever the invalid boxes hold (their minimum, maximum and default)
    // do not depend on them: the roofline's ridge point does not move with an out-of-range intensity.
    function unaffected(x, invalid) {
      if (!invalid.length) return {};
      const runs = [];
      for (const pick of [(b) => Number(b.min), (b) => Number(b.max), (b) => Number(b.defaultValue)]) {
        const probe = Object.assign({}, x);
        invalid.forEach((b) => { probe[b.name] = pick(b); });
        try {
          const r = formulas[id](data, probe);
          if (r.error) return {};
          runs.push(r);
        } catch (err) {
          return {};
        }
      }
      const same = {};
      for (const k of Object.keys(runs[0])) {
        if (typeof runs[0][k] !== "object" && runs.every((r) => r[k] === runs[0][k])) same[k] = runs[0][k];
      }
      return same;
    }

    function clear(message, keep) {
      section.querySelectorAll("dd[data-output]").forEach((dd) => {
        const k = dd.getAttribute("data-output");
        const known = keep && k in keep && keep[k] !== null;
        dd.textContent = known ? format(dd.getAttribute("data-unit"), keep[k], data) : "\u2014";
        dd.setAttribute("data-value", known ? String(keep[k]) : "");
      });
      error.textContent = message;
      error.hidden = false;
      live.textContent = "";
      if (svg) svg.replaceChildren();
    }

    function update() {
      const x = {}, problems = [], invalid = [];
      form.querySelectorAll("select[name]").forEach((s) => { x[s.name] = s.hasAttribute("data-numeric") ? Number(s.value) : s.value; });
      form.querySelectorAll("input[type=checkbox]").forEach((c) => { x[c.name] = c.checked; });
      for (const box of boxes) {
        const got = boxValue(box);
        box.setAttribute("aria-invalid", got.error ? "true" : "false");
        if (got.error) {
          problems.push(form.querySelector("label[for=\"" + box.id + "\"]").textContent + ": type " + got.error + ".");
          invalid.push(box);
        } else {
          x[box.name] = got.value;
          lastValid[box.name] = got.value;
        }
      }
      section.setAttribute("data-inputs", JSON.stringify(x));
      const names = [x.model && "model", x.chip && "chip"].filter(Boolean);
      // One line per source: joined with a space, two citations read as one sentence.
      const lines = names.map((n) => {
        const item = find(n === "model" ? data.models : data.chips, x[n], n);
        return item.name + ": " + item.source;
      });
      if (id === "cost" && x.preset !== "") lines.splice(0, lines.length, "Price: " + data.rentals[Number(x.preset)].source + ".");
      source.replaceChildren(...lines.map((t) => Object.assign(document.createElement("span"), { className: "ck-source-line", textContent: t })));
      if (problems.length) return clear(problems.join(" "), unaffected(x, invalid));
      let r;
      try {
        r = formulas[id](data, x);
      } catch (err) {
        return clear(err.message);
      }
      if (r.error) return clear(r.error.charAt(0).toUpperCase() + r.error.slice(1) + ".");
      error.hidden = true;
      error.textContent = "";
      section.querySelectorAll("dd[data-output]").forEach((dd) => {
        const v = r[dd.getAttribute("data-output")];
        dd.textContent = format(dd.getAttribute("data-unit"), v, data);
        dd.setAttribute("data-value", v === null ? "" : String(v));
      });
      const key = section.getAttribute("data-summary");
      const dd = section.querySelector("dd[data-output=\"" + key + "\"]");
      live.textContent = dd.previousElementSibling.textContent + ": " + dd.textContent +
        (r.bound ? " (" + r.bound + ")" : "") + ".";
      if (svg) {
        svg.replaceChildren();
        const intensity = form.querySelector("input[type=range][data-for=intensity]");
        figures[id](svg, data, x, r, intensity);
      }
    }

    for (const box of boxes) {
      const slider = sliderOf(box);
      describeSlider(box);
      slider.addEventListener("input", () => {
        box.value = String(sliderToValue(slider, box));
        describeSlider(box);
        update();
      });
      // The browser steps an invalid box from its minimum, and the slider would follow it there:
      // step from the last valid value instead.
      box.addEventListener("keydown", (event) => {
        if ((event.key !== "ArrowUp" && event.key !== "ArrowDown") || !boxValue(box).error || !(box.name in lastValid)) return;
        event.preventDefault();
        box.value = String(lastValid[box.name]);
        try {
          if (event.key === "ArrowUp") box.stepUp(); else box.stepDown();
        } catch (err) { /* step="any" has no step: the last valid value itself */ }
        box.dispatchEvent(new Event("input", { bubbles: true }));
      });
      box.addEventListener("input", () => {
        const got = boxValue(box);
        if (!got.error) {
          slider.value = String(slider.hasAttribute("data-log") ? Math.log10(got.value) : got.value);
          describeSlider(box);
        }
        if (box.name === "price_per_hour") {
          const preset = form.querySelector("select[name=preset]");
          if (preset && preset.value !== "" && data.rentals[Number(preset.value)].dollars_per_hour !== got.value) preset.value = "";
        }
        update();
      });
    }
    form.querySelectorAll("select[data-fills]").forEach((s) => {
      s.addEventListener("change", () => {
        const price = s.name === "preset" ? (s.value === "" ? null : data.rentals[Number(s.value)].dollars_per_hour)
                                          : data.current_price[s.value];
        const box = form.querySelector("input[type=number][name=\"" + s.getAttribute("data-fills") + "\"]");
        if (price !== null && price !== undefined) {
          box.value = String(price);
          sliderOf(box).value = String(sliderOf(box).hasAttribute("data-log") ? Math.log10(price) : price);
          describeSlider(box);
        }
      });
    });
    // Number boxes and sliders update on every keystroke or step (above); choices when they change.
    form.addEventListener("change", (event) => {
      if (event.target.tagName === "SELECT" || event.target.type === "checkbox") update();
    });
    form.addEventListener("submit", (event) => event.preventDefault());
    if (svg) window.addEventListener("resize", update);
    update();
  }

  function start() {
    const holder = document.getElementById("ck-calculator-data");
    if (!holder || holder.hasAttribute("data-started")) return;
    holder.setAttribute("data-started", "");
    const data = JSON.parse(holder.textContent);
    document.querySelectorAll("section.ck-calc[data-calculator]").forEach((section) => mount(section, data));
  }

  if (typeof module !== "undefined" && module.exports) {
    module.exports = { formulas: formulas, format: format };
  } else if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})();
