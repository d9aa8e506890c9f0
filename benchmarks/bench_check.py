"""A student's `course check` of each lab: only the code the tasks need (the default) against every code
cell (`--every-cell`, what the check did before), in the same run.

    .venv/bin/python benchmarks/bench_check.py [--repeat 3] [LAB ...]

Each run is a fresh `course check` process on a copy of the lab's solution notebook in a work folder
(cold start: Python, IPython and torch imports included), which must pass every task.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_check(notebook: Path, every_cell: bool, progress: Path) -> float:
    command = [sys.executable, "-m", "coursekit.cli", "check", str(notebook)] + (["--every-cell"] if every_cell else [])
    start = time.perf_counter()
    done = subprocess.run(command, cwd=notebook.parent, capture_output=True, text=True,
                          env=dict(os.environ, COURSE_PROGRESS_DIR=str(progress), COURSE_ROOT=str(ROOT)))
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{notebook.name}: the check did not pass\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    labs = args.labs or sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
    folder = Path(tempfile.mkdtemp(prefix="bench-check-"))
    print(f"{'lab':<16} {'every cell (s)':>15} {'needed code (s)':>16} {'ratio':>6}   (median of {args.repeat})")
    try:
        for lab in labs:
            work = folder / "work" / lab
            work.mkdir(parents=True)
            shutil.copy(ROOT / "solutions" / lab / f"{lab}.ipynb", work)
            notebook = work / f"{lab}.ipynb"
            every, needed = [], []
            for _ in range(args.repeat):          # interleaved, so load on the machine hits both alike
                every.append(one_check(notebook, True, folder / "progress"))
                needed.append(one_check(notebook, False, folder / "progress"))
            e, n = statistics.median(every), statistics.median(needed)
            print(f"{lab:<16} {e:>15.1f} {n:>16.1f} {e / n:>5.1f}x", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
