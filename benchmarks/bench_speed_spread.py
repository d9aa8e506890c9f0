"""The grader's own spread on Lab 6's speed ratio: the course's solution notebook timed against the
reference engine N times in a row (autograder/judge/speed.py, as grading runs it), on this machine as
it is (the shared 2-core box is loaded by other work: that is the point). Prints each run's per-pair
ratios, median and spread (IQR / median), then the spread of the medians across runs, from which
SpeedSpec's spread_limit and floor are set (benchmarks/RESULTS.md, "Lab 6 speed grading").

    .venv/bin/python benchmarks/bench_speed_spread.py [--runs 10] [--task test_batching]
"""
from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

from autograder.judge import speed
from autograder.judge.engine import GradingPool, analyse
from autograder.sandbox.child import unavailable
from autograder.sandbox.policy import Limits
from autograder.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--task", default="test_batching")
    args = parser.parse_args()
    spec = load_spec("lab6-serving")
    spec = replace(spec, speed=replace(spec.speed, max_rounds=1,
                                       milestones={args.task: spec.speed.milestones[args.task]}))
    notebook = ROOT / "solutions" / "lab6-serving" / "lab6-serving.ipynb"
    cells, _, _ = analyse(notebook, spec, 60)
    medians = []
    with GradingPool(1, Limits(isolate=unavailable() is None)) as pool:
        for run in range(args.runs):
            start = time.perf_counter()
            # the same draw every run: identical runs, so any difference is the grader's own noise
            measured = speed.measure(pool, notebook, spec, cells, b"spread-secret", "same", {args.task})[args.task]
            medians.append(measured["ratio"])
            print(f"run {run + 1}: pairs {measured['pairs']} median {measured['ratio']:.3f} spread "
                  f"{measured['spread']:.3f} learner {measured['learner_s']:.3f} s reference "
                  f"{measured['reference_s']:.3f} s ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"{args.task}, {args.runs} runs: median of medians {statistics.median(medians):.3f}, "
          f"min {min(medians):.3f}, max {max(medians):.3f}, spread of medians {speed.spread(medians):.3f}")


if __name__ == "__main__":
    main()
