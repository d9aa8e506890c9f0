"""Module 4 lessons: structure, errata notes, and the numbers their prose states match coursekit.

Executing every notebook is tests/content/test_notebooks.py's job; here we check what a reader is told. Each
test quotes the sentence it pins, so a change to an input (a price, a config) that makes the prose
wrong fails here.
"""
from __future__ import annotations

import pytest

from coursekit import hardware, prices
from coursekit.calc import levers, memory, serving_cost, tco
from coursekit.model_configs import LLAMA2_70B
from lesson_text import Lessons
from paths import ROOT

LESSONS = ["01-trained-once-served-forever", "02-cost-per-token", "03-rent-buy-and-split-fleets",
           "04-price-of-a-token"]
_LESSONS = Lessons("m4-economics")


M4 = _LESSONS   # its markdown reads money dollars as `$` (tests/lesson_text.py)


@pytest.mark.parametrize("index, name", list(enumerate(LESSONS, 1)))
def test_lesson_structure(index, name):
    assert "**Learning objectives.**" in M4.nb(name).cells[0].source
    checked = "**Errata**" if index < 4 else "**Claim checked**"
    M4.check_structure(name, f"m4-l{index}", ("## Key terms", "## Summary", checked))
    text = M4.markdown(name)
    assert "seed 0" not in text.lower(), "student-facing text cites sources by name, never as seeds"


def test_errata_document_lists_each_lesson_and_the_lab():
    errata = (ROOT / "docs" / "errata" / "m4.md").read_text()
    for where in ("Lesson 1", "Lesson 2", "Lesson 3", "Lesson 4", "Lab 4"):
        assert where in errata


def test_lesson1_the_thousandfold_slip():
    text = M4.markdown(LESSONS[0])
    # "it is **$730,000** a year, and the "$73 million" saved by a 10% cut is $73,000"
    assert "**$730,000** a year" in text and "$73,000." in text
    assert serving_cost.annual_cost(1e9, 0.002) == pytest.approx(730_000)
    assert serving_cost.annual_savings(1e9, 0.002, 0.1) == pytest.approx(73_000)
    assert serving_cost.CLAIMED_ANNUAL_BILL / serving_cost.annual_cost(1e9, 0.002) == pytest.approx(1000)
    # "serving needs decades to match it"
    assert serving_cost.days_to_match(50e6, 1e9, 0.002) / 365 > 20


def test_lesson1_chatgpt_break_even():
    text = M4.markdown(LESSONS[0])
    # "Break-even comes after 72 days for $50M but 143 days (4.7 months) for $100M"
    assert "72 days for $50M but 143 days (4.7 months) for $100M" in text
    assert tco.break_even_day(50e6, 700e3) == 72 and tco.break_even_day(100e6, 700e3) == 143
    assert round(143 / 30.44, 1) == 4.7
    assert "<3 months" in text and tco.break_even_day(100e6, 700e3) > 90


def test_lesson1_falling_prices_can_postpone_break_even_forever():
    # "if prices fall faster than demand grows the cumulative bill may never reach the training cost"
    assert "may never reach the training cost" in M4.markdown(LESSONS[0])
    assert tco.break_even_day(30e6, 20e3, 0.0, 0.3, 8 * 365) is None
    assert tco.break_even_day(30e6, 20e3, 1.0, 0.0, 8 * 365) < tco.break_even_day(30e6, 20e3, 0.0, 0.0, 8 * 365)


