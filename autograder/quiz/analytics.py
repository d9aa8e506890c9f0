"""Item analytics over graded submissions: difficulty, discrimination, option choices, flags.

Input is one record per (student, item): {"student", "item", "correct", "choice": [labels]} (see
graded_responses). Discrimination is the corrected point-biserial correlation: item score against
the student's score on the *other* items they answered, so an item is not correlated with itself
(Crocker & Algina 1986, Introduction to Classical and Modern Test Theory, ch. 14). It is the same
statistic `autograder report` gives a lab's tests (report.discrimination). Module-test students see
different items, so the rest-score is a fraction of the items each student saw.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import Course
from autograder.record.report import discrimination
from autograder.record.status import current
from autograder.record.store import Store
from autograder.quiz.answers import AnswersError, read_answers
from autograder.quiz.assignment import student_questions
from autograder.quiz_spec import quiz_spec
from autograder.quiz.scoring import choice_label, score_answer


@dataclass
class ItemStats:
    item: str
    n: int
    p_correct: float
    discrimination: float | None            # None when it cannot be computed (n < 3 or no spread)
    choices: Counter = field(default_factory=Counter)
    flags: list[str] = field(default_factory=list)


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
        disc = discrimination(xs, ys)
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


def graded_responses(course: Course, assignment: str, secret: bytes) -> list[dict]:
    """One record per (student, question) of the current graded submissions: item id, correct, choice."""
    spec = quiz_spec(course, assignment)
    with Store(course.results_db) as store:
        graded = [e for e in current(course, store, assignment) if e.state == "graded"]
    records = []
    for entry in graded:
        try:
            answers = read_answers(course.submitted / entry.student_id / assignment / spec.notebook, course.submitted)
        except AnswersError:
            continue                    # changed since it was graded: pending again, not counted
        for n, q in enumerate(student_questions(spec.bank, entry.student_id, secret.decode(), spec.banks), 1):
            correct, response, _ = score_answer(q, answers.get(n))
            records.append({"student": entry.student_id, "slot": n, "item": q.id, "type": q.type,
                            "correct": correct, "choice": choice_label(q, response, answers.get(n))})
    return records
