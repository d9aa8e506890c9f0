"""`course quiz ...` and `course progress`: register(subparsers) adds them to the course command.

    course quiz check [--root quizzes]
    course quiz release BANK --course-dir DIR [--assignment NAME] --students alice,bob
    course quiz grade ASSIGNMENT --course-dir DIR
    course quiz analytics ASSIGNMENT --course-dir DIR [--plot items.png]
    course progress [--json]

Graded commands need COURSE_GRADING_SECRET (the instructor secret the lab autograder also uses).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .bank import BankError


def cmd_check(args: argparse.Namespace) -> int:
    from .bank import bank_files, resolve_root
    from .selftest import check_banks

    problems = check_banks(args.root)
    files = bank_files(args.root)
    for p in problems:
        print(p)
    items = 0
    if not problems:
        from .bank import load_all_banks

        items = sum(len(b.items) for b in load_all_banks(args.root).values())
    print(f"{len(files)} bank files under {resolve_root(args.root)}: "
          + (f"{len(problems)} problem(s)" if problems else f"all {items} items pass their self-test"),
          file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0


def _students(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in names if not s.replace("-", "").replace("_", "").replace(".", "").isalnum()]
    if bad:
        raise ValueError(f"student ids must be letters, digits, '-', '_' or '.': {bad}")
    return names


def cmd_release(args: argparse.Namespace) -> int:
    from . import graded

    assignment = args.assignment or args.bank
    source = graded.write_source(args.bank, args.course_dir, assignment, root=args.root)
    print(f"wrote nbgrader source {source}")
    graded.generate(args.course_dir, assignment)
    print(f"nbgrader generate_assignment {assignment}: done")
    if args.students:
        for path in graded.personalize(args.course_dir, assignment, _students(args.students), root=args.root):
            print(f"personalized {path}")
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    from . import graded

    graded.grading_secret()  # fail before nbgrader runs every notebook without it
    # --force: nbgrader skips a submission it graded before unless its timestamp is newer, so a copy
    # accepted by hand, a corrected bank or the right secret after a wrong one would keep the old score.
    done = graded._nbgrader(args.course_dir, "autograde", args.assignment, "--force")
    print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "autograde done")
    records = graded.graded_responses(args.course_dir, args.assignment, root=args.root)
    per_student: dict[str, list[bool]] = {}
    for r in records:
        per_student.setdefault(r["student"], []).append(r["correct"])
    for student, marks in sorted(per_student.items()):
        print(f"{student:<20} {sum(marks)}/{len(marks)}")
    return 0


def cmd_analytics(args: argparse.Namespace) -> int:
    from . import analytics, graded

    records = graded.graded_responses(args.course_dir, args.assignment, root=args.root)
    if not records:
        print(f"no autograded submissions for {args.assignment} under {args.course_dir}/autograded", file=sys.stderr)
        return 1
    stats = analytics.item_stats(records)
    print(analytics.report(stats, students=len({r["student"] for r in records})))
    if args.plot:
        print(f"plot saved to {analytics.plot(stats, args.plot)}")
    return 0


def cmd_progress(args: argparse.Namespace) -> int:
    from .. import progress

    if args.json:
        print(json.dumps(progress.summary(), indent=1))
    else:
        print(progress.format_summary())
    return 0


def _guard(handler):
    """Turn expected failures (broken bank, missing secret, nbgrader error) into a message and exit 1."""
    def run(args: argparse.Namespace) -> int:
        from .graded import GradingError

        try:
            return handler(args)
        except (BankError, GradingError, ValueError, OSError) as exc:
            print(f"course {getattr(args, 'command', 'quiz')}: {exc}", file=sys.stderr)
            return 1
    return run


def register(subparsers) -> None:
    """Add `quiz` (check, release, grade, analytics) and `progress` to an argparse subparsers object."""
    quiz = subparsers.add_parser("quiz", help="check question banks; release, grade and analyse graded quizzes")
    sub = quiz.add_subparsers(dest="quiz_command", required=True)

    def add(name, handler, help_text):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--root", default="quizzes", help="folder holding the banks (default: the course's quizzes/)")
        p.set_defaults(handler=_guard(handler))
        return p

    add("check", cmd_check, "validate and self-test every bank; list each problem with file and item id")
    p = add("release", cmd_release, "turn a bank into an nbgrader assignment, one notebook per student")
    p.add_argument("bank", help="bank id, e.g. m1-l1 or m1-module-test")
    p.add_argument("--course-dir", type=Path, required=True, help="nbgrader course directory")
    p.add_argument("--assignment", help="assignment name (default: the bank id)")
    p.add_argument("--students", default="", help="comma-separated student ids to personalize for")
    p = add("grade", cmd_grade, "run nbgrader autograde and print each student's score")
    p.add_argument("assignment")
    p.add_argument("--course-dir", type=Path, required=True)
    p = add("analytics", cmd_analytics, "item analytics over autograded submissions")
    p.add_argument("assignment")
    p.add_argument("--course-dir", type=Path, required=True)
    p.add_argument("--plot", type=Path, help="save a PNG of proportion correct and discrimination per item")

    p = subparsers.add_parser("progress", help="per-module summary of quizzes, module tests and labs")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=cmd_progress)
