"""Module 5 lessons: structure, errata notes, and the numbers their prose states match coursekit.calc.

Executing every notebook is the foundation suite's job (tests/content/test_notebooks.py); here we check what a
reader is told. Each test quotes the sentence it pins, so a change to an input (a loss-law constant, a
price, a config) that makes the prose wrong fails here.
"""
from __future__ import annotations

import math

import pytest

from coursekit.calc import cascade, moe, scaling, speculative
from coursekit.hardware import H200_SXM
from coursekit.model_configs import DEEPSEEK_V3, MIXTRAL_8X7B, QWEN3_235B_A22B
from lesson_text import Lessons
from paths import ROOT

FOLDER = ROOT / "course" / "m5-co-design"
LESSONS = ["01-inference-aware-scaling", "02-mixture-of-experts", "03-draft-verify-and-cascades"]
CHINCHILLA_BUDGET = 5.76e23   # Hoffmann et al. 2022, Table 3, as the lessons and Lab 5 use it
M5 = Lessons("m5-co-design")
_nb, _markdown, _code = M5.nb, M5.markdown, M5.code


@pytest.mark.parametrize("index, name", list(enumerate(LESSONS, 1)))
def test_lesson_structure(index, name):
    assert "**Learning objectives.**" in _nb(name).cells[0].source
    M5.check_structure(name, f"m5-l{index}", ("## Key terms", "## Summary", "Errata (the co-design textbook section)"))


def test_errata_document_lists_each_lesson():
    errata = (FOLDER.parent.parent / "docs" / "errata" / "m5.md").read_text()
    for lesson in ("Lesson 1", "Lesson 2", "Lesson 3"):
        assert lesson in errata


# ---- Lesson 1: inference-aware scaling ---------------------------------------------------------

def test_lesson1_twenty_tokens_per_parameter_and_the_two_fits():
    text = _markdown(LESSONS[0])
    # "The famous 'about 20 tokens per parameter' comes from ... Chinchilla itself (70B on 1.4T)"
    assert "about 20 tokens per parameter" in text and "(70B on 1.4T)" in text
    assert scaling.run_tokens_per_param("Chinchilla 70B") == pytest.approx(20)
    # "The *published* Approach 3 constants imply a much higher ratio ... their constants bring the
    # compute-optimal ratio back near 20"
    hoffmann = scaling.compute_optimal(CHINCHILLA_BUDGET, scaling.HOFFMANN_2022)["tokens_per_param"]
    refit = scaling.compute_optimal(CHINCHILLA_BUDGET, scaling.BESIROGLU_2024)["tokens_per_param"]
    assert "much higher ratio" in text and "back near 20" in text
    assert hoffmann > 3 * 20 and 15 < refit < 25
    # Summary: "with Hoffmann's published constants that limit is well above 20:1, with Besiroglu's refit
    # it is near 20:1" -- the zero-demand inference-aware optimum is the compute-optimal model
    assert "well above 20:1" in text and "near 20:1" in text
    for law, ratio in ((scaling.HOFFMANN_2022, hoffmann), (scaling.BESIROGLU_2024, refit)):
        loss = scaling.compute_optimal(CHINCHILLA_BUDGET, law)["loss"]
        assert scaling.optimal_model(loss, 0.0, law)["tokens_per_param"] == pytest.approx(ratio, rel=1e-4)


def test_lesson1_chinchilla_beats_gopher_and_the_budget_is_chinchillas():
    text = _markdown(LESSONS[0])
    # "Chinchilla (70B parameters, 1.4T tokens) and Gopher (280B parameters, 300B tokens): a model four
    # times smaller trained on more data wins"
    assert "four times smaller" in text
    assert 280e9 / 70e9 == 4
    assert scaling.chinchilla_loss(70e9, 1.4e12) < scaling.chinchilla_loss(280e9, 300e9)
    # the code's budget is Chinchilla's own run: 6 N D for 70B on 1.4T is within 3% of 5.76e23
    assert "budget = 5.76e23" in _code(LESSONS[0])
    assert scaling.training_flops(70e9, 1.4e12) == pytest.approx(CHINCHILLA_BUDGET, rel=0.03)


