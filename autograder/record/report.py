"""Per-lab report: score distribution, per-task results, failure reasons, flags and item analytics.

Item analytics (classical test theory, on graded submissions):
- difficulty p: mean fraction of the task's points earned (1.0: everyone passed);
- discrimination: the corrected item-total correlation, Pearson r between a task's score and the
  rest of the lab's score (total minus the task); near 0 or negative flags a task that does not
  separate stronger from weaker submissions (or a broken test). Undefined when either side is
  constant, reported as "n/a".
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autograder.course import Course
from autograder.record.status import current
from autograder.record.store import Row, Store
from autograder.record.tables import table


@dataclass(frozen=True)
class ItemStats:
    grade_id: str
    points: float
    n: int
    difficulty: float
    discrimination: float | None


def discrimination(xs: list[float], ys: list[float]) -> float | None:
    """Pearson r of item scores with rest scores (the corrected item-total correlation; for 0/1 items
    the point-biserial); None below 3 students, where any two points correlate perfectly, or without
    spread. The one discrimination statistic: lab tests here, quiz items in quiz/analytics.py."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def item_stats(rows: list[Row], tasks: list[tuple[str, float]]) -> list[ItemStats]:
    graded = [r for r in rows if r.status == "graded"]
    stats = []
    for grade_id, points in tasks:
        item, rest = [], []
        for r in graded:
            got = {t["grade_id"]: t["points"] for t in r.result["tasks"]}.get(grade_id, 0.0)
            item.append(got / points if points else 0.0)
            rest.append(r.score - got)
        difficulty = sum(item) / len(item) if item else float("nan")
        stats.append(ItemStats(grade_id, points, len(item), difficulty, discrimination(item, rest)))
    return stats


def histogram(values: list[float], top: float, bins: int = 10, width: int = 40) -> str:
    """Text histogram of scores in [0, top]."""
    if not values:
        return "(no scores)"
    edges = [top * i / bins for i in range(bins + 1)]
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v / top * bins)) if top else 0] += 1
    peak = max(counts)
    lines = []
    for i, c in enumerate(counts):
        bar = "#" * (round(c / peak * width) if peak else 0)
        closing = "]" if i == bins - 1 else ")"
        lines.append(f"[{edges[i]:6.2f}, {edges[i + 1]:6.2f}{closing} {c:4d} {bar}")
    return "\n".join(lines)


def report_lab(course: Course, lab_id: str, png: bool = True) -> tuple[str, Path | None]:
    spec = course.spec(lab_id)
    with Store(course.results_db) as store:
        entries = current(course, store, lab_id)
    rows = [e.row for e in entries if e.row is not None]
    pending = sum(1 for e in entries if e.row is None)
    graded = [r for r in rows if r.status == "graded"]
    failed = [r for r in rows if r.status == "failed"]
    tasks = [(t.grade_id, float(t.points)) for t in spec.tasks]
    out = [f"== {lab_id}: {len(entries)} submissions, {len(graded)} graded, {len(failed)} failed, {pending} pending",
           f"score distribution (out of {spec.total_points:g}; failed submissions count as 0):",
           histogram([r.score for r in rows], spec.total_points)]
    stats = item_stats(rows, tasks)
    body = []
    for s in stats:
        disc = "n/a" if s.discrimination is None else f"{s.discrimination:+.2f}"
        passed = sum(1 for r in graded for t in r.result["tasks"] if t["grade_id"] == s.grade_id and t["passed"])
        body.append([s.grade_id, f"{s.points:g}", f"{passed}/{s.n}",
                     "n/a" if math.isnan(s.difficulty) else f"{s.difficulty:.2f}", disc])
    out += ["per test (graded submissions):",
            table(["test", "points", "passed", "difficulty p", "discrimination r"], body)]
    reasons = Counter(_reason_kind(r.reason) for r in failed)
    out.append("failure reasons:" + ("" if reasons else " none"))
    out += [f"  {n:4d}  {reason}" for reason, n in reasons.most_common()]
    messages = Counter(t["message"].splitlines()[0] for r in graded for t in r.result["tasks"]
                       if not t["passed"] and t.get("message"))
    if messages:
        out.append("most common test failures:")
        out += [f"  {n:4d}  {m[:100]}" for m, n in messages.most_common(8)]
    flags = Counter(f for r in rows for f in r.result.get("flags", []))
    out.append("flags:" + ("" if flags else " none"))
    out += [f"  {n:4d}  {flag}" for flag, n in flags.most_common()]
    path = _figure(course, lab_id, rows, stats, spec.total_points) if png and rows else None
    if path:
        out.append(f"figure: {path}")
    return "\n".join(out), path


def _reason_kind(reason: str | None) -> str:
    """Group reasons by their kind (the text before the first colon) so counts are meaningful."""
    return (reason or "unknown").split(":")[0].strip()


def _figure(course: Course, lab_id: str, rows: list[Row], stats: list[ItemStats], top: float) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    left.hist([r.score for r in rows], bins=10, range=(0, top or 1), color="#4c72b0", edgecolor="white")
    left.set(title=f"{lab_id}: scores", xlabel=f"score (out of {top:g})", ylabel="submissions")
    names = [s.grade_id for s in stats]
    right.barh(names, [0 if math.isnan(s.difficulty) else s.difficulty for s in stats], color="#55a868")
    right.set(title="per test: mean fraction of points", xlim=(0, 1))
    right.invert_yaxis()
    fig.tight_layout()
    course.reports.mkdir(parents=True, exist_ok=True)
    path = course.reports / f"{lab_id}.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
