"""Module 1 lessons: structure, errata notes, and the numbers their prose states match coursekit.calc.

Executing every notebook is the foundation suite's job (tests/content/test_notebooks.py); here we check what a
reader is told.
"""
from __future__ import annotations

import re

import pytest

from coursekit.calc import kvcache, memory, roofline, serving_cost
from coursekit.hardware import H100_SXM
from coursekit.model_configs import LLAMA2_70B
from coursekit.sources import SOURCES
from lesson_text import Lessons
from paths import ROOT

FOLDER = ROOT / "course" / "m1-training-vs-inference"
LESSONS = ["01-what-each-does", "02-memory-per-parameter", "03-compute-or-bandwidth", "04-beyond-one-chip"]
M1 = Lessons("m1-training-vs-inference")
_nb, _markdown, _code = M1.nb, M1.markdown, M1.code


@pytest.mark.parametrize("index, name", list(enumerate(LESSONS, 1)))
def test_lesson_structure(index, name):
    M1.check_structure(name, f"m1-l{index}", ("**Learning objectives.**", "## Key terms", "## Summary", "## Quiz"))


@pytest.mark.parametrize("name, seeds", [
    ("01-what-each-does", ["003", "004"]),
    ("02-memory-per-parameter", ["004", "003"]),
    ("03-compute-or-bandwidth", ["003", "001"]),
    ("04-beyond-one-chip", ["002"]),
])
def test_errata_notes_are_in_the_lessons(name, seeds):
    text = _markdown(name) + _code(name)
    assert "Errata" in text
    for key in seeds:   # each source is cited by name (coursekit.sources), never by file number
        assert SOURCES[key].short.lower() in text.lower()


def test_errata_document_covers_each_corrected_seed():
    errata = (FOLDER.parent.parent / "docs" / "errata" / "m1.md").read_text()
    for key in ("001", "002", "003", "004"):
        assert f"| {SOURCES[key].short[0].upper()}{SOURCES[key].short[1:]}" in errata


def test_numbers_stated_in_prose_match_the_functions():
    l1, l2, l3 = _markdown(LESSONS[0]), _markdown(LESSONS[1]), _markdown(LESSONS[2])
    # Lesson 1: 2N to serve, 6N to train
    assert "about **2N FLOPs per token**" in l1 and "about **6N FLOPs per token**" in l1
    assert roofline.forward_flops_per_token(1.0) == 2 and roofline.training_flops_per_token(1.0) == 6
    # Lesson 2's component table
    rows = dict(re.findall(r"^\| (working weights|gradients|master weights|Adam moments m and v) \| \w+ \| ([\d +]+) \|",
                           l2, flags=re.MULTILINE))
    table = {k: sum(int(x) for x in v.split("+")) for k, v in rows.items()}
    assert table == {"working weights": 2, "gradients": 2, "master weights": 4, "Adam moments m and v": 8}
    assert list(table.values()) == list(memory.training_breakdown(2).values())
    assert "Mixed-precision AdamW training needs 16 bytes/param (8x the BF16 weights)" in l2
    assert memory.bytes_per_param("training") == 16 and memory.training_multiple_of_weights(2) == 8
    # Lesson 3: "about 1 FLOP per byte" for batch-1 BF16 matmuls
    assert "about 1 FLOP per byte" in l3
    assert round(roofline.decode_matmul_intensity(1, 4096, 11008)) == 1


def test_no_lesson_types_a_computed_ratio_that_code_should_print():
    # The seeds' wrong figures may be quoted; our own computed results are printed from code.
    for name in LESSONS:
        text = _markdown(name)
        for figure in ("1,120 GB", "153 FLOP", "295 FLOP", "39%", "730,000", "73,000", "67,281"):
            assert figure not in text, f"{name} types {figure!r}; print it from code"


def _errata_cell(name, marker):
    cells = [c.source for c in _nb(name).cells if c.cell_type == "code" and marker in c.source]
    assert len(cells) == 1, f"{name}: expected one code cell with {marker!r}, found {len(cells)}"
    return cells[0]


