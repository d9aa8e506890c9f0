"""Each lab's solution notebook run start to finish with nbclient on the CPU, as a student's Run All
does (full sizes), against the same notebook in quick mode (the small sizes grading and tests use).
Prints a markdown table for benchmarks/RESULTS.md, with the machine's cores and load average, since
the numbers a lab's introduction states come from here.

    .venv/bin/python benchmarks/lab_full_runs.py [LAB ...]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def run(path: Path, quick: bool) -> float:
    nb = nbformat.read(path, as_version=4)
    env = {"MPLBACKEND": "Agg", "COURSE_DEVICE": "cpu"}
    saved = dict(os.environ)
    os.environ.pop("COURSE_QUICK", None)
    os.environ.update({**env, **({"COURSE_QUICK": "1"} if quick else {})})   # the kernel inherits it
    try:
        start = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        return time.perf_counter() - start
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main(labs: list[str]) -> None:
    labs = labs or sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
    print(f"{os.cpu_count()} CPU cores; load average before: {os.getloadavg()[0]:.1f}")
    print("| lab | full run (s) | quick mode (s) | full / quick | load average after |")
    print("|---|---|---|---|---|")
    for lab in labs:
        path = ROOT / "solutions" / lab / f"{lab}.ipynb"
        full, quick = run(path, quick=False), run(path, quick=True)
        print(f"| {lab} | {full:.1f} | {quick:.1f} | {full / quick:.1f}x | {os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
