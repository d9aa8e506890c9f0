"""`autograder similarity` on 200 generated Lab 3 submissions, against the plain alternative, all pairs
of the same cells through difflib.SequenceMatcher, in one run; prints a table for benchmarks/RESULTS.md.

Each generated student takes, per task, one of the four independent solutions of
tests/similarity_corpus.py (or leaves the stub), renames its variables, and adds lines of their own
(prints, asserts, temporaries) between the given ones, so two students who started from the same
solution still differ. Planted among them: 10 disguised copies of other generated students (renamed,
comments, spacing, cells reordered) and 5 students who pasted the course library's fragmentation code or
the solution's allocator under other names. The table says what each method found of them, how many
other pairs it listed, and how long it took.

    .venv/bin/python benchmarks/bench_similarity.py [--students 200] [--seed 1] [--difflib-pairs N]

difflib takes about 30 ms of CPU a pair here, so all 19,900 pairs of 200 students take minutes of CPU (and
far more on a loaded machine): by default it runs on 500 random pairs plus the planted copies, and its
time and its count of other pairs are scaled to all pairs (marked ~); `--difflib-pairs 0` runs them all.
"""
from __future__ import annotations

import argparse
import difflib
import itertools
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import similarity_corpus as corpus  # noqa: E402 - imported after the sys.path set-up above

WORDS = ["acc", "tmp", "val", "buf", "cur", "res", "item", "num", "cnt", "part", "chunk", "blk", "ref", "pos2",
         "seen", "rows", "cols", "out2", "size2", "best", "step", "gap", "idx", "mark", "slot", "unit"]
EXTRA = ["print({s!r}, {v})", "assert {v} is not None, {s!r}", "{w} = {v}", "{w} = str(type({v}))",
         "if {v} is None:\n    print({s!r})", "{w} = [{v}] * 2", "_ = id({v})", "{w} = ({v},)"]


def _assigned(body: str) -> list[str]:
    names = re.findall(r"^\s*([a-z_][a-z0-9_]*)\s*(?:,|=(?!=))", body, re.M)
    names += re.findall(r"\bfor\s+([a-z_][a-z0-9_]*)", body)
    return sorted({n for n in names if n not in ("self", "_", "k", "v")})


def _personal(body: str, rng: random.Random) -> str:
    """The body with its variables renamed and the student's own lines put between lines."""
    for name in _assigned(body):
        body = re.sub(rf"\b{name}\b", f"{rng.choice(WORDS)}_{rng.randrange(100)}", body)
    out = []
    for line in body.split("\n"):
        out.append(line)
        stripped = line.strip()
        if stripped and not stripped.endswith((":", ",", "(", "[", "{")) and not stripped.startswith(("return", "raise")) \
                and line.count("(") == line.count(")") and rng.random() < 0.35:
            indent = line[:len(line) - len(line.lstrip())]
            var = rng.choice(_assigned(line) or ["None"])
            extra = rng.choice(EXTRA).format(v=var, w=f"{rng.choice(WORDS)}{rng.randrange(100)}",
                                             s=f"{rng.choice(WORDS)} {rng.randrange(1000)}")
            out += [indent + piece for piece in extra.split("\n")]
    return "\n".join(out)


BASES: dict[str, dict[str, int]] = {}      # generated student -> task -> which honest solution it started from


def generate(n: int, rng: random.Random) -> tuple[dict[str, dict], set[tuple[str, str]], set[str]]:
    variants = list(corpus.HONEST.values())
    students: dict[str, dict] = {}
    for i in range(n - 15):
        answers, bases = {}, {}
        for grade_id in variants[0]:
            if rng.random() < 0.15:
                continue                     # left as the stub
            bases[grade_id] = rng.randrange(len(variants))
            answers[grade_id] = [_personal(b, rng) for b in variants[bases[grade_id]][grade_id]]
        students[f"s{i:03d}"], BASES[f"s{i:03d}"] = answers, bases
    copies = set()
    for j, source in enumerate(rng.sample(sorted(students), 10)):
        names = {name: f"{rng.choice(WORDS)}x{rng.randrange(100)}"
                 for name in _assigned("\n".join(b for bodies in students[source].values() for b in bodies))}
        students[f"copy{j}"] = corpus.renamed(students[source], names, "mine")
        copies.add((source, f"copy{j}"))
    pasted = corpus.pasted()
    for j in range(5):
        students[f"paste{j}"] = pasted["lee" if j % 2 else "max"]
    return students, copies, {f"paste{j}" for j in range(5)}


