"""Every module's question banks, one rule for all six (issue 41 folded the per-module copies of it):
a lesson quiz per lesson of the outline and a module test named mN-test (15 questions from a pool of at
least 25, pass at 80%); each lesson quiz shows at least 3 of at least 6 items; every item's id names its
module and every item cites a source and explains its answer. Each module's own numbers are tested in
tests/content/m<N>/test_m<N>_banks.py."""
from __future__ import annotations

import pytest

from coursekit.outline import load_outline
from coursekit.quiz.bank import load_all_banks, pool
from paths import ROOT

BANKS = load_all_banks(ROOT / "quizzes")
OUTLINE = {m.id: m for m in load_outline(ROOT)}
MODULES = sorted({b.module for b in BANKS.values() if b.module in OUTLINE})


def test_every_module_of_the_outline_has_banks():
    assert MODULES == sorted(OUTLINE) and len(MODULES) >= 6, (MODULES, sorted(OUTLINE))


@pytest.mark.parametrize("module", MODULES)
def test_a_lesson_quiz_per_lesson_and_a_module_test(module):
    banks = {k: b for k, b in BANKS.items() if b.module == module}
    lessons = [lesson.number for lesson in OUTLINE[module].lessons]
    assert sorted(k for k, b in banks.items() if b.kind == "lesson-quiz") == [f"{module}-l{n}" for n in lessons]
    tests = [b for b in banks.values() if b.kind == "module-test"]
    assert [b.id for b in tests] == [f"{module}-test"]
    assert (tests[0].show, tests[0].pass_mark) == (15, 0.8)
    assert len(pool(tests[0], BANKS)) >= 25


@pytest.mark.parametrize("bank_id", sorted(k for k, b in BANKS.items() if b.module in MODULES))
def test_each_bank_has_enough_items_that_cite_and_explain(bank_id):
    bank = BANKS[bank_id]
    if bank.kind == "lesson-quiz":
        assert bank.show >= 3 and len(bank.items) >= 6
    for item in bank.items:
        assert item.id.startswith(f"{bank.module}-") and item.source and item.explanation, item.id


def test_the_first_module_test_answers_to_its_former_id():
    """m1-test was m1-module-test (the one module test not named mN-test): graded quizzes released and
    attempts recorded under the old id still find it."""
    from coursekit.quiz.bank import resolve_bank

    assert BANKS["m1-test"].formerly == ("m1-module-test",) and "m1-module-test" not in BANKS
    assert resolve_bank(BANKS, "m1-module-test") is BANKS["m1-test"]
