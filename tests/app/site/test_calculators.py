"""The website's calculators compute what coursekit computes: calculators.js, run in node over random
inputs drawn here, against coursekit's own functions (coursekit.app.site.calculators.reference), to 1e-9
relative; and each calculator lands in its lesson, at the end of the section that teaches it."""
from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess

import nbformat
import pytest

from coursekit import hardware, prices
from coursekit.calc import memory
from coursekit.model_configs import ALL_MODELS
from calculators_ui import mismatches
from coursekit.app.site import calculators as calc
from paths import ROOT

CASES_PER_CALCULATOR = 1000
RUNNER = """
const calc = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.cases.map(([id, x]) => {
  try {
    const r = calc.formulas[id](input.data, x);
    delete r.cumulative;
    return r;
  } catch (err) {
    return { thrown: err.message };
  }
});
process.stdout.write(JSON.stringify(out));
"""


def log_uniform(rng: random.Random, low: float, high: float) -> float:
    return 10 ** rng.uniform(math.log10(low), math.log10(high))


def log_int(rng: random.Random, low: int, high: int) -> int:
    return max(low, min(high, round(log_uniform(rng, low, high))))


MODELS = [m.name for m in ALL_MODELS]
BYTES = list(calc.ELEMENT_BYTES.values())


def draw(calc_id: str, rng: random.Random) -> dict:
    """Inputs a reader could set: every model, chip, price and option, numbers across the sliders' ranges."""
    if calc_id == "memory":
        return {"model": rng.choice(MODELS), "weight_bytes": rng.choice(BYTES),
                "optimizer": rng.choice(list(memory.OPTIMIZER_STATES)), "master_weights": rng.random() < 0.5,
                "seq_len": log_int(rng, 128, 131072), "batch": rng.randint(1, 64), "flash": rng.random() < 0.5,
                "layer": rng.choice(["swiglu", "gpt"])}
    if calc_id == "roofline":
        chip = rng.choice(hardware.ALL_CHIPS)
        intensity = chip.ridge_point if rng.random() < 0.05 else log_uniform(rng, 0.1, 10000)
        return {"chip": chip.name, "intensity": intensity}
    if calc_id == "kv":
        return {"model": rng.choice(MODELS), "context": log_int(rng, 1, 1048576), "batch": log_int(rng, 1, 1024),
                "element_bytes": rng.choice(BYTES), "gqa": rng.random() < 0.7}
    if calc_id == "cost":
        return {"preset": "", "price_per_hour": log_uniform(rng, 0.1, 100), "accelerators": rng.randint(1, 64),
                "tokens_per_second": log_uniform(rng, 1, 1e6), "utilization_pct": rng.randint(1, 100)}
    if calc_id == "breakeven":
        chip = rng.choice([c for c in prices.CURRENT_RENTALS if c in hardware.BY_NAME])
        return {"model": rng.choice(MODELS), "chip": chip, "gpus": rng.choice([1, 2, 4, 8, 16, 32, 64, rng.randint(1, 64)]),
                "batch": log_int(rng, 1, 512), "context": log_int(rng, 128, 131072),
                "bytes_per_weight": rng.choice([2, 1, 0.5]), "price_per_hour": log_uniform(rng, 0.1, 100),
                "utilization_pct": rng.randint(5, 100), "training_musd": rng.randint(1, 200),
                "demand_m": log_uniform(rng, 1, 1e6), "growth_pct": rng.randint(0, 300), "decline_pct": rng.randint(0, 60)}
    raise KeyError(calc_id)


