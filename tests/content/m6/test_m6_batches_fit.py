"""Every batch Module 6 prints, asks about or keys fits on the deployment it names (the rule Module 3's review set,
tests/content/m3/test_m3_lessons.py, extended here to Module 6's lessons, exercises and banks).

The serving functions that take a batch and a deployment are wrapped with recorders; the lessons' code cells run
(figures off screen), every exercise's values are evaluated again and every bank item is drawn for 40 seeds. Each recorded batch must fit beside the weights (and, for speculation, beside
both models' weights with both caches) in 90% of the named chips' memory.
"""
from __future__ import annotations

import pytest

from coursekit.calc import memory, serving
from coursekit.exercises import all_exercises
from coursekit.exercises.bank import evaluate
from coursekit.quiz.engine import instantiate
from bank_items import BANKS
from lesson_text import Lessons

M6 = Lessons("m6-serving-systems")
LESSONS = ["01-anatomy-of-a-serving-engine", "02-paged-kv-memory", "03-scheduling", "04-the-whole-system"]


@pytest.fixture
def asked(monkeypatch):
    """Record (where, batch, what fits) for each call of a serving function that takes a batch on a deployment."""
    calls: list[tuple[str, int, int]] = []
    step, spec, mfu = serving.step_seconds, serving.speculative_speedup_in_batch, serving.decode_mfu

    def step_rec(model, chip, batch, context, tokens_per_seq=1, n_chips=1, bytes_per_element=2):
        calls.append((f"step_seconds({model}, {n_chips} x {chip})", batch,
                      memory.users_per_replica(model, chip, context, n_chips, bytes_per_element)))
        return step(model, chip, batch, context, tokens_per_seq, n_chips, bytes_per_element)

    def spec_rec(model, draft, chip, batch, context, a, k, n_chips=1):
        calls.append((f"speculation({model} + {draft}, {n_chips} x {chip})", batch,
                      serving.speculative_sessions_that_fit(model, draft, chip, context, n_chips)))
        return spec(model, draft, chip, batch, context, a, k, n_chips)

    def mfu_rec(model, chip, batch, context, bytes_per_element=2):
        calls.append((f"decode_mfu({model}, {chip})", batch,
                      memory.users_per_replica(model, chip, context, 1, bytes_per_element)))
        return mfu(model, chip, batch, context, bytes_per_element)

    monkeypatch.setattr(serving, "step_seconds", step_rec)
    monkeypatch.setattr(serving, "speculative_speedup_in_batch", spec_rec)
    monkeypatch.setattr(serving, "decode_mfu", mfu_rec)
    return calls


def _too_big(calls):
    return [c for c in calls if c[1] > c[2]]


def test_lesson4_prints_no_batch_that_does_not_fit(asked):
    import matplotlib

    matplotlib.use("Agg")
    scope: dict = {}
    for cell in M6.nb(LESSONS[3]).cells:
        if cell.cell_type == "code" and "exercise(" not in cell.source and "show_quiz" not in cell.source:
            exec(cell.source.replace("from coursekit.figures import REFERENCE, show_figure",
                                     "from coursekit.figures import REFERENCE\nshow_figure = lambda fig, alt: None"), scope)
    assert any("speculation" in c[0] for c in asked), "Lesson 4 no longer computes speculation at a batch"
    assert not _too_big(asked), _too_big(asked)


def test_lesson3_utilization_batches_fit(monkeypatch):
    """Lesson 3's errata cell prints decode MFU at batches 16, 64 and 256 of its model on one H100."""
    from coursekit.calc import roofline

    seen, real = [], roofline.decode_step
    monkeypatch.setattr(roofline, "decode_step", lambda model, batch, context, *a, **kw: (
        seen.append((model, batch, context)) or real(model, batch, context, *a, **kw)))
    cells = [c.source for c in M6.nb(LESSONS[2]).cells if c.cell_type == "code"]
    scope: dict = {}
    exec(cells[0], scope)
    exec(next(c for c in cells if "roofline.decode_step" in c), scope)
    assert [b for _, b, _ in seen] == [16, 64, 256]
    assert all(b <= memory.users_per_replica(m, scope["CHIP"], ctx, 1) for m, b, ctx in seen), seen


def test_exercises_ask_about_no_batch_that_does_not_fit(asked):
    m6 = {i: ex for i, ex in all_exercises().items() if i.startswith("m6-")}
    assert len(m6) == 12
    for ex in m6.values():
        evaluate(ex.expressions, ex.id)
    assert any("speculation" in c[0] for c in asked)
    assert not _too_big(asked), _too_big(asked)


def test_banks_key_no_batch_that_does_not_fit(asked):
    items = [i for name, b in BANKS.items() if name.startswith("m6-") for i in b.items]
    assert items
    for item in items:
        for seed in range(40 if item.params else 1):      # 40 draws reach every combination of these few choices
            instantiate(item, seed=seed)
    assert any("speculation" in c[0] for c in asked)
    assert not _too_big(asked), _too_big(asked)


def test_speculation_refuses_a_batch_that_does_not_fit():
    """The pair the course uses: 151 GB of BF16 weights do not fit on two H100s (144 GB usable)."""
    h100 = "NVIDIA H100 SXM"
    weights = memory.model_weight_bytes("Llama 2 70B", 2) + memory.model_weight_bytes("Llama 2 7B", 2)
    assert round(weights / 1e9) == 151 and weights > 2 * 80e9 * 0.9
    assert serving.speculative_sessions_that_fit("Llama 2 70B", "Llama 2 7B", h100, 1024, 2) == 0
    assert memory.users_per_replica("Llama 2 70B", h100, 1024, 2) == 18
    fits = serving.speculative_sessions_that_fit("Llama 2 70B", "Llama 2 7B", h100, 1024, 8)
    assert fits == 486
    serving.speculative_speedup_in_batch("Llama 2 70B", "Llama 2 7B", h100, fits, 1024, 0.8, 4, 8)
    with pytest.raises(ValueError, match="do not fit"):
        serving.speculative_speedup_in_batch("Llama 2 70B", "Llama 2 7B", h100, fits + 1, 1024, 0.8, 4, 8)
    with pytest.raises(ValueError, match="do not fit"):
        serving.speculative_speedup_in_batch("Llama 2 70B", "Llama 2 7B", h100, 1, 1024, 0.8, 4, 2)
