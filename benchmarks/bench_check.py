"""A student's `course check` of each lab: wall and CPU seconds of a fresh check process, for this
tree's code and, in the same run, for another tree's (`--before DIR`, e.g. a `git worktree` of an older
commit) and for `--every-cell` (every code cell but the test cells, what the check did first).

    .venv/bin/python benchmarks/bench_check.py [--repeat 3] [--before DIR] [--every-cell] [LAB ...]

Each run is a fresh `course check` process on a copy of the lab's solution notebook in a work folder
(cold start: Python, IPython and torch imports included), which must pass every task. The variants run
interleaved, so load on a shared machine hits them alike; CPU seconds (user + system of the check's
process tree) are the fair comparison when the machine is loaded, wall seconds what a student waits.
An untimed check of each lab and code comes first, with Python allowed to write its bytecode cache as
on a student's first check: where PYTHONDONTWRITEBYTECODE is set (as on the course's build machines),
every check would otherwise compile torch's modules from source again, seconds more than the check.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)   # every waited-for descendant, grandchildren too
    return usage.ru_utime + usage.ru_stime


def check_env(code: Path, progress: Path) -> dict:
    """The check imports coursekit from `code` (PYTHONPATH comes before the installed copy) and reads the
    labs' checks files from this course root."""
    return dict(os.environ, PYTHONPATH=str(code), COURSE_PROGRESS_DIR=str(progress), COURSE_ROOT=str(ROOT))


def assert_imports_from(code: Path, env: dict) -> None:
    where = subprocess.run([sys.executable, "-c", "import coursekit; print(coursekit.__file__)"], env=env,
                           cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True).stdout.strip()
    if not Path(where).resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"the check would import coursekit from {where}, not from {code}")


def one_check(notebook: Path, env: dict, every_cell: bool) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `course check` process."""
    command = [sys.executable, "-m", "coursekit.app.cli", "check", str(notebook)] + (["--every-cell"] if every_cell else [])
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=notebook.parent, capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{notebook.name}: the check did not pass\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout whose coursekit to time alongside this one")
    parser.add_argument("--every-cell", action="store_true", help="also time this tree's check with --every-cell")
    args = parser.parse_args()
    labs = args.labs or sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
    folder = Path(tempfile.mkdtemp(prefix="bench-check-"))
    progress = folder / "progress"
    variants = ([("before", args.before, False)] if args.before else []) + [("now", ROOT, False)]
    variants += [("every cell", ROOT, True)] if args.every_cell else []
    for _, code, _ in variants:
        assert_imports_from(code, check_env(code, progress))
    print(f"load average at the start {os.getloadavg()[0]:.1f} (1 min); median of {args.repeat} runs, seconds")
    print(f"{'lab':<16}" + "".join(f" {name + ' wall':>16} {name + ' CPU':>15}" for name, _, _ in variants))
    try:
        for lab in labs:
            work = folder / "work" / lab
            work.mkdir(parents=True)
            shutil.copy(ROOT / "solutions" / lab / f"{lab}.ipynb", work)
            notebook = work / f"{lab}.ipynb"
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in variants}
            for name, code, every_cell in variants:   # untimed: writes the bytecode a student's first check writes
                env = check_env(code, progress)
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                one_check(notebook, env, every_cell)
            for _ in range(args.repeat):          # interleaved, so load on the machine hits every variant alike
                for name, code, every_cell in variants:
                    runs[name].append(one_check(notebook, check_env(code, progress), every_cell))
            row = "".join(f" {statistics.median(w for w, _ in runs[name]):>16.2f} "
                          f"{statistics.median(c for _, c in runs[name]):>15.2f}" for name, _, _ in variants)
            print(f"{lab:<16}{row}", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
