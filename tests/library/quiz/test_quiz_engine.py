"""Engine: seeds, draws, variants, rendering and scoring, without widgets."""
from __future__ import annotations

import pytest

from coursekit.calc.memory import weight_bytes
from coursekit.calc.roofline import ridge_point
from coursekit.quiz import load_all_banks
from coursekit.quiz.bank import pool
from coursekit.quiz.engine import (ItemError, build_quiz, derive_seed, draw, grade, instantiate, key_text,
                                   render)
from autograder.quiz.scoring import to_response
from paths import TESTS
from coursekit.quiz.engine import correct_response

FIXTURES = TESTS / "fixtures" / "quiz"


@pytest.fixture(scope="module")
def banks():
    return load_all_banks(FIXTURES / "good")


def item(banks, item_id):
    return next(i for b in banks.values() for i in b.items if i.id == item_id)


def test_seed_is_stable_and_keyed():
    assert derive_seed("a", 1) == derive_seed("a", 1)
    assert derive_seed("a", 1) != derive_seed("a", 2)
    assert derive_seed("a", secret="s1") != derive_seed("a", secret="s2") != derive_seed("a")
    # Pinned values: changing the derivation would re-key every learner's variants mid-course.
    assert derive_seed("lesson", "alice", "m1-l1", 0) == 3174490593807559274
    assert derive_seed("graded", "alice", "b", secret="s") == 8538450859811068076
    assert 0 <= derive_seed("x") < 2 ** 63


def test_param_variants_repeat_per_seed_and_differ_across(banks):
    it = item(banks, "m9-l1-ridge")
    variants = {seed: instantiate(it, seed) for seed in range(10)}
    again = instantiate(it, 3)
    assert (again.params, again.answer, again.stem) == (variants[3].params, variants[3].answer, variants[3].stem)
    assert len({tuple(q.params.items()) for q in variants.values()}) > 3
    for q in variants.values():
        assert q.params["tflops"] in (197, 312, 362, 989)
        assert 0.8 <= q.params["tbs"] <= 4.8 and round(q.params["tbs"], 2) == q.params["tbs"]
        assert q.answer == pytest.approx(ridge_point(q.params["tflops"] * 1e12, q.params["tbs"] * 1e12))
        assert f"{q.params['tflops']} TFLOP/s" in q.stem


def test_step_ranges_give_ints(banks):
    q = instantiate(item(banks, "m9-l1-matmul-flops"), 5)
    assert all(isinstance(q.params[k], int) for k in "mkn")
    assert q.params["m"] % 64 == 0 and 64 <= q.params["m"] <= 512


def test_numeric_scoring_tolerance_and_mistakes(banks):
    q = instantiate(item(banks, "m9-l1-weights-70b"), 0)
    assert q.answer == pytest.approx(weight_bytes(70e9, 2) * 1e-9)
    assert grade(q, 140).correct and grade(q, "141.5").correct       # within 2%
    assert not grade(q, 144).correct
    fp32 = grade(q, 280)
    assert not fp32.correct and "FP32" in fp32.feedback              # the mistake's own feedback
    assert grade(q, 50).feedback == "Multiply the parameter count by 2 bytes."
    assert "= 140 GB" in q.explanation                               # {answer:.0f} filled
    with pytest.raises(ValueError):
        grade(q, "lots")


def test_numeric_absolute_tolerance(banks):
    from dataclasses import replace

    # The same 140 GB item with {abs: 0.5}: a fixed band, whatever the answer's size.
    q = instantiate(replace(item(banks, "m9-l1-weights-70b"), tolerance={"abs": 0.5}), 0)
    assert grade(q, 140).correct and grade(q, 140.5).correct and grade(q, 139.5).correct
    assert not grade(q, 140.6).correct and not grade(q, 139.4).correct
    assert not grade(q, 142).correct                                 # {rel: 0.02} would accept this
    assert "FP32" in grade(q, 280.3).feedback                        # mistakes match with the same band
    assert not grade(q, 281).correct and "FP32" not in grade(q, 281).feedback


def test_single_and_multi_scoring(banks):
    single = instantiate(item(banks, "m9-l1-kv"), 0)
    right = correct_response(single)
    assert grade(single, right).correct
    for i in range(3):
        if i != right:
            outcome = grade(single, i)
            assert not outcome.correct and outcome.feedback == single.option_feedback[i]
    multi = instantiate(item(banks, "m9-l1-training-state"), 0)
    key = correct_response(multi)
    assert key == frozenset({0, 1})
    assert grade(multi, key).correct
    assert not grade(multi, {0}).correct                             # all-or-nothing
    partial = grade(multi, {0, 2})
    assert not partial.correct
    # a right option left out is said as missed, without its own "Yes, ..." that read as a right answer
    assert "Missed, this one applies too: Two FP32 Adam moments: m and v, 8 bytes per parameter." in partial.feedback


def test_option_order_shuffles_per_seed_and_letters_map_back(banks):
    it = item(banks, "m9-l1-training-state")
    orders = {tuple(instantiate(it, s).order) for s in range(12)}
    assert len(orders) > 1
    q = instantiate(it, 4)
    for pos, index in enumerate(q.order):
        assert q.index_of_letter("ABCD"[pos]) == index
    assert to_response(q, [q.letter(0), q.letter(1)]) == frozenset({0, 1})
    assert to_response(q, f"{q.letter(1)}, {q.letter(0)}") == frozenset({0, 1})
    assert to_response(q, q.letter(0) + q.letter(1)) == frozenset({0, 1})
    with pytest.raises(ValueError):
        to_response(q, "Z")
    assert key_text(q).count(";") == 1


def test_draw_is_deterministic_and_covers_pool(banks):
    lesson = banks["m9-l1"]
    first = [q.id for q in build_quiz(lesson, pool(lesson, banks), 11)]
    assert first == [q.id for q in build_quiz(lesson, pool(lesson, banks), 11)]
    assert len(first) == 3 and len(set(first)) == 3
    seen = {i.id for s in range(40) for i in draw(lesson.items, 3, s, lesson.id)}
    assert seen == {i.id for i in lesson.items}
    mt = banks["m9-module-test"]
    mt_pool = pool(mt, banks)
    assert len(mt_pool) == 25 and {i.id for i in lesson.items} <= {i.id for i in mt_pool}
    assert len(build_quiz(mt, mt_pool, 1)) == 15


def test_render_errors_name_the_placeholder():
    assert render("{x:,.0f} GB", {"x": 1234.5}) == "1,234 GB"
    with pytest.raises(ItemError, match=r"placeholder \{y\} in the stem"):
        render("{y}", {"x": 1}, what="stem")
