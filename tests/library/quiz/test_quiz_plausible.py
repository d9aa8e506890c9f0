"""Every numeric variant of every quiz item keys a plausible answer (coursekit.quiz.selftest.implausible):
positive and finite, and an MFU strictly between 0 and 100%. Swept over many seeds, so a parameter
combination that only some learners draw (m2-l1-mfu once keyed 400%) cannot hide."""
from __future__ import annotations

import pytest

from coursekit.quiz.bank import load_all_banks, read_bank
from coursekit.quiz.engine import instantiate
from coursekit.quiz.selftest import check_item, implausible
from paths import ROOT

BANKS = load_all_banks(ROOT / "quizzes")
NUMERIC = [i for b in BANKS.values() for i in b.items if i.type in ("numeric", "param")]


@pytest.mark.parametrize("bank_id", sorted(BANKS))
def test_every_variant_is_plausible(bank_id):
    problems = []
    for item in BANKS[bank_id].items:
        if item.type not in ("numeric", "param"):
            continue
        for seed in range(48 if item.type == "param" else 1):
            problems += [f"{item.id} seed {seed}: {m}" for m in implausible(instantiate(item, seed))]
    assert not problems, "\n".join(problems[:10])


def test_the_check_catches_an_impossible_mfu_and_a_negative_time(tmp_path):
    bank = tmp_path / "m9-l1.yaml"
    bank.write_text("""id: m9-l1
title: Bad numbers
module: m9
kind: lesson-quiz
show: 1
items:
  - id: m9-l1-mfu
    type: param
    stem: "A {n}B model, {h} GPU-hours: MFU in percent?"
    params:
      n: {choices: [7, 70]}
      h: {choices: [1000, 2000]}
    answer: {fn: "coursekit.calc.training_run:mfu_from_gpu_hours", args: {n_params: "{n}e9", n_tokens: 2.0e12, gpu_hours: "{h}", peak_flops: 312.0e12}, scale: 100}
    tolerance: {rel: 0.02}
    units: "%"
    feedback: {correct: "Right.", incorrect: "No."}
    explanation: "x"
    source: y
  - id: m9-l1-days
    type: numeric
    stem: "How many days?"
    answer: {fn: "coursekit.calc.training_run:training_days", args: {n_params: 7.0e9, n_tokens: -1.0e12, n_gpus: 8, peak_flops: 1.0e15, mfu: 0.4}}
    tolerance: {rel: 0.02}
    units: days
    feedback: {correct: "Right.", incorrect: "No."}
    explanation: "x"
    source: y
""")
    loaded, problems = read_bank(bank)
    assert loaded is not None, problems
    assert all("at least" in p.message for p in problems), problems   # only: a two-item fixture is a small pool
    by_id = {i.id: i for i in loaded.items}
    assert any("not between 0 and 100% of peak" in m for m in check_item(by_id["m9-l1-mfu"]))
    assert any("not a positive number" in m and "Fix: check the answer's fn" in m for m in check_item(by_id["m9-l1-days"]))