def run_in_node(cases: list) -> list:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node not found: ./course.sh test installs Debian's nodejs (Node.js 18+)")
    done = subprocess.run([node, "-e", RUNNER, str(calc.SCRIPT)], input=json.dumps(
        {"data": calc.calculator_data(), "cases": cases}), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("calc_id", sorted(calc.REFERENCES))
def test_script_equals_coursekit_on_random_inputs(calc_id):
    rng = random.Random(f"calculators-{calc_id}")
    inputs = [draw(calc_id, rng) for _ in range(CASES_PER_CALCULATOR)]
    inputs.append(calc.defaults(calc.calculators()[calc_id]))
    results = run_in_node([[calc_id, x] for x in inputs])
    problems = []
    for x, got in zip(inputs, results):
        bad = mismatches(calc.reference(calc_id, x), got)
        if bad:
            problems.append(f"{x}: {'; '.join(bad)}")
    assert not problems, f"{len(problems)} of {len(inputs)} cases differ, first ones:\n" + "\n".join(problems[:5])
    if calc_id == "breakeven":  # the draws reach every kind of answer
        kinds = {("error" if "error" in r else "never" if r["break_even_day"] is None else "day")
                 for r in (calc.reference(calc_id, x) for x in inputs)}
        assert kinds == {"error", "never", "day"}, kinds


def test_script_rejects_unknown_names_and_impossible_inputs():
    data = calc.calculator_data()
    cases = [["memory", {**draw("memory", random.Random(1)), "model": "GPT-9"}],
             ["roofline", {"chip": "no such chip", "intensity": 1.0}],
             ["cost", {"preset": "", "price_per_hour": 2.0, "accelerators": 1, "tokens_per_second": 0.0, "utilization_pct": 50}],
             ["memory", {**draw("memory", random.Random(2)), "optimizer": "lion"}]]
    results = run_in_node(cases)
    assert all("thrown" in r for r in results), results
    assert "GPT-9" in results[0]["thrown"] and "no such chip" in results[1]["thrown"]
    assert data["chips"] and data["models"]


def test_script_copies_no_constant_that_coursekit_exports():
    """Seconds per hour, days per year, the usable memory share, GiB, the FP32 width: all come from the data."""
    script = calc.SCRIPT.read_text(encoding="utf-8")
    code = re.sub(r"//.*|/\*.*?\*/|\"(?:[^\"\\]|\\.)*\"", "", script, flags=re.DOTALL)
    for literal in ("3600", "365", "0.9", "1073741824", "2 ** 30", "1e12", "8760", "86400"):
        assert not re.search(rf"(?<![\w.]){re.escape(literal)}(?![\w.])", code), literal


def test_every_default_sits_inside_its_range_and_every_calculator_has_a_reference():
    for c in calc.calculators().values():
        assert c.id in calc.REFERENCES
        names = {o.name for o in c.outputs}
        assert names <= set(calc.reference(c.id, calc.defaults(c))), c.id
        assert c.summary in names
        for f in c.fields:
            if isinstance(f, calc.Number):
                assert f.low <= f.value <= f.high, (c.id, f.name)
            if isinstance(f, calc.Choice):
                assert f.value in {v for v, _ in f.options}, (c.id, f.name)


@pytest.mark.parametrize("calc_id", sorted(calc.REFERENCES))
def test_calculator_ends_the_section_that_teaches_it(calc_id):
    c = calc.calculators()[calc_id]
    nb = nbformat.read(ROOT / c.lesson, as_version=4)
    before = [cell.source for cell in nb.cells]
    assert calc.add_calculators(nb, c.lesson) == [calc_id]
    blocks = [i for i, cell in enumerate(nb.cells) if "{raw} html" in cell.source]
    assert len(blocks) == 1
    at = blocks[0]
    text = "\n".join(cell.source for cell in nb.cells[:at] if cell.cell_type == "markdown")
    headings = re.findall(r"^#{1,2}\s+(.+?)\s*$", text, re.MULTILINE)
    assert headings[-1] == c.after, headings[-3:]                 # inside its section...
    following = nb.cells[at + 1].source if at + 1 < len(nb.cells) else ""
    assert re.match(r"#{1,2}\s", following), following[:80]       # ...which ends right after it
    # nothing of the lesson is lost: the split cell's two halves make up the original
    assert "\n".join(cell.source for i, cell in enumerate(nb.cells) if i != at).replace("\n", "") == \
        "\n".join(before).replace("\n", "")
    block = nb.cells[at].source
    assert 'id="ck-calculator-data"' in block and "<script>" in block and block.count("``````") == 2
    assert "http://" not in block.replace("http://www.w3.org/2000/svg", "") and "https://" not in block


def test_a_lesson_without_its_section_is_an_error():
    c = calc.calculators()["kv"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Lesson\n\n## Something else")])
    with pytest.raises(ValueError, match=r"02-kv-cache.ipynb: no section '## Why a cache'"):
        calc.add_calculators(nb, c.lesson)
    assert calc.add_calculators(nb, "course/m5-co-design/01-inference-aware-scaling.ipynb") == []


def test_precision_labels_say_one_byte_not_one_bytes():
    from coursekit.app.site.calculators import _precisions

    assert [label for _, label in _precisions()] == ["FP32 (4 bytes)", "BF16 / FP16 (2 bytes)", "FP8 / INT8 (1 byte)",
                                                      "INT4 (0.5 bytes)"]
