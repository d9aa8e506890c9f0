"""Grade a batch of varied Lab 6 engines through the real engine (sandbox, trusted judge, speed timing)
and print, per submission, its grading time, score, each milestone's verdict and the grader-measured
speed ratios: the solution, the student version, every wrong-but-plausible engine the spec lists
(solutions/lab6-serving/lab6_wrong.py, appended to the make_engine cell as `autograder validate` does)
and the adversarial variants (tests/lab6_variants.py: slow, clock-, harness-, reference-patching,
made-up tokens, memoizing). Results: benchmarks/RESULTS.md, "Lab 6: grading a batch of engines".

    .venv/bin/python benchmarks/bench_lab6_batch.py [--workers 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.judge.engine import GradingPool
from autograder.sandbox.child import unavailable
from autograder.sandbox.policy import Limits
from autograder.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "solutions" / "lab6-serving"))
import lab6_variants  # noqa: E402 - imported after the sys.path set-up above
import lab6_wrong  # noqa: E402 - imported after the sys.path set-up above

LAB = "lab6-serving"


def wrong_notebook(source: str, path: Path) -> Path:
    nb = nbformat.read(ROOT / "solutions" / LAB / f"{LAB}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "impl_paged")
    cell.source = cell.source.rstrip() + "\n\n\n" + source.strip() + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def submissions(folder: Path) -> dict[str, Path]:
    subs = {name: lab6_variants.build(name, folder) for name in lab6_variants.VARIANTS}
    subs["student version"] = ROOT / "labs" / LAB / f"{LAB}.ipynb"
    for name in (n for n in vars(lab6_wrong) if n.isupper() and not n.startswith("MILESTONE")):
        subs[f"wrong: {name.lower()}"] = wrong_notebook(getattr(lab6_wrong, name), folder / name / f"{LAB}.ipynb")
    return subs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    spec = load_spec(LAB)
    short = {"test_paged": "m1", "test_batching": "m2", "test_chunked": "m3", "test_speculative": "m4"}
    with tempfile.TemporaryDirectory() as tmp:
        subs = submissions(Path(tmp))
        start = time.perf_counter()
        with GradingPool(args.workers, Limits(isolate=unavailable() is None)) as pool:
            futures = {name: pool.submit(path, spec, student_id=f"s{i}", secret=b"lab6-batch")
                       for i, (name, path) in enumerate(subs.items())}
            results = {name: future.result() for name, future in futures.items()}
        total = time.perf_counter() - start
    print("| submission | grading s | score | m1 | m2 | m3 | m4 | speed ratios (m1..m4) |")
    print("|---|---:|---:|---|---|---|---|---|")
    for name, r in results.items():
        verdicts = ["pass" if t.passed else ("slow" if "too slow" in t.message else "fail") for t in r.tasks]
        ratios = " ".join(f"{short[g]} {m['ratio']:.2f}" if "ratio" in m else f"{short[g]} error"
                          for g, m in r.speed.items()) or "-"
        print(f"| {name} | {r.seconds:.1f} | {r.score:g}/{r.max_score:g} | " + " | ".join(verdicts or ["-"] * 4)
              + f" | {ratios} |")
    print(f"\n{len(results)} submissions, {args.workers} workers: {total:.0f} s in all, "
          f"{total / len(results):.1f} s per submission")
    for name, r in results.items():
        failing = [t.message[:160] for t in r.tasks if not t.passed]
        if failing or r.reason:
            print(f"- {name}: {r.reason or failing[0]}")


if __name__ == "__main__":
    main()