def test_lesson1_optimum_moves_with_demand_and_returns_at_low_demand():
    text = _markdown(LESSONS[0])
    target = scaling.compute_optimal(CHINCHILLA_BUDGET)["loss"]
    rows = [scaling.optimal_model(target, d) for d in [0.0] + [10.0 ** e for e in range(10, 16)]]
    # "The optimum slides left (smaller N) and the training data grows, so tokens per parameter climb."
    assert "slides left" in text
    n = [r["n_params"] for r in rows]
    d = [r["n_tokens"] for r in rows]
    ratio = [r["tokens_per_param"] for r in rows]
    assert n == sorted(n, reverse=True) and d == sorted(d) and ratio == sorted(ratio)
    # "With little demand ... the inference term is negligible and the training-only optimum returns."
    assert "training-only optimum returns" in text
    assert scaling.optimal_model(target, 1e9)["n_params"] == pytest.approx(rows[0]["n_params"], rel=0.01)
    # Errata (4): "shifts the optimum 50x to the right" is not a constant: it depends on demand and target loss
    shift = lambda loss, demand: (scaling.optimal_model(loss, demand)["tokens_per_param"]
                                  / scaling.optimal_model(loss, 0.0)["tokens_per_param"])
    assert "is not\n> a constant" in text or "is not a constant" in text.replace("\n> ", " ")
    assert shift(target, 1e11) < 1.1 < shift(target, 1e13)
    assert not math.isclose(shift(target, 1e13), shift(2.2, 1e13), rel_tol=0.05)


def test_lesson1_tokens_per_parameter_of_published_runs():
    text = _markdown(LESSONS[0]).replace("\n> ", " ")
    # "Llama 3 8B, trained on 15T+ tokens ... consistent with the 'near 1800:1' in the seed's own caption"
    assert "15T+ tokens" in text and "near 1800:1" in text
    assert 1700 < scaling.run_tokens_per_param("Llama 3 8B") < 2000
    # "SmolLM2-360M was trained on 4T tokens; its ratio in the table is far below the seed's
    # '30,000-60,000:1 band'"
    assert "4T tokens" in text and "far below" in text
    assert scaling.run_tokens_per_param("SmolLM2-360M") < 30_000 / 2
    # "Qwen3-0.6B (36T tokens) and LFM2.5-350M (28T tokens, as the seed states): ... the seed's arithmetic
    # for them checks" -- 60,000:1 and 80,000:1
    assert scaling.run_tokens_per_param("Qwen3-0.6B") == pytest.approx(60_000)
    assert scaling.run_tokens_per_param("LFM2.5-350M") == pytest.approx(80_000)
    # Summary: "Recent small models use ratios of thousands to tens of thousands"
    recent = [scaling.run_tokens_per_param(r[0]) for r in scaling.TRAINING_RUNS if r[0] != "Chinchilla 70B"]
    assert all(1_000 <= r < 100_000 for r in recent)


def test_lesson1_support_traffic_matches_the_workload():
    # "100,000 support calls/day x 1,800 tokens" in the demand cell is cascade.Workload's traffic
    assert "100_000 * 1_800" in _code(LESSONS[0])
    w = cascade.Workload()
    assert (w.calls_per_day, w.input_tokens + w.output_tokens) == (100_000, 1_800)


# ---- Lesson 2: mixture of experts --------------------------------------------------------------

