"""Lab 6 through the real engine: patching the clock, the harness or the reference, reporting made-up
tokens, memoizing across repeats, forwarding the work to a forked server or sleeping gains nothing. Only milestone 2 is timed here (the grader times
every passing milestone the same way); verdicts are asserted, never times."""
from __future__ import annotations

from dataclasses import replace

import pytest

from autograder.judge.engine import GradingPool
from autograder.sandbox.child import unavailable
from autograder.sandbox.policy import Limits
from autograder.spec import load_spec

from lab6_variants import VARIANTS, build

CHEATS_ON_SPEED = ("slow", "clock", "reference", "memoize")     # right tokens, slow engine, a trick to look fast
CHEATS_ON_TOKENS = ("harness", "fake_tokens")                     # a trick to skip the work


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab6-adversarial")
    spec = load_spec("lab6-serving")
    spec = replace(spec, speed=replace(spec.speed, milestones={"test_batching": 2}))
    with GradingPool(2, Limits(isolate=unavailable() is None)) as pool:
        futures = {name: pool.submit(build(name, folder), spec, student_id=name, secret=b"lab6-adversarial")
                   for name in VARIANTS}
        return {name: future.result() for name, future in futures.items()}


def _task(result, grade_id="test_batching"):
    return next(t for t in result.tasks if t.grade_id == grade_id)


@pytest.mark.slow
def test_the_honest_engine_passes_and_its_speed_is_recorded(graded):
    result = graded["honest"]
    assert result.status == "graded" and result.score == result.max_score, [t.message for t in result.tasks]
    measured = result.speed["test_batching"]
    assert measured["ratio"] >= load_spec("lab6-serving").speed.floor and len(measured["pairs"]) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("name", CHEATS_ON_SPEED)
def test_a_slow_engine_stays_slow_whatever_it_patches(graded, name):
    result = graded[name]
    task = _task(result)
    assert not task.passed and "too slow" in task.message, task.message
    assert result.speed["test_batching"]["ratio"] < load_spec("lab6-serving").speed.floor
    assert _task(result, "test_paged").passed      # the other milestones are untouched by the variant


@pytest.mark.slow
def test_a_timed_run_that_starts_a_process_fails_on_speed_and_is_flagged(graded):
    """A slow engine behind a forked server: the server's CPU seconds are not the timed child's, so the
    timed child is killed the moment it forks (autograder/sandbox/nofork.py)."""
    result = graded["fork_server"]
    task = _task(result)
    assert not task.passed and "started a process while timed" in task.message, task.message
    assert "ratio" not in result.speed["test_batching"]
    assert "fork: started a process in a timed run of test_batching (refused; the task fails on speed)" in result.flags
    assert _task(result, "test_paged").passed


@pytest.mark.slow
def test_an_engine_that_sleeps_while_timed_is_stopped_as_too_slow(graded):
    """Sleeping costs no CPU second; the timed run is stopped a few reference runs' wall-clock times in."""
    task = _task(graded["sleep"])
    assert not task.passed and "too slow: still running after" in task.message, task.message
    assert "times the reference run's" in task.message and _task(graded["sleep"], "test_paged").passed


@pytest.mark.slow
def test_clearing_the_pass_counters_gains_nothing_without_speculation(graded):
    """Milestone 4 rests on the tokens each step() returned, checked on the trusted side: an engine that
    clears the target model's pass counter and does not speculate fails there (it passed before)."""
    result = graded["clear_hooks"]
    task = _task(result, "test_speculative")
    assert not task.passed and "speculation must verify several drafted tokens" in task.message, task.message
    assert "at most 1 at a time" in task.message and result.score == result.max_score - task.max_points


def _record(returned, tokens, counters=None):
    return {"first_step": [0] * len(tokens), "error": None, "tokens": tokens, "peak_blocks": 0, "over_need": None,
            "final_blocks": 0, "steps": len(returned), "max_step_tokens": 0, "target_tokens": 0,
            "target_passes": 1, "draft_passes": 1, "returned": returned, "counters": counters}


