"""Per-submission cost of the grading engine: worker start-up once, then a fork per notebook.

    .venv/bin/python benchmarks/bench_engine.py [--copies 40] [--workers 1 2]

Grades copies of a light notebook (the toy lab's solution) and of a real torch lab's solution
(lab3-kv-cache, when present), and prints start-up time, per-notebook latency and throughput.
Every copy must score full marks, so the timing is of correct grading, not of failures.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.judge.engine import GradingPool, Limits  # noqa: E402 - imported after the sys.path set-up above
from autograder.spec import load_spec  # noqa: E402 - imported after the sys.path set-up above


def labs() -> list[tuple[str, object, Path]]:
    toy = ROOT / "tests" / "fixtures" / "autograder"
    found = [("toy-lab (3 tasks, no measurement)", load_spec(toy / "toy_lab.py"), toy / "toy-lab" / "toy-lab.ipynb")]
    real = ROOT / "solutions" / "lab3-kv-cache" / "lab3-kv-cache.ipynb"
    if real.exists():
        found.append(("lab3-kv-cache (torch decoder)", load_spec("lab3-kv-cache"), real))
    return found


def measure(spec, notebook: Path, copies: int, workers: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    try:
        paths = []
        for i in range(copies):
            path = folder / "submitted" / f"s{i:03d}" / spec.lab_id / notebook.name
            path.parent.mkdir(parents=True)
            shutil.copy(notebook, path)
            paths.append(path)
        with GradingPool(workers, Limits()) as pool:
            start = time.perf_counter()
            warm = [pool.submit(p, spec, student_id=f"w{i}", secret=b"bench") for i, p in enumerate(paths[:workers])]
            first = [f.result() for f in warm]              # pays worker start-up and reference computation
            started = time.perf_counter()
            futures = [pool.submit(p, spec, student_id=f"s{i}", secret=b"bench") for i, p in enumerate(paths)]
            results = [f.result() for f in futures]
            done = time.perf_counter()
        bad = [r for r in first + results if r.score != r.max_score]
        if bad:
            raise SystemExit(f"{spec.lab_id}: {len(bad)} copies of the solution lost points: {bad[0]}")
        latency = sorted(r.seconds for r in results)
        return {"startup_s": started - start, "median_s": statistics.median(latency),
                "p95_s": latency[int(0.95 * (len(latency) - 1))], "per_s": copies / (done - started)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cold_start_s(repeats: int = 3) -> float:
    """What a fresh interpreter per notebook would pay before running any cell (the cost forks avoid)."""
    import subprocess

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch, numpy, IPython, matplotlib.pyplot"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=40)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"fresh interpreter + imports (paid per notebook without warm workers): {cold_start_s():.2f} s")
    print(f"{'notebook':36} {'workers':>7} {'start-up s':>10} {'median s':>9} {'p95 s':>7} {'notebooks/s':>11}")
    for name, spec, notebook in labs():
        for workers in args.workers:
            row = measure(spec, notebook, args.copies, workers)
            print(f"{name:36} {workers:>7} {row['startup_s']:>10.2f} {row['median_s']:>9.3f} "
                  f"{row['p95_s']:>7.3f} {row['per_s']:>11.1f}")


if __name__ == "__main__":
    main()
