"""`course site` build time: cold (empty build folder: every notebook executed), warm (nothing changed:
the executed copies and Sphinx's doctrees are reused) and after editing one lesson. The plain
alternative is the cold build itself: the ratios say what the cache saves. Prints a markdown table
for benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_site.py [--out DIR]   # default: a fresh temporary folder
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import nbformat

from coursekit.paths import course_root
from coursekit.site.build import build_site

EDITED = "course/m1-training-vs-inference/03-compute-or-bandwidth.ipynb"


def timed(root: Path, out: Path) -> float:
    start = time.perf_counter()
    build_site(root, out, log=lambda *_: None)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="build folder (emptied first)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-site-"))
    out = Path(args.out) if args.out else work / "site"
    shutil.rmtree(out, ignore_errors=True)
    # The edited lesson lives in a copy of the course, so the repository is never touched.
    root = work / "course-copy"
    shutil.copytree(course_root(), root, ignore=shutil.ignore_patterns(".venv", "build", ".git", "work", "tests"))
    rows = [("cold (empty build folder)", timed(root, out))]
    rows.append(("warm (nothing changed)", timed(root, out)))
    nb = nbformat.read(root / EDITED, as_version=4)
    nb.cells[0].source += "\n"
    nbformat.write(nb, root / EDITED)
    rows.append(("one lesson edited", timed(root, out)))
    cold = rows[0][1]
    print("| build | seconds | cold / this |\n|---|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.1f} | {cold / seconds:.1f}x |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
