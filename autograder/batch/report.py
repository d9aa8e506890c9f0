"""What a batch run tells the instructor: the run's report, its progress bar and the summary table."""
from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field

from autograder.record.store import Row


@dataclass
class BatchReport:
    lab_id: str
    graded: list[Row] = field(default_factory=list)     # rows written in this run
    skipped: int = 0                                     # already in the store (resume)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (student, grader-side error): left pending
    unpublished: list[tuple[str, str]] = field(default_factory=list)  # (student, error): stored, not yet shown

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.graded if r.status == "failed"]


class Progress:
    """tqdm on stderr when available; otherwise a line every 10%."""

    def __init__(self, total: int, label: str, enabled: bool):
        self.total, self.done, self.bar = total, 0, None
        self.enabled = enabled and total > 0
        if self.enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=label, unit="nb", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                pass
        self.label = label

    def update(self, note: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(1)
        elif self.done == self.total or self.done % max(1, self.total // 10) == 0:
            print(f"{self.label}: {self.done}/{self.total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sandbox_line(isolate: bool, rows: list[Row], euid: int | None = None) -> str:
    """Where the submissions ran (sandbox/child.py's modes), and any that ran with a protection missing
    (the `sandbox:` flags the child raised), so the instructor knows without reading every flag."""
    import os

    if not isolate:
        return "sandbox: OFF (--unconfined): student code ran with your own permissions"
    root = (os.geteuid() if euid is None else euid) == 0
    where = ("sandboxed as root: own namespaces, an allowlist root, an unprivileged uid" if root else
             "sandboxed in a user namespace of its own: an allowlist root, no network, no capabilities")
    short = [r.student_id for r in rows if any(str(f).startswith("sandbox:") for f in r.result.get("flags", []))]
    return where + (f"; {len(short)} with a protection missing (their `sandbox:` flags): {', '.join(short[:10])}"
                    + (" ..." if len(short) > 10 else "") if short else "; every protection in place")


def summary_table(report: BatchReport, rows: list[Row]) -> str:
    """Counts, score statistics and every failure with its reason (rows: the lab's current rows)."""
    from autograder.record.tables import table

    graded = [r for r in rows if r.status == "graded"]
    failed = [r for r in rows if r.status == "failed"]
    flagged = [r for r in rows if r.result.get("flags")]
    lines = [f"{report.lab_id}: graded now {len(report.graded)}, already graded {report.skipped}; "
             f"total {len(rows)} ({len(graded)} graded, {len(failed)} failed, {len(flagged)} flagged)"]
    for student, error in report.errors:
        lines.append(f"GRADER ERROR for {student} (left pending; fix and rerun `autograder grade`): {error}")
    for student, error in report.unpublished:
        lines.append(f"NOT PUBLISHED for {student} (graded and stored; the next run retries): {error}")
    if rows:
        scores = sorted(r.score for r in rows)
        top = rows[0].max_score
        mean = sum(scores) / len(scores)
        lines.append(f"score out of {top:g}: mean {mean:.2f}, median {statistics.median(scores):g}, "
                     f"min {scores[0]:g}, max {scores[-1]:g}")
        # Long batches list only what needs the instructor's eye; `autograder status` lists everyone.
        shown = rows if len(rows) <= 40 else [r for r in rows if r.status == "failed" or r.result.get("flags")]
        body = [[r.student_id, r.status, f"{r.score:g}/{r.max_score:g}",
                 r.reason or "", "; ".join(r.result.get("flags", []))] for r in shown]   # whole: a cut flag hides its cause
        if body:
            lines.append(table(["student", "status", "score", "reason", "flags"], body))
    return "\n".join(lines)
