"""Grade N generated submissions of a torch lab with plain `nbgrader autograde` and `autograder grade`,
or (--against dask) with `autograder grade` on the local pool and on a local Dask cluster of the same size.

    .venv/bin/python benchmarks/bench_grading.py [--lab lab5-moe] [--n 100] [--workers N] [--against dask] [--record]
    .venv/bin/python benchmarks/bench_grading.py --variants [--record]
    .venv/bin/python benchmarks/bench_grading.py --against-code OTHER_CHECKOUT [--n 100] [--variants] [--record]

--variants grades the honest variations of Lab 5 in tests/honest_variants.py instead (timing magics,
eval, globals(), __main__, moved sections, a stub or scratch version run at the end, a helper below its
test cell, an edited setup cell, QUICK used, a stub, a wrong answer: what the differential test
tests/grading/test_grading_vs_nbgrader.py grades), one submission each, and prints each one's score by both.

--against-code grades the same submissions with `autograder grade` from another checkout of this
repository (say a clone at the commit before a refactor; run with this checkout's interpreter, the
other code first on PYTHONPATH) against this checkout's: same workers, both timed in the same run.

Both graders get the same course copy (generated once, untimed), the same submissions, the same
instructor secret and COURSE_QUICK=1. Submissions are honest: each is the solution with 0-2 of
its solution cells left as the released stub (those tasks raise NotImplementedError), so correct
and partially correct work both appear. The script checks that every grade cell's score is
identical in the two gradebooks, prints a table of times and the ratio, and with --record appends
it to benchmarks/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from autograder.course import Course  # noqa: E402 - imported after the sys.path set-up above
from autograder.judge.engine import usable_cores  # noqa: E402 - imported after the sys.path set-up above
from autograder.record.tables import table  # noqa: E402 - imported after the sys.path set-up above

TORCH_LABS = ("lab5-moe", "lab3-kv-cache")
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def pick_lab() -> str:
    for lab in TORCH_LABS:
        if (ROOT / "solutions" / lab / f"{lab}.ipynb").exists():
            return lab
    raise SystemExit(f"none of {TORCH_LABS} exists under solutions/")


def solution_sources(lab: str) -> dict[str, str]:
    """grade_id -> what a student who solved the cell would submit (the solution without markers)."""
    nb = nbformat.read(ROOT / "solutions" / lab / f"{lab}.ipynb", as_version=4)
    out = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader") or {}
        if meta.get("solution") and cell.cell_type == "code":
            out[meta["grade_id"]] = "\n".join(l for l in cell.source.splitlines() if l.strip() not in MARKERS)
    return out


def make_submissions(course: Path, lab: str, n: int, seed: int) -> dict[str, list[str]]:
    """Write n submissions into submitted/; return student -> solution cells left unsolved."""
    release = nbformat.read(course / "labs" / lab / f"{lab}.ipynb", as_version=4)
    solved = solution_sources(lab)
    rng = random.Random(seed)
    plan = {}
    for i in range(n):
        student = f"student{i:03d}"
        stubbed = sorted(rng.sample(sorted(solved), rng.choice([0, 0, 1, 1, 2])))
        nb = nbformat.from_dict(release)
        for cell in nb.cells:
            grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
            if grade_id in solved and grade_id not in stubbed:
                cell.source = solved[grade_id]
        folder = course / "submitted" / student / lab
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{lab}.ipynb")
        plan[student] = stubbed
    return plan


def make_variants(course: Path, lab: str) -> dict[str, list[str]]:
    """One submission per honest variation (tests/honest_variants.py); student -> tasks expected to score 0."""
    import honest_variants

    if lab != honest_variants.LAB:
        raise SystemExit(f"--variants are variations of {honest_variants.LAB}, not {lab}")
    names = honest_variants.write_submissions(course, lab=lab)
    return {name.replace("_", "-"): sorted(honest_variants.EXPECTED[name]) for name in names}


def grading_seconds(course: Path, lab: str) -> dict[str, float]:
    """student -> seconds the autograder spent on the submission (its stored result)."""
    import sqlite3

    db = sqlite3.connect(course / "autograded" / ".autograder" / "results.sqlite")
    try:
        rows = db.execute("SELECT student_id, result_json FROM results WHERE lab_id=?", (lab,)).fetchall()
    finally:
        db.close()
    return {student: json.loads(result)["seconds"] for student, result in rows}


def per_submission(a: dict, b: dict, plan: dict[str, list[str]], seconds: dict[str, float]) -> tuple[str, int]:
    """A row per submission: its total by each grader, whether every grade cell agrees, and the autograder's
    seconds on it; and how many submissions differ."""
    rows, differ = [], 0
    for student in sorted(plan):
        ours = {cell: v for (who, cell), v in b.items() if who == student}
        theirs = {cell: v for (who, cell), v in a.items() if who == student}
        same = ours == theirs
        differ += not same
        rows.append([student, f"{sum(v or 0 for v in ours.values()):g}", f"{sum(v or 0 for v in theirs.values()):g}",
                     "yes" if same else "NO: " + ", ".join(c for c in sorted(set(ours) | set(theirs))
                                                          if ours.get(c) != theirs.get(c)),
                     f"{seconds.get(student, float('nan')):.2f}"])
    return table(["submission", "autograder", "nbgrader", "agree", "autograder s"], rows), differ


def scores(course: Path, lab: str) -> dict[tuple[str, str], float]:
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", Course(course).course_id) as gb:
        for submission in gb.assignment_submissions(lab):
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    out[(submission.student.id, grade.cell.name)] = grade.auto_score
    return out


def timed(command: list[str], cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return seconds


def dask_note(course: Path, lab: str, n: int, workers: int, t_pool: float, t_dask: float) -> str:
    """Per-submission overhead of Dask, and what bounds throughput with more workers."""
    import sqlite3

    db = sqlite3.connect(course / "autograded" / ".autograder" / "results.sqlite")
    try:
        seconds = [json.loads(r[0])["seconds"] for r in db.execute("SELECT result_json FROM results WHERE lab_id=?", (lab,))]
    finally:
        db.close()
    grading = sum(seconds) / len(seconds)
    return (f"\nDask overhead: {(t_dask - t_pool) / n * 1000:.0f} ms per submission (wall, start-up included); "
            f"a worker spends {grading:.2f} s grading one submission; the client {max(0.0, t_dask / n - grading / workers):.3f} s "
            f"of wall per submission beyond that (storing results, gradebook, graded notebook)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", default=None)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--workers", type=int, default=None, help="autograder workers (default: one per core)")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--against", choices=["nbgrader", "dask"], default="nbgrader",
                        help="baseline: plain nbgrader, or (dask) the local pool against --cluster local")
    parser.add_argument("--against-code", type=Path, default=None, metavar="CHECKOUT",
                        help="baseline: `autograder grade` from another checkout of this repository")
    parser.add_argument("--variants", action="store_true",
                        help="grade tests/honest_variants.py's honest variations of lab5-moe instead of --n submissions")
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args()
    lab = args.lab or ("lab5-moe" if args.variants else pick_lab())
    cores = usable_cores()                  # what `autograder grade` uses by default, so the comparison is fair
    workers = args.workers or cores

    base = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        template = base / "template"
        template.mkdir()
        shutil.copy(ROOT / "nbgrader_config.py", template)
        shutil.copytree(ROOT / "solutions" / lab, template / "solutions" / lab)
        env = dict(os.environ, COURSE_QUICK="1", COURSE_GRADING_SECRET=os.environ.get(
            "COURSE_GRADING_SECRET", f"bench-{args.seed}"), PYTHONWARNINGS="ignore",
            PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
        subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(template), "generate", lab],
                       cwd=template, env=env, check=True, capture_output=True)
        plan = make_variants(template, lab) if args.variants else make_submissions(template, lab, args.n, args.seed)
        args.n = len(plan)
        plain, ours = base / "nbgrader", base / "autograder"
        shutil.copytree(template, plain)
        shutil.copytree(template, ours)

        print(f"grading {args.n} {'honest variations' if args.variants else 'submissions'} of {lab} "
              f"({sum(not s for s in plan.values())} fully solved) "
              f"on {cores} usable cores ...", flush=True)
        grade = [sys.executable, "-m", "autograder.cli", "--root", str(ours), "grade", lab,
                 "--workers", str(workers), "--no-progress"]
        if args.against_code:
            other = args.against_code.resolve()
            shutil.copy(other / "nbgrader_config.py", plain)      # its own config names its own classes
            label = subprocess.run(["git", "-C", str(other), "log", "-1", "--format=%h"], capture_output=True,
                                   text=True).stdout.strip() or other.name
            here = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True,
                                  text=True).stdout.strip() or "this checkout"
            baseline = f"autograder grade, code at {label} ({workers} workers)"
            t_plain = timed(grade[:3] + ["--root", str(plain)] + grade[5:], plain,
                            dict(env, PYTHONPATH=str(other)))
            t_ours = timed(grade, ours, dict(env, PYTHONPATH=str(ROOT)))
            name, ratio, note = f"autograder grade, code at {here} ({workers} workers)", t_plain / t_ours, ""
        elif args.against == "dask":
            baseline = f"autograder grade (local pool, {workers} workers)"
            t_plain = timed(grade[:3] + ["--root", str(plain)] + grade[5:], plain, env)
            t_ours = timed(grade + ["--cluster", "local"], ours, env)
            name, ratio = f"autograder grade --cluster local ({workers} Dask workers)", t_ours / t_plain
            note = dask_note(ours, lab, args.n, workers, t_plain, t_ours)
        else:
            baseline = "nbgrader autograde (sequential)"
            t_plain = timed([sys.executable, "-m", "nbgrader", "autograde", lab, "--Execute.timeout=600"], plain, env)
            t_ours = timed(grade, ours, env)
            name, ratio, note = f"autograder grade ({workers} workers)", t_plain / t_ours, ""
        a, b = scores(plain, lab), scores(ours, lab)
        mismatches = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        rows = [[baseline, args.n, f"{t_plain:.1f}", f"{t_plain / args.n:.2f}", "1.0x"],
                [name, args.n, f"{t_ours:.1f}", f"{t_ours / args.n:.2f}", f"{ratio:.2f}x"]]
        text = table(["grader", "submissions", "seconds", "s/submission",
                      "time ratio" if args.against == "dask" else "speed-up"], rows) + note
        if args.against == "nbgrader" and not args.against_code and (args.variants or args.n <= 30):
            listed, differ = per_submission(a, b, plan, grading_seconds(ours, lab))
            text = f"{listed}\n{differ} of {args.n} submissions scored differently\n\n{text}"
        verdict = (f"scores identical on all {len(a)} grade cells" if not mismatches and len(a) == len(b) == args.n *
                   len({k[1] for k in a}) else f"SCORES DIFFER on {len(mismatches)} grade cells: {mismatches[:5]}")
        print(text)
        print(verdict)
        if args.record:
            stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            versus = ("old code vs new code" if args.against_code else "local pool vs Dask" if args.against == "dask"
                      else "nbgrader vs autograder")
            what = "honest variations (tests/honest_variants.py)" if args.variants else "submissions"
            section = (f"\n## Autograder: {args.n} {lab} {what}, {versus} ({stamp})\n\n"
                       f"`{' '.join(['python', 'benchmarks/bench_grading.py'] + sys.argv[1:])}` on {cores} usable "
                       f"cores ({platform.processor() or platform.machine()}, shared machine), COURSE_QUICK=1.\n\n"
                       f"```\n{text}\n{verdict}\n```\n")
            with open(ROOT / "benchmarks" / "RESULTS.md", "a", encoding="utf-8") as handle:
                handle.write(section)
        return 0 if not mismatches else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
