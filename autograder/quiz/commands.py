"""`autograder quiz release|grade|analytics`: the graded-quiz commands (registered by autograder/cli.py).

    autograder quiz release BANK [--assignment NAME] [--banks DIR] [--students a,b]
    autograder quiz grade ASSIGNMENT [--student S] [--regrade] [--retry-failed] [--post-to-lms]
    autograder quiz analytics ASSIGNMENT [--plot items.png]
"""
from __future__ import annotations

import sys
from pathlib import Path

from autograder.course import Course, check_id


def _students(text: str) -> list[str]:
    return [check_id("student id", s.strip()) for s in text.split(",") if s.strip()]


def cmd_release(args, course: Course) -> int:
    from autograder.release.generate import generate
    from autograder.judge.secrets import load_secret
    from autograder.quiz.assignment import personalize, write_source

    assignment = check_id("assignment", args.assignment or args.bank)
    students = _students(args.students)
    secret = load_secret().decode() if students else ""
    source = write_source(course, args.bank, assignment, args.banks)
    print(f"wrote nbgrader source {source.relative_to(course.root)}")
    for path in generate(course, assignment):
        print(f"generated {path.relative_to(course.root)}")
    for path in personalize(course, assignment, students, secret) if students else []:
        print(f"personalized {path.relative_to(course.root)}")
    return 0


def grade_and_summarize(args, course: Course, assignment: str) -> int:
    """Grade one quiz and print the same summary as a lab (also used by `autograder grade QUIZ`)."""
    from autograder.batch.report import summary_table
    from autograder.judge.secrets import load_secret
    from autograder.record.status import current_rows
    from autograder.record.store import Store
    from autograder.quiz.grade import grade_quiz

    report = grade_quiz(course, assignment, secret=load_secret(), student=args.student, regrade=args.regrade,
                        retry_failed=args.retry_failed, progress=not getattr(args, "no_progress", False))
    with Store(course.results_db) as store:
        rows = current_rows(course, store, assignment)
    if args.student:
        rows = [r for r in rows if r.student_id == args.student]
    print(summary_table(report, rows))
    return 1 if report.errors or report.unpublished else 0


def cmd_grade(args, course: Course) -> int:
    if args.assignment not in course.quiz_ids():
        raise ValueError(f"no graded quiz {args.assignment!r} in {course.solutions} "
                         f"(quizzes: {', '.join(course.quiz_ids()) or 'none'}; `autograder quiz release` makes one)")
    return grade_and_summarize(args, course, args.assignment)     # --post-to-lms: autograder/cli.py's main


def cmd_analytics(args, course: Course) -> int:
    from autograder.judge.secrets import load_secret
    from autograder.quiz.analytics import graded_responses, item_stats, plot, report

    records = graded_responses(course, args.assignment, load_secret(create=False))
    if not records:
        print(f"no graded submissions for {args.assignment} (run `autograder quiz grade {args.assignment}`)",
              file=sys.stderr)
        return 1
    stats = item_stats(records)
    print(report(stats, students=len({r["student"] for r in records})))
    if args.plot:
        print(f"plot saved to {plot(stats, args.plot)}")
    return 0


def register(sub) -> None:
    quiz = sub.add_parser("quiz", help="graded quizzes: release a bank, grade it like a lab, item analytics")
    commands = quiz.add_subparsers(dest="quiz_command", required=True)
    p = commands.add_parser("release", help="a bank as an nbgrader assignment, one notebook per student")
    p.add_argument("bank", help="bank id, e.g. m1-test (a former id works too)")
    p.add_argument("--assignment", help="assignment name (default: the bank id)")
    p.add_argument("--banks", default="quizzes", help="folder holding the banks (default: the course's quizzes/)")
    p.add_argument("--students", default="", help="comma-separated student ids to personalize for")
    p.set_defaults(handler=cmd_release)
    p = commands.add_parser("grade", help="score the answers as data in this process; resumable")
    p.add_argument("assignment")
    p.add_argument("--student", help="grade only this student")
    p.add_argument("--regrade", action="store_true", help="grade again even if a current result exists")
    p.add_argument("--retry-failed", action="store_true", help="grade again the submissions that failed")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--post-to-lms", action="store_true",
                   help="then post the scores to the LMS (`autograder lms post ASSIGNMENT`, docs/LMS.md)")
    p.set_defaults(handler=cmd_grade)
    p = commands.add_parser("analytics", help="item analytics over the graded submissions")
    p.add_argument("assignment")
    p.add_argument("--plot", type=Path, help="save a PNG of proportion correct and discrimination per item")
    p.set_defaults(handler=cmd_analytics)
