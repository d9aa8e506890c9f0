"""`autograder leaderboard LAB`: re-measure the top entries, then write the table, JSON and page.

Before publishing, the top `rerun` submissions are graded again (`grade --regrade` for that student:
their tokens judged and their speed timed anew, in the same sandbox), so a lucky first measurement
does not hold a place; the board is then ranked on what the second run stored.
"""
from __future__ import annotations

import json
from pathlib import Path

from autograder.course import Course
from autograder.leaderboard import board as boards
from autograder.leaderboard import page


def measure_and_write(course: Course, lab_id: str, *, rerun: int = 3, out: Path | None = None, limits=None,
                      workers: int | None = None, progress: bool = True) -> tuple[list[boards.Standing], list[str], Path]:
    """(the ranked board, grader errors of the re-runs, the folder written)."""
    from autograder.batch.lab import grade_lab
    from autograder.judge.secrets import load_secret

    first = boards.standings(course, lab_id)
    again = [s.student_id for s in first[:max(rerun, 0)]]
    errors = []
    if again:
        secret = load_secret()
        for student in again:
            report = grade_lab(course, lab_id, secret=secret, student=student, regrade=True, limits=limits,
                               workers=workers, progress=progress)
            errors += [f"{who}: {why}" for who, why in report.errors]
    board = boards.standings(course, lab_id)
    for s in board:
        s.rerun = s.student_id in again
    folder = Path(out) if out else course.reports / "leaderboard"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{lab_id}.json").write_text(json.dumps(page.as_json(lab_id, board), indent=1) + "\n")
    (folder / f"{lab_id}.html").write_text(page.html(lab_id, board), encoding="utf-8")
    return board, errors, folder


def cmd_leaderboard(args, course: Course) -> int:
    from autograder.judge.engine import Limits

    if args.lab not in course.lab_ids():
        print(f"autograder leaderboard: no lab {args.lab!r} (labs: {', '.join(course.lab_ids())})")
        return 1
    board, errors, folder = measure_and_write(course, args.lab, rerun=args.rerun, out=args.out,
                                              workers=args.workers, limits=Limits(isolate=not args.unconfined),
                                              progress=not args.no_progress)
    print(page.text(args.lab, board))
    print(f"wrote {folder / (args.lab + '.html')} and {folder / (args.lab + '.json')} "
          f"({min(args.rerun, len(board))} top entries measured again)")
    if args.publish:
        from autograder.leaderboard.publish import exchange_folder, publish

        try:
            shown = publish([folder / f"{args.lab}.html", folder / f"{args.lab}.json"], exchange_folder(course))
        except (RuntimeError, OSError) as error:
            print(f"autograder leaderboard: not published: {error}")
            return 1
        print(f"published to {shown[0].parent}: the class sees it on the hub at /services/leaderboard/{args.lab}")
    for error in errors:
        print(f"grader error while re-measuring {error}")
    return 1 if errors else 0


def register(sub) -> None:
    p = sub.add_parser("leaderboard", help="graded submissions ranked by the grader's own speed measurements "
                                           "(the top ones measured again); a table, JSON and an HTML page")
    p.add_argument("lab")
    p.add_argument("--rerun", type=int, default=3, metavar="N", help="measure the top N again first (default 3)")
    p.add_argument("--out", help="folder for LAB.json and LAB.html (default autograded/.autograder/reports/leaderboard)")
    p.add_argument("--publish", action="store_true",
                   help="also copy the page into nbgrader's exchange, where the class hub shows it "
                        "(/services/leaderboard/LAB)")
    p.add_argument("--workers", type=int)
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--unconfined", action="store_true",
                   help="re-measure without the sandbox where this machine cannot confine (as grade --unconfined)")
    p.set_defaults(handler=cmd_leaderboard)