def test_lesson2_deepseek_v3_counts():
    text = _markdown(LESSONS[1])
    # "DeepSeek-V3 publishes 671B total and 37B active parameters, 256 routed experts of which 8 run per
    # token, plus one shared expert"
    assert "671B total and 37B active" in text and "256 routed experts of which 8 run" in text
    s, pub, counts = moe.DEEPSEEK_V3_SHAPE, moe.DEEPSEEK_V3_PUBLISHED, moe.deepseek_v3_counts()
    assert (s["n_routed"], s["top_k"], s["n_shared"]) == (256, 8, 1)
    assert (pub["total_params"], pub["active_params"]) == (671e9, 37e9)
    assert counts["total_params"] == pytest.approx(671e9, rel=0.005)
    assert round(counts["active_params"] / 1e9) in (37, 38)
    assert DEEPSEEK_V3.n_experts == 256 and DEEPSEEK_V3.experts_per_token == 8
    # Errata (3): "8 / 256 = 3.1% ... the fraction of *all* parameters a token uses is larger"
    assert "3.1%" in text
    assert counts["routed_expert_fraction"] == pytest.approx(0.031, abs=0.0005)
    assert counts["active_fraction"] > counts["routed_expert_fraction"]


def test_lesson2_seed_arithmetic_memory_and_flops():
    text = _markdown(LESSONS[1]).replace("\n> ", " ")
    pub = moe.DEEPSEEK_V3_PUBLISHED
    # Errata (2): "BF16 weights do not fit one 8 x H200 node, 4-bit weights do ... FP8, which fits the node"
    assert "BF16 weights do not fit one 8 x H200 node, 4-bit weights do" in text and "**FP8**" in text
    fit = {b: moe.fits_on_node(pub["total_params"], b, 8, H200_SXM.memory_gb)["fits"] for b in (2, 1, 0.5)}
    assert fit == {2: False, 1: True, 0.5: True}
    # "the FLOP ratio to a dense 671B model is what the seed says": ~74 GFLOPs per token, about 18x cheaper
    assert moe.flops_per_token(pub["active_params"]) == pytest.approx(74e9)
    assert round(moe.dense_to_moe_flop_ratio(pub["total_params"], pub["active_params"])) == 18


def test_lesson2_batch_one_routing_claim():
    text = _markdown(LESSONS[1]).replace("\n> ", " ")
    s, counts = moe.DEEPSEEK_V3_SHAPE, moe.deepseek_v3_counts()
    moe_layers = s["n_layers"] - s["first_dense_layers"]
    expert = moe.swiglu_ffn_params(s["d_model"], s["expert_d_ff"])
    always = counts["active_params"] - moe_layers * s["top_k"] * expert
    per_token = lambda b: moe.decode_weight_bytes_per_token(b, s["n_routed"], s["top_k"], moe_layers * expert, always, 1)
    # "the router's FLOPs are a fraction of a percent of an MoE layer's"
    assert "a fraction of a percent" in text
    assert moe.router_flop_share(s["d_model"], s["expert_d_ff"], s["n_routed"], s["top_k"], s["n_shared"]) < 0.01
    # "At batch 1 the MoE reads about as many bytes as a dense model of its *active* size, far fewer than a
    # dense model of its total size."
    assert per_token(1) == pytest.approx(counts["active_params"], rel=0.05)
    assert per_token(1) < counts["total_params"] / 10
    # "As the batch grows, more distinct experts are read ... until at large batch every expert is read"
    distinct = [moe.expected_distinct_experts(b, s["n_routed"], s["top_k"]) for b in (1, 8, 64, 512)]
    assert distinct == sorted(distinct) and distinct[0] == pytest.approx(8) and distinct[-1] == pytest.approx(256, abs=0.5)
    # ... and the MoE's advantage over a dense model of equal total size shrinks with the batch
    advantage = [counts["total_params"] / b / per_token(b) for b in (1, 8, 64, 512)]
    assert advantage == sorted(advantage, reverse=True)


