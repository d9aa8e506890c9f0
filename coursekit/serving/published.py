"""The course's published measurements of its reference engine, for a learner to set their own beside.

The numbers have one home: the table `benchmarks/bench_serving.py` printed and benchmarks/RESULTS.md
records (section "Module 6: the serving engines against the naive engine", the run with 32 concurrent
requests). This module reads that table, so a new recorded run changes what learners see, and no number
is typed twice (issue 53).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from coursekit.paths import course_root

RESULTS = Path("benchmarks") / "RESULTS.md"
SECTION = "## Module 6: the serving engines against the naive engine"
RUN = "**32 concurrent requests**"
COLUMN = "x naive (median of per-repeat ratios)"
ROW = re.compile(r"^m(\d) ")


class PublishedError(Exception):
    """The recorded table is missing or not of the shape this module reads."""


def _table(text: str, where: Path) -> str:
    """The recorded run's table (its lines) from RESULTS.md's text."""
    if SECTION not in text:
        raise PublishedError(f"{where}: no section starting {SECTION!r}")
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    if RUN not in body:
        raise PublishedError(f"{where}: the section {SECTION!r} has no run {RUN!r}")
    lines = body.split(RUN, 1)[1].splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), len(lines))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


def read_ratios(text: str, where: Path = RESULTS) -> dict[int, float]:
    """Milestone -> the reference's throughput over the naive engine's, from the recorded table."""
    table = _table(text, where)
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table.splitlines()]
    if not rows or COLUMN not in rows[0]:
        raise PublishedError(f"{where}: the {RUN} table has no column {COLUMN!r}")
    col = rows[0].index(COLUMN)
    ratios = {}
    for row in rows[2:]:
        found = ROW.match(row[0])
        if found and len(row) > col:
            try:
                ratios[int(found.group(1))] = float(row[col].rstrip("x"))
            except ValueError:
                raise PublishedError(f"{where}: {row[0]!r} has {row[col]!r} under {COLUMN!r}, not a ratio") from None
    if sorted(ratios) != [1, 2, 3, 4]:
        raise PublishedError(f"{where}: the {RUN} table has rows for milestones {sorted(ratios)}, not 1-4")
    return ratios


def source_line(text: str) -> str:
    """Where the numbers come from, as the recorded run's heading states it (its date is the section's)."""
    date = re.search(r"\d{4}-\d{2}-\d{2}", text.split(SECTION, 1)[1].splitlines()[0])
    return f"{RESULTS} (bench_serving.py, 32 concurrent requests, 2 CPU cores{', ' + date.group(0) if date else ''})"


@lru_cache(maxsize=1)
def _recorded() -> tuple[dict[int, float], str]:
    path = course_root() / RESULTS
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PublishedError(f"{path}: cannot read the course's recorded benchmarks ({error})") from None
    return read_ratios(text, path), source_line(text)


def published_line(milestone: int) -> str:
    ratios, source = _recorded()
    return (f"the course's reference at milestone {milestone}: {ratios[milestone]:.2f}x the naive engine "
            f"with 32 requests in flight on 2 CPU cores ({source})")