def test_speculation_and_the_token_budget_are_judged_on_what_each_step_returned():
    from coursekit.checks.lab6_serving import serving_match

    one = [[5, 6, 7, 8]]
    want = {"tokens": one, "ties": [[-1] * 4], "num_blocks": 4, "limits": {"speculate": 4}, "token_budget": None}
    assert serving_match()(_record([[1, 1], [3, 3]], one), want) is None                     # 3 in one pass
    assert "4 steps returned the 4 new tokens" in serving_match()(_record([[1, 1]] * 4, one), want)
    assert "does not add up" in serving_match()(_record([[1, 1]], one), want)                 # a forged record
    assert "no per-step record" in serving_match()(_record([["1", 1]], one), want)
    two = [[5, 6], [7, 8]]
    budget = {"tokens": two, "ties": [[-1] * 2] * 2, "num_blocks": 4, "limits": {}, "token_budget": 1}
    assert "one step returned 2 tokens" in serving_match()(_record([[2, 1], [2, 1]], two), budget)
    assert serving_match()(_record([[1, 1]] * 4, two), budget) is None
    sharing = dict(budget, token_budget=None, limits={"max_target_tokens": 10})
    assert serving_match()(_record([[1, 1]] * 4, two), sharing) is None
    assert "count of the positions the model ran was removed (step 2)" in serving_match()(
        _record([[1, 1]] * 4, two, counters="step 2"), sharing)


def test_the_course_loop_notices_its_counters_removed_during_a_step():
    """Prefix sharing is measured by the hook alone: the loop records the step its counters went missing."""
    from autograder.spec import Case
    from coursekit.checks.lab6_serving import _PENDING, drive, prepare
    from coursekit.serving.engine import milestone_engine

    spec = load_spec("lab6-serving")
    case = next(c for c in spec.task("test_chunked").visible if "sharing" in c.name)
    (milestone, model, cache), kwargs = prepare(Case(case.name, case.args, case.kwargs))
    plan = _PENDING.pop()
    honest = drive(milestone_engine(3, model, None, num_blocks=plan.num_blocks, block_size=plan.block_size,
                                    token_budget=kwargs["token_budget"]), plan)
    assert honest["counters"] is None and honest["error"] is None

    class Clearing:
        def __init__(self, engine):
            self.engine = engine

        def __getattr__(self, name):
            return getattr(self.engine, name)

        def step(self):
            model.embed._forward_pre_hooks.clear()
            return self.engine.step()

    cleared = drive(Clearing(milestone_engine(3, model, None, num_blocks=plan.num_blocks, block_size=plan.block_size,
                                              token_budget=kwargs["token_budget"])), plan)
    assert cleared["counters"] == "step 0" and cleared["target_tokens"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", CHEATS_ON_TOKENS)
def test_skipping_the_work_fails_on_the_trusted_sides_tokens(graded, name):
    result = graded[name]
    task = _task(result)
    assert not task.passed and "token" in task.message, task.message
    assert "test_batching" not in result.speed           # a failing task is never timed
    if name == "harness":                                  # patching the course's loop is flagged for review
        assert "tamper: patches coursekit.checks.lab6_serving.drive" in result.flags, result.flags


@pytest.mark.slow
def test_a_decode_record_instead_of_an_engine_is_refused(graded):
    """Only the grader's own reference may hand in a decode record (Task.encode_reference); from the
    learner's make_engine it is refused whatever it holds, so no decoder of one's own skips the engine."""
    task = _task(graded["decode_record"])
    assert not task.passed and "not a decode record" in task.message, task.message
    assert _task(graded["decode_record"], "test_paged").passed


def test_the_learners_encode_refuses_a_decode_record_and_the_trusted_side_passes_its_own():
    from coursekit.checks.lab6_serving import TrustedDecode, encode, encode_trusted, serving_match

    record = TrustedDecode({"reference": True, "tokens": [[1, 2]], "ties": [[-1, -1]], "limits": {},
                            "num_blocks": 4, "token_budget": None})
    for handed_in in (record, dict(record.data)):
        with pytest.raises(TypeError, match="not a decode record"):
            encode(handed_in)
    data = encode_trusted(record)
    assert data == record.data and serving_match()(data, dict(data)) is None     # the reference's self-check
