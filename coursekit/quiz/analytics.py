"""Item analytics over graded submissions: difficulty, discrimination, option choices, flags.

Input is one record per (student, item): {"student", "item", "correct", "choice": [labels]} (see
graded.graded_responses). Discrimination is the corrected point-biserial correlation: item score
against the student's score on the *other* items they answered, so an item is not correlated with
itself (Crocker & Algina 1986, Introduction to Classical and Modern Test Theory, ch. 14). Module-test
students see different items, so the rest-score is a fraction of the items each student saw.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ItemStats:
    item: str
    n: int
    p_correct: float
    discrimination: float | None            # None when it cannot be computed (n < 3 or no spread)
    choices: Counter = field(default_factory=Counter)
    flags: list[str] = field(default_factory=list)


def point_biserial(xs: list[float], ys: list[float]) -> float | None:
    """Pearson correlation of a 0/1 item score with a continuous criterion; None without spread."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def item_stats(records: list[dict]) -> list[ItemStats]:
    """Per item: proportion correct, discrimination, choice counts and flags."""
    by_student: dict[str, list[dict]] = defaultdict(list)
    by_item: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_student[r["student"]].append(r)
        by_item[r["item"]].append(r)
    stats = []
    for item, rows in sorted(by_item.items()):
        xs, ys = [], []
        for r in rows:
            others = [o for o in by_student[r["student"]] if o["item"] != item]
            if others:
                xs.append(float(r["correct"]))
                ys.append(sum(o["correct"] for o in others) / len(others))
        p = sum(r["correct"] for r in rows) / len(rows)
        disc = point_biserial(xs, ys)
        choices = Counter(label for r in rows for label in r.get("choice", []))
        flags = []
        if p == 1:
            flags.append("everyone right")
        elif p == 0:
            flags.append("everyone wrong")
        if disc is not None and disc < 0:
            flags.append("negative discrimination")
        stats.append(ItemStats(item, len(rows), p, disc, choices, flags))
    return stats


def report(stats: list[ItemStats], *, students: int | None = None) -> str:
    """A plain-text table, then each item's choice counts."""
    head = f"Item analytics: {len(stats)} items" + (f", {students} students" if students is not None else "")
    lines = [head, f"{'item':<32} {'n':>4} {'p correct':>9} {'discrim.':>8}  flags"]
    for s in stats:
        disc = "-" if s.discrimination is None else f"{s.discrimination:+.2f}"
        lines.append(f"{s.item:<32} {s.n:>4} {s.p_correct:>9.2f} {disc:>8}  {', '.join(s.flags)}")
    lines.append("")
    lines.append("Choices (how many students picked each):")
    for s in stats:
        counts = "; ".join(f"{label[:50]!r}: {k}" for label, k in s.choices.most_common())
        lines.append(f"  {s.item}: {counts}")
    return "\n".join(lines)


def plot(stats: list[ItemStats], path: Path | str) -> Path:
    """Bar chart of proportion correct per item, coloured by discrimination; flagged items marked."""
    from matplotlib.figure import Figure  # no pyplot: works headless and never touches a GUI backend

    fig = Figure(figsize=(max(6, 0.6 * len(stats) + 2), 6))
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    names = [s.item for s in stats]
    xs = range(len(stats))
    ax1.bar(xs, [s.p_correct for s in stats], color=["#c0392b" if s.flags else "#2e86c1" for s in stats])
    ax1.set_ylabel("proportion correct")
    ax1.set_ylim(0, 1.05)
    ax1.set_title("Item analytics (red: flagged)")
    disc = [s.discrimination if s.discrimination is not None else 0.0 for s in stats]
    ax2.bar(xs, disc, color=["#c0392b" if d < 0 else "#27ae60" for d in disc])
    ax2.axhline(0, color="black", linewidth=0.8)
    ax2.set_ylabel("discrimination (r_pb)")
    ax2.set_xticks(list(xs), names, rotation=60, ha="right", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path