def test_lesson2_exercise_models():
    # The lesson's exercises (coursekit/exercises/lessons/m5-l2.yaml): Mixtral 8x7B's parameters outside the
    # experts, and the batch that reads half of Qwen3-235B-A22B's experts (top-8 of 128)
    from coursekit.exercises import get

    assert "46.7 billion parameters in all" in get("m5-l2-mixtral-outside").prompt
    assert "8 of 128 experts" in get("m5-l2-qwen-half").prompt
    code = _code(LESSONS[1])
    assert 'exercise("m5-l2-mixtral-outside")' in code and 'exercise("m5-l2-qwen-half")' in code
    assert round(MIXTRAL_8X7B.n_params / 1e9) == 47
    assert (QWEN3_235B_A22B.n_experts, QWEN3_235B_A22B.experts_per_token) == (128, 8)


# ---- Lesson 3: speculative decoding and cascades -----------------------------------------------

@pytest.mark.parametrize("a, k", [(0.5, 4), (0.8, 4), (0.8, 8), (0.95, 6), (0.6, 1)])
def test_lesson3_speculation_formulas(a, k):
    text = _markdown(LESSONS[2])
    # "a step yields 1 + a + ... + a^k = (1 - a^{k+1}) / (1 - a) tokens"; speedup divides by (kc + 1)
    assert r"\frac{1 - a^{k+1}}{1 - a}" in text and r"\frac{1 - a^{k+1}}{(1 - a)(kc + 1)}" in text
    assert speculative.expected_tokens_per_step(a, k) == pytest.approx(sum(a ** i for i in range(k + 1)))
    assert speculative.speedup(a, k, 0.1) == pytest.approx((1 - a ** (k + 1)) / ((1 - a) * (k * 0.1 + 1)))


def test_lesson3_cascade_claims():
    text = _markdown(LESSONS[2]).replace("\n> ", " ")
    w = cascade.Workload()
    # "a customer-support agent handling 100,000 conversations a day ... a 7B fine-tune ... at $0.30 per
    # million tokens ... the 5% of conversations that escalate"
    assert "100,000 conversations a day" in text and "$0.30 per million tokens" in text and "5% of conversations" in text
    assert (w.calls_per_day, w.escalation) == (100_000, 0.05)
    assert cascade.SMALL_7B.input_per_m == cascade.SMALL_7B.output_per_m == 0.30
    # "One H100 at the seed's $3 per hour" must sustain about 2,800 tokens/s for $0.30 per million
    assert cascade.self_hosted_price_per_m(3.0, 2_778) == pytest.approx(0.30, rel=0.001)
    # Errata: "With a 70B fallback at a typical hosted price the cascade saves far less; with a frontier
    # API fallback it comes close to one tenth"
    hosted = cascade.cascade_ratio(w, cascade.SMALL_7B, cascade.LLAMA31_70B_HOSTED)
    frontier = cascade.cascade_ratio(w, cascade.SMALL_7B, cascade.FRONTIER_API)
    assert "saves far less" in text and "comes close to one tenth" in text
    assert hosted > 0.3 and 0.1 < frontier < 0.15
    # "a per-token price gap of at least 1/(0.1 - e) and an escalation rate well under 10%"
    assert "1/(0.1 - e)" in text
    assert cascade.min_price_ratio_for(0.10, 0.05) == pytest.approx(20)
    assert cascade.min_price_ratio_for(0.10, 0.10) == math.inf
    # "above 1 - p_small/p_big it costs more than the naive design"
    e = cascade.break_even_escalation(0.30, 0.88)
    assert cascade.ratio_from_prices(0.30, 0.88, e) == pytest.approx(1.0)


def test_no_lesson_types_a_computed_number_that_code_should_print():
    # The seed's figures may be quoted; the course's own computed results are printed from code.
    for name in LESSONS:
        text = _markdown(name)
        for figure in ("92.6", "18.4", "1,868", "11,111", "671.0 B", "37.6", "0.39", "0.11", "2,778", "0.46%"):
            assert figure not in text, f"{name} types {figure!r}; print it from code"