def test_lesson2_decode_dearer_than_prefill_and_the_kv_errata():
    text = M4.markdown(LESSONS[1])
    replica = levers.scenario(LLAMA2_70B.name, "NVIDIA H100 SXM", 4, 64, 2048, prices.AWS_P5_H100.dollars_per_hour, 0.5)
    # "output tokens several times more than input tokens": our decode/prefill and the API's output/input
    assert "several times more" in text
    assert levers.decode_cost_per_million(replica) > 3 * levers.prefill_cost_per_million(replica, 2048)
    assert prices.GPT4O_2024_08.output_per_m / prices.GPT4O_2024_08.input_per_m >= 3
    # "for Llama 2 70B ... it is about 43 GB ...; a 70B model with full multi-head attention would need eight times more"
    assert "about 43 GB" in text and "eight times more" in text
    assert memory.kv_cache_bytes(LLAMA2_70B, 131_072) / 1e9 == pytest.approx(43, abs=0.5)
    assert LLAMA2_70B.n_heads // LLAMA2_70B.n_kv_heads == 8


def test_lesson2_levers_each_cut_cost_as_the_prose_says():
    replica = levers.scenario(LLAMA2_70B.name, "NVIDIA H100 SXM", 4, 64, 2048, prices.AWS_P5_H100.dollars_per_hour, 0.5)
    base = levers.decode_cost_per_million(replica)
    # batch, INT8/INT4 and a shorter context lower the cost; a longer context raises it
    for cheaper in ({"batch": 256}, {"bytes_per_weight": 1}, {"bytes_per_weight": 0.5}, {"context": 512}):
        assert levers.decode_cost_per_million({**replica, **cheaper}) < base
    assert levers.decode_cost_per_million({**replica, "context": 8192}) > base


def test_lesson3_owning_against_renting():
    text = M4.markdown(LESSONS[2])
    own = tco.own_cost_per_hour(prices.H100_SERVER_PER_GPU, prices.H100_SERVER_KW_PER_GPU, prices.PUE,
                                prices.ELECTRICITY_PER_KWH, 3000)
    # "Owning wins against on-demand list prices by a wide margin *if the GPUs stay busy*, even at the lower
    # 2025 price" (priced per GPU of a server, like for like)
    assert "by a wide margin" in text and prices.AWS_P5_H100.dollars_per_hour > 5 * own
    assert "even at the lower" in text and prices.AWS_P5_H100_2025.dollars_per_hour > 3 * own
    # "Utilization decides": renting busy hours beats buying below some utilization, and cheaper rent moves it up
    common = dict(tokens_per_day=500e6, tokens_per_second_per_gpu=1200.0, purchase_per_gpu=prices.H100_SERVER_PER_GPU,
                  kw_per_gpu=prices.H100_SERVER_KW_PER_GPU, electricity_per_kwh=prices.ELECTRICITY_PER_KWH,
                  pue=prices.PUE, hosting_per_gpu_year=3000.0)
    u_2023 = tco.break_even_utilization(prices.AWS_P5_H100.dollars_per_hour, **common)
    u_2025 = tco.break_even_utilization(prices.AWS_P5_H100_2025.dollars_per_hour, **common)
    u_cheap = tco.break_even_utilization(2.0, **common)
    assert "Utilization decides" in text and 0 < u_2023 < u_2025 < u_cheap <= 1
    # "the Gemini 1.0 report says Gemini was trained on TPU v4 *and* TPU v5e"
    assert "trained on TPU v4 *and* TPU v5e" in text and "v4/v5p" not in text.split("Correction to this course")[0]
    # "PUE ... 1.58 on average in Uptime Institute's 2023 survey"
    assert "1.58 on average" in text and prices.PUE == 1.58
    # "the inference-oriented chips buy more bandwidth and memory than an H100" per dollar
    h100 = prices.bandwidth_per_dollar("NVIDIA H100 SXM")
    for chip in ("Google TPU v5e", "AWS Inferentia2"):
        assert prices.bandwidth_per_dollar(chip) > h100
        assert hardware.BY_NAME[chip].memory_gb / prices.dollars_per_hour(chip) > 80 / prices.dollars_per_hour("NVIDIA H100 SXM")
    # "With the newest dated prices the answer moved: Trainium2 and the MI300X ... lead on bandwidth per dollar"
    assert "Trainium2 and the MI300X, sold for training, lead on bandwidth per dollar" in " ".join(text.split())
    newest = sorted(prices.CURRENT_RENTALS.values(), key=lambda p: -prices.bandwidth_per_dollar(p.chip, p))
    assert [p.chip for p in newest[:2]] == ["AWS Trainium2", "AMD Instinct MI300X"]
    then = max(prices.RENTALS, key=prices.bandwidth_per_dollar)
    assert then in ("AWS Inferentia2", "Google TPU v5e")
    # "the H100's price cut lifted it too"
    assert prices.bandwidth_per_dollar("NVIDIA H100 SXM", prices.AWS_P5_H100_2025) > h100
    # Renting with imperfect autoscaling (70% of rented hours busy) moves the break-even down
    assert "rented_utilization=0.7" in text
    assert tco.break_even_utilization(prices.AWS_P5_H100_2025.dollars_per_hour, rented_utilization=0.7, **common) < u_2025
    # Ironwood: Google's own line, attributed; TPU v1 was inference-only
    assert '"for the age of inference"' in text and "Jouppi et al. 2017" in text


