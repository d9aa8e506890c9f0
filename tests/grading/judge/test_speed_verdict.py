"""Lab 6's speed verdict (autograder/judge/speed.py): noise may delay a verdict, never decide it (issue 51).
Synthetic measurements, so each rule is checked exactly, whatever the machine."""
from __future__ import annotations

import pytest

from autograder.judge.speed import SpeedSpec, judged, spread, undecidable_flags, verdict

SPEC = SpeedSpec(milestones={}, workload=lambda rng, m: None, reference_cells="", floor=0.25, spread_limit=0.25)


def measured(*pairs: float) -> dict:
    import statistics

    return {"ratio": statistics.median(pairs), "pairs": list(pairs), "spread": spread(list(pairs)),
            "rounds": 3, "noisy": spread(list(pairs)) > SPEC.spread_limit}


@pytest.mark.parametrize("pairs, said", [
    ((1.0, 1.05, 0.95), "pass"),                       # the honest engine, steady
    ((0.4, 1.6, 0.3, 2.0, 0.9, 0.5), "pass"),          # busy machine, scattered, median well above the floor
    ((0.20, 0.21, 0.19), "fail"),                      # steady and under the floor
    ((0.02, 0.5, 0.01, 0.03, 0.02, 0.9), "fail"),      # the memoizing engine: noisy, median 0.025, far below
    ((0.05, 0.12, 0.08, 0.10, 0.06, 0.22), "fail"),    # noisy, but even the upper quartile is under the floor
    ((0.14, 0.40, 0.15, 0.60, 0.18, 0.20), "undecidable"),   # noisy, median 0.19, upper quartile 0.35
])
def test_the_verdict(pairs, said):
    m = measured(*pairs)
    assert verdict(m, SPEC) == said, m


def test_a_noisy_run_far_under_the_floor_fails_and_an_undecidable_one_fails_with_a_flag():
    slow = measured(0.02, 0.5, 0.01, 0.03, 0.02, 0.9)
    assert slow["noisy"]                               # before issue 51 this passed: noisy runs were not judged
    assert judged({"t": slow}, SPEC)["t"].startswith("too slow: 0.03x")
    unsure = measured(0.14, 0.40, 0.15, 0.60, 0.18, 0.20)
    assert judged({"t": unsure}, SPEC)["t"].startswith("speed undecidable")
    assert undecidable_flags({"t": unsure, "u": slow}, SPEC) == [
        "speed undecidable for t: a noisy run (0.19x, spread 1.01) under the 0.25x floor; "
        "grade it again on a quieter machine"]
    assert judged({"t": measured(1.0, 1.1, 0.9)}, SPEC) == {}
    assert judged({"t": {"error": "wrong output while timed"}}, SPEC)["t"].startswith("speed run failed")
