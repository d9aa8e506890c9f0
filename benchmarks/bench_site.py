"""`course site` build time: cold (empty build folder: every notebook executed), warm (nothing changed:
the executed copies and Sphinx's doctrees are reused) and after editing one lesson. The plain
alternative is the cold build itself: the ratios say what the cache saves. Then the weight of the
heaviest pages: each page's HTML plus every file of the site it loads (scripts, styles, images,
each counted once; MathJax's fonts, fetched on demand, are not counted). Prints markdown tables for
benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_site.py [--out DIR]   # default: a fresh temporary folder
"""
from __future__ import annotations

import argparse
import re
import shutil
import tempfile
import time
from pathlib import Path

import nbformat

from coursekit.paths import course_root
from coursekit.app.site.build import build_site

EDITED = "course/m1-training-vs-inference/03-compute-or-bandwidth.ipynb"


LOADED = re.compile(r"""<(?:script|img)\b[^>]*\bsrc=["']([^"']+)|<link\b[^>]*\brel=["']stylesheet["'][^>]*\bhref=["']([^"']+)""")


def page_weight(page: Path) -> tuple[int, int]:
    """(bytes of the HTML, bytes of the site's files it loads)."""
    text = page.read_text(encoding="utf-8")
    loaded = {(page.parent / (a or b).split("?")[0].split("#")[0]).resolve()
              for a, b in LOADED.findall(text) if "://" not in (a or b) and not (a or b).startswith("data:")}
    return len(text.encode()), sum(f.stat().st_size for f in loaded if f.is_file())


def heaviest_pages(html: Path, n: int = 3) -> list[tuple[str, int, int]]:
    weights = [(p.relative_to(html).as_posix(), *page_weight(p)) for p in html.rglob("*.html") if "_static" not in p.parts]
    return sorted(weights, key=lambda w: -(w[1] + w[2]))[:n]


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
    shutil.copytree(course_root(), root, ignore=shutil.ignore_patterns(".venv", "build", ".git", "work", "tests", "node_modules"))
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
    print("\n| heaviest pages | HTML (MB) | files it loads (MB) | total (MB) |\n|---|---|---|---|")
    for rel, page, loads in heaviest_pages(out / "html"):
        print(f"| {rel} | {page / 1e6:.2f} | {loads / 1e6:.2f} | {(page + loads) / 1e6:.2f} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
