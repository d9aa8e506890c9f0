"""What grading a submission produces: a result per task and one for the submission (stored as JSON in the
results store; `speed` holds the grader's own timings of a lab that grades speed, judge/speed.py)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class TaskResult:
    grade_id: str
    points: float
    max_points: float
    passed: bool
    message: str


@dataclass
class SubmissionResult:
    student_id: str
    lab_id: str
    status: str                   # "graded" | "failed"
    reason: str | None
    tasks: list[TaskResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0
    speed: dict = field(default_factory=dict)   # grade_id -> the grader's own timing (autograder/judge/speed.py)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "SubmissionResult":
        data = dict(d)
        data["tasks"] = [TaskResult(**t) for t in data.get("tasks", [])]
        return cls(**data)