# ---- the course's own tools know Module 4 ---------------------------------------------------------

def test_start_page_links_every_module4_notebook_and_the_lab():
    from coursekit.index import build_index
    from coursekit.outline import load_outline

    assert [(m.id, m.title, [lab.id for lab in m.labs]) for m in load_outline(ROOT)][3] == ("m4", "Economics", ["lab4-economics"])
    text = "\n".join(c.source for c in build_index(ROOT).cells if c.cell_type == "markdown")
    for name in [*LESSONS, "module-test"]:
        assert f"m4-economics/{name}.ipynb" in text
    assert "../work/lab4-economics/lab4-economics.ipynb" in text


def test_progress_files_lab4_checks_and_quizzes_under_module4(tmp_path, monkeypatch):
    from coursekit import progress

    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path))
    progress.record_lab_check("lab4-economics", 5, 6)
    rows = {row[0]: row for row in progress.summary_rows()}
    assert "m4" in rows and "lab4-economics: best 5/6, latest 5/6" in rows["m4"][3]


def test_doctor_counts_module4_files():
    from coursekit.app import doctor

    lessons = doctor.check_course_files(ROOT)
    labs = doctor.check_labs(ROOT)
    banks = doctor.check_banks(ROOT)
    assert lessons.ok and labs.ok and banks.ok, (lessons, labs, banks)
    assert f"{len(sorted((ROOT / 'course').glob('m*/*.ipynb')))} lesson notebooks" in lessons.detail
    assert (ROOT / "course" / "m4-economics" / "module-test.ipynb").exists()
    assert (ROOT / "labs" / "lab4-economics" / "lab4-economics.ipynb").exists()


def test_forward_references_in_modules_1_and_3_link_to_module4_lessons():
    import re

    from lesson_text import COURSE

    for folder, name in (("m1-training-vs-inference", "01-what-each-does"), ("m3-inference-chips", "01-design-axes-and-chips")):
        text = Lessons(folder).markdown(name)
        links = re.findall(r"\]\((\.\./m4-economics/[^)]+\.ipynb)\)", text)
        assert links, f"{folder}/{name}: no link to Module 4"
        for link in links:
            assert (COURSE / folder / link).resolve().exists(), link


def test_lesson1_serving_is_the_bigger_bill_only_with_traffic():
    text = M4.markdown(LESSONS[0])
    per_m = levers.decode_cost_for("Llama 2 70B", "NVIDIA H100 SXM", 4, 64, 2048, 0.5)
    startup = sum(tco.daily_costs(serving_cost.daily_cost(500e6, per_m / 1000), 3 * 365)) / 30e6
    chatgpt = sum(tco.daily_costs(serving_cost.REPORTED_CHATGPT_COST_PER_DAY, 3 * 365)) / 100e6
    # "three years of serving cost about eight times a $100M training run; the startup's ... about a tenth"
    assert "eight times a $100M training run" in text
    assert round(chatgpt) == 8
    assert "about a tenth of its training" in text and 0.08 < startup < 0.12


