"""`autograder`: the instructor's day on top of nbgrader (see docs/INSTRUCTORS.md).

    autograder new LAB --module M              a lab's starting point: solutions/LAB/ notebook + spec.py, in the outline
    autograder validate [LAB] [--seeds N]      before release: everything the lab gets wrong, one line each
    autograder generate [LAB]                  solutions/ -> labs/ (nbgrader generate_assignment)
    autograder collect SOURCE --lab LAB        folder or LMS zip -> submitted/<student>/<lab>/
    autograder grade [LAB] [--workers N]       sandboxed, parallel, resumable grading
                     [--cluster ADDRESS|local] ... on a Dask cluster (see autograder/batch/distributed.py)
    autograder feedback [LAB]                  per-student HTML into feedback/
    autograder export [--format csv|canvas]    grades as CSV or a Canvas gradebook import
    autograder report [LAB]                    distributions, failure reasons, flags, item analytics
    autograder status [LAB]                    graded / failed (reason) / pending per student
    autograder similarity LAB [--json FILE]    pairs of similar submissions, matches with reference code (HTML)
    autograder check NOTEBOOK                  alias of the student's `course check NOTEBOOK`
    autograder quiz release|grade|analytics    graded quizzes, judged here like labs (autograder/quiz/)
    autograder lms keys|post LAB [--dry-run]   grades back to the LMS through LTI 1.3 AGS (docs/LMS.md)
    autograder leaderboard LAB [--rerun N]     ranked by the grader's own speed measurements; table, JSON, page

feedback, export, report and status cover graded quizzes too; `grade QUIZ` grades one.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from autograder.course import Course, ensure_alembic_on_path
from autograder.record.feedback_html import fix_folder


def _labs(course: Course, lab: str | None, quizzes: bool = False) -> list[str]:
    labs = course.resolve_labs(lab, quizzes=quizzes)
    if not labs:
        raise ValueError(f"no labs in {course.solutions}")
    return labs


def cmd_new(args, course: Course) -> int:
    from autograder.author.new import new_lab

    for path in new_lab(course, args.lab, args.module, args.module_title):
        print(f"wrote {path}")
    if args.root:       # a private folder: the next commands need its --root too, and it has no start page
        root = f"--root {shlex.quote(str(course.root))} "
        print(f"next: edit them (docs/AUTHORING.md), then `autograder {root}validate {args.lab}` and "
              f"`autograder {root}generate {args.lab}`")
    else:
        print(f"next: edit them (docs/AUTHORING.md), then `autograder validate {args.lab}` and "
              f"`autograder generate {args.lab}`; then `python -m coursekit.index` lists it on the start page")
    return 0


def cmd_validate(args, course: Course) -> int:
    from autograder.author.validate import validate

    problems = 0
    for lab in _labs(course, args.lab):
        report = validate(course, lab, seeds=args.seeds, log=print)
        print(report.render())
        problems += len(report.problems)
    return 1 if problems else 0


def cmd_generate(args, course: Course) -> int:
    from autograder.release.generate import generate

    for lab in _labs(course, args.lab):
        for path in generate(course, lab):
            print(f"generated {path.relative_to(course.root)}")
    return 0


def cmd_collect(args, course: Course) -> int:
    from autograder.collect.intake import collect

    course.resolve_labs(args.lab)
    report = collect(course, Path(args.source), args.lab, roster_path=Path(args.roster) if args.roster else None,
                     max_bytes=int(args.max_mb * 2**20))
    print(report.render())
    return 1 if report.refused else 0


def cmd_grade(args, course: Course) -> int:
    from autograder.judge.engine import Limits
    from autograder.batch.lab import grade_lab
    from autograder.batch.report import sandbox_line, summary_table
    from autograder.judge.secrets import load_secret
    from autograder.record.status import current_rows
    from autograder.record.store import Store

    secret = load_secret()
    errors = 0
    limits = Limits(**{k: v for k, v in (("wall_s", args.wall_s), ("memory_mb", args.memory_mb)) if v is not None},
                    isolate=not args.unconfined)
    for lab in _labs(course, args.lab):
        if lab in course.quiz_ids():
            from autograder.quiz.commands import grade_and_summarize

            errors += grade_and_summarize(args, course, lab)
        else:
            report = grade_lab(course, lab, secret=secret, workers=args.workers, student=args.student,
                               regrade=args.regrade, retry_failed=args.retry_failed,
                               progress=not args.no_progress, limits=limits, cluster=args.cluster)
            with Store(course.results_db) as store:
                rows = current_rows(course, store, lab)
            if args.student:
                rows = [r for r in rows if r.student_id == args.student]
            print(summary_table(report, rows))
            print(sandbox_line(limits.isolate, report.graded))
            errors += len(report.errors) + len(report.unpublished)
        if args.post_to_lms:      # grades back to the LMS right away (autograder/lms/, docs/LMS.md)
            from autograder.lms.commands import post_after_grading

            errors += post_after_grading(course, lab)
    return 1 if errors else 0


def cmd_feedback(args, course: Course) -> int:
    from autograder.record.safe_html import command_line

    safe = command_line()       # what students wrote is cleaned even under an older copy of nbgrader_config.py
    problems = 0
    for lab in _labs(course, args.lab, quizzes=True):
        if course.nbgrader("generate_feedback", lab, "--force", *safe, check=False).returncode != 0:
            # nbgrader stops at the first notebook it cannot handle: make the rest one student at a
            # time, so one submission never costs everyone else their feedback
            for student, error in _feedback_per_student(course, lab, safe):
                print(f"{lab}: no feedback for {student}: {error}", file=sys.stderr)
                problems += 1
        made, refused = fix_folder(course.feedback, lab)   # lang, contrast, focusable boxes; no script left
        for line in refused:
            print(f"{lab}: {line}", file=sys.stderr)
        problems += len(refused)
        print(f"{lab}: {made} feedback file(s) in {course.feedback}")
    return 1 if problems else 0


def _feedback_per_student(course: Course, lab: str, options: list[str]) -> list[tuple[str, str]]:
    failed = []
    for graded in sorted(course.autograded.glob(f"*/{lab}/*.ipynb")):
        student = graded.parent.parent.name
        if student.startswith(".") or any((course.feedback / student / lab).glob("*.html")):
            continue
        done = course.nbgrader("generate_feedback", lab, "--student", student, "--force", *options, check=False)
        if done.returncode != 0:
            lines = [line for line in (done.stdout or "").splitlines() if line.strip()]
            failed.append((student, lines[-1][:300] if lines else f"nbgrader exited {done.returncode}"))
    return failed


def cmd_export(args, course: Course) -> int:
    from autograder.record.export import FORMATS, graded_only

    form = FORMATS[args.format]
    labs = _labs(course, args.lab, quizzes=True)
    if form.graded_only and args.lab is None:
        skipped, labs = labs, graded_only(course, labs)
        for lab in sorted(set(skipped) - set(labs)):
            print(f"note: {lab} has no graded submissions: no column for it", file=sys.stderr)
    logins = None
    if args.logins_from:
        from autograder.record.export import logins_from_roster

        try:
            logins = logins_from_roster(args.logins_from)
        except ValueError as error:
            print(f"autograder export: {error}", file=sys.stderr)
            return 2
    text, warnings = form.write(course, labs, dict(item.split("=", 1) for item in args.canvas_id), logins)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_report(args, course: Course) -> int:
    from autograder.record.report import report_lab

    for lab in _labs(course, args.lab, quizzes=True):
        text, _ = report_lab(course, lab, png=not args.no_png)
        print(text)
    return 0


def cmd_status(args, course: Course) -> int:
    from autograder.record.status import current, render
    from autograder.record.store import Store

    entries = []
    with Store(course.results_db) as store:
        for lab in _labs(course, args.lab, quizzes=True):
            entries += current(course, store, lab)
    print(render(entries))
    return 0


def cmd_similarity(args, course: Course) -> int:
    """A report to read, never a grade: writes an HTML page (and JSON on request), never the gradebook."""
    from autograder.similarity import page, report

    course.resolve_labs(args.lab)
    found = report.build(course, args.lab, threshold=args.threshold, min_tokens=args.min_tokens,
                         max_common=args.max_common, ref_threshold=args.ref_threshold)
    html = Path(args.html) if args.html else course.reports / f"{args.lab}-similarity.html"
    html.parent.mkdir(parents=True, exist_ok=True)
    html.write_text(page.render(found), encoding="utf-8")
    if args.json == "-":
        sys.stdout.write(report.as_json(found) + "\n")
    else:
        print(report.text(found))
        if args.json:
            Path(args.json).write_text(report.as_json(found), encoding="utf-8")
            print(f"json: {args.json}")
    print(f"html: {html}", file=sys.stderr if args.json == "-" else sys.stdout)
    return 0


def cmd_check(args, course: Course | None) -> int:
    """The instructor's alias of the student's `course check`: the same code, in coursekit."""
    from coursekit.checks.selfcheck import check_notebook

    return check_notebook(Path(args.notebook))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", help="course root (holding nbgrader_config.py); default: COURSE_ROOT or this repo")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("new", help="write a lab's starting point: solutions/LAB/LAB.ipynb and spec.py")
    p.add_argument("lab")
    p.add_argument("--module", required=True, help="the module the lab belongs to, e.g. m5 (course/outline.yaml)")
    p.add_argument("--module-title", help="a module not in the outline yet is added with this title")
    p.add_argument("--course-id", help="with --root, a new course folder's nbgrader course id (default: from "
                   "the folder's name)")
    p.set_defaults(handler=cmd_new)

    p = sub.add_parser("validate", help="before release: check a lab grades correctly (exit 1 on problems)")
    p.add_argument("lab", nargs="?")
    p.add_argument("--seeds", type=int, default=20, help="secrets to draw hidden cases from (default 20)")
    p.set_defaults(handler=cmd_validate)

    p = sub.add_parser("generate", help="generate student versions in labs/ from solutions/")
    p.add_argument("lab", nargs="?")
    p.set_defaults(handler=cmd_generate)

    p = sub.add_parser("collect", help="collect submissions from a folder or an LMS zip")
    p.add_argument("source")
    p.add_argument("--lab", required=True)
    p.add_argument("--roster", help="CSV with student_id and any of canvas_id, name, sis_user_id, sis_login_id, section")
    p.add_argument("--max-mb", type=float, default=20.0, help="refuse files larger than this (default 20)")
    p.set_defaults(handler=cmd_collect)

    p = sub.add_parser("grade", help="grade submissions in parallel, sandboxed; resumes where it stopped")
    p.add_argument("lab", nargs="?")
    p.add_argument("--workers", type=int, help="parallel workers (default: one per core)")
    p.add_argument("--cluster", metavar="ADDRESS", help="grade on a Dask cluster: its scheduler "
                   "(tcp://host:8786), or 'local' to start one here with --workers workers")
    p.add_argument("--student", help="grade only this student")
    p.add_argument("--regrade", action="store_true", help="grade again even if a current result exists")
    p.add_argument("--retry-failed", action="store_true", help="grade again the submissions that failed")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--wall-s", type=float, help="wall-clock limit per submission (engine default otherwise)")
    p.add_argument("--memory-mb", type=int, help="memory limit per submission")
    p.add_argument("--post-to-lms", action="store_true",
                   help="then post the scores to the LMS through LTI AGS, as `autograder lms post LAB` (docs/LMS.md)")
    p.add_argument("--unconfined", action="store_true",
                   help="grade even where student code cannot be confined (it then runs as you and can read "
                        "what you can read); refused without this flag")
    p.set_defaults(handler=cmd_grade)

    p = sub.add_parser("feedback", help="per-student HTML feedback (nbgrader generate_feedback)")
    p.add_argument("lab", nargs="?")
    p.set_defaults(handler=cmd_feedback)

    p = sub.add_parser("export", help="export grades as CSV or a Canvas gradebook CSV")
    p.add_argument("--lab")
    from autograder.record.export import FORMATS

    p.add_argument("--format", choices=sorted(FORMATS), default="csv",
                   help="; ".join(f"{name}: {form.help}" for name, form in FORMATS.items()))
    p.add_argument("--canvas-id", action="append", default=[], metavar="LAB=ID",
                   help="Canvas assignment id of a lab (repeatable)")
    p.add_argument("--logins-from", metavar="ROSTER.csv",
                   help="the hub's roster (username,role[,name]): its usernames fill Canvas's SIS Login ID "
                        "(default: class-roster.csv in the course folder, which `course hub` writes)")
    p.add_argument("-o", "--output")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("report", help="score distributions, failure reasons, flags and item analytics")
    p.add_argument("lab", nargs="?")
    p.add_argument("--no-png", action="store_true")
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("status", help="graded / failed with reason / pending, per student")
    p.add_argument("lab", nargs="?")
    p.set_defaults(handler=cmd_status)

    from autograder.similarity.report import MIN_TOKENS, REF_THRESHOLD, THRESHOLD

    p = sub.add_parser("similarity", help="similar submissions and pasted reference code: a report, never a grade")
    p.add_argument("lab")
    p.add_argument("--threshold", type=float, default=THRESHOLD,
                   help=f"list a pair when this share of one side's own code matches (default {THRESHOLD})")
    p.add_argument("--min-tokens", type=int, default=MIN_TOKENS,
                   help=f"and at least this many tokens match (default {MIN_TOKENS})")
    p.add_argument("--ref-threshold", type=float, default=REF_THRESHOLD,
                   help=f"list reference code when this share of it is in a submission (default {REF_THRESHOLD})")
    p.add_argument("--max-common", type=int, metavar="N",
                   help="ignore passages found in more than N submissions, as MOSS's -m (default: no limit)")
    p.add_argument("--html", help="where to write the page (default autograded/.autograder/reports/LAB-similarity.html)")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON ('-': JSON on stdout instead of the table)")
    p.set_defaults(handler=cmd_similarity)

    from autograder.quiz.commands import register as register_quiz

    register_quiz(sub)
    from autograder.lms.commands import register as register_lms

    register_lms(sub)      # autograder lms keys|post (LTI 1.3 grade passback)
    from autograder.leaderboard.commands import register as register_leaderboard

    register_leaderboard(sub)

    p = sub.add_parser("check", help="alias of `course check`: a lab notebook's visible tests")
    p.add_argument("notebook")
    p.set_defaults(handler=cmd_check)
    return parser


# commands that print what submissions wrote (flags, reasons, names): through autograder/record/tables.py
UNTRUSTED_OUTPUT = frozenset({"grade", "status", "report", "feedback"})


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command not in UNTRUSTED_OUTPUT:
        return _run(args)
    from autograder.record.tables import VisibleText

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleText(sys.stdout), VisibleText(sys.stderr)
    try:
        return _run(args)
    finally:
        sys.stdout, sys.stderr = streams


def _run(args) -> int:
    ensure_alembic_on_path()
    try:
        if args.command == "check":
            return args.handler(args, None)
        if args.command == "new" and args.root:
            from autograder.author.new import ensure_course_root

            made = ensure_course_root(Path(args.root).expanduser().resolve(), args.course_id)
            if made:
                print(f"wrote {made} (a copy of the course's, course id {Course(made.parent).course_id!r}: "
                      f"this folder is now a course root)")
        course = Course.find(args.root)
        os.environ["COURSE_ROOT"] = str(course.root)   # specs, the secret, nbgrader: all from this root
        status = args.handler(args, course)
        if args.command == "quiz" and getattr(args, "post_to_lms", False):     # `quiz grade QUIZ --post-to-lms`
            from autograder.lms.commands import post_after_grading       # (here: quiz and lms are one floor)

            status = max(status, post_after_grading(course, args.assignment))
        return status
    except PermissionError as error:      # e.g. another account's checkout: say where to work instead
        print(f"autograder {args.command}: {error.filename or error}: permission denied; work in your course "
              f"folder (the one with nbgrader_config.py) or pass --root DIR", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError, FileExistsError, RuntimeError) as error:
        print(f"autograder {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
