"""Grade passback time: `autograder lms post` of N scores to the emulated LMS (tests/lms_emulator.py) on loopback.

    .venv/bin/python benchmarks/bench_lms_passback.py [--students 100] [--repeat 3]

A throwaway course of the pipeline's toy lab, its gradebook and results store filled the way `autograder
grade` fills them (GradebookWriter, Store rows for the submitted notebooks; no student code is run: this
times the passback, not grading). Each repeat, on a fresh LMS: the first run (token, roster, line item,
N scores), the second (nothing changed: nothing sent), and a run where the LMS answers 500 to one score
in ten followed by the run that finishes the job. Wall seconds of `post()` in this process (the CLI's
Python start-up, about a second, is not in them).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def build_course(folder: Path, students: int) -> Path:
    import nbformat
    from pipeline_course import LAB, NB, generate_course

    from autograder.course import Course
    from autograder.record.gradebook import GradebookWriter
    from autograder.record.store import Row, Store
    from autograder.submitted import submission_hash

    root = generate_course(folder)
    course = Course(root)
    spec = course.spec(LAB)
    template = nbformat.read(root / "labs" / LAB / NB, as_version=4)
    with Store(course.results_db) as store, GradebookWriter(course, spec) as writer:
        for i in range(students):
            student = f"st{i:03d}"
            path = root / "submitted" / student / LAB / NB
            path.parent.mkdir(parents=True)
            template.metadata["bench"] = student           # a distinct notebook (hash) per student
            nbformat.write(template, path)
            tasks = [{"grade_id": t.grade_id, "points": t.points * ((i + k) % 3) / 2} for k, t in enumerate(spec.tasks)]
            result = {"student_id": student, "status": "graded", "tasks": tasks}
            writer.record(result)
            score = sum(t["points"] for t in tasks)
            sub = next(s for s in course.submissions(LAB, student))
            store.put(Row(LAB, student, submission_hash(course, sub), "bench", "graded", score, spec.total_points, None, result))
    return root


def one_round(root: Path, students: int) -> dict:
    from lms_emulator import EmulatedLMS
    from pipeline_course import LAB

    from autograder.course import Course
    from autograder.lms.passback import post
    from coursekit.app.lti import keys
    from coursekit.app.lti.platform import load_platform

    course = Course(root)
    key_file = root / "lti" / "tool-keys.json"
    keys.ensure(key_file)
    (course.state / "lms.sqlite").unlink(missing_ok=True)
    lms = EmulatedLMS(tool_jwks=lambda: keys.public_jwks(keys.load(key_file))).start()
    try:
        for i in range(students):
            lms.enrol(f"st{i:03d}")
        settings = root / "lti" / "platform.json"
        settings.write_text(json.dumps(lms.platform_settings(timeout_s=10)))
        platform = load_platform(settings)
        times = {}
        for name in ("first", "again", "with 500s", "resume"):
            if name == "with 500s":     # a fresh ledger: every score goes again, one in ten refused
                (course.state / "lms.sqlite").unlink()
                for k in range(0, students, 10):
                    lms.fail("scores", 500, times=1, after=k)
            start = time.perf_counter()
            report = post(course, platform, key_file, LAB)
            times[name] = (time.perf_counter() - start, report.count("posted"), report.count("unchanged"), report.failed)
        assert times["first"][1] == students and times["again"][2] == students, times
        assert sum(v[1] for k, v in times.items() if k in ("with 500s", "resume")) == students, times
        return times
    finally:
        lms.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-lms-"))
    try:
        root = build_course(folder, args.students)
        rounds = [one_round(root, args.students) for _ in range(args.repeat)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"| run ({args.students} students, {args.repeat} repeats) | median s | min s | max s | posted | unchanged | failed |")
    print("|---|---|---|---|---|---|---|")
    for name in rounds[0]:
        seconds = [r[name][0] for r in rounds]
        _, posted, unchanged, failed = rounds[-1][name]
        print(f"| {name} | {statistics.median(seconds):.2f} | {min(seconds):.2f} | {max(seconds):.2f} | {posted} | "
              f"{unchanged} | {failed} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