def own_text(nb: dict) -> str:
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and not
             ((c["metadata"].get("nbgrader") or {}).get("grade") and not (c["metadata"].get("nbgrader") or {}).get("solution"))]
    return "\n".join("".join(c["source"]) for c in cells if (c["metadata"].get("nbgrader") or {}).get("solution")
                     or not c["metadata"].get("nbgrader"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--difflib-pairs", type=int, default=500,
                        help="time difflib on this many random pairs (and the planted ones) and scale up; 0: all pairs")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    students, copies, pasters = generate(args.students, rng)

    from autograder.course import Course
    from autograder.similarity.page import render
    from autograder.similarity.report import THRESHOLD, build

    with tempfile.TemporaryDirectory() as tmp:
        course = corpus.make_course(Path(tmp), students)
        Course(course).spec(corpus.LAB)                      # load the spec and the library before timing
        build(Course(course), corpus.LAB)                    # warm: imports of the library modules
        start, cpu = time.perf_counter(), time.process_time()
        report = build(Course(course), corpus.LAB)
        render(report)
        ours_s, ours_cpu = time.perf_counter() - start, time.process_time() - cpu
        texts = {s: own_text(json.loads((course / "submitted" / s / corpus.LAB / corpus.NB).read_text()))
                 for s in sorted(students)}

    ours = {tuple(sorted((m.a.doc.name, m.b.doc.name))) for m in report.pairs}
    ours_ref = {m.a.doc.name for m in report.references}
    pairs = list(itertools.combinations(sorted(texts), 2))
    sample = rng.sample(pairs, args.difflib_pairs) if args.difflib_pairs else pairs
    planted = {tuple(sorted(p)) for p in copies}
    timed = sample + sorted(planted - set(sample))
    start, cpu = time.perf_counter(), time.process_time()
    ratios = {(a, b): difflib.SequenceMatcher(None, texts[a], texts[b]).ratio() for a, b in timed}
    diff_s = (time.perf_counter() - start) * len(pairs) / len(timed)
    diff_cpu = (time.process_time() - cpu) * len(pairs) / len(timed)
    theirs = {p for p, r in ratios.items() if r >= THRESHOLD}
    scale = (len(pairs) - len(planted)) / max(1, len(set(sample) - planted))
    others = len({p for p in sample if ratios[p] >= THRESHOLD} - planted) * scale
    scaled = f" (~ scaled from {len(timed)} pairs)" if args.difflib_pairs else ""
    rows = [("autograder similarity (index + winnowing)", ours_s, ours_cpu, len(ours & planted), len(ours - planted),
             len(ours_ref & pasters), len(ours_ref - pasters)),
            ("difflib.SequenceMatcher, all pairs" + scaled, diff_s, diff_cpu, len(theirs & planted),
             f"{'~' if args.difflib_pairs else ''}{others:.0f}", None, None)]
    print(f"{len(students)} submissions of {corpus.LAB}, {len(pairs)} pairs; threshold {THRESHOLD}; "
          f"planted: {len(planted)} disguised copies, {len(pasters)} pasted reference code")
    print("| method | wall (s) | CPU (s) | copies found | other pairs listed | pasted found | other reference matches |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, seconds, cpu_s, found, other, pasted, other_ref in rows:
        cells = [f"{seconds:.1f}", f"{cpu_s:.1f}", f"{found} / {len(planted)}", str(other),
                 "-" if pasted is None else f"{pasted} / {len(pasters)}", "-" if other_ref is None else str(other_ref)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    listed = sorted(ratios.values(), reverse=True)
    print(f"difflib ratios of the planted copies: {sorted(round(ratios[p], 2) for p in planted)}; "
          f"median of all timed pairs {listed[len(listed) // 2]:.2f}")
    same = [sum(BASES[a].get(t) == BASES[b].get(t) is not None for t in BASES[a]) for a, b in ours - planted
            if a in BASES and b in BASES]
    print(f"ours, other pairs listed, by how many tasks (of {len(corpus.HONEST['hana'])}) both students started "
          f"from the same honest solution: {dict(sorted(Counter(same).items()))}")
    print(f"ours: similarity of the planted copies: "
          f"{sorted(round(m.score, 2) for m in report.pairs if tuple(sorted((m.a.doc.name, m.b.doc.name))) in planted)}")


if __name__ == "__main__":
    main()
