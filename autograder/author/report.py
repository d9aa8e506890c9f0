"""`autograder validate`'s report: one problem per line (check, task, case, what, fix) and the phases' times."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Problem:
    check: str
    task: str          # grade_id, or "-" for the lab as a whole
    case: str          # the case, answer or cell concerned, or "-"
    what: str
    fix: str

    def line(self, lab: str) -> str:
        return f"{lab} [{self.check}] {self.task} / {self.case}: {self.what}. Fix: {self.fix}"


@dataclass
class Report:
    lab: str
    problems: list[Problem] = field(default_factory=list)
    numbers: dict[str, float] = field(default_factory=dict)
    # tasks whose typed visible `expected` is not the reference's: students' checks and the grader judge
    # against it, so the solution fails them; the [spec] line is that problem's one line
    expected_off: set[str] = field(default_factory=set)

    def add(self, *args: str) -> None:
        self.problems.append(Problem(*args))

    def render(self) -> str:
        took = ", ".join(f"{k} {v:.1f} s" for k, v in self.numbers.items())
        lines = [p.line(self.lab) for p in self.problems]
        verdict = f"{len(self.problems)} problem(s)" if self.problems else "valid"
        return "\n".join([*lines, f"{self.lab}: {verdict} ({took})"])
