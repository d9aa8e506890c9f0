"""How long `autograder validate LAB` takes for each course lab, against running its solution notebook
once (the plain alternative an author would do by hand: Restart and Run All), measured in the same run.

    .venv/bin/python benchmarks/bench_validate.py [--seeds 20] [LAB ...]

Prints one row per lab: validate's total and its parts (spec checks over the seeds, generate into a
temporary folder, the solution notebook run whole with nbclient on the CPU in quick mode, and grading in
the sandbox: the solution for two students, the student version, each listed wrong answer), the problems
found, and total / notebook run.
"""
from __future__ import annotations

import argparse
import os
import time

from autograder.course import Course, ensure_alembic_on_path
from autograder.author.validate import validate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    ensure_alembic_on_path()
    course = Course.find()
    os.environ["COURSE_ROOT"] = str(course.root)
    print(f"seeds {args.seeds}, load average before {os.getloadavg()[0]:.1f}")
    print(f"{'lab':16} {'total s':>8} {'spec':>6} {'generate':>9} {'run':>6} {'grading':>8} {'problems':>9} "
          f"{'total / run':>12} {'load':>5}")
    for lab in args.labs or course.lab_ids():
        start = time.perf_counter()
        report = validate(course, lab, seeds=args.seeds)
        total = time.perf_counter() - start
        n = report.numbers
        print(f"{lab:16} {total:8.1f} {n.get('spec', 0):6.1f} {n.get('generate', 0):9.1f} "
              f"{n.get('solution run', 0):6.1f} {n.get('grading', 0):8.1f} {len(report.problems):9d} "
              f"{total / n['solution run']:11.1f}x {os.getloadavg()[0]:5.1f}", flush=True)


if __name__ == "__main__":
    main()
