"""`course progress`: where the learner stands in the whole course (coursekit/progress_report.py), as text
or, with --json, the same report as data; --import and --export carry progress to and from the course
website (coursekit/app/progress_transfer.py).

    course progress [--json] [--import FILE] [--export FILE]
"""
from __future__ import annotations

import argparse
import json
import sys


def cmd_progress(args: argparse.Namespace) -> int:
    from coursekit import progress

    if args.import_file or args.export_file:
        from coursekit.app.progress_transfer import export_file, import_file

        if args.import_file:
            added = import_file(args.import_file)
            print(f"Imported {args.import_file} into {progress.store_path()}: {added} attempt(s) and check(s) "
                  "added, best results kept.")
        if args.export_file:
            export_file(args.export_file)
            print(f"Exported {progress.store_path()} to {args.export_file}: import it on the course website "
                  "(start page, Import progress).")
        return 0
    from coursekit.progress_report import format_summary, summary_report

    report = summary_report()
    print(json.dumps(report, indent=1) if args.json else format_summary(report))
    return 0


def run(args: argparse.Namespace) -> int:
    """An unreadable or bad file is a message and exit 1, not a traceback."""
    try:
        return cmd_progress(args)
    except (ValueError, OSError) as exc:
        print(f"course progress: {exc}", file=sys.stderr)
        return 1


def register(subparsers) -> None:
    p = subparsers.add_parser("progress", help="where you stand: every lesson, lab and module test with its state")
    p.add_argument("--json", action="store_true", help="print the same report as JSON")
    p.add_argument("--import", dest="import_file", metavar="FILE",
                   help="merge a progress file exported from the course website (best results kept)")
    p.add_argument("--export", dest="export_file", metavar="FILE",
                   help="write this progress to FILE, for the course website's Import progress")
    p.set_defaults(handler=run)