def test_lesson1_errata_corrects_seed_003s_serving_bill():
    """Seed 003: 1e9 tokens/day at $0.002 per 1K tokens is $730k a year, not $730M; a 10% cut saves $73k."""
    volume, price = serving_cost.EXAMPLE_TOKENS_PER_DAY, serving_cost.EXAMPLE_PRICE_PER_1K
    assert (volume, price) == (1e9, 0.002)
    assert serving_cost.daily_cost(volume, price) == pytest.approx(2_000)
    assert serving_cost.annual_cost(volume, price) == pytest.approx(730_000)
    assert serving_cost.annual_savings(volume, price, 0.10) == pytest.approx(73_000)
    # the seed's figures are 1,000x too big: what $0.002 per *token* would cost
    assert serving_cost.CLAIMED_ANNUAL_BILL / serving_cost.annual_cost(volume, price) == pytest.approx(1000)
    assert serving_cost.annual_cost(volume, price * 1000) == pytest.approx(serving_cost.CLAIMED_ANNUAL_BILL)
    assert serving_cost.CLAIMED_ANNUAL_SAVINGS / serving_cost.annual_savings(volume, price, 0.10) == pytest.approx(1000)
    # "insignificant within two months" is decades at the seed's volume
    lo, hi = serving_cost.CLAIMED_GPT4_TRAINING_COST
    assert serving_cost.days_to_match(lo, volume, price) == pytest.approx(25_000)
    assert serving_cost.days_to_match(hi, volume, price) == pytest.approx(50_000)
    assert serving_cost.tokens_per_day_to_match(lo, 61, price) == pytest.approx(4.098e11, rel=1e-3)
    # $0.002 / 1K is gpt-3.5-turbo's price; GPT-4-class list prices were 2.5x-30x higher
    assert serving_cost.GPT35_TURBO_PER_1K == price
    assert serving_cost.per_1k_from_per_million(serving_cost.GPT4O_INPUT_PER_M) / price == pytest.approx(2.5)
    assert serving_cost.GPT4_8K_COMPLETION_PER_1K / price == pytest.approx(30)
    # the lesson shows all this in one Errata block, computed by these functions
    errata = _errata_cell(LESSONS[0], "**Errata.**")
    for needed in ("serving_cost.annual_cost(", "serving_cost.annual_savings(", "gpt-3.5-turbo",
                   "The “Two Modes, Two Hardware Philosophies” course text (lesson 4)", "The Training vs. Inference guide", "orders of magnitude", "serve_tokens_equal"):
        assert needed in errata, f"lesson 1 Errata block lacks {needed!r}"


def test_lesson1_seed_004_correction_lives_in_the_errata_block():
    # It used to be a sentence in the prose; the Errata block (a code cell rendering Markdown) now holds it.
    assert "orders of magnitude" not in _markdown(LESSONS[0])


def test_serving_cost_rejects_nonsense():
    with pytest.raises(ValueError, match="serving_cost.py"):
        serving_cost.daily_cost(-1, 0.002)
    with pytest.raises(ValueError, match="cut_fraction"):
        serving_cost.annual_savings(1e9, 0.002, 1.5)
    assert serving_cost.days_to_match(1e6, 0, 0.002) == float("inf")


def test_lesson2_errata_two_80gb_gpus_leave_little_kv_room():
    """Seed 004: 'two 80 GB GPUs can serve' a 70B model. The weights fit; the KV cache barely does."""
    pair = 2 * H100_SXM.memory_gb * 1e9
    weights = memory.model_weight_bytes(LLAMA2_70B)
    assert (pair - weights) / 1e9 == pytest.approx(22.0, abs=0.5)
    all_tokens = memory.users_per_replica(LLAMA2_70B, H100_SXM, context=1, chips=2, usable_fraction=1.0)
    assert all_tokens == kvcache.max_context_tokens(pair, weights, kvcache.model_kv_bytes_per_token(LLAMA2_70B.name))
    assert 60_000 < all_tokens < 70_000
    assert memory.users_per_replica(LLAMA2_70B, H100_SXM, context=4096, chips=2, usable_fraction=1.0) == 16
    assert memory.users_per_replica(LLAMA2_70B, H100_SXM, context=4096, chips=2) == 4      # 10% held back
    mha = kvcache.max_context_tokens(pair, weights, kvcache.model_kv_bytes_per_token(LLAMA2_70B.name, use_gqa=False))
    assert all_tokens / mha == pytest.approx(LLAMA2_70B.n_heads / LLAMA2_70B.n_kv_heads, rel=0.01)
    errata = _errata_cell(LESSONS[1], "Errata (the Training vs. Inference guide)")
    assert "memory.users_per_replica(" in errata and "Two high-end datacenter GPUs" in errata


def test_errata_document_has_the_serving_bill_rows():
    errata = (FOLDER.parent.parent / "docs" / "errata" / "m1.md").read_text()
    assert "$730,000 a year" in errata and "gpt-3.5-turbo" in errata and "two high-end datacenter GPUs" in errata


def test_corrections_show_without_running_the_lessons():
    """The errata are printed by code cells; a static view (GitHub, a lesson not yet run) shows each one
    in brief in the markdown just above its cell, without the computed figures (code prints those)."""
    for name, marker, claim in [
        (LESSONS[0], "annual = serving_cost.annual_cost", "is **a thousand times too high**: it charges $0.002 per *token*"),
        (LESSONS[1], "guide_total = memory.components_bytes", "leaves\n> out the FP32 master weights"),
        (LESSONS[1], "pair = 2 * H100_SXM.memory_gb", "**only a handful of full-context conversations**"),
    ]:
        cells = _nb(name).cells
        at = next(i for i, c in enumerate(cells) if c.cell_type == "code" and marker in c.source)
        above = cells[at - 1].source.replace("<span>&#36;</span>", "$")
        assert cells[at - 1].cell_type == "markdown" and above.startswith("> **Errata in brief**"), (name, marker)
        assert claim in above, (name, above)
    price, volume = serving_cost.EXAMPLE_PRICE_PER_1K, serving_cost.EXAMPLE_TOKENS_PER_DAY
    assert serving_cost.CLAIMED_ANNUAL_BILL / serving_cost.annual_cost(volume, price) == pytest.approx(1000)
    assert memory.training_breakdown()["master"] == 4          # "4 more bytes per parameter"
    assert memory.users_per_replica(LLAMA2_70B, H100_SXM, context=LLAMA2_70B.max_context, chips=2) <= 5   # a handful