def test_lesson2_market_rates_from_the_textbook():
    text = M4.markdown(LESSONS[1])
    # "puts an H100's rent at about $3 to $5 an hour in 2026"
    assert "about $3 to $5 an hour in 2026" in text and prices.TEXTBOOK_H100_HOURLY == (3.0, 5.0)
    replica = levers.scenario(LLAMA2_70B.name, "NVIDIA H100 SXM", 4, 64, 2048, prices.AWS_P5_H100.dollars_per_hour, 0.5)
    at_list = levers.decode_cost_per_million(replica)
    for hourly in prices.TEXTBOOK_H100_HOURLY:
        assert levers.decode_cost_per_million({**replica, "price_per_hour": hourly}) == pytest.approx(
            at_list * hourly / prices.AWS_P5_H100.dollars_per_hour)


def test_lesson4_rates_drivers_and_the_flatlined_claim():
    text = M4.markdown(LESSONS[3])
    # "fell several-fold a year": GPT-4 launch -> GPT-4o (August 2024), output tokens
    assert "fell several-fold a year" in text
    assert 3 < prices.yearly_price_factor("GPT-4 (8K)", "GPT-4o (2024-08-06)") < 4
    # "the step from GPT-4 to GPT-4o mini is the largest on the chart"
    steps = [prices.HISTORY[m].output_per_m for m in ("GPT-4 (8K)", "GPT-4 Turbo", "GPT-4o", "GPT-4o (2024-08-06)")]
    assert "largest on the chart" in text
    assert steps[0] / prices.GPT4O_MINI.output_per_m > max(a / b for a, b in zip(steps, steps[1:]))
    # "Moving the replica from eight A100s to four H100s at AWS's list prices does not lower the cost per token"
    assert "does not lower the cost per token" in text
    h100 = levers.decode_cost_for("Llama 2 70B", "NVIDIA H100 SXM", 4, 64, 2048, 0.5)
    a100 = levers.decode_cost_for("Llama 2 70B", "NVIDIA A100 40GB", 8, 64, 2048, 0.5)
    assert h100 >= a100
    # "each cut the cost on their own, and combine, though by less than the product"
    base = levers.scenario("Llama 2 70B", "NVIDIA H100 SXM", 4, 64, 2048, prices.AWS_P5_H100.dollars_per_hour, 0.5)
    cost = levers.decode_cost_per_million
    assert "and combine, though by less than the product" in " ".join(text.split())
    alone = [cost(base) / cost({**base, **lever}) for lever in ({"batch": 256}, {"bytes_per_weight": 1})]
    both = cost(base) / cost({**base, "batch": 256, "bytes_per_weight": 1})
    assert all(1.5 < a < 2.5 for a in alone) and max(alone) < both < alone[0] * alone[1]
    # then and now: the AWS cut alone lowers the same replica's cost; GPU clouds lower it further
    cut = cost(base) / cost({**base, "price_per_hour": prices.AWS_P5_H100_2025.dollars_per_hour})
    assert cut == pytest.approx(prices.AWS_P5_H100.dollars_per_hour / prices.AWS_P5_H100_2025.dollars_per_hour)
    assert "Then and now: the same model on the same chip" in text
    # 2025: "the flagship output prices the course records did not fall at all"; the exercise uses them
    assert "did not fall at all" in " ".join(text.split()) and "OpenAI's flagship input price halved" in " ".join(text.split())
    for old, new in prices.SUCCESSORS_2025[:2]:
        assert prices.yearly_price_factor(old, new, "output") == pytest.approx(1.0)
    assert prices.yearly_price_factor("GPT-4o (2024-08-06)", "GPT-5", "input") == pytest.approx(2.0, rel=0.01)
    from coursekit.exercises import all_exercises

    ex = all_exercises()["m4-l4-three-years"]
    assert "GPT-5" in ex.prompt and ex.answer < 10 < 47   # 2.11x a year cubed, against 3.6x cubed to 2024 alone
