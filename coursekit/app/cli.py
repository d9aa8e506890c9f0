"""The `course` command for students: start, work, check, doctor, quiz, progress, site, tutor."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from coursekit.paths import START_PAGE, course_root


def start(args: argparse.Namespace) -> int:
    root = Path(args.root).expanduser().resolve() if args.root else course_root()
    # a private course folder (`--root`, docs/AUTHORING.md) has no start page: JupyterLab opens its files
    private = bool(args.root) and not (root / START_PAGE).exists()
    if args.root and not (root / "nbgrader_config.py").is_file() and not (root / START_PAGE).exists():
        print(f"course start: {root} is not a course folder (no nbgrader_config.py, no {START_PAGE})", file=sys.stderr)
        return 1
    if not private and not (root / START_PAGE).exists():
        print(f"course: start page {root / START_PAGE} not found; run from the course repository "
              "(or `course start --root DIR` for a private course folder)", file=sys.stderr)
        return 1
    if args.root:
        os.environ["COURSE_ROOT"] = str(root)   # `autograder` and `course check` in its terminals work on it
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}",
               "--LabApp.default_url=/lab" if private else f"--LabApp.default_url=/lab/tree/{START_PAGE}"]
    if args.port:
        command.append(f"--port={args.port}")
    if args.no_browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # JupyterLab refuses root otherwise (containers, CI)
    from coursekit.app.lab_defaults import lab_default_args
    from coursekit.app.kernel import kernel_env
    from coursekit.app.modes import mode_env
    from coursekit.app.saving import pre_save_hook
    from coursekit.app.terminal import jupyter_args, terminal_env
    from coursekit.app.work import make_work_copies

    copies = [] if private else make_work_copies(root)     # an author's folder gets no learner's copies
    made = [c for c in copies if c.made]
    if made:
        print(f"Made your own copies of {len(made)} lab(s) in work/ (course updates never touch them).")
    for c in copies:
        if c.release_changed:
            print(f"The released {c.lab_id} has changed since your copy in work/ was made: compare it with "
                  f"labs/{c.lab_id}/{c.lab_id}.ipynb.")

    # a closed tab leaves its kernel running (ten held 2 GB): shut down kernels that no tab is connected
    # to after half an hour idle; an open tab's kernel stays however long it idles
    culling = ["--MappingKernelManager.cull_idle_timeout=1800", "--MappingKernelManager.cull_interval=60",
               "--MappingKernelManager.cull_connected=False"]
    given = {a.split("=")[0] for a in args.jupyter_args}   # an option given twice is refused: the learner's wins
    command += [c for c in culling if c.split("=")[0] not in given]
    # the course's JupyterLab defaults (no news pop-up, wrapped lines; coursekit/app/lab_defaults.py)
    command += lab_default_args(given, "instructor" if args.instructor else "student")
    command += jupyter_args() + args.jupyter_args  # terminals find `course` and `autograder`
    # saved quizzes reopen as "run this cell" instead of "model not found" (coursekit/app/saving.py)
    command.append(f"--ContentsManager.pre_save_hook={pre_save_hook.__module__}.{pre_save_hook.__name__}")
    mode = "instructor" if args.instructor else "student"
    where = f"in {root}" if private else "on the course's start page"
    print(f"Starting JupyterLab {where} in {mode} mode (Ctrl+C to stop)...", flush=True)
    # kernel_env: opening a notebook leaves it unchanged (coursekit/app/kernel.py)
    os.execve(sys.executable, command, kernel_env(mode_env(mode, terminal_env())))
    return 0  # not reached


def doctor(args: argparse.Namespace) -> int:
    from coursekit.app.doctor import main as doctor_main

    return doctor_main()


def work(args: argparse.Namespace) -> int:
    from coursekit.app.work import describe, make_work_copies

    try:
        copies = make_work_copies(course_root(), args.labs)
    except ValueError as exc:
        print(f"course work: {exc}", file=sys.stderr)
        return 1
    print(describe(copies, course_root()))
    return 0


def check(args: argparse.Namespace) -> int:
    from pathlib import Path

    from coursekit.checks.selfcheck import check_notebook

    try:
        return check_notebook(Path(args.notebook), args.every_cell)
    except (OSError, ValueError) as exc:
        print(f"course check: {exc}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start", help="open the course in JupyterLab on its start page")
    p.add_argument("--port", type=int, help="port to serve on (default: JupyterLab's, 8888 or the next free one)")
    p.add_argument("--no-browser", action="store_true", help="don't open a browser; print the URL")
    p.add_argument("--instructor", action="store_true",
                   help="show nbgrader's instructor tools too (Formgrader, Create Assignment, Courses)")
    p.add_argument("--root", metavar="DIR", help="a private course folder (nbgrader_config.py) to open instead")
    p.add_argument("jupyter_args", nargs=argparse.REMAINDER, help="extra JupyterLab options after --")
    p.set_defaults(handler=start)
    p = sub.add_parser("work", help="make your own copies of the labs in work/ (existing copies are kept)")
    p.add_argument("labs", nargs="*", help="lab ids (default: every lab)")
    p.set_defaults(handler=work)
    p = sub.add_parser("check", help="run a lab notebook's visible tests and say which tasks pass")
    p.add_argument("notebook", help="e.g. work/lab1-roofline/lab1-roofline.ipynb")
    p.add_argument("--every-cell", action="store_true",
                   help="run every code cell first, as the notebook does (default: only what the tasks need)")
    p.set_defaults(handler=check)
    p = sub.add_parser("doctor", help="check the installation and say how to fix what is wrong")
    p.set_defaults(handler=doctor)
    try:
        from coursekit.app.quiz_cli import register
    except ImportError:
        pass  # the quiz package is optional in a partial checkout
    else:
        register(sub)
    from coursekit.app.progress_cli import register as register_progress

    register_progress(sub)
    from coursekit.app.hub.cli import register as register_hub

    register_hub(sub)
    from coursekit.app.site.cli import register as register_site

    register_site(sub)
    from coursekit.app.tutor_cli import register as register_tutor

    register_tutor(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "jupyter_args", None) and args.jupyter_args[0] == "--":
        args.jupyter_args = args.jupyter_args[1:]
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
