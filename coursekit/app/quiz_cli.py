"""`course quiz ...`: register(subparsers) adds it to the course command (`course progress` is progress_cli.py).

    course quiz check [--root quizzes]
    course quiz new BANK [--root quizzes] [--module M]   a template bank that `check` accepts
    course quiz release|grade|analytics ...   runs `autograder quiz ...` (the instructor's tool)
"""
from __future__ import annotations

import argparse
import sys


def cmd_check(args: argparse.Namespace) -> int:
    from coursekit.quiz.bank import bank_files, resolve_root
    from coursekit.quiz.selftest import check_banks

    problems = check_banks(args.root)
    files = bank_files(args.root)
    for p in problems:
        print(p)
    items = 0
    if not problems:
        from coursekit.quiz.bank import load_all_banks

        items = sum(len(b.items) for b in load_all_banks(args.root).values())
    print(f"{len(files)} bank files under {resolve_root(args.root)}: "
          + (f"{len(problems)} problem(s)" if problems else f"all {items} items pass their self-test"),
          file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0


def cmd_new(args: argparse.Namespace) -> int:
    from coursekit.quiz.bank import resolve_root
    from coursekit.quiz.template import new_bank

    path = new_bank(resolve_root(args.root), args.bank, args.module)
    print(f"wrote {path}\nnext: edit it (docs/QUIZ-FORMAT.md), then `course quiz check --root {args.root}`")
    return 0


def cmd_moved(args: argparse.Namespace) -> int:
    """Graded quizzes are the instructor's tool's: say where they went. The student's `course` command
    runs nothing of the grader's (it used to forward to it in a subprocess)."""
    command = " ".join(["autograder", "quiz", args.quiz_command, *args.rest])
    print(f"course quiz {args.quiz_command}: graded quizzes are an instructor's job now; run `{command}` "
          "(docs/QUIZZES.md)", file=sys.stderr)
    return 2


def _guard(handler):
    """Turn expected failures (broken bank, unreadable file) into a message and exit 1."""
    def run(args: argparse.Namespace) -> int:
        from coursekit.quiz.bank import BankError   # here, not at the top: registering `course quiz` must not load yaml

        try:
            return handler(args)
        except (BankError, ValueError, OSError) as exc:
            print(f"course {getattr(args, 'command', 'quiz')}: {exc}", file=sys.stderr)
            return 1
    return run


def register(subparsers) -> None:
    """Add `quiz` (check, new; release, grade and analytics say where they moved) to an argparse subparsers object."""
    quiz = subparsers.add_parser("quiz", help="check question banks; release, grade and analyse graded quizzes")
    sub = quiz.add_subparsers(dest="quiz_command", required=True)

    def add(name, handler, help_text):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--root", default="quizzes", help="folder holding the banks (default: the course's quizzes/)")
        p.set_defaults(handler=_guard(handler))
        return p

    add("check", cmd_check, "validate and self-test every bank; list each problem with file and item id")
    p = add("new", cmd_new, "write a template bank (one item of every type) that `check` accepts")
    p.add_argument("bank", help="bank id, also the file name: <root>/<bank>.yaml")
    p.add_argument("--module", default="extra", help="module the bank belongs to (default: extra)")
    for name in ("release", "grade", "analytics"):
        # prefix_chars="+": every argument, options and --help included, is only echoed in the message
        p = sub.add_parser(name, help=f"moved: `autograder quiz {name}` (see docs/QUIZZES.md)", add_help=False,
                           prefix_chars="+")
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(handler=cmd_moved)

